package dev.alkdev.operations.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One shared timer thread for deadlines, built for the common case: almost every deadline is
 * cancelled long before it fires. Timers live in a concurrent skip list (adding and cancelling one
 * is two lock-free map operations); the timer thread sleeps until the earliest deadline but never
 * longer than {@link #MAX_SLEEP_NANOS}, so a new timer wakes it only when it is due sooner than
 * that. A {@code ScheduledThreadPoolExecutor} instead signals its thread whenever a new task
 * becomes the earliest, which, with one call in flight, is every call.
 *
 * <p>The timer thread only keeps time: a due task runs on {@link #TASKS}, never on the timer
 * thread. A task completes a future or cancels a signal, and whatever continuation a caller chained
 * to that future runs with it; run on the timer thread, one continuation that blocked for 3 s once
 * held an unrelated 100 ms deadline until 2,949 ms. A task that throws is logged.
 */
public final class Scheduler {
  private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);
  private static final RateLimitedLog TASK_FAILED = RateLimitedLog.of(LOG);

  /** Longest the timer thread sleeps without looking: the lateness bound for far deadlines. */
  static final long MAX_SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /**
   * Where due tasks run: a cached pool of daemon threads (idle ones are reused; while all are busy,
   * because a continuation blocks, the next task gets a new thread; a thread idle for 10 s ends).
   * Not {@code CompletableFuture}'s default async pool: on a machine with fewer than three CPUs
   * that starts a thread per task, and the common pool does not replace a thread a continuation
   * blocks. Almost every timer is cancelled before it is due, so the pool is mostly empty.
   */
  private static final Executor TASKS =
      new ThreadPoolExecutor(
          0,
          Integer.MAX_VALUE,
          10,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          HandlerExecutors.daemonThreads("operations-deadline"));

  private static final ConcurrentSkipListMap<Key, Runnable> TIMERS = new ConcurrentSkipListMap<>();
  private static final AtomicLong SEQUENCE = new AtomicLong();

  /** When the sleeping timer thread looks next (nanoTime); new timers before it wake it. */
  private static volatile long nextWake;

  /** Whether the timer thread is (about to be) asleep; an awake thread needs no wake-up. */
  private static volatile boolean sleeping;

  private static final Thread THREAD = startThread();

  private Scheduler() {}

  /** A scheduled task; cancel it when it is no longer needed. */
  @FunctionalInterface
  public interface Timer {
    /** Stops the task from running, if it has not run yet. */
    void cancel();
  }

  /** Runs {@code task} after {@code nanos}, on one of the task threads. */
  public static Timer schedule(Runnable task, long nanos) {
    return add(task, nanos, true);
  }

  /**
   * Runs {@code task} after {@code nanos} on the timer thread itself, without a hand-off to a task
   * thread: only for a task of this library's that returns at once and never blocks or runs
   * anyone's code (a watch that looks at a counter, D86). Anything else would hold up every other
   * deadline.
   */
  public static Timer scheduleQuick(Runnable task, long nanos) {
    return add(new Quick(task), nanos, true);
  }

  /**
   * {@link #scheduleQuick}, without waking the timer thread for it: it runs when the thread next
   * looks, up to {@link #MAX_SLEEP_NANOS} late. For a safety net that is almost never needed and
   * would otherwise cost a wake-up each time it is armed.
   */
  public static Timer scheduleQuickLazily(Runnable task, long nanos) {
    return add(new Quick(task), nanos, false);
  }

  /** A task that runs on the timer thread ({@link #scheduleQuick}). */
  private record Quick(Runnable task) implements Runnable {
    @Override
    public void run() {
      task.run();
    }
  }

  private static Timer add(Runnable task, long nanos, boolean wake) {
    long due = System.nanoTime() + Math.max(0, nanos);
    Key key = new Key(due, SEQUENCE.getAndIncrement());
    TIMERS.put(key, task);
    if (wake && sleeping && due - nextWake < 0) {
      LockSupport.unpark(THREAD);
    }
    return () -> TIMERS.remove(key);
  }

  private static Thread startThread() {
    Thread thread = new Thread(Scheduler::loop, "operations-timer");
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  private static void loop() {
    while (true) {
      long now = System.nanoTime();
      Map.Entry<Key, Runnable> first;
      while ((first = TIMERS.firstEntry()) != null && first.getKey().due - now <= 0) {
        if (TIMERS.remove(first.getKey()) != null) {
          dispatch(first.getValue());
        }
        now = System.nanoTime();
      }
      long sleep =
          first == null ? MAX_SLEEP_NANOS : Math.min(first.getKey().due - now, MAX_SLEEP_NANOS);
      nextWake = now + sleep;
      sleeping = true;
      // Look once more: a timer added before `sleeping` was visible may be due sooner; a timer
      // added after it sees `sleeping` and wakes us.
      Map.Entry<Key, Runnable> head = TIMERS.firstEntry();
      if (head == null || head.getKey().due - (now + sleep) >= 0) {
        LockSupport.parkNanos(sleep);
      }
      sleeping = false;
    }
  }

  private static void dispatch(Runnable task) {
    if (task instanceof Quick) {
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        TASK_FAILED.error("A timer task failed", e);
      }
      return;
    }
    Runnable logged =
        () -> {
          try {
            task.run();
          } catch (RuntimeException | Error e) {
            TASK_FAILED.error("A timer task failed", e);
          }
        };
    try {
      TASKS.execute(logged);
    } catch (RejectedExecutionException | OutOfMemoryError e) {
      // No thread could be started: running it late here beats dropping a deadline.
      logged.run();
    }
  }

  /** Orders timers by due time, then by creation, so equal deadlines do not collide. */
  private record Key(long due, long sequence) implements Comparable<Key> {
    @Override
    public int compareTo(Key other) {
      int byDue = Long.compare(due - other.due, 0);
      return byDue != 0 ? byDue : Long.compare(sequence, other.sequence);
    }
  }
}
