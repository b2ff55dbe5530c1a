package dev.alkdev.operations.mcp;

import java.util.concurrent.CompletableFuture;
import tools.jackson.databind.JsonNode;

/**
 * Answers what an MCP server asks the client while a tool call runs (MCP 2026-07-28's
 * multi-round-trip requests): an {@code elicitation/create} (ask the user), a {@code
 * sampling/createMessage} (ask a model) or a {@code roots/list}. The answer is the request's result
 * object as MCP defines it, for example {@code {"action":"accept","content":{...}}} for an
 * elicitation. The call goes on when every request of a round is answered; a failed future fails
 * the call with its message. Without a handler, a call whose server asks for input fails with
 * EXECUTION_ERROR naming what was asked.
 */
@FunctionalInterface
public interface McpInputHandler {
  CompletableFuture<JsonNode> answer(McpInputRequest request);
}
