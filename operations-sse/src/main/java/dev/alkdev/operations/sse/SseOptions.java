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
 * @param minRetry the shortest reconnection delay, whatever the stream asks for: a server that
 *     sends {@code retry: 0} and closes after each event must not be reconnected to in a tight loop
 *     ({@code maxRetry} wins when it is the smaller)
 * @param maxReconnects how many reconnections in a row may be tried; the count starts again after a
 *     connection that delivered an event
 * @param reconnectBudget how many reconnections any one minute may hold, events or not: the count
 *     above restarts on every event, this one does not, so a stream that sends one event per
 *     connection cannot reconnect without end
 * @param reconnect when to reconnect: after the server closes the stream and after a drop (the
 *     default, EventSource's rule), only after a drop, or never
 * @param limits the parser's limits
 * @param maxErrorBodyBytes how much of a failed response's body goes into the error's details
 */
public record SseOptions(
    Duration responseTimeout,
    Duration defaultRetry,
    Duration maxRetry,
    Duration minRetry,
    int maxReconnects,
    int reconnectBudget,
    Reconnect reconnect,
    SseLimits limits,
    int maxErrorBodyBytes) {

  /** When a stream that was open is connected to again. */
  public enum Reconnect {
    /**
     * After the server ends the response and after the connection drops (EventSource's rule: an
     * endless feed whose server closes now and then, resumed with {@code Last-Event-ID}).
     */
    ALWAYS,
    /**
     * Only after the connection drops (a failure, a timeout): the server ending the response ends
     * the stream. For finite streams, whose server would start again from the beginning.
     */
    ON_DROP,
    /** Never: the stream completes when the response ends and fails when it drops. */
    NEVER
  }

  public SseOptions {
    requirePositive(responseTimeout, "responseTimeout");
    Objects.requireNonNull(reconnect, "reconnect");
    Objects.requireNonNull(defaultRetry, "defaultRetry");
    Objects.requireNonNull(maxRetry, "maxRetry");
    if (defaultRetry.isNegative() || maxRetry.isNegative()) {
      throw new IllegalArgumentException("defaultRetry and maxRetry must not be negative");
    }
    Objects.requireNonNull(minRetry, "minRetry");
    if (minRetry.isNegative()) {
      throw new IllegalArgumentException("minRetry must not be negative, was " + minRetry);
    }
    if (reconnectBudget < 0) {
      throw new IllegalArgumentException(
          "reconnectBudget must not be negative, was " + reconnectBudget);
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
   * 30 s response timeout, 3 s default retry, at least 500 ms and at most 60 s, 5 reconnections in
   * a row without an event and 30 in any minute, limits {@link SseLimits#defaults()}, 4 KiB of an
   * error body.
   */
  public static SseOptions defaults() {
    return new SseOptions(
        Duration.ofSeconds(30),
        Duration.ofSeconds(3),
        Duration.ofSeconds(60),
        Duration.ofMillis(500),
        5,
        30,
        Reconnect.ALWAYS,
        SseLimits.defaults(),
        4096);
  }

  public SseOptions withResponseTimeout(Duration value) {
    return new SseOptions(
        value,
        defaultRetry,
        maxRetry,
        minRetry,
        maxReconnects,
        reconnectBudget,
        reconnect,
        limits,
        maxErrorBodyBytes);
  }

  public SseOptions withDefaultRetry(Duration value) {
    return new SseOptions(
        responseTimeout,
        value,
        maxRetry,
        minRetry,
        maxReconnects,
        reconnectBudget,
        reconnect,
        limits,
        maxErrorBodyBytes);
  }

  public SseOptions withMaxRetry(Duration value) {
    return new SseOptions(
        responseTimeout,
        defaultRetry,
        value,
        minRetry,
        maxReconnects,
        reconnectBudget,
        reconnect,
        limits,
        maxErrorBodyBytes);
  }

  /** The shortest reconnection delay, whatever the stream asks for (500 ms by default). */
  public SseOptions withMinRetry(Duration value) {
    return new SseOptions(
        responseTimeout,
        defaultRetry,
        maxRetry,
        value,
        maxReconnects,
        reconnectBudget,
        reconnect,
        limits,
        maxErrorBodyBytes);
  }

  public SseOptions withMaxReconnects(int value) {
    return new SseOptions(
        responseTimeout,
        defaultRetry,
        maxRetry,
        minRetry,
        value,
        reconnectBudget,
        reconnect,
        limits,
        maxErrorBodyBytes);
  }

  /** Reconnections any one minute may hold, events or not (30 by default). */
  public SseOptions withReconnectBudget(int value) {
    return new SseOptions(
        responseTimeout,
        defaultRetry,
        maxRetry,
        minRetry,
        maxReconnects,
        value,
        reconnect,
        limits,
        maxErrorBodyBytes);
  }

  /** Options that never reconnect: the publisher completes when the stream ends. */
  public SseOptions withoutReconnect() {
    return withReconnect(Reconnect.NEVER);
  }

  /** When to reconnect ({@link Reconnect#ALWAYS} by default). */
  public SseOptions withReconnect(Reconnect value) {
    return new SseOptions(
        responseTimeout,
        defaultRetry,
        maxRetry,
        minRetry,
        maxReconnects,
        reconnectBudget,
        value,
        limits,
        maxErrorBodyBytes);
  }

  public SseOptions withLimits(SseLimits value) {
    return new SseOptions(
        responseTimeout,
        defaultRetry,
        maxRetry,
        minRetry,
        maxReconnects,
        reconnectBudget,
        reconnect,
        value,
        maxErrorBodyBytes);
  }

  public SseOptions withMaxErrorBodyBytes(int value) {
    return new SseOptions(
        responseTimeout,
        defaultRetry,
        maxRetry,
        minRetry,
        maxReconnects,
        reconnectBudget,
        reconnect,
        limits,
        value);
  }

  private static void requirePositive(Duration duration, String name) {
    Objects.requireNonNull(duration, name);
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + duration);
    }
  }
}
