package dev.alkdev.operations.transport.websocket.internal;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * A warning logged at most once per interval, with how many occurrences it stands for: a slow
 * consumer drops thousands of messages a second, and one line per message would bury the log.
 */
public final class RateLimitedWarning {
  private final Logger log;
  private final long intervalNanos;
  private final AtomicLong nextAllowed = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong suppressed = new AtomicLong();

  public RateLimitedWarning(Logger log, java.time.Duration interval) {
    this.log = log;
    this.intervalNanos = interval.toNanos();
  }

  /** Logs {@code message} (an SLF4J pattern) unless one was logged within the interval. */
  public void warn(String message, Object... args) {
    long now = System.nanoTime();
    long allowed = nextAllowed.get();
    if ((allowed != Long.MIN_VALUE && now - allowed < 0)
        || !nextAllowed.compareAndSet(allowed, now + intervalNanos)) {
      suppressed.incrementAndGet();
      return;
    }
    long skipped = suppressed.getAndSet(0);
    if (skipped > 0) {
      log.warn(message + " ({} similar warnings suppressed)", append(args, skipped));
    } else {
      log.warn(message, args);
    }
  }

  private static Object[] append(Object[] args, Object last) {
    Object[] all = java.util.Arrays.copyOf(args, args.length + 1);
    all[args.length] = last;
    return all;
  }
}
