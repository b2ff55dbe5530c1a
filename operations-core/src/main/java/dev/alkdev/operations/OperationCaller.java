package dev.alkdev.operations;

import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import tools.jackson.databind.JsonNode;

/**
 * Anything that calls operations by id and knows their specs: an {@link OperationRegistry} (local
 * handlers, and the operations imported into it from OpenAPI documents, MCP servers or a remote
 * catalogue), a remote catalogue, a call protocol client. Typed clients ({@code
 * dev.alkdev.operations.typed.TypedClient}) call through one and check their interface against its
 * specs.
 *
 * <p>The context given is the context of the call itself: its identity, deadline, signal and
 * metadata, and, when the call is made for another one, that call as its parent ({@link
 * OperationContext#child()}).
 */
public interface OperationCaller {
  /** The spec of {@code operationId}, when this caller knows it. */
  Optional<OperationSpec> spec(String operationId);

  /**
   * Calls a QUERY or MUTATION; the future fails with a {@link CallError}.
   *
   * @param input a {@link JsonNode}, or anything Jackson converts to one (a record, a map)
   */
  CompletableFuture<ResponseEnvelope<JsonNode>> call(
      String operationId, Object input, OperationContext context);

  /** Subscribes to a SUBSCRIPTION; the publisher fails its subscriber with a {@link CallError}. */
  Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(
      String operationId, Object input, OperationContext context);
}
