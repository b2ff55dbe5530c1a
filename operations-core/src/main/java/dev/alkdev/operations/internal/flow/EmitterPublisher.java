package dev.alkdev.operations.internal.flow;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.EmitterSubscriptionHandler;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.internal.HandlerMdc;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.databind.JsonNode;

/**
 * Turns blocking emitter code into a publisher. The handler runs on its own thread from the
 * executor once a subscriber arrives; {@code emit} waits for demand, so the consumer's pace bounds
 * memory; cancelling interrupts the handler's thread so its {@code finally} blocks run. Every
 * signal to the subscriber comes from the handler's thread, one at a time.
 */
public final class EmitterPublisher implements Flow.Publisher<Object> {
  private final EmitterSubscriptionHandler handler;
  private final JsonNode input;
  private final OperationContext context;
  private final Executor executor;
  private final AtomicBoolean subscribed = new AtomicBoolean();

  public EmitterPublisher(
      EmitterSubscriptionHandler handler,
      JsonNode input,
      OperationContext context,
      Executor executor) {
    this.handler = Objects.requireNonNull(handler, "handler");
    this.input = Objects.requireNonNull(input, "input");
    this.context = Objects.requireNonNull(context, "context");
    this.executor = Objects.requireNonNull(executor, "executor");
  }

  @Override
  public void subscribe(Flow.Subscriber<? super Object> subscriber) {
    Objects.requireNonNull(subscriber, "subscriber");
    if (!subscribed.compareAndSet(false, true)) {
      Subscriptions.reject(
          subscriber, new IllegalStateException("an emitter stream has one subscriber"));
      return;
    }
    Run run = new Run(subscriber);
    subscriber.onSubscribe(run);
    try {
      executor.execute(run);
    } catch (RejectedExecutionException e) {
      run.terminate(
          CallError.of(
              ErrorCode.RESOURCE_EXHAUSTED, "No thread available to run the subscription", e));
    }
  }

  private final class Run
      implements Runnable, Flow.Subscription, EmitterSubscriptionHandler.Emitter {
    private final Flow.Subscriber<? super Object> subscriber;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition demandChanged = lock.newCondition();
    private long demand;
    private boolean cancelled;
    private Throwable pendingError;
    private boolean terminated;
    private Thread worker;

    Run(Flow.Subscriber<? super Object> subscriber) {
      this.subscriber = subscriber;
    }

    @Override
    public void run() {
      lock.lock();
      try {
        if (cancelled) {
          if (pendingError != null) {
            terminate(pendingError);
          }
          return;
        }
        worker = Thread.currentThread();
      } finally {
        lock.unlock();
      }
      Throwable failure = null;
      // The handler's log lines, and its emissions' (emit runs the subscriber's onNext on this
      // thread), carry the call's ids: once per stream, not per item.
      try (HandlerMdc mdc = HandlerMdc.open(context)) {
        handler.run(input, context, this);
      } catch (Throwable e) {
        failure = e;
      } finally {
        lock.lock();
        try {
          worker = null;
          // A pooled thread must not carry our interrupt into its next task.
          Thread.interrupted();
        } finally {
          lock.unlock();
        }
      }
      lock.lock();
      Throwable pending;
      boolean wasCancelled;
      try {
        pending = pendingError;
        wasCancelled = cancelled;
      } finally {
        lock.unlock();
      }
      if (pending != null) {
        terminate(pending);
      } else if (wasCancelled) {
        terminated = true; // the subscriber cancelled: it expects no further signal (§3.7)
      } else if (failure != null) {
        terminate(failure);
      } else {
        // A handler that stops because isCancelled() saw its deadline pass (or its context
        // cancelled) returns normally; the stream did not end, it was cut: say why.
        CallError cut = null;
        try {
          context.throwIfDone();
        } catch (CallError e) {
          cut = e;
        }
        if (cut != null) {
          terminate(cut);
        } else {
          terminated = true;
          subscriber.onComplete();
        }
      }
    }

    @Override
    public void emit(Object item) throws InterruptedException {
      lock.lock();
      try {
        while (demand == 0 && !cancelled) {
          if (context.deadline().isPresent()) {
            long nanos = context.deadline().get().remaining().toNanos();
            if (nanos <= 0) {
              cancelLocked(
                  CallError.of(ErrorCode.DEADLINE_EXCEEDED, "Subscription passed its deadline"));
              break;
            }
            demandChanged.awaitNanos(Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(100)));
          } else {
            demandChanged.await(100, TimeUnit.MILLISECONDS);
          }
          if (context.cancellation().isCancelled()) {
            cancelLocked(context.cancellation().reason().orElseThrow());
          }
        }
        if (cancelled) {
          throw CallError.of(ErrorCode.CANCELLED, "The subscriber cancelled the subscription");
        }
        demand--;
      } finally {
        lock.unlock();
      }
      subscriber.onNext(item);
    }

    @Override
    public boolean isCancelled() {
      lock.lock();
      try {
        return cancelled || context.isDone();
      } finally {
        lock.unlock();
      }
    }

    @Override
    public void request(long n) {
      lock.lock();
      try {
        if (cancelled) {
          return;
        }
        if (n <= 0) {
          cancelLocked(new IllegalArgumentException("§3.9: request(n) needs n > 0, was " + n));
          return;
        }
        demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
        demandChanged.signalAll();
      } finally {
        lock.unlock();
      }
    }

    @Override
    public void cancel() {
      lock.lock();
      try {
        cancelLocked(null);
      } finally {
        lock.unlock();
      }
    }

    /** Marks the run cancelled; an error, if given, is delivered by the handler's thread. */
    private void cancelLocked(Throwable error) {
      if (cancelled) {
        return;
      }
      cancelled = true;
      pendingError = error;
      demandChanged.signalAll();
      if (worker != null && worker != Thread.currentThread()) {
        worker.interrupt();
      }
    }

    void terminate(Throwable error) {
      if (terminated) {
        return;
      }
      terminated = true;
      subscriber.onError(error);
    }
  }
}
