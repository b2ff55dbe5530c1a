package dev.alkdev.operations.internal;

import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationEnv;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import tools.jackson.databind.JsonNode;

/** {@link OperationEnv} over a registry: every call is a nested call of {@code parent}. */
final class RegistryEnv implements OperationEnv {
  private final OperationRegistry registry;
  private final OperationContext parent;

  RegistryEnv(OperationRegistry registry, OperationContext parent) {
    this.registry = registry;
    this.parent = parent;
  }

  @Override
  public Set<String> namespaces() {
    Set<String> namespaces = new TreeSet<>();
    for (OperationSpec spec : registry.list()) {
      namespaces.add(spec.namespace());
    }
    return namespaces;
  }

  @Override
  public Namespace namespace(String namespace) {
    return new NamespaceView(
        this,
        namespace,
        () -> {
          Set<String> names = new TreeSet<>();
          for (OperationSpec spec : registry.list(namespace)) {
            names.add(spec.name());
          }
          return names;
        });
  }

  @Override
  public CompletableFuture<ResponseEnvelope<JsonNode>> call(String operationId, Object input) {
    return registry.execute(operationId, input, parent.child());
  }

  @Override
  public Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(String operationId, Object input) {
    return registry.subscribe(operationId, input, parent.child());
  }
}
