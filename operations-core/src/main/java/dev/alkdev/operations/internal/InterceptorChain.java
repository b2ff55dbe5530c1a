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
    new Call(operationId, spec, origin, stream, terminal).step(0, context, end);
  }

  /** One call going through the chain. */
  private final class Call {
    final String operationId;
    final Optional<OperationSpec> spec;
    final OperationInterceptor.Origin origin;
    final boolean stream;
    final Terminal terminal;

    Call(
        String operationId,
        Optional<OperationSpec> spec,
        OperationInterceptor.Origin origin,
        boolean stream,
        Terminal terminal) {
      this.operationId = operationId;
      this.spec = spec;
      this.origin = origin;
      this.stream = stream;
      this.terminal = terminal;
    }

    void step(int index, OperationContext context, CallObserver observer) {
      if (index == interceptors.length) {
        terminal.start(context, observer);
        return;
      }
      OperationInterceptor interceptor = interceptors[index];
      Step step = new Step(this, index, observer);
      try {
        interceptor.intercept(new Invocation(this, context), step);
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
              "{} failed before proceeding with {}", describe(index), operationId, e);
          observer.onEnd(Optional.of(failed(e)));
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
                    + operationId
                    + ": an interceptor must call chain.proceed exactly once before it returns,"
                    + " or throw a CallError to refuse the call");
        NO_PROCEED.error(bug.getMessage(), bug);
        observer.onEnd(Optional.of(failed(bug)));
      }
    }

    CallError failed(Throwable cause) {
      return CallError.of(ErrorCode.EXECUTION_ERROR, "Operation " + operationId + " failed", cause);
    }
  }

  private String describe(int index) {
    return "Interceptor #" + (index + 1) + " (" + interceptors[index].getClass().getName() + ")";
  }

  /** The chain as one interceptor sees it: proceeds at most once, and only before it returned. */
  private final class Step implements OperationInterceptor.Chain {
    private static final int OPEN = 0;
    private static final int PROCEEDED = 1;
    private static final int CLOSED = 2;

    private final Call call;
    private final int index;
    private final CallObserver observer;
    private volatile int state; // OPEN; set through STEP_STATE

    Step(Call call, int index, CallObserver observer) {
      this.call = call;
      this.index = index;
      this.observer = observer;
    }

    @Override
    public void proceed(OperationContext context) {
      proceed(context, null);
    }

    @Override
    public void proceed(OperationContext context, CallObserver own) {
      Objects.requireNonNull(context, "context");
      if (!STEP_STATE.compareAndSet(this, OPEN, PROCEEDED)) {
        throw new IllegalStateException(
            describe(index)
                + (state == PROCEEDED
                    ? " called proceed() a second time for "
                    : " called proceed() after it returned, for ")
                + call.operationId
                + ": an interceptor must call chain.proceed exactly once, before it returns");
      }
      call.step(index + 1, context, own == null ? observer : new Both(own, observer, index));
    }

    /** Marks the step as returned; true if it never proceeded. */
    boolean close() {
      return STEP_STATE.compareAndSet(this, OPEN, CLOSED);
    }
  }

  /** An interceptor's own observer first, then the ones outside it. */
  private final class Both implements CallObserver {
    private final CallObserver own;
    private final CallObserver outer;
    private final int index;

    Both(CallObserver own, CallObserver outer, int index) {
      this.own = own;
      this.outer = outer;
      this.index = index;
    }

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

  /** What one interceptor sees. */
  private record Invocation(Call call, OperationContext context)
      implements OperationInterceptor.Invocation {
    @Override
    public String operationId() {
      return call.operationId;
    }

    @Override
    public Optional<OperationSpec> spec() {
      return call.spec;
    }

    @Override
    public OperationInterceptor.Origin origin() {
      return call.origin;
    }

    @Override
    public boolean stream() {
      return call.stream;
    }
  }
}
