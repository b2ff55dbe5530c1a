package dev.alkdev.operations.transport.redis.internal;

import io.lettuce.core.resource.EventLoopGroupProvider;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Gives every connection of one transport the same event loop of the shared group (D87). A reply or
 * an answer published from a delivery is then written on the thread that read the request, inline,
 * instead of being queued to the other connection's loop, which would have to be woken: one thread
 * wake-up less per served call. Transports still spread over the group's loops: each takes the
 * group's next loop when it first connects.
 *
 * <p>Lettuce asks its provider for a group once per client and registers each connection's channel
 * with {@code group.next()}; an {@link EventLoop} is a group whose next loop is itself. The
 * reference counting of the shared provider is kept: allocate once, release once.
 */
public final class PinnedEventLoop implements EventLoopGroupProvider {
  private final EventLoopGroupProvider shared;
  private final Object lock = new Object();
  // The loop handed out, per group type asked for, and the shared group it belongs to.
  private final Map<EventExecutorGroup, EventLoopGroup> pinnedToGroup = new HashMap<>();

  public PinnedEventLoop(EventLoopGroupProvider shared) {
    this.shared = Objects.requireNonNull(shared, "shared");
  }

  @Override
  public <T extends EventLoopGroup> T allocate(Class<T> type) {
    synchronized (lock) {
      EventLoopGroup group = shared.allocate(type);
      EventLoop loop = group.next();
      pinnedToGroup.put(loop, group);
      // Unchecked on purpose: Lettuce keeps the answer as an EventLoopGroup and only hands it to
      // its bootstrap, which registers channels with next(), this loop.
      @SuppressWarnings("unchecked")
      T pinned = (T) loop;
      return pinned;
    }
  }

  @Override
  public int threadPoolSize() {
    return 1;
  }

  @Override
  public Future<Boolean> release(
      EventExecutorGroup eventLoopGroup, long quietPeriod, long timeout, TimeUnit unit) {
    EventLoopGroup group;
    synchronized (lock) {
      group = pinnedToGroup.remove(eventLoopGroup);
    }
    return group != null
        ? shared.release(group, quietPeriod, timeout, unit)
        : ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
  }

  /** Nothing of its own to shut down: the loops belong to the shared provider. */
  @Override
  public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit timeUnit) {
    return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
  }
}
