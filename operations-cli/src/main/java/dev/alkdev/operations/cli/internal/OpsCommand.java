package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.cli.ExitCodes;
import dev.alkdev.operations.cli.config.ConfigException;
import dev.alkdev.operations.cli.config.OpsConfig;
import dev.alkdev.operations.discovery.TrustedNodes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/** {@code ops}: the options every command shares, and how a command gets its operations. */
@Command(
    name = "ops",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    subcommands = {
      ListCommand.class,
      DescribeCommand.class,
      CallCommand.class,
      SubscribeCommand.class,
      StatsCommand.class,
      ServeCommand.class,
      LoginCommand.class,
      KeygenCommand.class,
      PermissionsCommand.class,
      GenerateCommand.class,
      CommandLine.HelpCommand.class
    },
    description = {
      "List, describe, call and stream operations: a built-in demo, OpenAPI documents and MCP"
          + " servers, all as one set of operations.",
      ""
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  ops list                         every operation",
      "  ops describe demo.echo           its input and output schemas",
      "  ops call demo.echo --input '{\"message\":\"hi\"}'",
      "  ops call demo.createNote --input @note.json",
      "  ops subscribe demo.clock --input '{\"ticks\":5,\"intervalMs\":200}'",
      "  ops --openapi pets=./pets.yaml --base-url pets=http://localhost:8080 list",
      "  ops serve --nats nats://127.0.0.1:4222      serve the demo as a node on NATS",
      "  ops --nats nats://127.0.0.1:4222 list        what the nodes on NATS serve",
      "  ops --nats nats://127.0.0.1:4222 stats       their calls, errors and latencies",
      "  ops --openapi pets=./pets.yaml generate java --out src/main/java --package com.example.pets",
      "",
      "Configuration: --config FILE, else $OPS_CONFIG, else ~/.config/ops/config.yaml",
      "  if present: YAML or JSON with openapi (NAME: {location, baseUrl, auth}) and",
      "  mcpServers (as MCP hosts write it). Secrets come only from environment",
      "  variables: auth: {bearer: {tokenEnv: GITHUB_TOKEN}}, or \"$${NAME}\" in an",
      "  MCP server's env and headers. See operations-cli/README.md.",
      "",
      "Environment: OPS_CONFIG, NO_COLOR (no colour), COLUMNS (table width).",
      "",
      "Exit codes:",
      "   0 ok                       8 CANCELLED",
      "   1 internal error           9 NO_RESPONDERS",
      "   2 usage (bad options)     10 UNAVAILABLE",
      "   3 INVALID_INPUT           11 RESOURCE_EXHAUSTED",
      "   4 OPERATION_NOT_FOUND     12 PROTOCOL_ERROR",
      "   5 UNAUTHENTICATED         13 EXECUTION_ERROR",
      "   6 ACCESS_DENIED           14 configuration error",
      "   7 DEADLINE_EXCEEDED       15 a source failed to load",
      "                             16 the tool reported an error (isError)",
      "                            130 interrupted (Ctrl-C)",
      "                            143 ops serve stopped by SIGTERM"
    })
public final class OpsCommand implements Callable<Integer> {

  private final Terminal terminal;

