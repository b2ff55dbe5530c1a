package dev.alkdev.operations;

import java.util.Objects;

/**
 * Any of the handler kinds, as the registry stores it. Build one with the factory that names how
 * the handler runs; {@link OperationRegistry#register(OperationSpec, OperationHandler)} takes the
 * common blocking kind directly.
 */
public final class Handler {
  /** How a handler runs; decides which operation types it can serve. */
  public enum Kind {
    /** {@link OperationHandler}: QUERY or MUTATION, may block, runs on a handler thread. */
    BLOCKING,
    /** {@link AsyncOperationHandler}: QUERY or MUTATION, runs on the caller's thread. */
    ASYNC,
    /** {@link SubscriptionHandler}: SUBSCRIPTION, returns a publisher. */
    PUBLISHER,
    /** {@link EmitterSubscriptionHandler}: SUBSCRIPTION, blocking code on its own thread. */
    EMITTER;

    /** Whether a handler of this kind can serve operations of {@code type}. */
    public boolean serves(OperationType type) {
      return (type == OperationType.SUBSCRIPTION) == (this == PUBLISHER || this == EMITTER);
    }
  }

  private final Kind kind;
  private final Object function;

  private Handler(Kind kind, Object function) {
    this.kind = kind;
    this.function = Objects.requireNonNull(function, "handler");
  }

  /** A QUERY or MUTATION handler that may block. */
  public static Handler blocking(OperationHandler handler) {
    return new Handler(Kind.BLOCKING, handler);
  }

  /** A QUERY or MUTATION handler that returns a stage and never blocks. */
  public static Handler async(AsyncOperationHandler handler) {
    return new Handler(Kind.ASYNC, handler);
  }

  /** A SUBSCRIPTION handler that returns a publisher. */
  public static Handler publisher(SubscriptionHandler handler) {
    return new Handler(Kind.PUBLISHER, handler);
  }

  /** A SUBSCRIPTION handler written as blocking code that emits items. */
  public static Handler emitter(EmitterSubscriptionHandler handler) {
    return new Handler(Kind.EMITTER, handler);
  }

  public Kind kind() {
    return kind;
  }

  /** The handler function; its type follows from {@link #kind()}. */
  public Object function() {
    return function;
  }

  @Override
  public String toString() {
    return "Handler[" + kind + "]";
  }
}
