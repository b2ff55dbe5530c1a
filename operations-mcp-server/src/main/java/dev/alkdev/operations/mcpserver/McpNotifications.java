package dev.alkdev.operations.mcpserver;

import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.mcpserver.internal.LiveCalls;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.StringNode;

/**
 * What a handler served over MCP can tell the client while it runs. Core has no log channel for
 * handlers, so these find the MCP call by the context's request id; a handler called any other way
 * (locally, over NATS) gets {@code false} and nothing is sent, so handlers may call these
 * unconditionally.
 */
public final class McpNotifications {
  private McpNotifications() {}

  /**
   * Sends a {@code notifications/message} on the call's stream when the client's log level lets
   * {@code level} through: a 2025 session's level (info unless the client set one), or a 2026-07-28
   * request's own {@code logLevel} (nothing is sent for a request without one).
   *
   * @return whether the call is being served over MCP (the message may still be filtered out)
   */
  public static boolean log(
      OperationContext context, McpLogLevel level, String logger, JsonNode data) {
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(level, "level");
    Objects.requireNonNull(logger, "logger");
    Objects.requireNonNull(data, "data");
    return LiveCalls.log(context.requestId(), level, logger, data);
  }

  /** {@link #log(OperationContext, McpLogLevel, String, JsonNode)} with a text message. */
  public static boolean log(OperationContext context, McpLogLevel level, String message) {
    Objects.requireNonNull(message, "message");
    return log(context, level, "operations", StringNode.valueOf(message));
  }
}
