package dev.alkdev.operations.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A registry's two lanes for code that blocks: blocking unary handlers on one executor, emitters
 * (which hold their thread for a stream's whole life) on another, so that open streams never take
 * the threads unary calls need. Counts the tasks handed to a lane and not yet started, which is
 * what "waiting for a thread" means whatever the executor (the registry's own elastic pools start a
 * thread at once, so their count stays near zero; a caller's fixed pool queues).
 */
public final class HandlerLanes implements AutoCloseable {
  private final ExecutorService unary;
  private final ExecutorService streams;
  private final boolean owned;
  private final AtomicInteger waiting = new AtomicInteger();
  private final Executor countedStreams = this::runStream;

  private HandlerLanes(ExecutorService unary, ExecutorService streams, boolean owned) {
    this.unary = unary;
    this.streams = streams;
    this.owned = owned;
  }

  /** Lanes of the registry's own: elastic pools on JDK 17, virtual threads on 21 and later. */
  public static HandlerLanes own() {
    return new HandlerLanes(
        HandlerExecutors.newHandlerExecutor("operations-handler"),
        HandlerExecutors.newStreamExecutor("operations-emitter"),
        true);
  }

  /** Both lanes on the caller's executor, which the caller shuts down. */
  public static HandlerLanes shared(ExecutorService executor) {
    return new HandlerLanes(executor, executor, false);
  }

  /**
   * Runs a blocking unary handler's task; the future cancels it (interrupting it once started).
   *
   * @throws RejectedExecutionException when the lane has no thread for it
   */
  public Future<?> runBlocking(Runnable task) {
    Counted counted = new Counted(task);
    submit(unary, counted);
    return counted;
  }

  /** Where emitters run: each task is one stream's whole life. */
  public Executor streams() {
    return countedStreams;
  }

  /** Tasks handed to a lane and not yet started. */
  public int waiting() {
    return Math.max(0, waiting.get());
  }

  private void runStream(Runnable task) {
    submit(streams, new Counted(task));
  }

  private void submit(ExecutorService lane, Counted task) {
    waiting.incrementAndGet();
    try {
      lane.execute(task);
    } catch (RuntimeException e) {
      task.leftWaiting();
      throw e;
    }
  }

  @Override
  public void close() {
    if (owned) {
      unary.shutdownNow();
      streams.shutdownNow();
    }
  }

  /** A task that stops counting as waiting when it starts, or when it is cancelled unstarted. */
  private final class Counted extends FutureTask<Void> {
    private final AtomicBoolean counted = new AtomicBoolean(true);

    Counted(Runnable task) {
      super(task, null);
    }

    @Override
    public void run() {
      leftWaiting();
      super.run();
    }

    @Override
    protected void done() {
      leftWaiting(); // cancelled before it ran: it waits no more
    }

    void leftWaiting() {
      if (counted.compareAndSet(true, false)) {
        waiting.decrementAndGet();
      }
    }
  }
}
