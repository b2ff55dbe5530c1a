package dev.alkdev.operations.discovery;

import dev.alkdev.operations.transport.kit.Backoff;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link RemoteCatalog} retries a call that failed with UNAVAILABLE or NO_RESPONDERS on
 * another node: at most {@code maxAttempts} attempts in all, within the call's deadline, waiting
 * between them a random time between half and all of {@code initialBackoff} doubled per retry and
 * capped at {@code maxBackoff}. Only calls that are safe to repeat are retried (a QUERY, an
 * idempotent MUTATION), and any call that was never sent.
 *
 * @param maxAttempts attempts in all, the first included (1: no retries)
 * @param initialBackoff the wait before the first retry
 * @param maxBackoff the longest wait between attempts
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
  public RetryPolicy {
    Objects.requireNonNull(initialBackoff, "initialBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
    }
    if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException("need 0 <= initialBackoff <= maxBackoff");
    }
  }

  /** Three attempts, 20 ms before the first retry, at most 500 ms between attempts. */
  public static RetryPolicy defaults() {
    return new RetryPolicy(3, Duration.ofMillis(20), Duration.ofMillis(500));
  }

  /** One attempt: failures are the caller's. */
  public static RetryPolicy none() {
    return new RetryPolicy(1, Duration.ZERO, Duration.ZERO);
  }

  /** The wait before attempt {@code attempt} (2 for the first retry), jittered. */
  long backoffNanos(int attempt, double random) {
    return new Backoff(initialBackoff, maxBackoff, true).delayNanos(attempt - 1, random);
  }
}
