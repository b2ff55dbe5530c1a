package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.mcpserver.McpLogLevel;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;

/**
 * The MCP calls running in this JVM by request id, so {@code McpNotifications} can reach a call's
 * stream from inside its handler (core has no channel for that). Request ids are random per call,
 * so one map serves every server in the JVM.
 */
public final class LiveCalls {
  private static final ConcurrentHashMap<String, McpCall> CALLS = new ConcurrentHashMap<>();

  private LiveCalls() {}

  static void add(String requestId, McpCall call) {
    CALLS.put(requestId, call);
  }

  static void remove(String requestId, McpCall call) {
    CALLS.remove(requestId, call);
  }

  /** The requests a server may send a client during a call, and the capability each needs. */
  public static final java.util.Map<String, String> ASKABLE =
      java.util.Map.of(
          "elicitation/create", "elicitation",
          "sampling/createMessage", "sampling",
          "roots/list", "roots");

  /** Not API: {@code McpAsk.request}; empty when no MCP call has that request id. */
  public static java.util.Optional<java.util.concurrent.CompletableFuture<JsonNode>> ask(
      String requestId, String key, String method, tools.jackson.databind.node.ObjectNode params) {
    McpCall call = CALLS.get(requestId);
    return call == null
        ? java.util.Optional.empty()
        : java.util.Optional.of(call.ask(key, method, params));
  }

  /** Not API: {@code McpAsk.canAsk}. */
  public static boolean canAsk(String requestId, String method) {
    McpCall call = CALLS.get(requestId);
    return call != null && ASKABLE.containsKey(method) && call.canAsk(ASKABLE.get(method));
  }

  /** Not API: {@code McpNotifications.log}. */
  public static boolean log(String requestId, McpLogLevel level, String logger, JsonNode data) {
    McpCall call = CALLS.get(requestId);
    if (call == null) {
      return false;
    }
    call.log(level, logger, data);
    return true;
  }
}
