package dev.alkdev.operations;

import java.time.Duration;
import java.util.Objects;

/**
 * A point in time by which a call must finish, on the monotonic clock ({@link System#nanoTime()}),
 * so wall-clock changes cannot stretch or cut it. On the wire a deadline travels as the time that
 * remains, so the clocks of two machines need not agree.
 */
public final class Deadline implements Comparable<Deadline> {
  private final long deadlineNanos;

  private Deadline(long deadlineNanos) {
    this.deadlineNanos = deadlineNanos;
  }

  /** The deadline {@code timeout} from now. */
  public static Deadline after(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    long now = System.nanoTime();
    long nanos = saturatedNanos(timeout);
    // Saturate instead of overflowing for absurdly long timeouts.
    long at = nanos > Long.MAX_VALUE / 2 ? now + Long.MAX_VALUE / 2 : now + nanos;
    return new Deadline(at);
  }

  /** The deadline {@code millis} milliseconds from now (the wire's "time remaining"). */
  public static Deadline afterMillis(long millis) {
    return after(Duration.ofMillis(Math.max(0, millis)));
  }

  /** Time left; zero or negative once expired. */
  public Duration remaining() {
    return Duration.ofNanos(deadlineNanos - System.nanoTime());
  }

  /** Milliseconds left, never negative, rounded up so a live deadline never reads as zero. */
  public long remainingMillis() {
    long nanos = deadlineNanos - System.nanoTime();
    return nanos <= 0 ? 0 : (nanos + 999_999) / 1_000_000;
  }

  public boolean isExpired() {
    return deadlineNanos - System.nanoTime() <= 0;
  }

  /** The earlier of the two. */
  public Deadline min(Deadline other) {
    return compareTo(other) <= 0 ? this : other;
  }

  @Override
  public int compareTo(Deadline other) {
    return Long.signum(deadlineNanos - other.deadlineNanos);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Deadline d && d.deadlineNanos == deadlineNanos;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(deadlineNanos);
  }

  @Override
  public String toString() {
    return "Deadline[" + remaining().toMillis() + " ms remaining]";
  }

  private static long saturatedNanos(Duration duration) {
    try {
      return duration.toNanos();
    } catch (ArithmeticException e) {
      return duration.isNegative() ? Long.MIN_VALUE / 2 : Long.MAX_VALUE / 2;
    }
  }
}
