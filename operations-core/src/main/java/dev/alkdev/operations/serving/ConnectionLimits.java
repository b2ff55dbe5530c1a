package dev.alkdev.operations.serving;

import java.time.Duration;
import java.util.Objects;

/**
 * What a server that takes connections (the HTTP gateway, the MCP server, the WebSocket hub) lets
 * one connection, one client and all of them hold, so that connections that trickle or pile up
 * cannot hold the server open. Values only: each server applies them the same way.
 *
 * @param maxConnections connections open at once on one server; at the cap the server stops
 *     accepting until one closes (new clients wait in the listen backlog)
 * @param maxConnectionsPerClient connections open at once from one remote address; one more is
 *     closed as soon as it is accepted
 * @param requestHeadTimeout the most time a request's head (request line and headers) may take to
 *     arrive once its first byte has; a head still incomplete then closes the connection (each byte
 *     resets the idle timeout, so without this a client sending one header line every few seconds
 *     holds its connection for ever)
 * @param minRequestBytesPerSecond the least rate a request's body must arrive at, on average since
 *     its head ended, once {@code requestBodyGrace} has passed; a slower body closes the connection
 * @param requestBodyGrace how long a body may arrive at any rate before its average is judged
 */
public record ConnectionLimits(
    int maxConnections,
    int maxConnectionsPerClient,
    Duration requestHeadTimeout,
    long minRequestBytesPerSecond,
    Duration requestBodyGrace) {

  /** The defaults: 10,000 connections, 1,000 per address, 10 s per head, 1 KiB/s after 5 s. */
  public static ConnectionLimits defaults() {
    return new ConnectionLimits(10_000, 1_000, Duration.ofSeconds(10), 1024, Duration.ofSeconds(5));
  }

  public ConnectionLimits {
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be positive, was " + maxConnections);
    }
    if (maxConnectionsPerClient < 1 || maxConnectionsPerClient > maxConnections) {
      throw new IllegalArgumentException(
          "maxConnectionsPerClient must be 1 to maxConnections ("
              + maxConnections
              + "), was "
              + maxConnectionsPerClient);
    }
    atLeast("requestHeadTimeout", requestHeadTimeout, Duration.ofMillis(100));
    if (minRequestBytesPerSecond < 0) {
      throw new IllegalArgumentException(
          "minRequestBytesPerSecond must be 0 (no minimum) or more, was "
              + minRequestBytesPerSecond);
    }
    atLeast("requestBodyGrace", requestBodyGrace, Duration.ofMillis(100));
  }

  private static void atLeast(String name, Duration value, Duration least) {
    Objects.requireNonNull(value, name);
    if (value.compareTo(least) < 0) {
      throw new IllegalArgumentException(
          name + " must be at least " + least.toMillis() + " ms, was " + value.toMillis() + " ms");
    }
  }

  public ConnectionLimits withMaxConnections(int max) {
    return new ConnectionLimits(
        max,
        Math.min(maxConnectionsPerClient, max),
        requestHeadTimeout,
        minRequestBytesPerSecond,
        requestBodyGrace);
  }

  public ConnectionLimits withMaxConnectionsPerClient(int max) {
    return new ConnectionLimits(
        maxConnections, max, requestHeadTimeout, minRequestBytesPerSecond, requestBodyGrace);
  }

  public ConnectionLimits withRequestHeadTimeout(Duration timeout) {
    return new ConnectionLimits(
        maxConnections,
        maxConnectionsPerClient,
        timeout,
        minRequestBytesPerSecond,
        requestBodyGrace);
  }

  /** The least body rate, and how long a body may arrive at any rate before it is judged. */
  public ConnectionLimits withMinRequestRate(long bytesPerSecond, Duration grace) {
    return new ConnectionLimits(
        maxConnections, maxConnectionsPerClient, requestHeadTimeout, bytesPerSecond, grace);
  }
}
