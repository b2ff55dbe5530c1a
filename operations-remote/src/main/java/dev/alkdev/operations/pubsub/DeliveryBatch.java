package dev.alkdev.operations.pubsub;

import dev.alkdev.operations.remote.internal.HeldWakeups;
import java.util.Objects;

/**
 * For transports that run non-blocking handlers ({@link SubscribeOptions#withNonBlockingHandler})
 * on their own I/O thread: says when a message is one of a run that thread delivers back to back,
 * so the call protocol can wake the thread that completes reply futures once per run instead of
 * once per reply (D86). Purely a hint: a transport that never uses it loses nothing but that
 * saving, and what the protocol holds back during a run is released when the run ends, after 64
 * held wake-ups or 100 microseconds (checked at each delivery), and in any case within about 50
 * milliseconds.
 *
 * <pre>{@code
 * // on the I/O thread, for each message of a non-blocking subscription
 * DeliveryBatch.deliver(() -> mailbox.offer(message), queuedBehindThisOne > 0);
 * }</pre>
 *
 * <p>A transport that cannot tell whether more follow, but learns when a read's messages are all
 * delivered, passes {@code true} and calls {@link #endRun} then.
 */
public final class DeliveryBatch {
  private DeliveryBatch() {}

  /**
   * Runs {@code delivery} (handing one message to its subscription) on this thread as part of a run
   * of deliveries; the run ends after a delivery whose {@code moreFollow} is false, and what the
   * run held back is released then.
   *
   * @param delivery hands one message over
   * @param moreFollow whether this thread delivers another message right after this one (more are
   *     queued for it now)
   */
  public static void deliver(Runnable delivery, boolean moreFollow) {
    Objects.requireNonNull(delivery, "delivery");
    HeldWakeups.open();
    try {
      delivery.run();
    } finally {
      HeldWakeups.afterDelivery(!moreFollow);
    }
  }

  /**
   * Ends this thread's run of deliveries and releases what it held: for a transport that learns
   * that a run is over only after its last delivery (an event loop's task that runs once the
   * messages of one read are delivered, each with {@code moreFollow} true). Does nothing when no
   * run is under way.
   */
  public static void endRun() {
    HeldWakeups.afterDelivery(true);
  }
}
