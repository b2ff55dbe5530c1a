package dev.alkdev.operations;

import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.internal.DefaultOperationRegistry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Flow;
import tools.jackson.databind.JsonNode;

/**
 * Holds operation specs and their handlers, and runs them: {@link #execute} for queries and
 * mutations, {@link #subscribe} for subscriptions. Every result comes back as a {@link
 * ResponseEnvelope}; a raw handler value is wrapped in a local envelope, and the envelope's data is
 * cast to the spec's output schema and checked against it (a mismatch is logged, never thrown).
 *
 * <p>{@code execute} and {@code subscribe} are trusted, in-process entry points: they validate
 * input but do not check access control (the serving pipeline, {@code
 * dev.alkdev.operations.serving.OperationServer}, does for calls from elsewhere, with the identity
 * its transport authenticated). Use {@link AccessControl#check} to check by hand.
 *
 * <p>Interceptors registered on the {@link Builder} run around every {@code execute} and {@code
 * subscribe}, including the nested calls handlers make through their context's env.
 *
 * <p>Thread-safe. Close the registry to stop the threads it created for blocking handlers.
 */
public interface OperationRegistry extends OperationCaller, AutoCloseable {

  /** A registry with default settings (see {@link Builder}). */
  static OperationRegistry create() {
    return builder().build();
  }

  static Builder builder() {
    return new Builder();
  }

  /** Registers a spec with a blocking handler. */
  default void register(OperationSpec spec, OperationHandler handler) {
    register(spec, Handler.blocking(handler));
  }

  /**
   * Registers a spec with its handler.
   *
   * @throws IllegalArgumentException if the id is taken or the handler cannot serve the spec's type
   */
  void register(OperationSpec spec, Handler handler);

  /**
   * Registers a definition's spec and handler, as {@link #register(OperationSpec, Handler)} does.
   *
   * @throws IllegalArgumentException if the id is taken
   */
  default void register(OperationDefinition definition) {
    Objects.requireNonNull(definition, "definition");
    register(definition.spec(), definition.handler());
  }

  /**
   * Registers each definition in turn (what {@code AnnotatedOperations.of} and {@code
   * OperationScanner.scanProviders} return). Not atomic: if one fails, the ones registered before
   * it stay registered and the rest are not registered; the exception names the one that failed.
   *
   * @throws IllegalArgumentException if an id is taken (by the registry or earlier in the list)
   */
  default void registerAll(Collection<OperationDefinition> definitions) {
    Objects.requireNonNull(definitions, "definitions");
    for (OperationDefinition definition : definitions) {
      register(definition);
    }
  }

  /**
   * Registers {@code implementation} as the operations of {@code contract}: an interface (or class)
   * whose {@link dev.alkdev.operations.annotation.Operation}-annotated methods are the operations,
   * with schemas from their Java types, as {@link
   * dev.alkdev.operations.annotation.AnnotatedOperations#implement} describes. The same interface
   * gives typed clients ({@code dev.alkdev.operations.typed.TypedClient}) on every transport.
   *
   * @throws IllegalArgumentException if the contract's methods do not fit, or an id is taken
   */
  default <T> void implement(Class<T> contract, T implementation) {
    registerAll(
        dev.alkdev.operations.annotation.AnnotatedOperations.implement(contract, implementation));
  }

  /** Registers a spec whose handler comes later through {@link #registerHandler}. */
  void registerSpec(OperationSpec spec);

  /** Registers the blocking handler of a spec registered before or after. */
  default void registerHandler(String operationId, OperationHandler handler) {
    registerHandler(operationId, Handler.blocking(handler));
  }

  /** Registers the handler of a spec registered before or after. */
  void registerHandler(String operationId, Handler handler);

  /** Removes an operation's spec and handler; returns whether there was one. */
  boolean unregister(String operationId);

  Optional<OperationSpec> getSpec(String operationId);

