package dev.alkdev.operations.mcpserver.internal;

import tools.jackson.databind.node.ObjectNode;

/**
 * Where one JSON-RPC request's messages go: notifications about it (progress, log) and then its one
 * response. Implemented per transport: an HTTP POST answers as JSON or, once a notification comes
 * first, as an SSE stream; stdio writes lines. Thread-safe; calls after the response are ignored.
 */
interface Exchange {
  /** A notification about the request, before its response; dropped when it cannot be sent. */
  void notify(ObjectNode notification);

  /** The response; ends the exchange. */
  void reply(ObjectNode response);

  /**
   * The client cancelled the request: no response is owed (MCP), but a transport may need to end
   * the request's stream.
   */
  void cancelled();

  /**
   * Asks the transport to refuse the request itself (HTTP 403 with {@code insufficient_scope} and
   * the {@code scope} the operation requires, so a client can ask for a broader token). False when
   * it cannot (stdio, or already streaming).
   */
  default boolean refuseInsufficientScope(String message, java.util.Set<String> scopes) {
    return false;
  }

  /** Runs {@code action} once if the exchange breaks before its response (the client went away). */
  void onBroken(Runnable action);
}
