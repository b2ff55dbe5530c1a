package dev.alkdev.operations.internal;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * One shared timer thread for deadlines. Tasks must be short (they complete a future or cancel a
 * signal); cancelled timers are removed at once so finished calls leave nothing behind.
 */
public final class Scheduler {
  private static final ScheduledThreadPoolExecutor TIMER = create();

  private Scheduler() {}

  private static ScheduledThreadPoolExecutor create() {
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(1, HandlerExecutors.daemonThreads("operations-timer"));
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }

  /** Runs {@code task} after {@code nanos}; cancel the returned future when no longer needed. */
  public static ScheduledFuture<?> schedule(Runnable task, long nanos) {
    return TIMER.schedule(task, Math.max(0, nanos), TimeUnit.NANOSECONDS);
  }
}
