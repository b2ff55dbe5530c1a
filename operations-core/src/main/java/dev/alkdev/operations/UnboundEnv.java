package dev.alkdev.operations;

import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.internal.NamespaceView;
import dev.alkdev.operations.internal.flow.Subscriptions;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import tools.jackson.databind.JsonNode;

/** The env of a context that no registry bound: it has no operations. */
final class UnboundEnv implements OperationEnv {
  static final UnboundEnv INSTANCE = new UnboundEnv();

  private UnboundEnv() {}

  @Override
  public Set<String> namespaces() {
    return Set.of();
  }

  @Override
  public Namespace namespace(String namespace) {
    return new NamespaceView(this, namespace, Set::of);
  }

  @Override
  public CompletableFuture<ResponseEnvelope<JsonNode>> call(String operationId, Object input) {
    return CompletableFuture.failedFuture(notBound(operationId));
  }

  @Override
  public Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(String operationId, Object input) {
    return Subscriptions.failed(notBound(operationId));
  }

  private static CallError notBound(String operationId) {
    return CallError.of(
        ErrorCode.OPERATION_NOT_FOUND,
        "Cannot call "
            + operationId
            + ": this context is not bound to a registry (use the context a handler receives)");
  }
}
