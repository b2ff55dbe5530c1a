package dev.alkdev.operations.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where blocking handlers run: a virtual thread per task on JDK 21 and later (found reflectively,
 * since the library is compiled for 17), else a bounded pool whose full queue rejects work (which
 * the registry reports as RESOURCE_EXHAUSTED) instead of growing without limit.
 */
public final class HandlerExecutors {
  /** Threads of the fallback pool: enough for blocking I/O handlers on a small machine. */
  static final int POOL_THREADS = Math.max(16, 8 * Runtime.getRuntime().availableProcessors());

  /** Tasks the fallback pool queues before it rejects. */
  static final int POOL_QUEUE = 10_000;

  private HandlerExecutors() {}

  /** Whether this JVM has virtual threads. */
  public static boolean virtualThreadsAvailable() {
    return VirtualThreads.FACTORY != null;
  }

  /** A new executor for blocking handlers; the caller owns it and shuts it down. */
  public static ExecutorService newHandlerExecutor(String name) {
    if (VirtualThreads.FACTORY != null) {
      try {
        return (ExecutorService) VirtualThreads.FACTORY.invoke();
      } catch (Throwable e) {
        // Fall through to the pool: virtual threads exist but could not be created here.
      }
    }
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            POOL_THREADS,
            POOL_THREADS,
            30,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(POOL_QUEUE),
            daemonThreads(name));
    pool.allowCoreThreadTimeOut(true);
    return pool;
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
