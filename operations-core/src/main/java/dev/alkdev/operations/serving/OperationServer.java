package dev.alkdev.operations.serving;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallObserver;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationInterceptor;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.internal.DefaultOperationRegistry;
import dev.alkdev.operations.internal.InterceptorChain;
import dev.alkdev.operations.internal.RateLimitedLog;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The serving pipeline: serves a registry's operations to callers elsewhere, whatever carries them.
 * Every adapter (the call protocol's {@code CallHandler}, an HTTP gateway, an MCP server) reads
 * requests its own way and hands them to {@link #serve}; the rules live here, once:
 *
 * <ol>
 *   <li>the interceptors (the registry's, then this server's own) run around all that follows, and
 *       see every served call, refusals included, as {@link OperationInterceptor.Origin#SERVED};
 *   <li>an operation with no spec is OPERATION_NOT_FOUND (with no handler, likewise);
 *   <li>access: an anonymous caller of an operation that needs scopes is UNAUTHENTICATED, an
 *       identified caller without every required scope is ACCESS_DENIED;
 *   <li>capacity, in two lanes: unary calls up to {@link Builder#maxConcurrentCalls} and streams
 *       (SUBSCRIPTIONs) up to {@link Builder#maxConcurrentStreams}, each lane divided into fair
 *       shares ({@link Builder#maxCallsPerIdentity}, {@link Builder#maxStreamsPerIdentity}) per
 *       caller: its identity, or for an anonymous caller the client its adapter names ({@link
 *       CallRequest#client()}). Beyond either, RESOURCE_EXHAUSTED at once (retryable, with details
 *       naming the limit), never a queue; a request id already running here is PROTOCOL_ERROR;
 *   <li>the context: the request's id, parent, identity, deadline and metadata, and a cancellation
 *       signal the {@link ServedCall} owns;
 *   <li>dispatch: QUERY and MUTATION to {@code execute}, SUBSCRIPTION to {@code subscribe} with the
 *       caller's demand; the registry validates the input and runs the result pipeline;
 *   <li>the outcome, to the adapter's {@link CallSink}.
 * </ol>
 *
 * <p>The two lanes are why streams cannot starve unary calls: however many streams are open (up to
 * their lane's capacity), unary calls still have every slot of theirs, and the registry runs
 * blocking handlers and emitters on separate executors (D91).
 *
 * <p>A unary operation served to a stream consumer is a stream of one item; a SUBSCRIPTION served
 * to a unary caller streams without bound (the caller decides when it has enough). Thread-safe.
 */
public final class OperationServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OperationServer.class);
  private static final RateLimitedLog SERVING_FAILED = RateLimitedLog.of(LOG);

  /** The unary calls a server runs at once unless told otherwise. */
  public static final int DEFAULT_MAX_CONCURRENT_CALLS = 10_000;

  /** The streams a server runs at once unless told otherwise. */
  public static final int DEFAULT_MAX_CONCURRENT_STREAMS = 10_000;

  /**
   * The share of each lane one caller may hold unless told otherwise: one eighth, so that at least
   * eight callers fit in a lane whatever the first one does.
   */
  public static final int DEFAULT_CALLER_SHARE_DIVISOR = 8;

  static final CallError SHUTTING_DOWN =
      CallError.of(ErrorCode.UNAVAILABLE, "The server is shutting down; try again");

  private final OperationRegistry registry;

  /** The registry's own entry points that skip its interceptors (they run here instead). */
  private final DefaultOperationRegistry direct;

  private final InterceptorChain interceptors;
  private final ConcurrencyLimit limit;
  private final ConcurrentHashMap<String, Served> running = new ConcurrentHashMap<>();
  private final LongAdder executionErrors = new LongAdder();

  /** Per-operation statistics, only for ids the registry knows: unknown ids cannot grow it. */
  private final ConcurrentHashMap<String, OperationCounters> counters = new ConcurrentHashMap<>();

  private final Instant startedAt = Instant.now();
  private final boolean keepsStatistics;
  private volatile boolean closed;
  private final AtomicBoolean shutDown = new AtomicBoolean();

  /** Notified when a call ends, so a drain sees the last one go. */
  private final Object drainLock = new Object();

  private OperationServer(Builder builder) {
    this.registry = builder.registry;
    this.keepsStatistics = builder.operationStatistics;
    this.direct = registry instanceof DefaultOperationRegistry d ? d : null;
    InterceptorChain registryChain = direct != null ? direct.interceptors() : InterceptorChain.NONE;
    this.interceptors = registryChain.then(List.copyOf(builder.interceptors));
    int callsPerCaller =
        builder.maxCallsPerIdentity > 0
            ? builder.maxCallsPerIdentity
            : share(builder.maxConcurrentCalls);
    int streamsPerCaller =
        builder.maxStreamsPerIdentity > 0
            ? builder.maxStreamsPerIdentity
            : share(builder.maxConcurrentStreams);
    this.limit =
        new ConcurrencyLimit(
            builder.maxConcurrentCalls,
            builder.maxConcurrentStreams,
            callsPerCaller,
            streamsPerCaller);
  }

  private static int share(int lane) {
    return Math.max(1, lane / DEFAULT_CALLER_SHARE_DIVISOR);
  }

  /** A server of {@code registry}'s operations with default limits. */
  public static OperationServer create(OperationRegistry registry) {
    return builder(registry).build();
  }

  public static Builder builder(OperationRegistry registry) {
    return new Builder(registry);
  }

  /** The registry whose operations this server serves. */
  public OperationRegistry registry() {
    return registry;
  }

  /**
   * Serves one call. The outcome reaches {@code sink}; a call refused at once (unknown operation,
   * access, capacity, closed) hears its error before this returns.
   *
   * @return the handle through which the adapter passes on demand and cancellation
   */
  public ServedCall serve(CallRequest request, CallSink sink) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(sink, "sink");
    Served call = new Served(this, request, sink);
    call.start();
    OperationContext context = contextOf(request, call);
    if (interceptors.isEmpty()) {
      admitAndDispatch(call, request, context, call);
    } else {
      interceptors.run(
          request.operationId(),
          registry.getSpec(request.operationId()),
          context,
          OperationInterceptor.Origin.SERVED,
          request.demand().isPresent(),
          (callContext, observer) -> admitAndDispatch(call, request, callContext, observer),
          call);
    }
    return call;
  }

  /** What the pipeline is doing now. */
  public ServingStats stats() {
    return new ServingStats(
        limit.calls(),
        limit.maxCalls(),
        limit.streams(),
        limit.maxStreams(),
        limit.activeCallers(),
        direct != null ? direct.handlersWaiting() : 0,
        limit.refusedServerFull(),
        limit.refusedCallerShare(),
        closed,
        executionErrors.sum());
  }

  /**
   * Each operation's statistics since this server started, sorted by id: the operations it has
   * served a call of, or runs one of now. An operation removed from the registry drops out once its
   * last call has ended.
   */
  public List<OperationStats> operationStats() {
    // Calls running, by operation: read from the running calls (at most maxConcurrentCalls)
    // rather than counted up and down on every call.
    Map<OperationCounters, Long> inFlight = new IdentityHashMap<>();
    for (Served call : running.values()) {
      if (call.counters != null) {
        inFlight.merge(call.counters, 1L, Long::sum);
      }
    }
    List<OperationStats> out = new ArrayList<>();
    for (OperationCounters c : counters.values()) {
      long runningNow = inFlight.getOrDefault(c, 0L);
      if (registry.getSpec(c.operationId).isEmpty() && runningNow == 0) {
        counters.remove(c.operationId, c);
        continue;
      }
      out.add(c.snapshot(runningNow));
    }
    out.sort(Comparator.comparing(OperationStats::operationId));
    return List.copyOf(out);
  }

  /** When this server was created: the start of its {@link #operationStats()}. */
  public Instant startedAt() {
    return startedAt;
  }

  /** The counters of a served call's operation; null when the registry does not know it. */
  OperationCounters countersFor(String operationId) {
    if (!keepsStatistics) {
      return null;
    }
    OperationCounters c = counters.get(operationId);
    if (c != null || registry.getSpec(operationId).isEmpty()) {
      return c;
    }
    return counters.computeIfAbsent(operationId, OperationCounters::new);
  }

  public boolean isClosed() {
    return closed;
  }

  /**
   * Stops serving: new calls are refused with UNAVAILABLE (retryable, so callers may try another
   * server), and every running call is cancelled and its sink told UNAVAILABLE "shutting down".
   * Idempotent.
   */
  @Override
  public void close() {
    closed = true;
    if (!shutDown.compareAndSet(false, true)) {
      return;
    }
    for (Served call : new ArrayList<>(running.values())) {
      call.shutDown(SHUTTING_DOWN);
    }
  }

  /**
   * Closes gracefully: new calls are refused at once with UNAVAILABLE (retryable, so callers try
   * another server), the running calls get up to {@code timeout} to finish, and then the server
   * {@link #close() closes}, cancelling what is left. Blocks until then.
   *
   * @return true if every running call finished within the timeout
   */
  public boolean drain(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    closed = true;
    long end = System.nanoTime() + timeout.toNanos();
    boolean drained;
    synchronized (drainLock) {
      long left;
      while (!running.isEmpty() && (left = end - System.nanoTime()) > 0) {
        try {
          drainLock.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      drained = running.isEmpty();
    }
    close();
    return drained;
  }

  // ------------------------------------------------------------------ the pipeline

  private static OperationContext contextOf(CallRequest request, Served call) {
    OperationContext.Builder context =
        OperationContext.builder()
            .requestId(request.requestId())
            .identity(request.identity())
            .metadata(request.metadata())
            .cancellation(call.cancellation);
    request.parentRequestId().ifPresent(context::parentRequestId);
    request.deadline().ifPresent(context::deadline);
    return context.build();
  }

  /** The checks, then the call; whatever happens is reported to {@code observer}, once. */
  private void admitAndDispatch(
      Served call, CallRequest request, OperationContext context, CallObserver observer) {
    String operationId = request.operationId();
    try {
      OperationSpec spec =
          registry
              .getSpec(operationId)
              .orElseThrow(
                  () ->
                      CallError.of(
                          ErrorCode.OPERATION_NOT_FOUND, "Operation not found: " + operationId));
      // The context's identity: the adapter's, unless an interceptor authenticated the caller.
      Identity identity = context.identity();
      checkAccess(spec, identity);
      admit(call, identity, request.client(), spec.type() == OperationType.SUBSCRIPTION);
      if (spec.type() == OperationType.SUBSCRIPTION) {
        long demand = request.demand().orElse(Long.MAX_VALUE);
        subscribe(spec.id(), request.input().orElseGet(spec::noInput), context)
            .subscribe(new StreamRelay(call, observer, demand));
      } else {
        execute(spec.id(), request.input().orElseGet(spec::noInput), context)
            .whenComplete(
                (envelope, error) -> {
                  if (error != null) {
                    observer.onEnd(Optional.of(DefaultOperationRegistry.asCallError(error)));
                  } else {
                    observer.onResult(envelope);
                    observer.onEnd(Optional.empty());
                  }
                });
      }
    } catch (CallError e) {
      observer.onEnd(Optional.of(e));
    } catch (RuntimeException e) {
      // A bug below us must not kill the adapter's delivery loop nor leave the caller waiting.
      SERVING_FAILED.error("Serving a request for {} failed", operationId, e);
      observer.onEnd(
          Optional.of(
              CallError.of(ErrorCode.EXECUTION_ERROR, "Operation " + operationId + " failed")));
    }
  }

  /** The access rule, in one place: who is UNAUTHENTICATED and who is ACCESS_DENIED. */
  private static void checkAccess(OperationSpec spec, Identity identity) {
    if (spec.accessControl().allows(identity)) {
      return;
    }
    if (identity.equals(Identity.anonymous())) {
      throw CallError.of(
          ErrorCode.UNAUTHENTICATED, "Operation " + spec.id() + " needs an authenticated caller");
    }
    spec.accessControl().check(identity, spec.id()); // throws ACCESS_DENIED naming the scopes
  }

  /** Takes a slot and registers the call as running, or throws why not. */
  private void admit(Served call, Identity identity, Optional<String> client, boolean stream) {
    if (closed) {
      throw SHUTTING_DOWN;
    }
    ConcurrencyLimit.Slot slot = limit.acquire(identity, client, stream);
    if (running.putIfAbsent(call.requestId(), call) != null) {
      limit.release(slot);
      throw CallError.of(ErrorCode.PROTOCOL_ERROR, "Request id " + call.requestId() + " is in use");
    }
    if (!call.admitted(slot)) {
      // Cancelled or shut down while being admitted: give everything back.
      running.remove(call.requestId(), call);
      limit.release(slot);
      throw call.cancelReason().orElse(SHUTTING_DOWN);
    }
    if (closed) {
      throw SHUTTING_DOWN; // close() swept the running calls before this one arrived
    }
  }

  /** Called by a call that ends with {@code failure}, once, whether it was admitted or not. */
  void ended(CallError failure) {
    if (failure.code() == ErrorCode.EXECUTION_ERROR) {
      executionErrors.increment();
    }
  }

  /** Called by a call as it ends, once, if it was admitted. */
  void release(Served call, ConcurrencyLimit.Slot slot) {
    running.remove(call.requestId(), call);
    limit.release(slot);
    if (closed && running.isEmpty()) {
      synchronized (drainLock) {
        drainLock.notifyAll();
      }
    }
  }

  private CompletableFuture<ResponseEnvelope<JsonNode>> execute(
      String operationId, JsonNode input, OperationContext context) {
    return direct != null
        ? direct.executeDirect(operationId, input, context)
        : registry.execute(operationId, input, context);
  }

  private Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(
      String operationId, JsonNode input, OperationContext context) {
    return direct != null
        ? direct.subscribeDirect(operationId, input, context)
        : registry.subscribe(operationId, input, context);
  }

  /** A served stream's signals, passed to the observer; its subscription goes to the call. */
  private static final class StreamRelay implements Flow.Subscriber<ResponseEnvelope<JsonNode>> {
    private final Served call;
    private final CallObserver observer;
    private final long initialDemand;

    StreamRelay(Served call, CallObserver observer, long initialDemand) {
      this.call = call;
      this.observer = observer;
      this.initialDemand = initialDemand;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      call.attach(subscription, initialDemand);
    }

    @Override
    public void onNext(ResponseEnvelope<JsonNode> item) {
      observer.onItem(item);
    }

    @Override
    public void onError(Throwable error) {
      observer.onEnd(Optional.of(DefaultOperationRegistry.asCallError(error)));
    }

    @Override
    public void onComplete() {
      observer.onEnd(Optional.empty());
    }
  }

  /** Configures an {@link OperationServer}. */
  public static final class Builder {
    private final OperationRegistry registry;
    private int maxConcurrentCalls = DEFAULT_MAX_CONCURRENT_CALLS;
    private int maxConcurrentStreams = DEFAULT_MAX_CONCURRENT_STREAMS;
    private int maxCallsPerIdentity; // 0: a share of maxConcurrentCalls
    private int maxStreamsPerIdentity; // 0: a share of maxConcurrentStreams
    private final List<OperationInterceptor> interceptors = new ArrayList<>();
    private boolean operationStatistics = true;

    private Builder(OperationRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
    }

    /**
     * Unary calls (QUERY and MUTATION) served at once; more are refused with RESOURCE_EXHAUSTED
     * (10,000 by default). Streams have a lane of their own ({@link #maxConcurrentStreams}).
     */
    public Builder maxConcurrentCalls(int max) {
      this.maxConcurrentCalls = positive("maxConcurrentCalls", max);
      return this;
    }

    /**
     * Streams (SUBSCRIPTIONs) served at once; more are refused with RESOURCE_EXHAUSTED (10,000 by
     * default). Streams last, so they have a lane of their own: however many are open, unary calls
     * keep all of {@link #maxConcurrentCalls}.
     */
    public Builder maxConcurrentStreams(int max) {
      this.maxConcurrentStreams = positive("maxConcurrentStreams", max);
      return this;
    }

    /**
     * Unary calls one caller may run at once; more are refused with RESOURCE_EXHAUSTED, so that one
     * client cannot take the whole server. By default one eighth of {@link #maxConcurrentCalls}
     * (1,250). A caller is its identity's subject; an anonymous caller is the client its adapter
     * names (the HTTP gateway and the MCP server: the remote address; the call protocol: the
     * caller's reply inbox), and anonymous callers an adapter cannot tell apart are one caller.
     */
    public Builder maxCallsPerIdentity(int max) {
      this.maxCallsPerIdentity = positive("maxCallsPerIdentity", max);
      return this;
    }

    /**
     * Streams one caller may run at once (by default one eighth of {@link #maxConcurrentStreams},
     * 1,250); callers are told apart as for {@link #maxCallsPerIdentity}.
     */
    public Builder maxStreamsPerIdentity(int max) {
      this.maxStreamsPerIdentity = positive("maxStreamsPerIdentity", max);
      return this;
    }

    private static int positive(String name, int value) {
      if (value <= 0) {
        throw new IllegalArgumentException(name + " must be positive, was " + value);
      }
      return value;
    }

    /**
     * Adds an interceptor for served calls only, inside the registry's own interceptors (which
     * served calls pass too); the first added is outermost.
     */
    public Builder interceptor(OperationInterceptor interceptor) {
      interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
      return this;
    }

    /**
     * Whether the server keeps {@link OperationServer#operationStats() per-operation statistics}
     * (on by default: a few adder increments per call, no allocation). Off, {@code
     * operationStats()} is empty and nodes report no operation; for a process whose metrics module
     * already counts every call.
     */
    public Builder operationStatistics(boolean keep) {
      this.operationStatistics = keep;
      return this;
    }

    public OperationServer build() {
      return new OperationServer(this);
    }
  }
}
