package dev.alkdev.operations.transport.redis.internal;

import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.handler.flush.FlushConsolidationHandler;

/**
 * Puts Netty's {@link FlushConsolidationHandler} first in every connection's pipeline (D87).
 * Lettuce flushes each command as it is written, one {@code write(2)} per PUBLISH: the largest
 * single cost of a busy transport (a third to a half of its event loop's time in the benchmarks).
 * Consolidated, the commands written while the loop works through a read (the replies of a burst of
 * requests) or through its queued tasks (publishes from other threads) go out in one flush, which
 * the loop runs as its next task: no timer, no message held longer than the loop takes to finish
 * what it is doing. A run of 256 commands is flushed at once.
 */
public final class ConsolidatedFlushes implements NettyCustomizer {
  /** Flushes at once after this many consolidated ones (Netty's default). */
  static final int FLUSH_AFTER = FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES;

  @Override
  public void afterChannelInitialized(Channel channel) {
    // Also when no read is in progress on this channel: the replies are written by the loop
    // while it reads another connection (the subscriber), and publishes come from other threads.
    channel.pipeline().addFirst(new FlushConsolidationHandler(FLUSH_AFTER, true));
  }
}
