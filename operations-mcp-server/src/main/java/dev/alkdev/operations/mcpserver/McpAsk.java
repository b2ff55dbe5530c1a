package dev.alkdev.operations.mcpserver;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.mcpserver.internal.LiveCalls;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a handler served as an MCP tool may ask the client that called it, while the call runs: the
 * user (an elicitation), the client's model (a sampling request) or its roots. In a 2025 session
 * the request goes to the client on the call's stream; in 2026-07-28 the call answers with an
 * {@code InputRequiredResult} and goes on when the client sends it again with the answers (the
 * handler just waits on the future). The future completes with the client's result as MCP defines
 * it (for an elicitation, {@code {"action": "accept", "content": {...}}}).
 *
 * <p>It fails with a {@link CallError}: PROTOCOL_ERROR when the call is not served over MCP (a
 * local call, or over NATS: there is no client to ask) or when the client did not declare the
 * capability (the call is then refused with {@code -32021}, as 2026-07-28 says), EXECUTION_ERROR
 * when the client answered with an error. A handler that needs the answer should bound its wait by
 * its context's deadline, as for anything else.
 */
public final class McpAsk {
  private McpAsk() {}

  /**
   * Whether the client of this call declared it can answer {@code method}; false when the call is
   * not served over MCP. A handler that can do without an answer asks only what it may.
   */
  public static boolean canAsk(OperationContext context, String method) {
    Objects.requireNonNull(context, "context");
    return LiveCalls.canAsk(context.requestId(), Objects.requireNonNull(method, "method"));
  }

  /**
   * {@code elicitation/create}: asks the user for what {@code requestedSchema} describes.
   *
   * @param key names the request in a 2026-07-28 round ({@code inputRequests}), unique in the call
   */
  public static CompletableFuture<JsonNode> elicit(
      OperationContext context, String key, String message, JsonNode requestedSchema) {
    ObjectNode params = JsonNodeFactory.instance.objectNode();
    params.put("message", Objects.requireNonNull(message, "message"));
    params.set("requestedSchema", Objects.requireNonNull(requestedSchema, "requestedSchema"));
    return request(context, key, "elicitation/create", params);
  }

  /** {@code sampling/createMessage} with its params as MCP defines them (messages, maxTokens). */
  public static CompletableFuture<JsonNode> createMessage(
      OperationContext context, String key, ObjectNode params) {
    return request(context, key, "sampling/createMessage", params);
  }

  /** {@code roots/list}: the client's roots. */
  public static CompletableFuture<JsonNode> listRoots(OperationContext context, String key) {
    return request(context, key, "roots/list", JsonNodeFactory.instance.objectNode());
  }

  /**
   * Any request MCP lets a server send a client during a call: {@code elicitation/create}, {@code
   * sampling/createMessage} or {@code roots/list}. In 2026-07-28 an answer the request already
   * carries under {@code key} (in {@code inputResponses}) is used at once.
   */
  public static CompletableFuture<JsonNode> request(
      OperationContext context, String key, String method, ObjectNode params) {
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(params, "params");
    if (Objects.requireNonNull(key, "key").isBlank()) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("key is blank"));
    }
    if (!LiveCalls.ASKABLE.containsKey(Objects.requireNonNull(method, "method"))) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(
              "method must be elicitation/create, sampling/createMessage or roots/list, was "
                  + method));
    }
    return LiveCalls.ask(context.requestId(), key, method, params)
        .orElseGet(
            () ->
                CompletableFuture.failedFuture(
                    CallError.of(
                        ErrorCode.PROTOCOL_ERROR,
                        "Not an MCP call: there is no client to ask (" + method + ")")));
  }
}
