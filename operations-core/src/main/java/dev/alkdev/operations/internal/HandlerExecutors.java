package dev.alkdev.operations.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where blocking handlers and emitters run: a virtual thread per task on JDK 21 and later (found
 * reflectively, since the library is compiled for 17), else an elastic pool of platform threads per
 * lane. An elastic pool hands a task to an idle thread, or starts a new one up to its bound, and
 * lets a thread go after a minute idle; past the bound it rejects (which the registry reports as
 * RESOURCE_EXHAUSTED) rather than queue. A fixed pool would make every task wait behind the longest
 * ones: a stream holds its thread for its whole life, so a handful of streams used to stop every
 * blocking call (D91). The bounds are the serving pipeline's default lane capacities, so on a
 * server with default limits the pipeline refuses work before a lane runs out of threads.
 */
public final class HandlerExecutors {
  /** Threads of the unary lane's elastic pool at most: the default unary capacity. */
  static final int UNARY_LANE_THREADS = 10_000;

  /** Threads of the stream lane's elastic pool at most: the default stream capacity. */
  static final int STREAM_LANE_THREADS = 10_000;

  /** How long an idle pool thread waits for work before it ends. */
  private static final long IDLE_SECONDS = 60;

  private HandlerExecutors() {}

  /** A new executor for blocking unary handlers; the caller owns it and shuts it down. */
  public static ExecutorService newHandlerExecutor(String name) {
    return newLane(name, UNARY_LANE_THREADS);
  }

  /** A new executor for emitters (streams); the caller owns it and shuts it down. */
  public static ExecutorService newStreamExecutor(String name) {
    return newLane(name, STREAM_LANE_THREADS);
  }

  static ExecutorService newLane(String name, int maxThreads) {
    if (VirtualThreads.FACTORY != null) {
      try {
        return (ExecutorService) VirtualThreads.FACTORY.invoke();
      } catch (Throwable e) {
        // Fall through to the pool: virtual threads exist but could not be created here.
      }
    }
    return new ThreadPoolExecutor(
        0,
        maxThreads,
        IDLE_SECONDS,
        TimeUnit.SECONDS,
        new SynchronousQueue<>(),
        daemonThreads(name));
  }

  /** Named daemon threads, so a forgotten registry never keeps the JVM alive. */
  public static ThreadFactory daemonThreads(String name) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  private static final class VirtualThreads {
    static final MethodHandle FACTORY = find();

    private static MethodHandle find() {
      try {
        return MethodHandles.publicLookup()
            .findStatic(
                java.util.concurrent.Executors.class,
                "newVirtualThreadPerTaskExecutor",
                MethodType.methodType(ExecutorService.class));
      } catch (NoSuchMethodException | IllegalAccessException e) {
        return null;
      }
    }
  }
}
