package dev.alkdev.operations.remote.internal;

import dev.alkdev.operations.internal.RateLimitedLog;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in submission order, on a shared executor: a stream's signals keep
 * their order without a thread of its own, and a slow stream holds up only itself.
 */
public final class SerialExecutor implements Executor {
  private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);
  private static final RateLimitedLog TASK_FAILED = RateLimitedLog.of(LOG);

  private final Executor delegate;
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicInteger wip = new AtomicInteger();

  public SerialExecutor(Executor delegate) {
    this.delegate = delegate;
  }

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
    if (wip.getAndIncrement() == 0) {
      try {
        delegate.execute(this::drain);
      } catch (RejectedExecutionException e) {
        // The pool is gone (shutdown): run here rather than lose a terminal signal.
        drain();
      }
    }
  }

  private void drain() {
    int missed = 1;
    while (true) {
      Runnable task;
      while ((task = tasks.poll()) != null) {
        try {
          task.run();
        } catch (RuntimeException e) {
          TASK_FAILED.error("A serialized task failed", e);
        }
      }
      missed = wip.addAndGet(-missed);
      if (missed == 0) {
        return;
      }
    }
  }
}
