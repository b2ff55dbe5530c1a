package dev.alkdev.operations;

import java.util.Objects;

/**
 * A spec together with its handler: what adapters, annotated objects and providers produce, and
 * what {@link OperationRegistry#register(OperationSpec, Handler)} takes (the seeds' {@code
 * OperationSpec & { handler }}).
 */
public record OperationDefinition(OperationSpec spec, Handler handler) {
  public OperationDefinition {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(handler, "handler");
    if (!handler.kind().serves(spec.type())) {
      throw new IllegalArgumentException(
          "A " + handler.kind() + " handler cannot serve " + spec.id() + ", a " + spec.type());
    }
  }

  public String id() {
    return spec.id();
  }
}
