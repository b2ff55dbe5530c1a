package dev.alkdev.operations.internal;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Runs work handed over by a transport's I/O thread, a burst at a time: tasks queue, and one worker
 * thread runs them one after the other, so a burst of 64 replies costs one wake-up instead of 64
 * (D82). A task may run users' code that blocks; then the tasks queued behind it must not wait for
 * it (D73). A watch looks {@link #WATCH_NANOS} after work was queued behind a busy worker: if no
 * task finished meanwhile and some still wait, the watch's own thread becomes another worker. So a
 * blocking task delays the others by about that much, once, and takes only its own thread; while
 * work flows, the watch costs one timer task per {@link #WATCH_NANOS}.
 *
 * @param <T> what is queued
 */
final class SettleLane<T> {
  /** How long queued work may wait behind a worker that finished nothing before another starts. */
  static final long WATCH_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final Executor threads;
  private final Consumer<T> action;
  private final ConcurrentLinkedQueue<T> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger workers = new AtomicInteger();
  private final AtomicBoolean watching = new AtomicBoolean();
  private final Runnable worker = this::work;
  private final Runnable watch = this::watch;
  // Changes whenever a worker finishes a task (racy increments by several workers still change
  // it): the watch compares it with what it saw when it was armed.
  private volatile long progress;
  private long progressWhenArmed; // written before arming, read by the watch: ordered by the timer

  SettleLane(Executor threads, Consumer<T> action) {
    this.threads = threads;
    this.action = action;
  }

  /** Queues {@code item}; never runs it on this thread (unless no thread can be had at all). */
  void submit(T item) {
    queue.add(item);
    if (workers.get() == 0 && workers.compareAndSet(0, 1)) {
      start(worker);
    } else if (!watching.get() && watching.compareAndSet(false, true)) {
      arm();
    }
  }

  private void arm() {
    progressWhenArmed = progress;
    Scheduler.schedule(watch, WATCH_NANOS);
  }

  private void work() {
    while (true) {
      T item;
      while ((item = queue.poll()) != null) {
        try {
          action.accept(item);
        } catch (RuntimeException | Error e) {
          // A dependent's failure is the dependent's: CompletableFuture already keeps it.
        }
        progress++;
      }
      workers.decrementAndGet();
      // Queued after the poll saw it empty, by a submitter that saw this worker still counted.
      if (queue.isEmpty() || !workers.compareAndSet(0, 1)) {
        return;
      }
    }
  }

  private void watch() {
    if (queue.isEmpty()) {
      watching.set(false);
      if (!queue.isEmpty() && watching.compareAndSet(false, true)) {
        arm(); // queued while this was giving up
      }
      return;
    }
    if (progress != progressWhenArmed) {
      arm(); // work moves: look again later
      return;
    }
    // Nothing finished for a whole watch while work waits: every worker is held by a task that
    // blocks. This thread (a timer task's) takes the queue over.
    watching.set(false);
    workers.incrementAndGet();
    work();
  }

  private void start(Runnable task) {
    try {
      threads.execute(task);
    } catch (RejectedExecutionException e) {
      task.run(); // cannot happen with an unbounded pool; rather here than never
    }
  }
}
