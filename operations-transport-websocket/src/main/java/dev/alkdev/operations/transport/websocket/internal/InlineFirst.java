package dev.alkdev.operations.transport.websocket.internal;

import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Where an idle hub-local subscription starts handling a message: on the thread that relays it
 * (Jetty's reader for the sending spoke's connection), saving a hand-off to the pool per message,
 * as the in-process transport does. Nested deliveries past a small depth go to the pool, and so
 * does the rest of a batch (SerialMailbox yields after 64). Only the hub's own subscriptions whose
 * handler promised never to block use it (D74): a handler that waited there would hold up the
 * sender's connection, which is acceptable for the hub's protocol code (it never waits) but not for
 * a catalog's listeners or users' subscribers.
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
