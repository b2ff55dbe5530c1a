package dev.alkdev.operations;

import java.util.Optional;

/**
 * Cross-cutting behaviour around every call a registry runs: metrics, tracing, logging, limits.
 * Registered on the registry's builder ({@code OperationRegistry.builder().interceptor(...)}), an
 * interceptor sees every {@code execute} and {@code subscribe} (unary calls and streams alike), the
 * nested calls a handler makes through {@link OperationContext#env()}, and every call served
 * through the serving pipeline ({@code dev.alkdev.operations.serving.OperationServer}), including
 * the calls the pipeline refuses before any handler runs (unknown operation, access, capacity).
 *
 * <p>An interceptor must call {@link Chain#proceed} exactly once before it returns, or throw a
 * {@link CallError} to refuse the call (before proceeding). To change what runs after it, it
 * proceeds with a derived context ({@link OperationContext#withAttribute}, {@link
 * OperationContext#withMetadata}); to see how the call ends, it proceeds with a {@link
 * CallObserver}. Breaking the rule (returning without proceeding, proceeding twice) is a bug of the
 * interceptor: the call fails with EXECUTION_ERROR and an {@link IllegalStateException} that names
 * the interceptor is logged, or thrown from the second {@code proceed}.
 *
 * <pre>{@code
 * OperationInterceptor timing = (invocation, chain) -> {
 *   long start = System.nanoTime();
 *   chain.proceed(invocation.context(), new CallObserver() {
 *     public void onEnd(Optional<CallError> failure) {
 *       record(invocation.operationId(), failure.map(CallError::code), System.nanoTime() - start);
 *     }
 *   });
 * };
 * }</pre>
 *
 * <p>Interceptors run in the order they were registered (the first is outermost), on the thread
 * that starts the call; they must not block. A registry without interceptors pays nothing for them.
 */
@FunctionalInterface
public interface OperationInterceptor {

  /** Runs around one call: calls {@code chain.proceed} once, or throws a CallError to refuse. */
  void intercept(Invocation invocation, Chain chain);

  /** The call being intercepted. */
  interface Invocation {
    /** The operation asked for, as the caller wrote it. */
    String operationId();

    /** Its spec; empty when no operation has that id (the call will fail OPERATION_NOT_FOUND). */
    Optional<OperationSpec> spec();

    /**
     * The call's context as it reaches this interceptor (an outer interceptor may have derived it):
     * request id, parent, identity, deadline, metadata (incoming trace context), attributes.
     */
    OperationContext context();

    /** Where the call comes from. */
    Origin origin();

    /** Whether the caller consumes a stream ({@code subscribe}, or a served stream request). */
    boolean stream();
  }

  /** Where a call comes from. */
  enum Origin {
    /**
     * {@code execute} or {@code subscribe} on the registry, in this process: a program's own call
     * or a handler's nested call (its context has a parent request id).
     */
    IN_PROCESS,
    /**
     * Served through the serving pipeline for a caller elsewhere (the call protocol, and later HTTP
     * and MCP servers): the server side of a remote call.
     */
    SERVED
  }

  /** The rest of the chain, then the call itself. */
  interface Chain {
    /**
     * Runs the rest of the chain and then the call, with {@code context} (the invocation's, or one
     * derived from it: same request id and cancellation).
     *
     * @throws IllegalStateException if this chain step proceeded before
     */
    void proceed(OperationContext context);

    /**
     * {@link #proceed(OperationContext)}, and tells {@code observer} how the call goes: its stream
     * items and exactly one end.
     */
    void proceed(OperationContext context, CallObserver observer);
  }
}
