package dev.alkdev.operations.spring.boot;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.http.HttpGateway;
import dev.alkdev.operations.mcpserver.McpHttpEndpoint;
import dev.alkdev.operations.mcpserver.McpServer;
import dev.alkdev.operations.serving.OperationServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.context.SmartLifecycle;

/**
 * The servers the properties turn on, over the one serving pipeline: the HTTP gateway ({@code
 * operations.http}) and the MCP server ({@code operations.mcp}), each on a port of its own, and a
 * node on each transport marked {@code serve}. They start after the registry is filled and stop,
 * draining calls in flight up to {@code operations.serving.drain-timeout}, before the beans they
 * use are destroyed.
 */
public final class OperationsServing implements SmartLifecycle {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(OperationsServing.class);

  private final OperationServer server;
  private final OperationsProperties properties;
  private final OperationsTransports transports;
  private HttpGateway gateway;
  private McpServer mcp;
  private McpHttpEndpoint mcpEndpoint;
  private final Map<String, ServingNode> nodes = new LinkedHashMap<>();
  private volatile boolean running;

  /** What runs, for health: read without the lock, which a drain holds for its whole timeout. */
  private volatile List<String> listeners = List.of();

  OperationsServing(
      OperationServer server, OperationsProperties properties, OperationsTransports transports) {
    this.server = server;
    this.properties = properties;
    this.transports = transports;
  }

  @Override
  public synchronized void start() {
    if (server.isClosed()) {
      // Stopping drained the pipeline the servers share; it does not reopen.
      throw new IllegalStateException(
          "the operations serving pipeline was drained when this context stopped; serving does"
              + " not restart in the same context");
    }
    try {
      startHttp();
      startMcp();
      startNodes();
    } catch (RuntimeException e) {
      stopAll();
      throw e;
    }
    running = true;
    listeners = currentListeners();
  }

  private void startHttp() {
    OperationsProperties.Http http = properties.getHttp();
    if (!http.isEnabled()) {
      return;
    }
    check("operations.http.port", http.getPort());
    warnIfExposed("operations.http.host", http.getHost());
    try {
      gateway =
          HttpGateway.builder(server)
              .host(http.getHost())
              .port(http.getPort())
              .console(http.isConsole())
              .allowedHosts(http.getAllowedHosts().toArray(String[]::new))
              .allowedOrigins(http.getAllowedOrigins().toArray(String[]::new))
              .start();
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("operations.http: " + e.getMessage(), e);
    } catch (CallError e) {
      throw new IllegalStateException(
          "operations.http.port " + http.getPort() + ": " + e.getMessage(), e);
    }
  }

  private void startMcp() {
    OperationsProperties.Mcp settings = properties.getMcp();
    if (!settings.isEnabled()) {
      return;
    }
    check("operations.mcp.port", settings.getPort());
    warnIfExposed("operations.mcp.host", settings.getHost());
    try {
      mcp =
          McpServer.builder(server)
              .include(settings.getInclude().toArray(String[]::new))
              .exclude(settings.getExclude().toArray(String[]::new))
              .allowedHosts(settings.getAllowedHosts().toArray(String[]::new))
              .allowedOrigins(settings.getAllowedOrigins().toArray(String[]::new))
              .build();
      mcpEndpoint = mcp.startHttp(new InetSocketAddress(settings.getHost(), settings.getPort()));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("operations.mcp: " + e.getMessage(), e);
    } catch (CallError e) {
      throw new IllegalStateException(
          "operations.mcp.port " + settings.getPort() + ": " + e.getMessage(), e);
    }
  }

  private void startNodes() {
    long serving =
        transports.kinds().stream().filter(kind -> transports.settings(kind).isServe()).count();
    for (String kind : transports.kinds()) {
      if (!transports.settings(kind).isServe()) {
        continue;
      }
      ServingNode.Builder node =
          ServingNode.builder(server, transports.connect(kind))
              .heartbeatInterval(properties.getNode().getHeartbeat())
              .drainTimeout(properties.getServing().getDrainTimeout());
      String id = properties.getNode().getId();
      if (id != null && !id.isBlank()) {
        node.nodeId(serving > 1 ? id + "-" + kind : id);
      }
      try {
        nodes.put(kind, node.start());
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException("operations.node: " + e.getMessage(), e);
      }
    }
  }

  /**
   * These servers are outside the application's web server: its security filter chain and its TLS
   * do not cover them (D107). Binding beyond loopback is allowed, and said.
   */
  private static void warnIfExposed(String property, String host) {
    boolean loopback;
    try {
      loopback = java.net.InetAddress.getByName(host).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      loopback = false;
    }
    if (!loopback) {
      LOG.warn(
          "{} is {}: served beyond loopback, outside the application's web server, so its"
              + " security filter chain and TLS do not apply; only operations that need no scope"
              + " are callable without an authenticator",
          property,
          host);
    }
  }

  private static void check(String property, int port) {
    if (port < 0 || port > 65_535) {
      throw new IllegalStateException(
          property + " is " + port + "; expected a port from 0 (any free port) to 65535");
    }
  }

  @Override
  public synchronized void stop() {
    running = false;
    listeners = List.of();
    stopAll();
  }

  /** Stopping drains the shared pipeline for good (see {@link #start}), so it is no pause. */
  @Override
  public boolean isPauseable() {
    return false;
  }

  private void stopAll() {
    for (ServingNode node : nodes.values()) {
      try {
        node.close(); // drains what it serves
      } catch (RuntimeException e) {
        // The others still stop.
      }
    }
    nodes.clear();
    if (gateway != null) {
      try {
        gateway.drain(properties.getServing().getDrainTimeout());
      } catch (RuntimeException e) {
        // The others still stop.
      }
      gateway = null;
    }
    if (mcp != null) {
      try {
        mcp.drain(properties.getServing().getDrainTimeout());
      } catch (RuntimeException e) {
        // Closed below regardless.
      }
      mcp.close();
      mcp = null;
      mcpEndpoint = null;
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /**
   * The phase of Boot's graceful web-server shutdown: serving starts after the web server has
   * started and drains before it stops, both in the same order as the application's own web
   * endpoints.
   */
  @Override
  public int getPhase() {
    return SmartLifecycle.DEFAULT_PHASE - 1024;
  }

  /** The HTTP gateway's address, while it runs. */
  public synchronized Optional<URI> httpUri() {
    return Optional.ofNullable(gateway).map(HttpGateway::uri);
  }

  /** The MCP endpoint's address (POST it JSON-RPC), while it runs. */
  public synchronized Optional<URI> mcpUri() {
    return Optional.ofNullable(mcpEndpoint).map(McpHttpEndpoint::uri);
  }

  /** The node id on each transport this application serves on, by transport kind. */
  public synchronized Map<String, String> nodeIds() {
    Map<String, String> ids = new LinkedHashMap<>();
    nodes.forEach((kind, node) -> ids.put(kind, node.nodeId()));
    return ids;
  }

  /** What runs, for health: "http", "mcp", and the node transports. */
  List<String> listeners() {
    return listeners;
  }

  private List<String> currentListeners() {
    List<String> listeners = new ArrayList<>();
    if (gateway != null) {
      listeners.add("http");
    }
    if (mcpEndpoint != null) {
      listeners.add("mcp");
    }
    listeners.addAll(nodes.keySet());
    return List.copyOf(listeners);
  }
}
