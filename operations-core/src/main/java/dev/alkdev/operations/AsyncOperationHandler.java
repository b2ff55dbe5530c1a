package dev.alkdev.operations;

import java.util.concurrent.CompletionStage;
import tools.jackson.databind.JsonNode;

/**
 * Runs a QUERY or MUTATION without blocking: it is called on the caller's thread and returns a
 * stage that completes with the result (anything an {@link OperationHandler} may return). It must
 * not block; it should stop its work when {@link OperationContext#cancellation()} fires.
 */
@FunctionalInterface
public interface AsyncOperationHandler {
  CompletionStage<?> handle(JsonNode input, OperationContext context);
}
