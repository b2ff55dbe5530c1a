package dev.alkdev.operations;

import tools.jackson.databind.JsonNode;

/**
 * Runs a QUERY or MUTATION and returns its result: a plain value (a record, a map, a string, a
 * {@link JsonNode}; converted through Jackson), a response envelope (passed through as it is), or
 * nothing ({@code null}, for a void operation). May block: the registry runs it on a virtual thread
 * where the JVM has them, else on a bounded pool, and interrupts it when the call is cancelled.
 */
@FunctionalInterface
public interface OperationHandler {
  Object handle(JsonNode input, OperationContext context) throws Exception;
}
