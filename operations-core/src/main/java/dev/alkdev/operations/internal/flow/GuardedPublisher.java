package dev.alkdev.operations.internal.flow;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.internal.CallWatch;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * Wraps a handler's publisher for one subscriber: maps every item, ends the stream when the call's
 * deadline passes or its signal is cancelled (cancelling the handler's subscription, so it releases
 * its resources), and holds the handler to the demand it was given. Signals reach the subscriber
 * one at a time, whichever thread raised them.
 *
 * @param <T> what the handler publishes
 * @param <R> what the subscriber receives
 */
public final class GuardedPublisher<T, R> implements Flow.Publisher<R> {
  private final Flow.Publisher<? extends T> upstream;
  private final Function<? super T, ? extends R> mapper;
  private final Function<Throwable, ? extends Throwable> errorMapper;
  private final OperationContext context;
  private final Runnable onTerminate;
  private final AtomicBoolean subscribed = new AtomicBoolean();

  /**
   * @param mapper turns each item into what the subscriber gets; if it throws, the stream fails
   * @param errorMapper turns a handler's error into what the subscriber gets
   * @param onTerminate runs once when the stream ends, fails or is cancelled
   */
  public GuardedPublisher(
      Flow.Publisher<? extends T> upstream,
      Function<? super T, ? extends R> mapper,
      Function<Throwable, ? extends Throwable> errorMapper,
      OperationContext context,
      Runnable onTerminate) {
    this.upstream = Objects.requireNonNull(upstream, "upstream");
    this.mapper = Objects.requireNonNull(mapper, "mapper");
    this.errorMapper = Objects.requireNonNull(errorMapper, "errorMapper");
    this.context = Objects.requireNonNull(context, "context");
    this.onTerminate = Objects.requireNonNull(onTerminate, "onTerminate");
  }

  @Override
  public void subscribe(Flow.Subscriber<? super R> subscriber) {
    Objects.requireNonNull(subscriber, "subscriber");
    if (!subscribed.compareAndSet(false, true)) {
      Subscriptions.reject(
          subscriber,
          new IllegalStateException("this subscription's stream has a subscriber already"));
      return;
    }
    upstream.subscribe(new Relay(subscriber));
  }

  private final class Relay implements Flow.Subscriber<T>, Flow.Subscription {
    private final Flow.Subscriber<? super R> downstream;
    private Flow.Subscription source;
    private boolean done;
    private long demand;
    private dev.alkdev.operations.Registration watch;

    Relay(Flow.Subscriber<? super R> downstream) {
      this.downstream = downstream;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      synchronized (this) {
        if (source != null) {
          subscription.cancel(); // §2.5: a second subscription is refused
          return;
        }
        source = subscription;
      }
      downstream.onSubscribe(this);
      dev.alkdev.operations.Registration registration =
          CallWatch.watch(
              context.deadline(),
              Optional.of(context.cancellation()),
              "Subscription passed its deadline",
              this::failAndCancel);
      synchronized (this) {
        watch = registration;
        if (done) {
          registration.remove();
        }
      }
    }

    @Override
    public void onNext(T item) {
      synchronized (this) {
        if (done) {
          return;
        }
        if (demand == 0) {
          finishLocked();
          source.cancel();
          downstream.onError(
              CallError.of(
                  ErrorCode.EXECUTION_ERROR,
                  "The subscription handler published more items than were requested"));
          return;
        }
        demand--;
        R mapped;
        try {
          mapped = mapper.apply(item);
        } catch (RuntimeException e) {
          finishLocked();
          source.cancel();
          downstream.onError(errorMapper.apply(e));
          return;
        }
        downstream.onNext(mapped);
      }
    }

    @Override
    public void onError(Throwable error) {
      synchronized (this) {
        if (!done) {
          failLocked(errorMapper.apply(error));
        }
      }
    }

    @Override
    public void onComplete() {
      synchronized (this) {
        if (!done) {
          finishLocked();
          downstream.onComplete();
        }
      }
    }

    @Override
    public void request(long n) {
      Flow.Subscription s;
      synchronized (this) {
        if (done) {
          return;
        }
        if (n <= 0) {
          finishLocked();
          source.cancel();
          downstream.onError(
              new IllegalArgumentException("§3.9: request(n) needs n > 0, was " + n));
          return;
        }
        demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
        s = source;
      }
      s.request(n);
    }

    @Override
    public void cancel() {
      Flow.Subscription s;
      synchronized (this) {
        if (done) {
          return;
        }
        finishLocked();
        s = source;
      }
      s.cancel();
    }

    /**
     * Ends the stream from outside (deadline, cancellation): the handler's subscription is
     * cancelled first, so by the time the subscriber sees the error the handler is released.
     */
    private void failAndCancel(Throwable error) {
      Flow.Subscription s;
      synchronized (this) {
        if (done) {
          return;
        }
        finishLocked();
        s = source;
      }
      // done is set, so no onNext can reach the subscriber any more: the error comes last.
      s.cancel();
      downstream.onError(error);
    }

    private void failLocked(Throwable error) {
      finishLocked();
      downstream.onError(error);
    }

    private void finishLocked() {
      done = true;
      if (watch != null) {
        watch.remove();
      }
      onTerminate.run();
    }
  }
}
