package dev.alkdev.operations.transport.kit;

import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Where an idle subscription of a broker that holds its subscriptions starts handling a message: on
 * the thread that publishes or relays it (the in-process publisher, Jetty's reader for the sending
 * spoke's connection), saving a hand-off to the pool per message. Nested deliveries past a small
 * depth go to the pool, and so does the rest of a batch ({@code SerialMailbox} yields after 64). A
 * handler that waited there would hold up the publisher; the in-process transport accepts that by
 * default (its inline delivery), the hub only for its own subscriptions whose handler promised
 * never to block (D74).
 */
public final class InlineFirst implements Executor {
  private static final int MAX_DEPTH = 4;
  private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

  private final Executor pool;

  public InlineFirst(Executor pool) {
    this.pool = Objects.requireNonNull(pool, "pool");
  }

  @Override
  public void execute(Runnable drain) {
    int[] depth = DEPTH.get();
    if (depth[0] >= MAX_DEPTH) {
      pool.execute(drain);
      return;
    }
    depth[0]++;
    try {
      drain.run();
    } finally {
      depth[0]--;
    }
  }
}
