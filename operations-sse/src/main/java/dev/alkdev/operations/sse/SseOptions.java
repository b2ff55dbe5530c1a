package dev.alkdev.operations.sse;

import java.time.Duration;
import java.util.Objects;

/**
 * How an {@link SseEventSource} connects and reconnects.
 *
 * @param responseTimeout how long to wait for the response headers of each connection attempt (set
 *     as the request timeout; the stream itself may then stay open indefinitely)
 * @param defaultRetry the reconnection delay until the stream sends a {@code retry} field
 * @param maxRetry the longest reconnection delay, whatever the stream asks for
 * @param maxReconnects how many reconnections in a row may be tried; the count starts again after a
 *     connection that delivered an event
 * @param reconnect whether to reconnect at all when the stream ends or drops
 * @param limits the parser's limits
 * @param maxErrorBodyBytes how much of a failed response's body goes into the error's details
 */
public record SseOptions(
    Duration responseTimeout,
    Duration defaultRetry,
    Duration maxRetry,
    int maxReconnects,
    boolean reconnect,
    SseLimits limits,
    int maxErrorBodyBytes) {

  public SseOptions {
    requirePositive(responseTimeout, "responseTimeout");
    Objects.requireNonNull(defaultRetry, "defaultRetry");
    Objects.requireNonNull(maxRetry, "maxRetry");
    if (defaultRetry.isNegative() || maxRetry.isNegative()) {
      throw new IllegalArgumentException("defaultRetry and maxRetry must not be negative");
    }
    if (maxReconnects < 0) {
      throw new IllegalArgumentException(
          "maxReconnects must not be negative, was " + maxReconnects);
    }
    Objects.requireNonNull(limits, "limits");
    if (maxErrorBodyBytes < 0) {
      throw new IllegalArgumentException("maxErrorBodyBytes must not be negative");
    }
  }

  /**
   * 30 s response timeout, 3 s default retry capped at 60 s, 5 reconnections, limits {@link
   * SseLimits#defaults()}, 4 KiB of an error body.
   */
  public static SseOptions defaults() {
    return new SseOptions(
        Duration.ofSeconds(30),
        Duration.ofSeconds(3),
        Duration.ofSeconds(60),
        5,
        true,
        SseLimits.defaults(),
        4096);
  }

  public SseOptions withResponseTimeout(Duration value) {
    return new SseOptions(
        value, defaultRetry, maxRetry, maxReconnects, reconnect, limits, maxErrorBodyBytes);
  }

  public SseOptions withDefaultRetry(Duration value) {
    return new SseOptions(
        responseTimeout, value, maxRetry, maxReconnects, reconnect, limits, maxErrorBodyBytes);
  }

  public SseOptions withMaxRetry(Duration value) {
    return new SseOptions(
        responseTimeout, defaultRetry, value, maxReconnects, reconnect, limits, maxErrorBodyBytes);
  }

  public SseOptions withMaxReconnects(int value) {
    return new SseOptions(
        responseTimeout, defaultRetry, maxRetry, value, reconnect, limits, maxErrorBodyBytes);
  }

  /** Options that never reconnect: the publisher completes when the stream ends. */
  public SseOptions withoutReconnect() {
    return new SseOptions(
        responseTimeout, defaultRetry, maxRetry, maxReconnects, false, limits, maxErrorBodyBytes);
  }

  public SseOptions withLimits(SseLimits value) {
    return new SseOptions(
        responseTimeout,
        defaultRetry,
        maxRetry,
        maxReconnects,
        reconnect,
        value,
        maxErrorBodyBytes);
  }

  public SseOptions withMaxErrorBodyBytes(int value) {
    return new SseOptions(
        responseTimeout, defaultRetry, maxRetry, maxReconnects, reconnect, limits, value);
  }

  private static void requirePositive(Duration duration, String name) {
    Objects.requireNonNull(duration, name);
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + duration);
    }
  }
}
