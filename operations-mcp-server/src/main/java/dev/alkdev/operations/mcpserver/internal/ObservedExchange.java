package dev.alkdev.operations.mcpserver.internal;

import tools.jackson.databind.node.ObjectNode;

/** An exchange that tells its request's observation how the request ended. */
final class ObservedExchange implements Exchange {
  private final Exchange transport;
  private final RequestObserver.Observation observation;

  ObservedExchange(Exchange transport, RequestObserver.Observation observation) {
    this.transport = transport;
    this.observation = observation;
  }

  @Override
  public void notify(ObjectNode notification) {
    transport.notify(notification);
  }

  @Override
  public void reply(ObjectNode response) {
    transport.reply(response);
    observation.end(response);
  }

  @Override
  public void cancelled() {
    transport.cancelled();
    observation.cancelled();
  }

  @Override
  public boolean refuseInsufficientScope(String message, java.util.Set<String> scopes) {
    boolean refused = transport.refuseInsufficientScope(message, scopes);
    if (refused) {
      observation.end(Json.error(null, Json.ACCESS_DENIED, message, null));
    }
    return refused;
  }

  @Override
  public void onBroken(Runnable action) {
    transport.onBroken(action);
  }
}
