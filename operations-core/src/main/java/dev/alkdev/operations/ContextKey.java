package dev.alkdev.operations;

import java.util.Objects;

/**
 * The key of an attribute of an {@link OperationContext}: typed, so that reading an attribute needs
 * no cast, and compared by identity, so that two libraries that both name a key {@code "span"}
 * never read each other's. Hold keys in constants.
 *
 * <pre>{@code
 * static final ContextKey<Span> SPAN = ContextKey.of("otel.span");
 * ...
 * chain.proceed(invocation.context().withAttribute(SPAN, span));
 * ...
 * Optional<Span> span = context.attribute(SPAN);
 * }</pre>
 *
 * @param <T> the type of the attribute's value
 */
public final class ContextKey<T> {
  private final String name;

  private ContextKey(String name) {
    this.name = name;
  }

  /** A new key; {@code name} is for messages and {@code toString} only. */
  public static <T> ContextKey<T> of(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("a context key needs a name");
    }
    return new ContextKey<>(name);
  }

  public String name() {
    return name;
  }

  @Override
  public String toString() {
    return "ContextKey[" + name + "]";
  }
}
