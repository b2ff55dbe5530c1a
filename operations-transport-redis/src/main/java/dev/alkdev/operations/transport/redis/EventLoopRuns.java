package dev.alkdev.operations.transport.redis;

import dev.alkdev.operations.pubsub.DeliveryBatch;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs of deliveries on Lettuce's event loops (D86): the messages and command answers of one read
 * are handed over back to back on the event loop, and a task queued on it runs once they all are
 * and ends the run, so the replies among them wake the reply lane once.
 */
final class EventLoopRuns {
  // Per event loop thread: whether its run's end is queued.
  private static final ThreadLocal<boolean[]> END_QUEUED =
      ThreadLocal.withInitial(() -> new boolean[1]);
  private static final Runnable END =
      () -> {
        END_QUEUED.get()[0] = false;
        DeliveryBatch.endRun();
      };

  private EventLoopRuns() {}

  /** Runs {@code delivery} as part of this read's run on an event loop, else just runs it. */
  static void deliver(Runnable delivery) {
    boolean[] endQueued = END_QUEUED.get();
    if (!endQueued[0]) {
      EventExecutor loop = ThreadExecutorMap.currentExecutor();
      if (loop == null) {
        delivery.run(); // not on an event loop (a publish that failed before it was sent)
        return;
      }
      try {
        loop.execute(END);
      } catch (RejectedExecutionException shuttingDown) {
        delivery.run();
        return;
      }
      endQueued[0] = true;
    }
    DeliveryBatch.deliver(delivery, true);
  }
}
