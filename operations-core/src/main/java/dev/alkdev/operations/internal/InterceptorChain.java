package dev.alkdev.operations.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallObserver;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationInterceptor;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * Runs a call through a list of {@link OperationInterceptor}s and then a {@link Terminal} that
 * starts it, and enforces the interceptors' rule: proceed exactly once, before returning, or throw
 * a CallError to refuse. Whatever happens, the outermost observer hears exactly one end, provided
 * the terminal reports one. Immutable and shared.
 */
public final class InterceptorChain {
  private static final Logger LOG = LoggerFactory.getLogger(InterceptorChain.class);
  // Interceptors and observers run on every call: a broken one must not flood the log.
  private static final RateLimitedLog INTERCEPTOR_FAILED = RateLimitedLog.of(LOG);
  private static final RateLimitedLog THREW_AFTER = RateLimitedLog.of(LOG);
  private static final RateLimitedLog NO_PROCEED = RateLimitedLog.of(LOG);
  private static final RateLimitedLog OBSERVER_FAILED = RateLimitedLog.of(LOG);

  /** No interceptors: callers test {@link #isEmpty()} and skip the chain altogether. */
  public static final InterceptorChain NONE = new InterceptorChain(new OperationInterceptor[0]);

  /** {@link Step}'s state: a field and a handle rather than an AtomicInteger per step (D71). */
  private static final VarHandle STEP_STATE;

