package dev.alkdev.operations.mcp;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * One thing an MCP server asks for during a tool call.
 *
 * @param server the client's name for the server (its namespace)
 * @param tool the tool being called, by its name on the server; empty for a 2025 server's request,
 *     which names no call
 * @param method what is asked: {@code elicitation/create}, {@code sampling/createMessage} or {@code
 *     roots/list}
 * @param params the request's params as the server sent them
 */
public record McpInputRequest(String server, String tool, String method, JsonNode params) {
  public McpInputRequest {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(params, "params");
  }
}
