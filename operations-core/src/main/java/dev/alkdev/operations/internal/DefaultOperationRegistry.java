package dev.alkdev.operations.internal;

import dev.alkdev.operations.AsyncOperationHandler;
import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallObserver;
import dev.alkdev.operations.Cancellation;
import dev.alkdev.operations.EmitterSubscriptionHandler;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationEnv;
import dev.alkdev.operations.OperationHandler;
import dev.alkdev.operations.OperationInterceptor;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.SubscriptionHandler;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.internal.flow.EmitterPublisher;
import dev.alkdev.operations.internal.flow.GuardedPublisher;
import dev.alkdev.operations.internal.flow.ObservedSubscriber;
import dev.alkdev.operations.internal.flow.Subscriptions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;

/** The registry: a concurrent map of entries and the code that runs them. */
public final class DefaultOperationRegistry implements OperationRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(DefaultOperationRegistry.class);
  private static final Comparator<OperationSpec> BY_ID = Comparator.comparing(OperationSpec::id);

  /**
   * Why a finished call's signal is cancelled (so that calls it started end with it). Shared:
   * building an exception per call (its stack trace) would cost more than the rest of the call.
   */
  private static final CallError CALL_COMPLETED =
      CallError.builder(ErrorCode.CANCELLED, "The parent call has completed").build();

  private static final CallError STREAM_ENDED =
      CallError.builder(ErrorCode.CANCELLED, "The stream has ended").build();

  /**
   * A spec, its handler, or both; one of them may arrive before the other. {@code found} is {@code
   * spec} as getSpec answers it, made once: the interceptor chain asks for it on every call (D84).
   */
  private record Entry(OperationSpec spec, Handler handler, Optional<OperationSpec> found) {
    Entry(OperationSpec spec, Handler handler) {
      this(spec, handler, Optional.ofNullable(spec));
    }
  }

  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
  private final java.util.concurrent.CopyOnWriteArrayList<Listener> listeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private final HandlerLanes lanes;
  private final InterceptorChain interceptors;

  public DefaultOperationRegistry(ExecutorService executor) {
    this(executor, List.of());
  }

  /**
   * @param executor where blocking handlers and emitters run; {@code null} for the registry's own
   *     two lanes ({@link HandlerLanes})
   * @param interceptors run around every call, the first outermost
   */
  public DefaultOperationRegistry(
      ExecutorService executor, List<OperationInterceptor> interceptors) {
    this.lanes = executor != null ? HandlerLanes.shared(executor) : HandlerLanes.own();
    this.interceptors = InterceptorChain.of(interceptors);
  }

  /** Blocking handlers and emitters handed to their lane and not yet started. */
  public int handlersWaiting() {
    return lanes.waiting();
  }

  /** The interceptors, for the serving pipeline (which runs them around its own checks). */
  public InterceptorChain interceptors() {
    return interceptors;
  }

  // ---------------------------------------------------------------- registration

  @Override
  public void register(OperationSpec spec, Handler handler) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(handler, "handler");
    checkServes(spec, handler);
    entries.compute(
        spec.id(),
        (id, old) -> {
          if (old != null) {
            throw new IllegalArgumentException(
                "Operation " + id + " is already registered; unregister it first to replace it");
          }
          return new Entry(spec, handler);
        });
    notifyAdded(spec);
  }

  @Override
  public void registerSpec(OperationSpec spec) {
    Objects.requireNonNull(spec, "spec");
    Entry now =
        entries.compute(
            spec.id(),
            (id, old) -> {
              if (old == null) {
                return new Entry(spec, null);
              }
              if (old.spec() != null) {
                throw new IllegalArgumentException("A spec for " + id + " is already registered");
              }
              checkServes(spec, old.handler());
              return new Entry(spec, old.handler());
            });
    if (now.handler() != null) {
      notifyAdded(spec);
    }
  }

  @Override
  public void registerHandler(String operationId, Handler handler) {
    Objects.requireNonNull(handler, "handler");
    OperationSpec.splitId(operationId); // a clear error for a malformed id
    Entry now =
        entries.compute(
            operationId,
            (id, old) -> {
              if (old == null) {
                return new Entry(null, handler);
              }
              if (old.handler() != null) {
                throw new IllegalArgumentException(
                    "A handler for " + id + " is already registered");
              }
              checkServes(old.spec(), handler);
              return new Entry(old.spec(), handler);
            });
    if (now.spec() != null) {
      notifyAdded(now.spec());
    }
  }

  private static void checkServes(OperationSpec spec, Handler handler) {
    if (!handler.kind().serves(spec.type())) {
      throw new IllegalArgumentException(
          "A "
              + handler.kind()
              + " handler cannot serve "
              + spec.id()
              + ", a "
              + spec.type()
              + (spec.type() == OperationType.SUBSCRIPTION
                  ? ": use Handler.publisher or Handler.emitter"
                  : ": use an OperationHandler or Handler.async"));
    }
  }

  @Override
  public boolean unregister(String operationId) {
    Entry removed = entries.remove(operationId);
    if (removed != null && removed.spec() != null && removed.handler() != null) {
      for (Listener listener : listeners) {
        try {
          listener.removed(removed.spec());
        } catch (RuntimeException e) {
          LOG.warn("A registry listener failed on the removal of {}", operationId, e);
        }
      }
    }
    return removed != null;
  }

  @Override
  public Registration addListener(Listener listener) {
    Objects.requireNonNull(listener, "listener");
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  private void notifyAdded(OperationSpec spec) {
    for (Listener listener : listeners) {
      try {
        listener.added(spec);
      } catch (RuntimeException e) {
        LOG.warn("A registry listener failed on the addition of {}", spec.id(), e);
      }
    }
  }

  @Override
  public Optional<OperationSpec> getSpec(String operationId) {
    Entry entry = entries.get(operationId);
    return entry == null ? Optional.empty() : entry.found();
  }

  @Override
  public Optional<Handler> getHandler(String operationId) {
    Entry entry = entries.get(operationId);
    return entry == null ? Optional.empty() : Optional.ofNullable(entry.handler());
  }

  /** What error messages name it by: its operation count. */
  @Override
  public String toString() {
    return "OperationRegistry[" + list().size() + " operations]";
  }

  @Override
  public List<OperationSpec> list() {
    List<OperationSpec> specs = new ArrayList<>();
    for (Entry entry : entries.values()) {
      if (entry.spec() != null) {
        specs.add(entry.spec());
      }
    }
    specs.sort(BY_ID);
    return List.copyOf(specs);
  }

  @Override
  public List<OperationSpec> list(String namespace) {
    Objects.requireNonNull(namespace, "namespace");
    return list().stream().filter(spec -> spec.namespace().equals(namespace)).toList();
  }

  @Override
  public List<OperationSpec> listCallableBy(Identity identity) {
    Objects.requireNonNull(identity, "identity");
    return list().stream().filter(spec -> spec.accessControl().allows(identity)).toList();
  }

  // ---------------------------------------------------------------- execute

  @Override
  public CompletableFuture<ResponseEnvelope<JsonNode>> execute(
      String operationId, Object input, OperationContext context) {
    Objects.requireNonNull(operationId, "operationId");
    Objects.requireNonNull(context, "context");
    if (interceptors.isEmpty()) {
      return executeDirect(operationId, input, context);
    }
    UnaryResult result = new UnaryResult(this, operationId, input);
    interceptors.run(
        operationId,
        getSpec(operationId),
        context,
        OperationInterceptor.Origin.IN_PROCESS,
        false,
        result,
        result);
    return result;
  }

  /**
   * {@link #execute} without the interceptors: for the serving pipeline, which runs them around its
   * own checks, so that a served call passes through them once.
   */
  public CompletableFuture<ResponseEnvelope<JsonNode>> executeDirect(
      String operationId, Object input, OperationContext context) {
    try {
      Entry entry = lookup(operationId);
      OperationSpec spec = entry.spec();
      if (spec.type() == OperationType.SUBSCRIPTION) {
        throw CallError.of(
            ErrorCode.EXECUTION_ERROR,
            operationId + " is a SUBSCRIPTION: call subscribe() instead of execute()");
      }
      JsonNode in = validInput(spec, input);
      context.throwIfDone();
      return run(spec, entry.handler(), in, context);
    } catch (CallError e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private CompletableFuture<ResponseEnvelope<JsonNode>> run(
      OperationSpec spec, Handler handler, JsonNode input, OperationContext context) {
    Cancellation callSignal = context.cancellation().child();
    OperationContext handlerContext = handlerContext(context, callSignal);
    CompletableFuture<ResponseEnvelope<JsonNode>> result = new CompletableFuture<>();
    Registration interrupt = null;

    switch (handler.kind()) {
      case BLOCKING -> {
        OperationHandler blocking = (OperationHandler) handler.function();
        Future<?> task;
        try {
          task =
              lanes.runBlocking(
                  () -> {
                    try (HandlerMdc mdc = HandlerMdc.open(handlerContext)) {
                      Object value = blocking.handle(input, handlerContext);
                      result.complete(ResultPipeline.process(spec, value));
                    } catch (Throwable e) {
                      result.completeExceptionally(failure(spec, e, callSignal));
                    }
                  });
        } catch (RejectedExecutionException e) {
          callSignal.cancel(CallError.of(ErrorCode.CANCELLED, "not started"));
          return CompletableFuture.failedFuture(
              CallError.of(
                  ErrorCode.RESOURCE_EXHAUSTED,
                  "No handler thread available for " + spec.id() + "; try again later"));
        }
        interrupt = callSignal.onCancel(() -> task.cancel(true));
      }
      case ASYNC -> {
        AsyncOperationHandler async = (AsyncOperationHandler) handler.function();
        CompletionStage<?> stage;
        try (HandlerMdc mdc = HandlerMdc.open(handlerContext)) {
          stage = Objects.requireNonNull(async.handle(input, handlerContext), "handler's stage");
        } catch (Throwable e) {
          stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete(
            (value, error) -> {
              if (error != null) {
                result.completeExceptionally(failure(spec, error, callSignal));
              } else {
                try {
                  result.complete(ResultPipeline.process(spec, value));
                } catch (RuntimeException e) {
                  result.completeExceptionally(failure(spec, e, callSignal));
                }
              }
            });
      }
      default -> throw new IllegalStateException("not a unary handler: " + handler.kind());
    }
    if (result.isDone()) {
      // The handler answered before returning (most async handlers over in-memory work): no
      // deadline or cancellation can fail it any more, so no timer is armed only to be cancelled.
      if (interrupt != null) {
        interrupt.remove();
      }
      callSignal.cancel(CALL_COMPLETED);
      return result;
    }
    // Cancellation or the deadline fails the call at once, whatever the handler does; the deadline
    // also cancels the call's signal, so the handler and the calls it made stop too.
    Registration watch =
        CallWatch.watch(
            context.deadline(),
            Optional.of(callSignal),
            "The call passed its deadline",
            why -> {
              callSignal.cancel(why);
              result.completeExceptionally(why);
            });
    Registration interruptOnCancel = interrupt;
    result.whenComplete(
        (value, error) -> {
          watch.remove();
          if (interruptOnCancel != null) {
            interruptOnCancel.remove();
          }
          // The call is over: calls it started and left running end with it.
          callSignal.cancel(CALL_COMPLETED);
        });
    return result;
  }

  // ---------------------------------------------------------------- subscribe

  @Override
  public Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(
      String operationId, Object input, OperationContext context) {
    Objects.requireNonNull(operationId, "operationId");
    Objects.requireNonNull(context, "context");
    if (interceptors.isEmpty()) {
      return subscribeDirect(operationId, input, context);
    }
    // Cold, as below: the chain runs once per subscriber, when it subscribes.
    return subscriber -> {
      Objects.requireNonNull(subscriber, "subscriber");
      AtomicBoolean started = new AtomicBoolean();
      interceptors.run(
          operationId,
          getSpec(operationId),
          context,
          OperationInterceptor.Origin.IN_PROCESS,
          true,
          (callContext, observer) -> {
            started.set(true);
            subscribeDirect(operationId, input, callContext)
                .subscribe(
                    new ObservedSubscriber(
                        subscriber, observer, DefaultOperationRegistry::asCallError));
          },
          new CallObserver() {
            @Override
            public void onEnd(Optional<CallError> failure) {
              if (!started.get()) {
                // Refused by an interceptor: the subscriber still gets onSubscribe, then the error.
                Subscriptions.reject(
                    subscriber,
                    failure.orElseGet(
                        () -> CallError.of(ErrorCode.EXECUTION_ERROR, "The call did not start")));
              }
            }
          });
    };
  }

  /** {@link #subscribe} without the interceptors: for the serving pipeline, as executeDirect. */
  public Flow.Publisher<ResponseEnvelope<JsonNode>> subscribeDirect(
      String operationId, Object input, OperationContext context) {
    // Cold: the handler runs once per subscriber, when it subscribes.
    return subscriber -> {
      Objects.requireNonNull(subscriber, "subscriber");
      OperationSpec spec;
      Handler handler;
      JsonNode in;
      try {
        Entry entry = lookup(operationId);
        spec = entry.spec();
        handler = entry.handler();
        if (spec.type() != OperationType.SUBSCRIPTION) {
          throw CallError.of(
              ErrorCode.EXECUTION_ERROR,
              operationId + " is a " + spec.type() + ": call execute() instead of subscribe()");
        }
        in = validInput(spec, input);
        context.throwIfDone();
      } catch (CallError e) {
        Subscriptions.reject(subscriber, e);
        return;
      }
      Cancellation callSignal = context.cancellation().child();
      OperationContext handlerContext = handlerContext(context, callSignal);
      Runnable end = () -> callSignal.cancel(STREAM_ENDED);
      Flow.Publisher<?> source;
      // The MDC covers the handler's own code here; a publisher's later work on threads of its
      // own is the handler's to label.
      try (HandlerMdc mdc = HandlerMdc.open(handlerContext)) {
        source =
            handler.kind() == Handler.Kind.EMITTER
                ? new EmitterPublisher(
                    (EmitterSubscriptionHandler) handler.function(),
                    in,
                    handlerContext,
                    lanes.streams())
                : Objects.requireNonNull(
                    ((SubscriptionHandler) handler.function()).subscribe(in, handlerContext),
                    "handler's publisher");
      } catch (Throwable e) {
        // The failure is judged before the signal is ended, or it would read as a cancellation.
        CallError error = failure(spec, e, callSignal);
        end.run();
        Subscriptions.reject(subscriber, error);
        return;
      }
      new GuardedPublisher<Object, ResponseEnvelope<JsonNode>>(
              source,
              item -> ResultPipeline.process(spec, item),
              error -> failure(spec, error, callSignal),
              handlerContext,
              end)
          .subscribe(subscriber);
    };
  }

  // ---------------------------------------------------------------- env

  @Override
  public OperationEnv buildEnv(OperationContext context) {
    Objects.requireNonNull(context, "context");
    return new RegistryEnv(this, context);
  }

  @Override
  public void close() {
    lanes.close();
  }

  // ---------------------------------------------------------------- helpers

  private Entry lookup(String operationId) {
    Entry entry = entries.get(operationId);
    if (entry == null || entry.spec() == null) {
      throw CallError.of(ErrorCode.OPERATION_NOT_FOUND, "Operation not found: " + operationId);
    }
    if (entry.handler() == null) {
      throw CallError.of(
          ErrorCode.OPERATION_NOT_FOUND, "No handler registered for operation: " + operationId);
    }
    return entry;
  }

  private static JsonNode validInput(OperationSpec spec, Object input) {
    JsonNode json;
    if (input == null) {
      json = NullNode.getInstance();
    } else if (input instanceof JsonNode node) {
      json = node;
    } else {
      try {
        json = Json.mapper().valueToTree(input);
      } catch (JacksonException | IllegalArgumentException e) {
        throw CallError.of(
            ErrorCode.INVALID_INPUT,
            "Input of " + spec.id() + " cannot be converted to JSON: " + input.getClass(),
            e);
      }
    }
    List<dev.alkdev.operations.schema.SchemaError> errors = spec.inputSchema().validate(json);
    if (!errors.isEmpty()) {
      throw CallError.invalid("input of " + spec.id(), errors);
    }
    return json;
  }

  private OperationContext handlerContext(OperationContext context, Cancellation callSignal) {
    return context.toBuilder().cancellation(callSignal).envBinder(this::buildEnv).build();
  }

  /**
   * What a caller sees when a handler fails: the cancellation's reason if the call was cancelled,
   * the handler's own {@link CallError} if it threw one, else EXECUTION_ERROR whose message names
   * the operation only; the handler's exception stays attached as the cause, here, for logs.
   */
  private static CallError failure(OperationSpec spec, Throwable error, Cancellation callSignal) {
    Optional<CallError> cancelled = callSignal.reason();
    if (cancelled.isPresent()) {
      return cancelled.get();
    }
    return CallError.from(
        error,
        cause -> {
          // Once, at DEBUG: a failing handler is the operation's business, and a caller that makes
          // it fail 200,000 times must not write 2 million log lines. The serving pipeline counts
          // these (ServingStats.executionErrors); the cause stays attached for whoever handles it.
          LOG.debug("Handler of {} failed", spec.id(), cause);
          return CallError.of(
              ErrorCode.EXECUTION_ERROR, "Operation " + spec.id() + " failed", cause);
        });
  }

  /** A failure as the CallError a caller sees; anything else is an EXECUTION_ERROR. */
  public static CallError asCallError(Throwable error) {
    return CallError.from(error, ErrorCode.EXECUTION_ERROR, "The call failed");
  }

  /**
   * The future {@code execute} returns when interceptors run: completed by the outermost observer,
   * and cancelling it cancels the call it started. One object, the future itself, rather than a
   * future, a callback on it and the observer (D71); it is also the chain's terminal and the
   * callback on the call it starts (D84). This runs on every intercepted call. The futures derived
   * from it are plain ones.
   */
  private static final class UnaryResult extends CompletableFuture<ResponseEnvelope<JsonNode>>
      implements CallObserver,
          InterceptorChain.Terminal,
          BiConsumer<ResponseEnvelope<JsonNode>, Throwable> {
    private final DefaultOperationRegistry registry;
    private final String operationId;
    // Dropped once the call started: the caller may keep the future long after the call.
    private Object input;
    // The innermost observer, set once by start before the call can end.
    private CallObserver innermost;
    private volatile ResponseEnvelope<JsonNode> value;
    private volatile CompletableFuture<ResponseEnvelope<JsonNode>> call;

    UnaryResult(DefaultOperationRegistry registry, String operationId, Object input) {
      this.registry = registry;
      this.operationId = operationId;
      this.input = input;
    }

    /** The terminal: starts the call with the context the interceptors proceeded with. */
    @Override
    public void start(OperationContext callContext, CallObserver observer) {
      innermost = observer;
      CompletableFuture<ResponseEnvelope<JsonNode>> started =
          registry.executeDirect(operationId, input, callContext);
      input = null;
      started(started);
      // Not "if done, tell the observer at once": that saved the callback's future when one
      // interceptor was the only kind in the JVM, but where registries with and without
      // interceptors share the JIT's profiles it cost a plain call 48 bytes more (D84).
      started.whenComplete(this);
    }

    /** The started call's outcome, told to the innermost observer. */
    @Override
    public void accept(ResponseEnvelope<JsonNode> envelope, Throwable error) {
      if (error != null) {
        innermost.onEnd(Optional.of(asCallError(error)));
      } else {
        innermost.onResult(envelope);
        innermost.onEnd(Optional.empty());
      }
    }

    void started(CompletableFuture<ResponseEnvelope<JsonNode>> call) {
      this.call = call;
      if (isCancelled()) { // cancelled before the call was there to cancel
        call.cancel(false);
      }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      cancelCall(cancelled);
      return cancelled;
    }

    @Override
    public boolean completeExceptionally(Throwable error) {
      boolean completed = super.completeExceptionally(error);
      cancelCall(completed && error instanceof java.util.concurrent.CancellationException);
      return completed;
    }

    private void cancelCall(boolean cancelled) {
      CompletableFuture<ResponseEnvelope<JsonNode>> started = call;
      if (cancelled && started != null) {
        started.cancel(false);
      }
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
      return new CompletableFuture<>();
    }

    @Override
    public void onResult(ResponseEnvelope<JsonNode> result) {
      value = result;
    }

    @Override
    public void onEnd(Optional<CallError> failure) {
      if (failure.isPresent()) {
        completeExceptionally(failure.get());
      } else {
        complete(value);
      }
    }
  }
}
