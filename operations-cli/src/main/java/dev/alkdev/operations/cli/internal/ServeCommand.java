package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.cli.ExitCodes;
import dev.alkdev.operations.serving.OperationServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ops serve}: serves every loaded source (the demo, OpenAPI documents, MCP servers, remote
 * catalogs) through every listener named, all over one serving pipeline, until SIGTERM or Ctrl-C,
 * which drain: no new calls, running calls finish up to {@code --drain-timeout}, the rest are
 * cancelled.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Serves every loaded operation until stopped. Prints one line per listener, then what it"
          + " serves. SIGTERM or Ctrl-C drains: no new calls, running calls finish (up to"
          + " --drain-timeout), the rest are cancelled; then it exits."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  ops serve --http 8080                             the demo over HTTP, console on /",
      "  ops serve --nats nats://127.0.0.1:4222            the demo, as a node on NATS",
      "  ops --no-demo --openapi pets=./pets.yaml serve --nats nats://10.0.0.5:4222",
      "  ops --nats nats://127.0.0.1:4222 list             from another machine",
      "  ops serve --ws 8080                               a WebSocket hub at 127.0.0.1:8080/ws",
      "  ops --ws ws://127.0.0.1:8080/ws list              through the hub",
      "",
      "NATS credentials come from the environment: NATS_CREDS (a credentials file),",
      "NATS_NKEY (a seed file), NATS_TOKEN, or NATS_USER with NATS_PASSWORD.",
      "A WebSocket hub's and spoke's bearer token comes from OPS_WS_TOKEN."
    })
final class ServeCommand implements Callable<Integer> {
  /** What picocli gives the inherited --mcp-stdio when it comes without a value. */
  static final String SERVE_STDIO = "\u0000serve-stdio";

  @ParentCommand OpsCommand root;

  @Option(
      names = "--mcp-http",
      paramLabel = "PORT|HOST:PORT",
      description =
          "Serve every operation as MCP tools over streamable HTTP at /mcp (PORT alone binds"
              + " 127.0.0.1). Bare --mcp-stdio serves them over stdin/stdout instead, for an MCP"
              + " host that launches ops; logs go to stderr.")
  List<String> mcpHttp = new ArrayList<>();

  @Option(
      names = "--mcp-allowed-host",
      paramLabel = "NAME",
      description =
          "A host name MCP clients may use in the Host header besides localhost and the bound"
              + " address (needed with --mcp-http 0.0.0.0:PORT). Repeatable.")
  List<String> mcpAllowedHosts = new ArrayList<>();

  @Option(
      names = "--mcp-include",
      paramLabel = "GLOB",
      description =
          "Offer only operations whose id matches (e.g. 'github.repos_*' for the GitHub"
              + " document's repos/... operations). Repeatable.")
  List<String> mcpInclude = new ArrayList<>();

  @Option(
      names = "--mcp-exclude",
      paramLabel = "GLOB",
      description =
          "Never offer operations whose id matches (wins over --mcp-include). Repeatable.")
  List<String> mcpExclude = new ArrayList<>();

  @Option(
      names = "--mcp-tool-names",
      paramLabel = "ALPHABET",
      description =
          "standard (operation ids as they are, the default) or model-safe (only letters, digits,"
              + " _ and -, as some model APIs require of tool names).")
  String mcpToolNames = "standard";

  @Option(
      names = "--mcp-tasks",
      paramLabel = "WHICH",
      description =
          "Which calls may run as MCP tasks for clients that support them (2026-07-28): none (the"
              + " default), subscriptions, or all.")
  String mcpTasks = "none";

  @Option(
      names = "--http",
      paramLabel = "PORT",
      description =
          "Serve over HTTP: operations at /ops/{id}, the OpenAPI document at /openapi.json, the"
              + " web console at /. PORT alone binds 127.0.0.1; HOST:PORT binds that host.")
  List<String> http = new ArrayList<>();

  @Option(
      names = "--nats",
      paramLabel = "URL",
      description = "Serve as a node on this NATS server or cluster (URLs separated by commas).")
  List<String> nats = new ArrayList<>();

  @Option(
      names = "--redis",
      paramLabel = "URL",
      description = "Serve as a node through this Redis (redis://host:6379).")
  List<String> redis = new ArrayList<>();

  @Option(
      names = "--ws",
      paramLabel = "PORT",
      description =
          "Serve as a WebSocket hub at /ws on this port (127.0.0.1), or HOST:PORT; spokes call"
              + " and add operations through it. Beyond loopback it needs OPS_WS_TOKEN.")
  List<String> ws = new ArrayList<>();

