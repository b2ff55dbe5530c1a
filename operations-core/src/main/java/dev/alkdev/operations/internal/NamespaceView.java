package dev.alkdev.operations.internal;

import dev.alkdev.operations.OperationEnv;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;

/** One namespace of an {@link OperationEnv}: its names, and calls by name through the env. */
public record NamespaceView(OperationEnv env, String name, Supplier<Set<String>> listed)
    implements OperationEnv.Namespace {
  @Override
  public Set<String> names() {
    return listed.get();
  }

  @Override
  public CompletableFuture<ResponseEnvelope<JsonNode>> call(String operation, Object input) {
    return env.call(name + "." + operation, input);
  }

  @Override
  public Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(String operation, Object input) {
    return env.subscribe(name + "." + operation, input);
  }
}
