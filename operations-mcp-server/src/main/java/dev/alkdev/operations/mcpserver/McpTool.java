package dev.alkdev.operations.mcpserver;

import java.util.Objects;

/**
 * One operation as the server offers it: the MCP tool name and the operation behind it.
 *
 * @param name the tool's name (at most 64 characters, prefix included)
 * @param operationId the operation's id, also in the tool's {@code _meta}
 * @param shortened whether the name is not the prefixed id (too long, or it collided)
 */
public record McpTool(String name, String operationId, boolean shortened) {
  public McpTool {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(operationId, "operationId");
  }
}
