package dev.alkdev.operations.cli.internal;

import java.time.Instant;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code demo.clock}'s stream: ticks from a shared timer, so an open clock holds no thread between
 * ticks or while its consumer has no demand (on JDK 17 a blocking emitter would hold one for the
 * stream's whole life, D91). Every signal is sent from the timer's one thread, so they are serial;
 * a tick that falls due without demand waits until {@link #request} gives some.
 */
final class ClockTicks implements Flow.Subscription {
  private final Flow.Subscriber<? super Object> subscriber;
  private final ScheduledExecutorService timer;
  private final long ticks;
  private final long intervalMs;

  // Guarded by this.
  private long demand;
  private long sent;
  private boolean due;
  private boolean done;

  private ClockTicks(
      Flow.Subscriber<? super Object> subscriber,
      ScheduledExecutorService timer,
      long ticks,
      long intervalMs) {
    this.subscriber = subscriber;
    this.timer = timer;
    this.ticks = ticks;
    this.intervalMs = intervalMs;
  }

  /** A publisher of {@code ticks} ticks, {@code intervalMs} apart, the first at once. */
  static Flow.Publisher<Object> publisher(
      ScheduledExecutorService timer, long ticks, long intervalMs) {
    return subscriber -> {
      ClockTicks clock = new ClockTicks(subscriber, timer, ticks, intervalMs);
      subscriber.onSubscribe(clock);
      clock.schedule(0);
    };
  }

  @Override
  public void request(long n) {
    boolean tickNow;
    synchronized (this) {
      if (done) {
        return;
      }
      if (n <= 0) {
        done = true;
        timer.execute(
            () ->
                subscriber.onError(
                    new IllegalArgumentException("§3.9: request(n) needs n > 0, was " + n)));
        return;
      }
      demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
      tickNow = due;
      due = false;
    }
    if (tickNow) {
      schedule(0);
    }
  }

  @Override
  public synchronized void cancel() {
    done = true;
  }

  private void schedule(long delayMs) {
    try {
      timer.schedule(this::tick, delayMs, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      synchronized (this) {
        done = true; // the demo is closing
      }
    }
  }

  private void tick() {
    long tick;
    synchronized (this) {
      if (done) {
        return;
      }
      if (demand == 0) {
        due = true;
        return;
      }
      demand--;
      tick = ++sent;
      done = sent >= ticks;
    }
    ObjectNode item = JsonInput.MAPPER.createObjectNode();
    item.put("tick", tick);
    item.put("time", Instant.now().toString());
    subscriber.onNext(item);
    if (tick >= ticks) {
      subscriber.onComplete();
    } else {
      schedule(intervalMs);
    }
  }
}
