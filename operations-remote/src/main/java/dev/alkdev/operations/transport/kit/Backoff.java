package dev.alkdev.operations.transport.kit;

import java.time.Duration;
import java.util.Objects;

/**
 * How long to wait before the next try: {@code initial} doubled per step, capped at {@code max},
 * and, when {@code jittered}, a random time between half and all of that, so that many clients cut
 * off together do not come back together. Reconnections and retried calls use it.
 *
 * @param initial the wait before the first try again
 * @param max the longest wait
 * @param jittered whether each wait is drawn between half and all of its step's
 */
public record Backoff(Duration initial, Duration max, boolean jittered) {
  public Backoff {
    Objects.requireNonNull(initial, "initial");
    Objects.requireNonNull(max, "max");
    if (initial.isNegative() || max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          "need 0 <= initial <= max, was initial " + initial + ", max " + max);
    }
  }

  /** The same wait every time, without jitter. */
  public static Backoff fixed(Duration wait) {
    return new Backoff(wait, wait, false);
  }

  /** From {@code initial}, doubled per step up to {@code max}, jittered. */
  public static Backoff exponential(Duration initial, Duration max) {
    return new Backoff(initial, max, true);
  }

  /**
   * The wait before try {@code step} (1: the first try again).
   *
   * @param random a number in [0, 1), used when jittered
   */
  public long delayNanos(int step, double random) {
    long cap = max.toNanos();
    long wait = initial.toNanos();
    for (int i = 1; i < step && wait < cap; i++) {
      wait *= 2;
    }
    wait = Math.min(wait, cap);
    return jittered ? (long) (wait * (0.5 + random / 2)) : wait;
  }
}