  /** {@link #getSpec}, as an {@link OperationCaller}. */
  @Override
  default Optional<OperationSpec> spec(String operationId) {
    return getSpec(operationId);
  }

  Optional<Handler> getHandler(String operationId);

  /** Every spec, sorted by id. */
  List<OperationSpec> list();

  /** The specs of one namespace, sorted by id. */
  List<OperationSpec> list(String namespace);

  /** The specs {@code identity} may call (it holds every required scope), sorted by id. */
  List<OperationSpec> listCallableBy(Identity identity);

  /**
   * Runs a QUERY or MUTATION. The future fails with a {@link CallError}: OPERATION_NOT_FOUND,
   * INVALID_INPUT (every schema error listed), EXECUTION_ERROR (the handler failed; its exception
   * is the cause, never sent anywhere), DEADLINE_EXCEEDED or CANCELLED (the handler's context is
   * cancelled and a blocking handler's thread interrupted), RESOURCE_EXHAUSTED.
   *
   * @param input a {@link JsonNode}, or anything Jackson converts to one (a record, a map)
   */
  CompletableFuture<ResponseEnvelope<JsonNode>> execute(
      String operationId, Object input, OperationContext context);

  /** {@link #execute(String, Object, OperationContext)}, as an {@link OperationCaller}. */
  @Override
  default CompletableFuture<ResponseEnvelope<JsonNode>> call(
      String operationId, Object input, OperationContext context) {
    return execute(operationId, input, context);
  }

  /** {@link #execute(String, Object, OperationContext)} with a fresh context. */
  default CompletableFuture<ResponseEnvelope<JsonNode>> execute(String operationId, Object input) {
    return execute(operationId, input, OperationContext.create());
  }

  /**
   * Subscribes to a SUBSCRIPTION: one envelope per item (a fresh local envelope per raw item;
   * envelopes pass through). The publisher fails its subscriber with a {@link CallError} for the
   * same reasons as {@link #execute}; cancelling the subscription releases the handler.
   */
  @Override
  Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(
      String operationId, Object input, OperationContext context);

  /** {@link #subscribe(String, Object, OperationContext)} with a fresh context. */
  default Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(String operationId, Object input) {
    return subscribe(operationId, input, OperationContext.create());
  }

  /**
   * Tells {@code listener} whenever an operation becomes callable (its spec and handler are both
   * registered) or stops being callable (unregistered). Listeners run on the registering thread,
   * after the change; one that throws is logged and does not stop the others.
   */
  Registration addListener(Listener listener);

  /** Hears about operations that become callable or go away; see {@link #addListener}. */
  interface Listener {
    void added(OperationSpec spec);

    void removed(OperationSpec spec);
  }

  /** The seeds' {@code buildEnv}: every operation as namespace, then name, then call. */
  OperationEnv buildEnv(OperationContext context);

  /** Stops the handler threads this registry created; running calls are interrupted. */
  @Override
  void close();

  /** Configures an {@link OperationRegistry}. */
  final class Builder {
    private ExecutorService executor;
    private final List<OperationInterceptor> interceptors = new ArrayList<>();

    private Builder() {}

    /**
     * Adds an interceptor around every call the registry runs (and every call served from it); the
     * first added is outermost. See {@link OperationInterceptor}.
     */
    public Builder interceptor(OperationInterceptor interceptor) {
      interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
      return this;
    }

    /**
     * Where blocking handlers and emitter subscriptions run. By default a virtual thread per call
     * on JDK 21 and later, else two elastic pools of platform threads, one for blocking unary
     * handlers and one for emitters, so that open streams never take the threads unary calls need
     * (D91). Given an executor, both run on it: a fixed pool then makes blocking calls wait behind
     * streams. A registry does not shut down an executor it was given.
     */
    public Builder executor(ExecutorService executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    public OperationRegistry build() {
      return new DefaultOperationRegistry(executor, List.copyOf(interceptors));
    }
  }
}
