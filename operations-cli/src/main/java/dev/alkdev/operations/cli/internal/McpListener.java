package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.cli.ExitCodes;
import dev.alkdev.operations.mcpserver.McpHttpEndpoint;
import dev.alkdev.operations.mcpserver.McpServer;
import dev.alkdev.operations.mcpserver.McpStdioEndpoint;
import dev.alkdev.operations.mcpserver.McpTaskMode;
import dev.alkdev.operations.mcpserver.McpToolNames;
import dev.alkdev.operations.serving.OperationServer;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * {@code ops serve --mcp-http PORT|HOST:PORT} and {@code ops serve --mcp-stdio}: the run's
 * operations as MCP tools (module operations-mcp-server), over streamable HTTP at {@code /mcp} or
 * over this process's stdin and stdout.
 */
final class McpListener implements Listener {
  private final McpServer server;
  private final String kind;
  private final String address;
  private final Duration drainTimeout;
  private final AutoCloseable endpoint;
  private final Filters filters;
  private final OperationServer pipeline;

  private McpListener(
      McpServer server,
      String kind,
      String address,
      Duration drainTimeout,
      AutoCloseable endpoint,
      Filters filters,
      OperationServer pipeline) {
    this.filters = filters;
    this.pipeline = pipeline;
    this.server = server;
    this.kind = kind;
    this.address = address;
    this.drainTimeout = drainTimeout;
    this.endpoint = endpoint;
  }

  /** Which operations become tools (globs on operation ids), and the extra allowed Host names. */
  record Filters(
      List<String> include,
      List<String> exclude,
      List<String> allowedHosts,
      McpToolNames toolNames,
      Function<OperationSpec, McpTaskMode> taskMode,
      Optional<NodeListener> sharesTasksOn) {

    /** The same, sharing tasks over {@code node}'s transport. */
    Filters sharingTasksOn(NodeListener node) {
      return new Filters(include, exclude, allowedHosts, toolNames, taskMode, Optional.of(node));
    }
  }

  /** {@code --mcp-tasks}: none, subscriptions or all. */
  static Function<OperationSpec, McpTaskMode> taskMode(String value) {
    return switch (value) {
      case "none" -> McpTaskMode.none();
      case "subscriptions" -> McpTaskMode.subscriptionsOptional();
      case "all" -> McpTaskMode.allOptional();
      default ->
          throw new Failure(
              ExitCodes.USAGE,
              "--mcp-tasks " + value + ": expected none, subscriptions or all",
              "all lets a client that supports MCP tasks run any call as one");
    };
  }

  /** {@code --mcp-tool-names}: standard or model-safe. */
  static McpToolNames toolNames(String value) {
    return switch (value) {
      case "standard" -> McpToolNames.STANDARD;
      case "model-safe" -> McpToolNames.MODEL_SAFE;
      default ->
          throw new Failure(
              ExitCodes.USAGE,
              "--mcp-tool-names " + value + ": expected standard or model-safe",
              "model-safe offers github.repos.get as github_repos_get");
    };
  }

  static McpListener http(
      OperationServer pipeline, String where, Filters filters, Duration drainTimeout) {
    InetSocketAddress address = address(where);
    McpServer server = build(pipeline, filters);
    try {
      McpHttpEndpoint endpoint = server.startHttp(address);
      return new McpListener(
          server, "mcp-http", endpoint.uri().toString(), drainTimeout, endpoint, filters, pipeline);
    } catch (CallError e) {
      server.close();
      throw new Failure(
          ExitCodes.UNAVAILABLE,
          "--mcp-http " + where + ": " + e.getMessage(),
          HttpListener.FREE_PORT);
    }
  }

