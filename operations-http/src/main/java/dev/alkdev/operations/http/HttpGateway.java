package dev.alkdev.operations.http;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.http.internal.GatewayConfig;
import dev.alkdev.operations.http.internal.GatewayHandler;
import dev.alkdev.operations.http.internal.TextRoute;
import dev.alkdev.operations.jetty.internal.BindFailure;
import dev.alkdev.operations.jetty.internal.ConnectionGuard;
import dev.alkdev.operations.serving.ConnectionLimits;
import dev.alkdev.operations.serving.ConnectionStats;
import dev.alkdev.operations.serving.OperationServer;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Serves a registry's operations over HTTP: each operation at {@code /ops/{operationId}} (JSON in,
 * the response envelope or the data alone out; SUBSCRIPTIONs as {@code text/event-stream}), the
 * operations the caller may see at {@code GET /ops}, an OpenAPI 3.1 document at {@code
 * /openapi.json}, {@code /healthz}, {@code /readyz}, and a web console at {@code /}. A thin adapter
 * over the serving pipeline ({@link OperationServer}): access, limits, context and interceptors are
 * the pipeline's; the gateway reads HTTP requests and writes what the pipeline answers. Rules and
 * tables: docs/http.md.
 *
 * <p>Secure by default: it listens on 127.0.0.1 and, while it listens on a loopback address, only
 * answers requests whose {@code Host} names a loopback address (no DNS rebinding); requests
 * carrying an {@code Origin} other than the gateway's own are refused unless allowed; CORS is off
 * unless origins are configured; bodies are capped (1 MiB). Started with {@link Builder#start()};
 * {@link #close()} stops it.
 */
public final class HttpGateway implements AutoCloseable {
  /**
   * The metadata key under which a stream's {@code Last-Event-ID} reaches the handler's context
   * ({@link OperationContext#metadata()}); read it with {@link #lastEventId(OperationContext)}.
   */
  public static final String LAST_EVENT_ID = "last-event-id";

  /** The request header that sets a call's timeout, in milliseconds. */
  public static final String TIMEOUT_HEADER = "Ops-Timeout-Ms";

  /** How long a stop waits for the answers of calls that have ended to be written. */
  private static final Duration FINAL_WRITES = Duration.ofSeconds(2);

  private final Server jetty;
  private final OperationServer server;
  private final boolean ownsServer;
  private final URI uri;

  private final GatewayHandler handler;
  private final ConnectionGuard guard;

  private HttpGateway(
      Server jetty,
      GatewayHandler handler,
      ConnectionGuard guard,
      OperationServer server,
      boolean ownsServer,
      URI uri) {
    this.jetty = jetty;
    this.handler = handler;
    this.guard = guard;
    this.server = server;
    this.ownsServer = ownsServer;
    this.uri = uri;
  }

  /** A gateway over {@code server}, which stays the caller's to close. */
  public static Builder builder(OperationServer server) {
    return new Builder(Objects.requireNonNull(server, "server"), false);
  }

  /** A gateway over a pipeline of its own on {@code registry}, closed with the gateway. */
  public static Builder builder(OperationRegistry registry) {
    return new Builder(OperationServer.create(Objects.requireNonNull(registry, "registry")), true);
  }

  /**
   * The {@code Last-Event-ID} a client sent when it (re)opened the stream this call serves: the id
   * of the last event it received, so a handler can resume after it.
   */
  public static Optional<String> lastEventId(OperationContext context) {
    return context.metadata().get(LAST_EVENT_ID);
  }

  /** Where the gateway listens: {@code http://host:port/}. */
  public URI uri() {
    return uri;
  }

  /** The port it listens on (the one chosen when the builder asked for port 0). */
  public int port() {
    return uri.getPort();
  }

  /** The pipeline it serves through. */
  public OperationServer server() {
    return server;
  }

  /**
   * Stops gracefully: readiness turns 503 and new calls are refused (UNAVAILABLE), running calls
   * get up to {@code timeout} to finish, then the listener closes. A pipeline passed to {@link
   * #builder(OperationServer)} is drained too (it refuses new calls from every adapter).
   *
   * @return whether every running call finished in time
   */
  public boolean drain(Duration timeout) {
    boolean drained = server.drain(timeout);
    // The calls have ended; their answers (a stream's last event) may still be on their way out.
    handler.awaitIdle(FINAL_WRITES);
    stopJetty();
    return drained;
  }

  /**
   * Stops at once: running calls are cancelled (streams end with {@code call.error} UNAVAILABLE
   * when the pipeline is the gateway's own), the listener closes. Idempotent.
   */
  @Override
  public void close() {
    if (ownsServer) {
      server.close();
      handler.awaitIdle(FINAL_WRITES);
    }
    stopJetty();
  }

  /** What the connection limits saw and did since the gateway started. */
  public ConnectionStats connectionStats() {
    return guard.stats();
  }

  private void stopJetty() {
    guard.stop();
    try {
      jetty.stop();
    } catch (Exception e) {
      throw CallError.of(ErrorCode.UNAVAILABLE, "The HTTP gateway did not stop cleanly", e);
    }
  }

  @Override
  public String toString() {
    return "HttpGateway[" + uri + "]";
  }

  /** Configures and starts an {@link HttpGateway}. */
  public static final class Builder {
    private final OperationServer server;
    private final boolean ownsServer;
    private String host = "127.0.0.1";
    private int port;
    private Authenticator authenticator;
    private long maxRequestBytes = 1024 * 1024;
    private final Set<String> corsOrigins = new LinkedHashSet<>();
    private final Set<String> allowedOrigins = new LinkedHashSet<>();
    private final Set<String> allowedHosts = new LinkedHashSet<>();
    private Duration keepAlive = Duration.ofSeconds(15);
    private Duration idleTimeout = Duration.ofSeconds(60);
    private boolean console = true;
    private String title = "operations";
    private int maxThreads = 200;
    private ConnectionLimits connectionLimits = ConnectionLimits.defaults();
    private final Map<String, TextRoute> textRoutes = new LinkedHashMap<>();

    private Builder(OperationServer server, boolean ownsServer) {
      this.server = server;
      this.ownsServer = ownsServer;
    }

    /**
     * The address to listen on: 127.0.0.1 by default. Another address exposes every operation that
     * needs no scope to whoever reaches it: set an {@link #authenticator} first.
     */
    public Builder host(String host) {
      Objects.requireNonNull(host, "host");
      if (host.isBlank()) {
        throw new IllegalArgumentException("host must not be blank");
      }
      this.host = host;
      return this;
    }

    /** The port; 0 (the default) picks a free one ({@link HttpGateway#port()} tells which). */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be 0 to 65535, was " + port);
      }
      this.port = port;
      return this;
    }

    /**
     * How callers are identified (bearer tokens); without one every caller is anonymous and only
     * operations without required scopes can be called or seen.
     */
    public Builder authenticator(Authenticator authenticator) {
      this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
      return this;
    }

    /** The largest request body taken (1 MiB by default); larger ones are answered 413. */
    public Builder maxRequestBytes(long max) {
      if (max < 1 || max > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("maxRequestBytes must be 1 to 2^31-9, was " + max);
      }
      this.maxRequestBytes = max;
      return this;
    }

    /**
     * Turns CORS on for these origins ({@code https://app.example.com}, exactly as browsers send
     * {@code Origin}): their pages may call operations and read the answers. Off by default.
     */
    public Builder corsOrigins(String... origins) {
      for (String origin : origins) {
        corsOrigins.add(origin(origin));
      }
      return this;
    }

    /**
     * Origins whose requests are accepted though they are not the gateway's own (a reverse proxy's
     * public origin, say). Unlike {@link #corsOrigins} this adds no CORS headers.
     */
    public Builder allowedOrigins(String... origins) {
      for (String origin : origins) {
        allowedOrigins.add(origin(origin));
      }
      return this;
    }

    /**
     * Host names accepted in the {@code Host} header besides the loopback names, while the gateway
     * listens on a loopback address (a name in /etc/hosts, say). On other addresses every host is
     * accepted.
     */
    public Builder allowedHosts(String... hosts) {
      for (String h : hosts) {
        Objects.requireNonNull(h, "host");
        allowedHosts.add(h.toLowerCase(Locale.ROOT));
      }
      return this;
    }

    /**
     * What connections may hold ({@link ConnectionLimits#defaults()} unless told otherwise): the
     * open connections in all and per remote address, the time a request's head may take and the
     * least rate of a request's body. See docs/http.md, "Connections".
     */
    public Builder connectionLimits(ConnectionLimits limits) {
      this.connectionLimits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /** How often an idle stream gets a keep-alive comment (15 s by default). */
    public Builder keepAliveInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.toMillis() < 10) {
        throw new IllegalArgumentException("keepAliveInterval must be at least 10 ms");
      }
      this.keepAlive = interval;
      return this;
    }

    /**
     * How long a connection may be silent (60 s by default): a unary call whose connection stays
     * silent that long is cancelled. Streams stay alive through their keep-alives.
     */
    public Builder idleTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.toMillis() < 100) {
        throw new IllegalArgumentException("idleTimeout must be at least 100 ms");
      }
      this.idleTimeout = timeout;
      return this;
    }

    /** Whether to serve the web console at {@code /} (on by default). */
    public Builder console(boolean enabled) {
      this.console = enabled;
      return this;
    }

    /** The title of the OpenAPI document and the console. */
    public Builder title(String title) {
      this.title = Objects.requireNonNull(title, "title");
      return this;
    }

    /** The server's thread pool size (200 by default); streams write from these threads. */
    public Builder maxThreads(int max) {
      if (max < 8) {
        throw new IllegalArgumentException("maxThreads must be at least 8, was " + max);
      }
      this.maxThreads = max;
      return this;
    }

    /**
     * Adds a GET route at {@code path} answering with the text {@code body} makes at each request,
     * for plain-text endpoints the gateway itself knows nothing of: {@code ops serve} mounts the
     * Prometheus scrape at {@code /metrics} this way. The route has the gateway's Host and Origin
     * guards (loopback names only while it listens on loopback; no other site's pages) and, when an
     * {@link #authenticator} is set, requires a valid bearer token. A body that throws answers 500.
     *
     * @param path an absolute path such as {@code /metrics}; not one the gateway serves itself
     *     ({@code /}, {@code /ops...}, {@code /openapi.json}, {@code /healthz}, {@code /readyz})
     * @param contentType the {@code Content-Type} of the answer, e.g. {@code text/plain;
     *     version=0.0.4; charset=utf-8}
     */
    public Builder route(String path, String contentType, Supplier<String> body) {
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(contentType, "contentType");
      Objects.requireNonNull(body, "body");
      if (!path.startsWith("/")
          || path.length() < 2
          || path.contains("?")
          || path.contains("#")
          || path.equals("/openapi.json")
          || path.equals("/healthz")
          || path.equals("/readyz")
          || path.equals("/ops")
          || path.startsWith("/ops/")) {
        throw new IllegalArgumentException(
            "route path must be absolute, without query, and not one the gateway serves itself"
                + " (/, /ops..., /openapi.json, /healthz, /readyz), was "
                + path);
      }
      if (contentType.isBlank()) {
        throw new IllegalArgumentException("contentType must not be blank");
      }
      if (textRoutes.putIfAbsent(path, new TextRoute(contentType, body)) != null) {
        throw new IllegalArgumentException("route " + path + " is added twice");
      }
      return this;
    }

    /**
     * Starts listening.
     *
     * @throws CallError UNAVAILABLE if the address cannot be bound (in use, not local)
     */
    public HttpGateway start() {
      boolean loopback = isLoopback(host);
      QueuedThreadPool threads = new QueuedThreadPool(maxThreads, Math.min(8, maxThreads));
      threads.setName("ops-http");
      threads.setDaemon(true);
      Server jetty = new Server(threads);
      ServerConnector connector = new ServerConnector(jetty);
      connector.setHost(host);
      connector.setPort(port);
      connector.setIdleTimeout(idleTimeout.toMillis());
      jetty.addConnector(connector);
      ConnectionGuard guard =
          ConnectionGuard.install("HTTP gateway", jetty, connector, connectionLimits);
      GatewayConfig config =
          new GatewayConfig(
              Optional.ofNullable(authenticator),
              maxRequestBytes,
              Set.copyOf(corsOrigins),
              Set.copyOf(allowedOrigins),
              loopback,
              Set.copyOf(allowedHosts),
              keepAlive,
              idleTimeout,
              console,
              title,
              Map.copyOf(textRoutes));
      GatewayHandler handler = new GatewayHandler(server, config, threads);
      jetty.setHandler(guard.wrap(handler));
      jetty.setErrorHandler(handler.errorHandler());
      try {
        jetty.start();
        guard.start();
      } catch (Exception e) {
        try {
          jetty.stop();
        } catch (Exception ignored) {
          // already failing; the bind failure is what matters
        }
        if (ownsServer) {
          server.close();
        }
        throw BindFailure.of("HTTP gateway", host, port, e);
      }
      String shownHost = host.contains(":") ? "[" + host + "]" : host;
      URI uri = URI.create("http://" + shownHost + ":" + connector.getLocalPort() + "/");
      return new HttpGateway(jetty, handler, guard, server, ownsServer, uri);
    }

    private static boolean isLoopback(String host) {
      try {
        return InetAddress.getByName(host).isLoopbackAddress();
      } catch (UnknownHostException e) {
        throw new IllegalArgumentException("host " + host + " does not resolve", e);
      }
    }

    /** An origin as browsers send it: scheme://host[:port], lower-case, no path. */
    private static String origin(String origin) {
      Objects.requireNonNull(origin, "origin");
      URI parsed;
      try {
        parsed = new URI(origin);
      } catch (java.net.URISyntaxException e) {
        throw new IllegalArgumentException("not an origin: " + origin, e);
      }
      if (parsed.getScheme() == null
          || parsed.getHost() == null
          || (parsed.getPath() != null && !parsed.getPath().isEmpty())
          || parsed.getQuery() != null
          || parsed.getUserInfo() != null) {
        throw new IllegalArgumentException(
            "not an origin (expected scheme://host[:port], no path): " + origin);
      }
      return origin.toLowerCase(Locale.ROOT);
    }
  }
}