  static {
    try {
      STEP_STATE = MethodHandles.lookup().findVarHandle(Step.class, "state", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final OperationInterceptor[] interceptors;

  private InterceptorChain(OperationInterceptor[] interceptors) {
    this.interceptors = interceptors;
  }

  /** A chain of {@code interceptors}, the first outermost. */
  public static InterceptorChain of(List<OperationInterceptor> interceptors) {
    if (interceptors.isEmpty()) {
      return NONE;
    }
    return new InterceptorChain(
        interceptors.stream()
            .map(i -> Objects.requireNonNull(i, "interceptor"))
            .toArray(OperationInterceptor[]::new));
  }

  /** This chain followed by (inside it) {@code more}. */
  public InterceptorChain then(List<OperationInterceptor> more) {
    if (more.isEmpty()) {
      return this;
    }
    List<OperationInterceptor> all = new ArrayList<>(List.of(interceptors));
    all.addAll(more);
    return of(all);
  }

  public boolean isEmpty() {
    return interceptors.length == 0;
  }

  /** What runs after the last interceptor: starts the call and reports how it goes. */
  @FunctionalInterface
  public interface Terminal {
    /** Starts the call; reports its items and exactly one end to {@code observer}; never throws. */
    void start(OperationContext context, CallObserver observer);
  }

  /**
   * Runs the call through the chain.
   *
   * @param end the outermost observer: hears exactly one end, after every interceptor's observer
   */
  public void run(
      String operationId,
      Optional<OperationSpec> spec,
      OperationContext context,
      OperationInterceptor.Origin origin,
      boolean stream,
      Terminal terminal,
      CallObserver end) {
    step(new Call(operationId, spec, origin, stream, terminal), 0, context, end);
  }

  /** What every step of one call shares. A record: it only holds the call's facts. */
  private record Call(
      String operationId,
      Optional<OperationSpec> spec,
      OperationInterceptor.Origin origin,
      boolean stream,
      Terminal terminal) {}

  private void step(Call call, int index, OperationContext context, CallObserver observer) {
    if (index == interceptors.length) {
      call.terminal().start(context, observer);
      return;
    }
    OperationInterceptor interceptor = interceptors[index];
    Step step = new Step(call, index, context, observer);
    try {
      interceptor.intercept(step, step);
    } catch (CallError refusal) {
      if (step.close()) {
        observer.onEnd(Optional.of(refusal)); // refused before proceeding: the call never ran
      } else {
        THREW_AFTER.warn(
            "{} threw after proceeding; the call goes on: {}",
            describe(index),
            refusal.getMessage());
      }
      return;
    } catch (RuntimeException e) {
      if (step.close()) {
        INTERCEPTOR_FAILED.warn(
            "{} failed before proceeding with {}", describe(index), call.operationId(), e);
        observer.onEnd(Optional.of(failed(call, e)));
      } else {
        THREW_AFTER.warn("{} threw after proceeding; the call goes on", describe(index), e);
      }
      return;
    }
    if (step.close()) {
      IllegalStateException bug =
          new IllegalStateException(
              describe(index)
                  + " returned without calling proceed() for "
                  + call.operationId()
                  + ": an interceptor must call chain.proceed exactly once before it returns,"
                  + " or throw a CallError to refuse the call");
      NO_PROCEED.error(bug.getMessage(), bug);
      observer.onEnd(Optional.of(failed(call, bug)));
    }
  }

  private static CallError failed(Call call, Throwable cause) {
    return CallError.of(
        ErrorCode.EXECUTION_ERROR, "Operation " + call.operationId() + " failed", cause);
  }

  private String describe(int index) {
    return "Interceptor #" + (index + 1) + " (" + interceptors[index].getClass().getName() + ")";
  }

  /**
   * One interceptor's part of a call, as one object: what it sees (the invocation), the rest of the
   * chain (proceeds at most once, and only before the interceptor returned), and, when the
   * interceptor proceeds with an observer of its own, the observer that tells it first and then the
   * ones outside it. Every interceptor pays for what the chain allocates per call, so one object
   * per step rather than an invocation, a step and a pair of observers (D84).
   */
  private final class Step
      implements OperationInterceptor.Chain, OperationInterceptor.Invocation, CallObserver {
    private static final int OPEN = 0;
    private static final int PROCEEDED = 1;
    private static final int CLOSED = 2;

    private final Call call;
    private final int index;
    private final OperationContext context;
    private final CallObserver outer;
    // Set once, before proceeding: the next step (or the terminal, or whatever thread ends the call
    // after it) only hears of this step after that write.
    private CallObserver own;
    private volatile int state; // OPEN; set through STEP_STATE

    Step(Call call, int index, OperationContext context, CallObserver outer) {
      this.call = call;
      this.index = index;
      this.context = context;
      this.outer = outer;
    }

    // ---------------------------------------------------------------- Invocation

    @Override
    public String operationId() {
      return call.operationId();
    }

    @Override
    public Optional<OperationSpec> spec() {
      return call.spec();
    }

    @Override
    public OperationContext context() {
      return context;
    }

    @Override
    public OperationInterceptor.Origin origin() {
      return call.origin();
    }

    @Override
    public boolean stream() {
      return call.stream();
    }

    // ---------------------------------------------------------------- Chain

    @Override
    public void proceed(OperationContext context) {
      proceed(context, null);
    }

    @Override
    public void proceed(OperationContext context, CallObserver observer) {
      Objects.requireNonNull(context, "context");
      if (!STEP_STATE.compareAndSet(this, OPEN, PROCEEDED)) {
        throw new IllegalStateException(
            describe(index)
                + (state == PROCEEDED
                    ? " called proceed() a second time for "
                    : " called proceed() after it returned, for ")
                + call.operationId()
                + ": an interceptor must call chain.proceed exactly once, before it returns");
      }
      if (observer == null) {
        step(call, index + 1, context, outer);
      } else {
        own = observer;
        step(call, index + 1, context, this);
      }
    }

    /** Marks the step as returned; true if it never proceeded. */
    boolean close() {
      return STEP_STATE.compareAndSet(this, OPEN, CLOSED);
    }

    // ---------------------------------------------------------------- CallObserver
    // Only heard when the interceptor proceeded with its own observer: it first, then the outer.

    @Override
    public void onResult(ResponseEnvelope<JsonNode> result) {
      try {
        own.onResult(result);
      } catch (RuntimeException e) {
        OBSERVER_FAILED.warn("The observer of {} failed on a result", describe(index), e);
      }
      outer.onResult(result);
    }

    @Override
    public void onItem(ResponseEnvelope<JsonNode> item) {
      try {
        own.onItem(item);
      } catch (RuntimeException e) {
        OBSERVER_FAILED.warn("The observer of {} failed on an item", describe(index), e);
      }
      outer.onItem(item);
    }

    @Override
    public void onEnd(Optional<CallError> failure) {
      try {
        own.onEnd(failure);
      } catch (RuntimeException e) {
        OBSERVER_FAILED.warn("The observer of {} failed on the end of a call", describe(index), e);
      }
      outer.onEnd(failure);
    }
  }
}