  /**
   * Serves over {@code in} and {@code out}; {@code ended} runs when the host closes the input (the
   * MCP way to stop a stdio server).
   */
  static McpListener stdio(
      OperationServer pipeline,
      InputStream in,
      OutputStream out,
      Filters filters,
      Duration drainTimeout,
      Runnable ended) {
    McpServer server = build(pipeline, filters);
    McpStdioEndpoint endpoint = server.serveStdio(in, out);
    Thread watcher =
        new Thread(
            () -> {
              try {
                while (!endpoint.awaitClosed(Duration.ofHours(1))) {
                  // Still serving.
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
              }
              ended.run();
            },
            "ops-serve-mcp-stdio");
    watcher.setDaemon(true);
    watcher.start();
    return new McpListener(server, "mcp-stdio", "stdio", drainTimeout, endpoint, filters, pipeline);
  }

  private static McpServer build(OperationServer pipeline, Filters filters) {
    McpServer.Builder builder =
        McpServer.builder(pipeline)
            .include(filters.include().toArray(String[]::new))
            .exclude(filters.exclude().toArray(String[]::new))
            .allowedHosts(filters.allowedHosts().toArray(String[]::new))
            .toolNames(filters.toolNames())
            .taskMode(filters.taskMode());
    filters
        .sharesTasksOn()
        .ifPresent(node -> builder.shareTasks(node.transport().orElseThrow(), node.nodeId()));
    return builder.build();
  }

  /** {@code PORT} (on 127.0.0.1), {@code HOST:PORT}, or {@code [V6]:PORT}. */
  static InetSocketAddress address(String where) {
    String host = "127.0.0.1";
    String port = where;
    int colon = where.lastIndexOf(':');
    if (colon >= 0) {
      host = where.substring(0, colon);
      port = where.substring(colon + 1);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
    }
    int number;
    try {
      number = Integer.parseInt(port);
    } catch (NumberFormatException e) {
      number = -1;
    }
    if (number < 0 || number > 65_535 || host.isEmpty()) {
      throw new Failure(
          ExitCodes.USAGE,
          "--mcp-http " + where + ": expected PORT or HOST:PORT",
          "e.g. --mcp-http 8080 (127.0.0.1) or --mcp-http 0.0.0.0:8080");
    }
    return new InetSocketAddress(host, number);
  }

  /** How many tools it offers, for the listener's line. */
  int toolCount() {
    return server.tools().size();
  }

  @Override
  public List<String> warnings() {
    if (toolCount() > 0) {
      return List.of();
    }
    if (filters.include().isEmpty() && filters.exclude().isEmpty()) {
      return List.of(kind + " offers no tools: no operation is loaded");
    }
    String example =
        pipeline.registry().list().stream()
            .findFirst()
            .map(spec -> " (ids are namespace.name, such as " + spec.id() + ")")
            .orElse("");
    return List.of(
        kind
            + " offers no tools: no operation id matches"
            + (filters.include().isEmpty() ? "" : " --mcp-include " + filters.include())
            + (filters.exclude().isEmpty() ? "" : " outside --mcp-exclude " + filters.exclude())
            + example
            + "; `ops list` shows the ids");
  }

  @Override
  public String kind() {
    return kind;
  }

  @Override
  public String address() {
    return address;
  }

  @Override
  public String detail() {
    int tools = toolCount();
    return tools + (tools == 1 ? " tool" : " tools");
  }

  @Override
  public void close() {
    server.drain(drainTimeout);
    try {
      endpoint.close();
    } catch (Exception e) {
      // Closed by the drain already; nothing else to release.
    }
  }

  /**
   * An OutputStream onto a PrintWriter, line by line (embedded runs give ops a writer, not a
   * stream); a real process writes to System.out's bytes instead.
   */
  static OutputStream lines(PrintWriter writer) {
    return new OutputStream() {
      private final ByteArrayOutputStream line = new ByteArrayOutputStream();

      @Override
      public synchronized void write(int b) {
        if (b == '\n') {
          writer.println(line.toString(StandardCharsets.UTF_8));
          writer.flush();
          line.reset();
        } else {
          line.write(b);
        }
      }

      @Override
      public synchronized void write(byte[] bytes, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
          write(bytes[i]);
        }
      }

      @Override
      public void flush() {
        writer.flush();
      }
    };
  }
}