  @Option(
      names = "--connect",
      paramLabel = "URL",
      description = "Serve as a spoke of this WebSocket hub (ws://host:port/ws).")
  List<String> connect = new ArrayList<>();

  @Option(
      names = "--node-id",
      paramLabel = "ID",
      description = "This node's id on the transports (default: 32 random hex digits).")
  String nodeId;

  @Option(
      names = "--sign-key",
      paramLabel = "FILE",
      description =
          "Sign this node's announcements with an Ed25519 private key (ops keygen), so callers"
              + " with --trust-key route to it. The key id is the file's name without .key.")
  Path signKey;

  @Option(
      names = "--heartbeat",
      paramLabel = "DURATION",
      defaultValue = "2s",
      converter = Durations.class,
      description =
          "How often the node says it is alive; callers drop it after three silent intervals"
              + " (default: ${DEFAULT-VALUE}).")
  Duration heartbeat;

  @Option(
      names = "--drain-timeout",
      paramLabel = "DURATION",
      defaultValue = "10s",
      converter = Durations.class,
      description =
          "On SIGTERM or Ctrl-C, how long running calls may take to finish before they are"
              + " cancelled (default: ${DEFAULT-VALUE}).")
  Duration drainTimeout;

  @Override
  public Integer call() {
    root.serving = true;
    boolean stdio = root.serveOverStdio();
    if (http.isEmpty()
        && nats.isEmpty()
        && redis.isEmpty()
        && connect.isEmpty()
        && ws.isEmpty()
        && mcpHttp.isEmpty()
        && !stdio) {
      throw new Failure(
          ExitCodes.USAGE,
          "ops serve needs at least one listener",
          "add --http PORT, --nats URL, --redis URL, --ws PORT, --connect URL, --mcp-http PORT"
              + " or --mcp-stdio; run `ops serve --help`");
    }
    Output output = root.output();
    // A signal while the sources load closes them (nothing left running); once serving, this
    // command's own hook drains instead (see handOverSignals below).
    Session session = root.session();
    // With --http, served calls are measured and scraped at /metrics (only then: nothing else
    // would read the meters).
    ServeMetrics metrics = http.isEmpty() ? null : new ServeMetrics();
    OperationServer server =
        metrics == null
            ? OperationServer.create(session.registry())
            : OperationServer.builder(session.registry())
                .interceptor(metrics.interceptor())
                .build();
    if (metrics != null) {
      metrics.bindServer(server);
    }
    List<Listener> listeners = new ArrayList<>();
    List<Listener> nodes = new ArrayList<>(); // in listeners once the MCP listeners are up
    CompletableFuture<String> stopRequested = new CompletableFuture<>();
    try {
      McpListener.Filters filters =
          new McpListener.Filters(
              mcpInclude,
              mcpExclude,
              mcpAllowedHosts,
              McpListener.toolNames(mcpToolNames),
              McpListener.taskMode(mcpTasks),
              Optional.empty());
      NodeListener.Settings settings =
          new NodeListener.Settings(
              Optional.ofNullable(nodeId),
              heartbeat,
              drainTimeout,
              root.loadTimeout,
              root.terminal().env(),
              Optional.ofNullable(signKey).map(Keys::signer));
      // The nodes first, so the MCP servers can share their tasks over a node's transport (any
      // server of the mesh answers for any task); listed in the usual order below.
      for (RemoteTransports.Remote remote : remotes()) {
        nodes.add(NodeListener.start(remote, server, settings));
      }
      if (!nodes.isEmpty() && !mcpTasks.equals("none")) {
        filters = filters.sharingTasksOn((NodeListener) nodes.get(0));
      }
      for (String where : mcpHttp) {
        listeners.add(McpListener.http(server, where, filters, drainTimeout));
      }
      if (stdio) {
        // stdout carries protocol messages only: everything else ops prints goes to stderr.
        java.io.OutputStream out =
            root.terminal().signals() ? System.out : McpListener.lines(root.terminal().out());
        listeners.add(
            McpListener.stdio(
                server,
                root.terminal().in(),
                out,
                filters,
                drainTimeout,
                () -> stopRequested.complete("stdin ended")));
      }
      for (String address : http) {
        listeners.add(HttpListener.start(address, server, drainTimeout, metrics));
      }
      listeners.addAll(nodes);
      for (String listen : ws) {
        listeners.add(HubListener.start(listen, server, settings));
      }
      if (metrics != null) {
        for (Listener listener : listeners) {
          listener.transport().ifPresent(pubsub -> metrics.bindTransport(listener.kind(), pubsub));
        }
      }
    } catch (RuntimeException e) {
      List<Listener> started = new ArrayList<>(listeners);
      nodes.stream().filter(node -> !started.contains(node)).forEach(started::add);
      stop(started, server, session);
      throw e;
    }
    printListeners(output, listeners, session, stdio);
    CompletableFuture<Void> stopped = new CompletableFuture<>();
    Thread hook = null;
    if (root.terminal().signals()) {
      hook = signalHook(stopRequested, stopped);
      session.handOverSignals();
    } else if (!stdio) {
      watchInput(root.terminal().in(), stopRequested);
    }
    String why;
    try {
      why = stopRequested.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      why = "interrupted";
    } catch (ExecutionException e) {
      why = String.valueOf(e.getCause());
    }
    output
        .err()
        .println(
            "stopping (" + why + "): draining calls for up to " + drainTimeout.toSeconds() + "s");
    output.err().flush();
    long started = System.nanoTime();
    stop(listeners, server, session);
    output
        .err()
        .println(
            "stopped after " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
    output.err().flush();
    stopped.complete(null);
    if (hook != null) {
      removeHook(hook);
    }
    return ExitCodes.OK;
  }

  private List<RemoteTransports.Remote> remotes() {
    List<RemoteTransports.Remote> remotes = new ArrayList<>();
    nats.forEach(url -> remotes.add(new RemoteTransports.Remote("nats", url)));
    redis.forEach(url -> remotes.add(new RemoteTransports.Remote("redis", url)));
    connect.forEach(url -> remotes.add(new RemoteTransports.Remote("ws", url)));
    return remotes;
  }

  /**
   * One line per listener on stdout, then the operations served (a table). Serving MCP over stdio,
   * stdout is the protocol's: the listener lines go to stderr and the table is left out.
   */
  private void printListeners(
      Output output, List<Listener> listeners, Session session, boolean stdio) {
    java.io.PrintWriter lines = stdio ? output.err() : output.out();
    int width = listeners.stream().mapToInt(l -> l.kind().length()).max().orElse(0);
    for (Listener listener : listeners) {
      String kind = String.format("%-" + width + "s", listener.kind());
      String detail = listener.detail().isEmpty() ? "" : "  " + output.dim(listener.detail());
      lines.println("serving on " + output.bold(kind) + "  " + listener.address() + detail);
    }
    List<OperationSpec> specs = session.registry().list();
    lines.println(
        specs.size() + (specs.size() == 1 ? " operation" : " operations") + (stdio ? "" : ":"));
    if (!stdio) {
      output.table(
          List.of("ID", "TYPE", "DESCRIPTION"),
          specs.stream().map(s -> List.of(s.id(), s.type().name(), s.description())).toList(),
          root.terminal().width());
    }
    lines.flush();
    for (Listener listener : listeners) {
      listener.warnings().forEach(output::warning);
    }
    output.err().println("ready; SIGTERM or Ctrl-C drains and stops");
    output.err().flush();
  }

  /**
   * Drains and closes every listener at once (they share the pipeline, so the drain timeout is
   * spent once, not once per listener), then the pipeline and the sources.
   */
  private static void stop(List<Listener> listeners, OperationServer server, Session session) {
    List<Thread> closing = new ArrayList<>();
    for (Listener listener : listeners) {
      Thread thread = new Thread(listener::close, "ops-serve-close-" + listener.kind());
      thread.start();
      closing.add(thread);
    }
    for (Thread thread : closing) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    server.close();
    session.close();
  }

  /**
   * SIGTERM and Ctrl-C run the JVM's shutdown hooks: this one asks the command to stop and waits
   * (the JVM exits when the hooks return) until it has drained, bounded by the drain timeout and a
   * margin, so a stuck close cannot keep the process alive.
   */
  private Thread signalHook(
      CompletableFuture<String> stopRequested, CompletableFuture<Void> stopped) {
    Thread hook =
        new Thread(
            () -> {
              stopRequested.complete("signal");
              try {
                stopped.get(drainTimeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (ExecutionException | TimeoutException e) {
                // Exit anyway.
              }
            },
            "ops-serve-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    return hook;
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running; it returns once `stopped` is complete.
    }
  }

  /**
   * Embedded (no signals: a test, a host that runs ops in its own JVM), the command serves until
   * its input ends: closing the stream it was given stops it, drained like a signal.
   */
  private static void watchInput(InputStream in, CompletableFuture<String> stopRequested) {
    Thread watcher =
        new Thread(
            () -> {
              try {
                while (in.read() >= 0) {
                  // Anything written is ignored; only the end counts.
                }
              } catch (IOException e) {
                // Ended as well.
              }
              stopRequested.complete("input ended");
            },
            "ops-serve-input");
    watcher.setDaemon(true);
    watcher.start();
  }
}
