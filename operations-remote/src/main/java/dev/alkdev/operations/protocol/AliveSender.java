package dev.alkdev.operations.protocol;

import dev.alkdev.operations.internal.Scheduler;
import dev.alkdev.operations.pubsub.PubSub;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A caller's {@code call.alive} on {@code ops.ctl}: one message every interval, however many calls,
 * and none while it has no calls in flight. Serving sides renew the caller's lease with it.
 */
final class AliveSender {
  private static final Logger LOG = LoggerFactory.getLogger(AliveSender.class);

  private final PubSub pubsub;
  private final String inbox;
  private final long intervalNanos;
  private final byte[] message;
  private final BooleanSupplier hasCalls;
  private volatile Scheduler.Timer timer;
  private volatile boolean stopped;

  AliveSender(PubSub pubsub, String inbox, Duration interval, BooleanSupplier hasCalls) {
    this.pubsub = pubsub;
    this.inbox = inbox;
    this.intervalNanos = interval.toNanos();
    this.message = CallEvents.encode(new CallEvent.Alive(inbox));
    this.hasCalls = hasCalls;
    schedule();
  }

  void stop() {
    stopped = true;
    Scheduler.Timer current = timer;
    if (current != null) {
      current.cancel();
    }
  }

  /** The next {@code call.alive}, an interval from now, on the shared timer. */
  private void schedule() {
    if (!stopped) {
      timer = Scheduler.schedule(this::sayAlive, intervalNanos);
    }
  }

  /**
   * Runs on the timer's task pool; the publish is not waited for, and a failed one is left to the
   * next tick (the lease outlasts two of them).
   */
  private void sayAlive() {
    try {
      if (!stopped && hasCalls.getAsBoolean()) {
        pubsub.publish(ProtocolTopics.CONTROL, message).exceptionally(e -> 0);
      }
    } catch (RuntimeException e) {
      LOG.debug("call.alive from {} could not be sent", inbox, e);
    } finally {
      schedule();
    }
  }
}
