package dev.alkdev.operations;

import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import tools.jackson.databind.JsonNode;

/**
 * The seeds' {@code OperationEnv} from {@code buildEnv}: every operation of a registry, reachable
 * as namespace, then name, then call. Each call made through an env is a nested call of the context
 * the env was built for: it gets a fresh request id with that request as its parent, the same
 * identity, the remaining deadline, and a signal that is cancelled with its parent's.
 *
 * <pre>{@code
 * ResponseEnvelope<JsonNode> total = env.namespace("billing").call("total", Map.of("id", 7)).join();
 * }</pre>
 */
public interface OperationEnv {
  /** The namespaces that have at least one operation. */
  Set<String> namespaces();

  /** The operations of one namespace; an unknown namespace has no operations. */
  Namespace namespace(String namespace);

  /** Calls a QUERY or MUTATION by id; the future fails with a {@link CallError}. */
  CompletableFuture<ResponseEnvelope<JsonNode>> call(String operationId, Object input);

  /** Subscribes to a SUBSCRIPTION by id. */
  Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(String operationId, Object input);

  /** One namespace of an {@link OperationEnv}. */
  interface Namespace {
    String name();

    /** The operation names in this namespace. */
    Set<String> names();

    CompletableFuture<ResponseEnvelope<JsonNode>> call(String name, Object input);

    Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(String name, Object input);
  }
}
