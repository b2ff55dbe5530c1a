package dev.alkdev.operations.mcpserver.internal;

import tools.jackson.databind.node.ObjectNode;

/**
 * A modern (2026-07-28) request's exchange: every result it answers carries {@code resultType} and
 * the server's identity, whichever part of the protocol built it.
 */
final class ModernExchange implements Exchange {
  private final Exchange transport;
  private final ObjectNode serverInfo;

  ModernExchange(Exchange transport, ObjectNode serverInfo) {
    this.transport = transport;
    this.serverInfo = serverInfo;
  }

  @Override
  public void notify(ObjectNode notification) {
    transport.notify(notification);
  }

  @Override
  public void reply(ObjectNode response) {
    transport.reply(Modern.complete(response, serverInfo));
  }

  @Override
  public void cancelled() {
    transport.cancelled();
  }

  @Override
  public boolean refuseInsufficientScope(String message, java.util.Set<String> scopes) {
    return transport.refuseInsufficientScope(message, scopes);
  }

  @Override
  public void onBroken(Runnable action) {
    transport.onBroken(action);
  }
}