  @Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      scope = ScopeType.INHERIT,
      description =
          "Configuration file (YAML or JSON). Default: $OPS_CONFIG, else"
              + " ~/.config/ops/config.yaml if present.")
  Path config;

  @Option(
      names = "--no-demo",
      scope = ScopeType.INHERIT,
      description = "Leave out the built-in demo operations (namespace demo).")
  boolean noDemo;

  @Option(
      names = "--openapi",
      paramLabel = "NAME=LOCATION",
      scope = ScopeType.INHERIT,
      description = "Load an OpenAPI document (file or URL) into namespace NAME. Repeatable.")
  List<String> openApi = new ArrayList<>();

  @Option(
      names = "--base-url",
      paramLabel = "NAME=URL",
      scope = ScopeType.INHERIT,
      description = "Send NAME's calls to URL instead of the document's server. Repeatable.")
  List<String> baseUrls = new ArrayList<>();

  // Without a value (ops serve --mcp-stdio) it is serve's flag "be an MCP server on stdio": the
  // option is inherited by every command, so serve cannot declare one of its own by that name.
  @Option(
      names = "--mcp-stdio",
      paramLabel = "NAME='COMMAND ARGS...'",
      arity = "0..1",
      fallbackValue = ServeCommand.SERVE_STDIO,
      scope = ScopeType.INHERIT,
      description =
          "Start an MCP server and load its tools into namespace NAME. Repeatable. Without a"
              + " value, on serve: serve every operation as an MCP server on stdin/stdout.")
  List<String> mcpStdio = new ArrayList<>();

  @Option(
      names = "--mcp-url",
      paramLabel = "NAME=URL",
      scope = ScopeType.INHERIT,
      description = "Connect to an MCP server over HTTP; its tools go in namespace NAME.")
  List<String> mcpUrls = new ArrayList<>();

  @Option(
      names = "--nats",
      paramLabel = "URL",
      description =
          "Add every operation served on this NATS server or cluster (nats://host:4222; several"
              + " URLs separated by commas). Before the command.")
  List<String> nats = new ArrayList<>();

  @Option(
      names = "--redis",
      paramLabel = "URL",
      description = "Add every operation served through this Redis (redis://host:6379).")
  List<String> redis = new ArrayList<>();

  @Option(
      names = "--ws",
      paramLabel = "URL",
      description = "Add every operation served through this hub (ws://host:port/ws), as a spoke.")
  List<String> ws = new ArrayList<>();

  @Option(
      names = "--trust-key",
      paramLabel = "NAME=FILE",
      description =
          "Route calls on --nats, --redis and --ws only to nodes whose announcements this"
              + " Ed25519 public key (ops keygen) signed; others are listed as unverified."
              + " Repeatable. Before the command.")
  List<String> trustKeys = new ArrayList<>();

  @Option(
      names = "--trust-identity",
      paramLabel = "SUBJECT",
      description =
          "Also route to nodes a WebSocket hub authenticated as SUBJECT (the hub's token"
              + " identity). Repeatable. Before the command.")
  List<String> trustIdentities = new ArrayList<>();

  @Option(
      names = "--load-timeout",
      paramLabel = "DURATION",
      defaultValue = "30s",
      converter = Durations.class,
      scope = ScopeType.INHERIT,
      description = "How long sources may take to load (default: ${DEFAULT-VALUE}).")
  Duration loadTimeout;

  @Option(
      names = "--no-color",
      scope = ScopeType.INHERIT,
      description = "No ANSI colour (also: NO_COLOR set, or output not a terminal).")
  boolean noColor;

  @Option(
      names = {"-v", "--verbose"},
      scope = ScopeType.INHERIT,
      description = "Debug logging on stderr.")
  boolean verbose;

  public OpsCommand(Terminal terminal) {
    this.terminal = terminal;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(terminal.out());
    return 0;
  }

  /** The --mcp-stdio values that name MCP servers to load (not serve's bare flag). */
  List<String> mcpStdioSources() {
    return mcpStdio.stream().filter(value -> !value.equals(ServeCommand.SERVE_STDIO)).toList();
  }

  /** Whether the bare --mcp-stdio (serve over stdio) was given. */
  boolean serveOverStdio() {
    return mcpStdio.contains(ServeCommand.SERVE_STDIO);
  }

  Terminal terminal() {
    return terminal;
  }

  Output output() {
    return new Output(terminal, terminal.colourByDefault() && !noColor);
  }

  /** Set by serve, the one command where a bare --mcp-stdio means something. */
  boolean serving;

  /** The configuration: the file (if any) with the one-off flags on top. */
  OpsConfig configuration() {
    if (serveOverStdio() && !serving) {
      throw new Failure(
          ExitCodes.USAGE,
          "--mcp-stdio needs NAME='COMMAND ARGS...' to load an MCP server",
          "without a value it belongs to ops serve: `ops serve --mcp-stdio` serves over stdio");
    }
    OpsConfig file = OpsConfig.empty();
    Path path = configPath();
    if (path != null) {
      file = OpsConfig.read(path);
    }
    return OneOffFlags.apply(file, openApi, baseUrls, mcpStdioSources(), mcpUrls);
  }

  private Path configPath() {
    if (config != null) {
      if (!Files.isRegularFile(config)) {
        throw new ConfigException("--config " + config + ": no such file");
      }
      return config;
    }
    String fromEnv = terminal.env().get("OPS_CONFIG");
    if (fromEnv != null && !fromEnv.isBlank()) {
      Path path = Path.of(fromEnv);
      if (!Files.isRegularFile(path)) {
        throw new ConfigException("OPS_CONFIG=" + fromEnv + ": no such file");
      }
      return path;
    }
    Path home = terminal.home().resolve(".config/ops/config.yaml");
    return Files.isRegularFile(home) ? home : null;
  }

  /** The nodes callers on remote transports trust, when --trust-key or --trust-identity says. */
  Optional<TrustedNodes> trustedNodes() {
    return Keys.trustedNodes(trustKeys, trustIdentities);
  }

  /** The remote transports named before the command, in the order of the flags' kinds. */
  List<RemoteTransports.Remote> remotes() {
    List<RemoteTransports.Remote> remotes = new ArrayList<>();
    nats.forEach(url -> remotes.add(new RemoteTransports.Remote("nats", url)));
    redis.forEach(url -> remotes.add(new RemoteTransports.Remote("redis", url)));
    ws.forEach(url -> remotes.add(new RemoteTransports.Remote("ws", url)));
    return remotes;
  }

  /**
   * Loads every source into one registry; the caller closes the session. SIGINT and SIGTERM close
   * it too (after the command's interrupt actions), so nothing a source started outlives ops.
   */
  Session session() {
    SourceSet sources =
        SourceSet.create(!noDemo, configuration(), terminal.env(), loadTimeout)
            .plus(
                remotes().stream()
                    .map(
                        remote ->
                            new RemoteSource(remote, loadTimeout, terminal.env(), trustedNodes()))
                    .toList());
    SourceSet.Progress progress =
        terminal.interactive() ? SourceSet.Progress.line(terminal.err()) : SourceSet.Progress.NONE;
    return Session.open(sources, loadTimeout, progress, terminal.signals());
  }
}
