package dev.alkdev.operations.transport.websocket.internal;

/**
 * Whether the peer of one connection is still heard from. A ping keeps Jetty's idle timeout from
 * firing even when nothing comes back (a write counts as activity, and a write into a dead TCP
 * connection succeeds until the kernel gives up, minutes later), so liveness is judged by what is
 * read: any frame, or the pong that answers our ping.
 *
 * <p>The connection's reader counts what it hears ({@link #heard()}: one plain increment, no clock
 * read per frame); the ping timer compares the count with the one it saw last ({@link #silent}).
 */
public final class Liveness {
  private volatile long heard; // written by the connection's reader only, one event at a time
  private long seen; // the ping timer's own
  private long quietSince = System.nanoTime();

  /** Something arrived from the peer. */
  public void heard() {
    heard = heard + 1;
  }

  /**
   * Whether nothing has arrived for longer than {@code limitNanos} as of {@code now}; called by one
   * timer thread only.
   */
  public boolean silent(long now, long limitNanos) {
    long count = heard;
    if (count != seen) {
      seen = count;
      quietSince = now;
      return false;
    }
    return now - quietSince > limitNanos;
  }

  /**
   * How long a connection may be silent before it is judged dead: the idle timeout, but never less
   * than two ping intervals, so that a healthy idle peer always has a pong in the window.
   */
  public static long limitNanos(java.time.Duration idleTimeout, java.time.Duration pingInterval) {
    return Math.max(idleTimeout.toNanos(), 2 * pingInterval.toNanos());
  }
}
