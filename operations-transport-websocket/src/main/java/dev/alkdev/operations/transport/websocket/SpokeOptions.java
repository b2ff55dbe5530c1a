package dev.alkdev.operations.transport.websocket;

import static dev.alkdev.operations.transport.kit.Settings.positive;
import static dev.alkdev.operations.transport.kit.Settings.reconnects;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How a {@link WebSocketSpoke} connects: the hub's URI, credentials, and its timeouts.
 *
 * <pre>{@code
 * SpokeOptions options =
 *     SpokeOptions.builder(URI.create("ws://127.0.0.1:8080/ws"))
 *         .bearerToken(token)
 *         .build();
 * }</pre>
 */
public final class SpokeOptions {
  final URI uri;
  final Map<String, String> headers;
  final Duration connectTimeout;
  final Duration requestTimeout;
  final Duration reconnectInitial;
  final Duration reconnectMax;
  final int maxReconnects;
  final Duration pingInterval;
  final Duration idleTimeout;
  final int maxQueuedFrames;
  final int maxMessageBytes;

  private SpokeOptions(Builder b) {
    this.uri = b.uri;
    this.headers = Map.copyOf(b.headers);
    this.connectTimeout = b.connectTimeout;
    this.requestTimeout = b.requestTimeout;
    this.reconnectInitial = b.reconnectInitial;
    this.reconnectMax = b.reconnectMax;
    this.maxReconnects = b.maxReconnects;
    this.pingInterval = b.pingInterval;
    this.idleTimeout = b.idleTimeout;
    this.maxQueuedFrames = b.maxQueuedFrames;
    this.maxMessageBytes = b.maxMessageBytes;
  }

  /** Options for the hub at {@code uri} ({@code ws://host:port/ws} or {@code wss://...}). */
  public static Builder builder(URI uri) {
    Objects.requireNonNull(uri, "uri");
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("ws") && !scheme.equals("wss")) {
      throw new IllegalArgumentException(
          "a hub's URI is ws://host:port/ws or wss://..., was " + uri);
    }
    return new Builder(uri);
  }

  public URI uri() {
    return uri;
  }

  @Override
  public String toString() {
    return "SpokeOptions[" + uri + "]"; // never the headers: they carry credentials
  }

  /** Configures {@link SpokeOptions}. */
  public static final class Builder {
    private final URI uri;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration requestTimeout = Duration.ofSeconds(10);
    private Duration reconnectInitial = Duration.ofMillis(100);
    private Duration reconnectMax = Duration.ofSeconds(5);
    private int maxReconnects = -1;
    private Duration pingInterval = Duration.ofSeconds(10);
    private Duration idleTimeout = Duration.ofSeconds(30);
    private int maxQueuedFrames = 4096;
    private int maxMessageBytes = Integer.MAX_VALUE;

    private Builder(URI uri) {
      this.uri = uri;
    }

    /** Sends {@code Authorization: Bearer <token>} with every upgrade. */
    public Builder bearerToken(String token) {
      if (token == null || token.isBlank()) {
        throw new IllegalArgumentException("a bearer token must not be blank");
      }
      return header("Authorization", "Bearer " + token);
    }

    /** Sends a header with every upgrade (an {@code Origin}, a cookie, a custom credential). */
    public Builder header(String name, String value) {
      headers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** One attempt to connect and be greeted by the hub (5 s by default). */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positive(timeout, "connectTimeout");
      return this;
    }

    /** How long {@code subscribe} waits for the hub to confirm (10 s by default). */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = positive(timeout, "requestTimeout");
      return this;
    }

    /**
     * The pause before the first reconnection attempt after a drop (100 ms by default), doubled
     * after each failed attempt up to {@code max} (5 s by default), each with random jitter (half
     * to all of it) so that spokes dropped together do not return together.
     */
    public Builder reconnectBackoff(Duration initial, Duration max) {
      this.reconnectInitial = positive(initial, "initial");
      this.reconnectMax = positive(max, "max");
      if (max.compareTo(initial) < 0) {
        throw new IllegalArgumentException("max backoff must not be less than the initial one");
      }
      return this;
    }

    /** Reconnection attempts after a drop before the spoke closes; -1 (the default): forever. */
    public Builder maxReconnects(int attempts) {
      this.maxReconnects = reconnects(attempts);
      return this;
    }

    /** How often the spoke pings the hub (10 s by default). */
    public Builder pingInterval(Duration interval) {
      this.pingInterval = positive(interval, "pingInterval");
      return this;
    }

    /** A connection silent this long is dropped and reconnected (30 s by default). */
    public Builder idleTimeout(Duration timeout) {
      this.idleTimeout = positive(timeout, "idleTimeout");
      return this;
    }

    /** Frames queued for the hub before publishes fail (4,096 by default). */
    public Builder maxQueuedFrames(int frames) {
      this.maxQueuedFrames = positive(frames, "maxQueuedFrames");
      return this;
    }

    /** A limit below the hub's: the spoke reports the smaller of the two. */
    public Builder maxMessageBytes(int bytes) {
      this.maxMessageBytes = positive(bytes, "maxMessageBytes");
      return this;
    }

    public SpokeOptions build() {
      return new SpokeOptions(this);
    }
  }
}
