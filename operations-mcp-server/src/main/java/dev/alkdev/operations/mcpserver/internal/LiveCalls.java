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
