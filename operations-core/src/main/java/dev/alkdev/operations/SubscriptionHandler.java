package dev.alkdev.operations;

import java.util.concurrent.Flow;
import tools.jackson.databind.JsonNode;

/**
 * Runs a SUBSCRIPTION: returns a publisher of items (plain values or envelopes; each is wrapped in
 * its own envelope). The publisher must honour demand; cancelling the subscription must release
 * what it holds (the seeds' {@code finally} / {@code generator.return()}); an error ends the stream
 * with that error.
 */
@FunctionalInterface
public interface SubscriptionHandler {
  Flow.Publisher<?> subscribe(JsonNode input, OperationContext context) throws Exception;
}
