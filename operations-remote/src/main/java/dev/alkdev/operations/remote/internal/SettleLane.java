package dev.alkdev.operations.remote.internal;

import dev.alkdev.operations.internal.Scheduler;
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
 * task finished meanwhile and some still wait, it starts another worker. So a blocking task delays
 * the others by about that much, once, and takes only its own thread; while work flows, the watch
 * costs one look per {@link #WATCH_NANOS} on the timer thread. Work queued while a transport's run
 * of deliveries holds the wake-up back (D86) gets its worker when the run ends, or from a rescue
 * look at the timer thread's next wake-up if the run never ends.
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
  private final Runnable watch = this::onWatch;
  private final Runnable wake = this::wake;
  private final AtomicBoolean rescuing = new AtomicBoolean();
  private final Runnable rescue = this::onRescue;
  // Changes whenever a worker finishes a task (racy increments by several workers still change
  // it): the watch compares it with what it saw when it was armed.
  private volatile long progress;
  private long progressWhenArmed; // written before arming, read by the watch: ordered by the timer

  SettleLane(Executor threads, Consumer<T> action) {
    this.threads = threads;
    this.action = action;
  }

  /**
   * Queues {@code item}; never runs it on this thread (unless no thread can be had at all). On a
   * transport's I/O thread in the middle of a run of deliveries, the worker is woken when the run
   * ends rather than now (D86, {@link HeldWakeups}): one wake-up for the run's replies.
   */
  void submit(T item) {
    queue.add(item);
    if (workers.get() == 0) {
      if (HeldWakeups.hold(wake)) {
        armRescue(); // a run that never ends still gets its work done
        return;
      }
      if (workers.compareAndSet(0, 1)) {
        start(worker);
        return;
      }
    }
    armWatch();
  }

  /** Arms the watch unless it is armed. */
  private void armWatch() {
    if (!watching.get() && watching.compareAndSet(false, true)) {
      arm();
    }
  }

  /**
   * Arms the rescue of work held by a run of deliveries that never ends (a transport that forgot to
   * end it, a thread that died): a look on the timer thread at its next wake-up, within {@link
   * Scheduler#MAX_SLEEP_NANOS}, that costs no wake-up of its own (one per run would).
   */
  private void armRescue() {
    if (!rescuing.get() && rescuing.compareAndSet(false, true)) {
      Scheduler.scheduleQuickLazily(rescue, WATCH_NANOS);
    }
  }

  private void onRescue() {
    rescuing.set(false);
    wake(); // a worker for whatever waits without one, held by a live run or not
  }

  /** At the end of a run of deliveries: starts a worker for what it queued, unless one runs. */
  private void wake() {
    if (!queue.isEmpty() && workers.get() == 0 && workers.compareAndSet(0, 1)) {
      start(worker);
    }
  }

  private void arm() {
    progressWhenArmed = progress;
    // On the timer thread: the watch only compares a counter, and starts a worker if it must.
    Scheduler.scheduleQuick(watch, WATCH_NANOS);
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

  private void onWatch() {
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
    // blocks, or the run of deliveries that held the wake-up never ended. Another worker takes
    // the queue over.
    watching.set(false);
    workers.incrementAndGet();
    start(worker);
  }

  private void start(Runnable task) {
    try {
      threads.execute(task);
    } catch (RejectedExecutionException e) {
      task.run(); // cannot happen with an unbounded pool; rather here than never
    }
  }
}
