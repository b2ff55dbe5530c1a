package dev.alkdev.operations.internal;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Warnings and errors of one call site, at most {@code limit} per interval. Hot paths fail per call
 * or per message; a hostile or broken peer makes them fail by the hundred thousand, and one log
 * line per failure buries everything else (200,000 failing handlers once wrote 2 million lines).
 * What is held back is counted and reported on the next line that gets through, so no failure goes
 * unseen: "(K similar messages suppressed)". Keep one instance per call site, in a static field.
 * Thread-safe and lock-free; a line at a level that is disabled costs nothing and is not counted.
 */
public final class RateLimitedLog {
  /** Lines per interval a call site logs unless told otherwise. */
  static final int DEFAULT_LIMIT = 10;

  static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);

  private final Logger log;
  private final int limit;
  private final long intervalNanos;
  private final LongSupplier clock;
  private final AtomicLong windowStart;
  private final AtomicLong inWindow = new AtomicLong();
  private final AtomicLong suppressed = new AtomicLong();

  RateLimitedLog(Logger log, int limit, Duration interval, LongSupplier clock) {
    this.log = Objects.requireNonNull(log, "log");
    if (limit <= 0 || interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("limit and interval must be positive");
    }
    this.limit = limit;
    this.intervalNanos = interval.toNanos();
    this.clock = clock;
    this.windowStart = new AtomicLong(clock.getAsLong());
  }

  /** At most 10 lines a minute through {@code log}. */
  public static RateLimitedLog of(Logger log) {
    return new RateLimitedLog(log, DEFAULT_LIMIT, DEFAULT_INTERVAL, System::nanoTime);
  }

  /** At most {@code limit} lines per {@code interval} through {@code log}. */
  public static RateLimitedLog of(Logger log, int limit, Duration interval) {
    return new RateLimitedLog(log, limit, interval, System::nanoTime);
  }

  /** SLF4J's {@code warn(format, args)}: a trailing Throwable is logged with its stack trace. */
  public void warn(String format, Object... args) {
    if (log.isWarnEnabled() && admit()) {
      long held = suppressed.getAndSet(0);
      log.warn(withCount(format, held), withCount(args, held));
    }
  }

  /** SLF4J's {@code error(format, args)}, limited like {@link #warn}. */
  public void error(String format, Object... args) {
    if (log.isErrorEnabled() && admit()) {
      long held = suppressed.getAndSet(0);
      log.error(withCount(format, held), withCount(args, held));
    }
  }

  /** Whether a line may be logged now; if not, it is counted as suppressed. */
  private boolean admit() {
    long now = clock.getAsLong();
    long start = windowStart.get();
    if (now - start >= intervalNanos && windowStart.compareAndSet(start, now)) {
      inWindow.set(0);
    }
    if (inWindow.incrementAndGet() <= limit) {
      return true;
    }
    suppressed.incrementAndGet();
    return false;
  }

  private static String withCount(String format, long held) {
    return held == 0 ? format : format + " ({} similar messages suppressed)";
  }

  /**
   * The count travels as one more argument, placed before a trailing Throwable so that SLF4J still
   * logs the Throwable as the line's exception.
   */
  private static Object[] withCount(Object[] args, long held) {
    if (held == 0) {
      return args;
    }
    Object[] extended = Arrays.copyOf(args, args.length + 1);
    if (args.length > 0 && args[args.length - 1] instanceof Throwable error) {
      extended[args.length - 1] = held;
      extended[args.length] = error;
    } else {
      extended[args.length] = held;
    }
    return extended;
  }
}
