package dev.alkdev.operations.mcp;

import java.util.Objects;
import java.util.Optional;

/**
 * A {@code notifications/progress} a server sent for one tool call.
 *
 * @param operationId the operation called ({@code server.tool})
 * @param requestId the caller's {@code OperationContext.requestId()}
 * @param progress how far along, increasing
 * @param total the total, when the server knows it
 * @param message a human-readable note, when sent
 */
public record McpProgress(
    String operationId,
    String requestId,
    double progress,
    Optional<Double> total,
    Optional<String> message) {
  public McpProgress {
    Objects.requireNonNull(operationId, "operationId");
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(total, "total");
    Objects.requireNonNull(message, "message");
  }
}
