package dev.alkdev.operations.remote.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import tools.jackson.core.util.BufferRecycler;
import tools.jackson.core.util.JsonRecyclerPools;
import tools.jackson.core.util.RecyclerPool;

/**
 * Jackson's buffer recyclers for the protocol codecs, which read and write an event several times
 * per call: one recycler per platform thread, kept in a thread-local, and Jackson's shared
 * concurrent pool for virtual threads. Jackson 3's default pool is the shared one for every thread:
 * each parser and generator takes a recycler from a concurrent deque and gives it back, which
 * allocates a deque node per event and makes the transports' I/O threads meet on one queue. A
 * thread-local per virtual thread would instead give every short-lived virtual thread buffers of
 * its own (Jackson moved off thread-locals for that reason), hence the split.
 */
public final class ThreadRecyclers implements RecyclerPool<BufferRecycler> {
  private static final long serialVersionUID = 1L;

  /** The one instance. */
  public static final ThreadRecyclers POOL = new ThreadRecyclers();

  private static final RecyclerPool<BufferRecycler> PLATFORM = JsonRecyclerPools.threadLocalPool();
  private static final RecyclerPool<BufferRecycler> VIRTUAL =
      JsonRecyclerPools.sharedConcurrentDequePool();

  /** {@code Thread.isVirtual()} where the JDK has it (21 and later), else null: none are. */
  private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

  private ThreadRecyclers() {}

  private static RecyclerPool<BufferRecycler> pool() {
    return isVirtual(Thread.currentThread()) ? VIRTUAL : PLATFORM;
  }

  static boolean isVirtual(Thread thread) {
    if (IS_VIRTUAL == null) {
      return false;
    }
    try {
      return (boolean) IS_VIRTUAL.invokeExact(thread);
    } catch (Throwable e) {
      throw new IllegalStateException("Thread.isVirtual failed", e);
    }
  }

  private static MethodHandle isVirtualHandle() {
    try {
      return MethodHandles.publicLookup()
          .findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
    } catch (NoSuchMethodException | IllegalAccessException e) {
      return null; // JDK 17 to 20: no virtual threads
    }
  }

  @Override
  public BufferRecycler acquirePooled() {
    return pool().acquirePooled();
  }

  /** Linked to the pool it came from, so it goes back there whichever thread releases it. */
  @Override
  public BufferRecycler acquireAndLinkPooled() {
    return pool().acquireAndLinkPooled();
  }

  @Override
  public void releasePooled(BufferRecycler recycler) {
    pool().releasePooled(recycler);
  }

  @Override
  public boolean clear() {
    return VIRTUAL.clear();
  }

  private Object readResolve() {
    return POOL;
  }
}
