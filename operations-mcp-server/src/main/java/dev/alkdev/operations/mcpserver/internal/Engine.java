package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.jetty.internal.BindFailure;
import dev.alkdev.operations.jetty.internal.ConnectionGuard;
import dev.alkdev.operations.jetty.internal.HealthRoutes;
import dev.alkdev.operations.mcpserver.McpHttpEndpoint;
import dev.alkdev.operations.mcpserver.McpSessionStats;
import dev.alkdev.operations.mcpserver.McpStdioEndpoint;
import dev.alkdev.operations.mcpserver.McpTool;
import dev.alkdev.operations.mcpserver.McpToolNames;
import dev.alkdev.operations.serving.ConnectionStats;
import dev.alkdev.operations.serving.OperationServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server behind {@code McpServer}: the tool catalog kept in step with the registry, the
 * protocol, and the endpoints started from it. Not API.
 */
public final class Engine implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Engine.class);
  private static final long REFRESH_DELAY_MS = 50;

  final Config config;
  final Protocol protocol;
  private final OperationServer server;
  private final OperationRegistry registry;
  private final Registration listener;
  private final AtomicBoolean dirty = new AtomicBoolean();
  private final AtomicBoolean refreshScheduled = new AtomicBoolean();
  private final ScheduledExecutorService scheduler;
  private final Set<HttpEndpoint> https = ConcurrentHashMap.newKeySet();
  private final Set<StdioTransport> stdios = ConcurrentHashMap.newKeySet();
  private volatile ToolCatalog catalog;
  private ToolCatalog announced; // guarded by this
  private volatile boolean closed;

  /** Tasks shared with the other servers of a mesh; null when they are not. */
  private final TaskMesh taskMesh;

  public Engine(OperationServer server, Config config) {
    Tasks tasks = new Tasks(config.taskTtl(), config.maxTasks());
    this.taskMesh =
        config
            .taskSharing()
            .map(sharing -> new TaskMesh(sharing.pubsub(), sharing.nodeId(), tasks))
            .orElse(null);
    if (taskMesh != null) {
      tasks.idSuffix(taskMesh.idSuffix());
    }
    this.server = server;
    this.registry = server.registry();
    this.config = config;
    this.catalog = build();
    this.announced = catalog;
    this.protocol =
        new Protocol(
            server,
            this::catalog,
            config.serverName(),
            config.serverVersion(),
            config.instructions(),
            config.defaultDeadline(),
            config.maxItems(),
            config.maxItemBytes(),
            config.pageSize(),
            config.authenticator().isPresent(),
            new Listens(config.maxSessions(), config.maxSessionsPerClient()),
            config.observer(),
            config.taskMode(),
            tasks,
            taskMesh);
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "ops-mcp-server");
              thread.setDaemon(true);
              return thread;
            });
    this.listener =
        registry.addListener(
            new OperationRegistry.Listener() {
              @Override
              public void added(OperationSpec spec) {
                changed();
              }

              @Override
              public void removed(OperationSpec spec) {
                changed();
              }
            });
    long shortest =
        Math.min(config.sessionIdleTimeout().toMillis(), config.unusedSessionTimeout().toMillis());
    long sweep = Math.max(100, Math.min(60_000, shortest / 2));
    scheduler.scheduleWithFixedDelay(this::sweep, sweep, sweep, TimeUnit.MILLISECONDS);
    long keepalive = keepaliveMillis();
    scheduler.scheduleWithFixedDelay(this::keepalive, keepalive, keepalive, TimeUnit.MILLISECONDS);
    scheduler.scheduleWithFixedDelay(
        this::tickCalls, CALL_TICK_MILLIS, CALL_TICK_MILLIS, TimeUnit.MILLISECONDS);
  }

  private ToolCatalog build() {
    ToolCatalog next =
        ToolCatalog.build(
            registry.list(),
            config.toolPrefix(),
            config.namespaceInNames(),
            config.toolNames() == McpToolNames.MODEL_SAFE,
            config.selected());
    next.collisions().forEach(collision -> LOG.warn("MCP tool names: {}", collision));
    return next;
  }

  /** The catalog now; rebuilt first when the registry changed since. */
  ToolCatalog catalog() {
    if (dirty.getAndSet(false)) {
      catalog = build();
    }
    return catalog;
  }

  /**
   * The registry changed: the catalog is rebuilt at the next look and, after a short pause that
   * gathers a burst of registrations into one, clients hear list_changed if their tools changed.
   */
  private void changed() {
    dirty.set(true);
    if (!closed && refreshScheduled.compareAndSet(false, true)) {
      scheduler.schedule(this::announce, REFRESH_DELAY_MS, TimeUnit.MILLISECONDS);
    }
  }

  private void announce() {
    refreshScheduled.set(false);
    ToolCatalog now = catalog();
    boolean differs;
    synchronized (this) {
      differs = !announced.sameAs(now);
      announced = now;
    }
    if (differs) {
      for (HttpEndpoint http : https) {
        for (Session session : http.transport.sessions().all()) {
          session.send(Protocol.listChanged());
        }
      }
      for (StdioTransport stdio : stdios) {
        if (stdio.session.initialized) {
          stdio.session.send(Protocol.listChanged());
        }
      }
      protocol.listens.toolsChanged();
    }
  }

  private void sweep() {
    for (HttpEndpoint http : https) {
      http.transport.sessions().sweep();
    }
  }

  private void keepalive() {
    for (HttpEndpoint http : https) {
      http.transport.keepalive();
    }
  }

  /**
   * Requests unanswered for a second are written to each second, so that a client that closed its
   * request (its cancellation in 2026-07-28, or it went away) is noticed within about two.
   */
  private static final long CALL_TICK_MILLIS = 1_000;

  private void tickCalls() {
    long after = TimeUnit.MILLISECONDS.toNanos(CALL_TICK_MILLIS);
    for (HttpEndpoint http : https) {
      http.transport.tickCalls(after);
    }
  }

  /** Half the idle timeout, so a quiet stream is written to before Jetty would close it. */
  private long keepaliveMillis() {
    return Math.max(1_000, config.idleTimeout().toMillis() / 2);
  }

  public List<McpTool> tools() {
    return catalog().tools().stream().map(ToolCatalog.Tool::tool).collect(Collectors.toList());
  }

  public List<String> collisions() {
    return catalog().collisions();
  }

  public McpHttpEndpoint startHttp(String host, int port) {
    if (closed) {
      throw new IllegalStateException("The MCP server is closed");
    }
    HttpEndpoint endpoint = new HttpEndpoint(host, port);
    https.add(endpoint);
    return endpoint;
  }

  public McpStdioEndpoint serveStdio(InputStream in, OutputStream out) {
    if (closed) {
      throw new IllegalStateException("The MCP server is closed");
    }
    StdioTransport stdio = new StdioTransport(this, in, out);
    stdios.add(stdio);
    stdio.start();
    return stdio;
  }

  void stdioEnded(StdioTransport stdio) {
    stdios.remove(stdio);
  }

  /**
   * Refuses new tool calls, waits up to {@code timeout} for the running ones, then closes (what is
   * left is cancelled). Returns whether every call finished in time.
   */
  public boolean drain(java.time.Duration timeout) {
    boolean drained;
    try {
      drained = protocol.drain(timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      drained = false;
    }
    close();
    return drained;
  }

  /** Stops every endpoint; the OperationServer and registry stay the caller's to close. */
  @Override
  public void close() {
    closed = true;
    listener.remove();
    protocol.listens.closeAll();
    for (HttpEndpoint http : new ArrayList<>(https)) {
      http.close();
    }
    for (StdioTransport stdio : new ArrayList<>(stdios)) {
      stdio.close();
    }
    scheduler.shutdownNow();
    if (taskMesh != null) {
      taskMesh.close();
    }
  }

  /** The names a Host header may carry: loopback names, the bound host, and the configured ones. */
  private Set<String> allowedHosts(String host) {
    Set<String> hosts = ConcurrentHashMap.newKeySet();
    hosts.add("localhost");
    hosts.add("127.0.0.1");
    hosts.add("[::1]");
    String bound = host.toLowerCase(Locale.ROOT);
    if (!bound.equals("0.0.0.0") && !bound.equals("::") && !bound.equals("[::]")) {
      hosts.add(bound.contains(":") && !bound.startsWith("[") ? "[" + bound + "]" : bound);
    }
    config.allowedHosts().forEach(name -> hosts.add(name.toLowerCase(Locale.ROOT)));
    return Set.copyOf(hosts);
  }

  final class HttpEndpoint implements McpHttpEndpoint {
    final HttpTransport transport;
    private final Server jetty;
    private final ConnectionGuard guard;
    private final URI uri;
    private final int port;
    private final AtomicBoolean stopped = new AtomicBoolean();

    HttpEndpoint(String host, int port) {
      Set<String> origins =
          config.allowedOrigins().stream()
              .map(origin -> origin.toLowerCase(Locale.ROOT))
              .collect(Collectors.toUnmodifiableSet());
      this.transport = new HttpTransport(Engine.this, allowedHosts(host), origins);
      QueuedThreadPool threads = new QueuedThreadPool(200, 4);
      threads.setName("ops-mcp-http");
      threads.setDaemon(true);
      this.jetty = new Server(threads);
      HttpConfiguration http = new HttpConfiguration();
      http.setSendServerVersion(false);
      http.setSendXPoweredBy(false);
      ServerConnector connector = new ServerConnector(jetty, 1, 1, new HttpConnectionFactory(http));
      connector.setHost(host);
      connector.setPort(port);
      connector.setIdleTimeout(config.idleTimeout().toMillis());
      jetty.addConnector(connector);
      this.guard =
          ConnectionGuard.install("MCP server", jetty, connector, config.connectionLimits());
      jetty.setHandler(guard.wrap(HealthRoutes.wrap(transport, () -> Optional.of(server.stats()))));
      jetty.setStopTimeout(2_000);
      try {
        jetty.start();
        guard.start();
      } catch (Exception e) {
        try {
          jetty.stop();
        } catch (Exception stop) {
          e.addSuppressed(stop);
        }
        throw BindFailure.of("MCP server", host, port, e);
      }
      this.port = connector.getLocalPort();
      String uriHost = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
      if (uriHost.equals("0.0.0.0") || uriHost.equals("[::]")) {
        // Every interface: the loopback address is one, and one the Host check accepts.
        uriHost = "127.0.0.1";
      }
      this.uri = URI.create("http://" + uriHost + ":" + this.port + HttpTransport.PATH);
    }

    @Override
    public URI uri() {
      return uri;
    }

    @Override
    public int port() {
      return port;
    }

    @Override
    public int sessionCount() {
      return transport.sessions().size();
    }

    @Override
    public McpSessionStats sessionStats() {
      SessionStore store = transport.sessions();
      return new McpSessionStats(store.size(), store.expired(), store.evicted(), store.refused());
    }

    @Override
    public ConnectionStats connectionStats() {
      return guard.stats();
    }

    @Override
    public void close() {
      if (!stopped.compareAndSet(false, true)) {
        return;
      }
      https.remove(this);
      transport.sessions().closeAll("The server is closing");
      transport.shutdownPending();
      guard.stop();
      try {
        jetty.stop();
      } catch (Exception e) {
        LOG.warn("Stopping the MCP HTTP endpoint failed", e);
      }
    }
  }

  /** The pipeline this engine serves through. */
  OperationServer server() {
    return server;
  }
}
