package dev.alkdev.operations.mcpserver;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.mcpserver.internal.Config;
import dev.alkdev.operations.mcpserver.internal.Engine;
import dev.alkdev.operations.serving.ConnectionLimits;
import dev.alkdev.operations.serving.OperationServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Serves a registry's operations as MCP tools, through the serving pipeline ({@link
 * OperationServer}: access, limits, context and interceptors are its rules, not this adapter's).
 * One server can run several endpoints: streamable HTTP ({@link #startHttp}) and stdio ({@link
 * #serveStdio}); all offer the same tools and follow the registry as it changes ({@code
 * notifications/tools/list_changed}).
 *
 * <pre>{@code
 * OperationServer pipeline = OperationServer.create(registry);
 * McpServer mcp = McpServer.builder(pipeline).build();
 * McpHttpEndpoint http = mcp.startHttp(8080); // http://127.0.0.1:8080/mcp
 * }</pre>
 *
 * <p>Secure by default: loopback only, Host and Origin checked on every request (403), the {@code
 * MCP-Protocol-Version} header checked (400), random session ids bound to the caller's identity,
 * sizes, queues and sessions bounded. See docs/mcp.md for the mapping of operations to tools.
 */
public final class McpServer implements AutoCloseable {
  private final Engine engine;

  private McpServer(Engine engine) {
    this.engine = engine;
  }

  public static Builder builder(OperationServer server) {
    return new Builder(server);
  }

  /** Listens on 127.0.0.1:{@code port} (0 picks a free port). */
  public McpHttpEndpoint startHttp(int port) {
    return startHttp(new InetSocketAddress("127.0.0.1", port));
  }

  /**
   * Listens on {@code address}. Binding a non-loopback address exposes the tools to the network:
   * set an {@link Builder#authenticator} and the {@link Builder#allowedHosts} clients use.
   *
   * @throws dev.alkdev.operations.CallError UNAVAILABLE when the address cannot be bound (its
   *     message gives the system's reason, such as "Address already in use")
   */
  public McpHttpEndpoint startHttp(InetSocketAddress address) {
    Objects.requireNonNull(address, "address");
    return engine.startHttp(address.getHostString(), address.getPort());
  }

  /**
   * Serves one session over {@code in} and {@code out} (newline-delimited JSON-RPC) on threads of
   * its own, as MCP hosts launch a server: {@code serveStdio(System.in, System.out)}. Nothing but
   * protocol messages is written to {@code out}: send logs elsewhere (stderr).
   */
  public McpStdioEndpoint serveStdio(InputStream in, OutputStream out) {
    return engine.serveStdio(Objects.requireNonNull(in, "in"), Objects.requireNonNull(out, "out"));
  }

  /** The tools offered now (before any identity's filtering), in name order of their ids. */
  public List<McpTool> tools() {
    return engine.tools();
  }

  /** Operations whose tool name collided with another's: renamed or left out, and why. */
  public List<String> collisions() {
    return engine.collisions();
  }

  /**
   * Closes gracefully: new tool calls get a retryable UNAVAILABLE tool error, running ones get up
   * to {@code timeout} to finish, then every endpoint closes and what is left is cancelled. Blocks
   * until then.
   *
   * @return whether every running call finished within the timeout
   */
  public boolean drain(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    return engine.drain(timeout);
  }

  /**
   * Stops every endpoint. The OperationServer and its registry stay open (they are the caller's).
   */
  @Override
  public void close() {
    engine.close();
  }

  /** Configures an {@link McpServer}. */
  public static final class Builder {
    private final OperationServer server;
    private String serverName = "ops";
    private String serverVersion = "0.1.0";
    private String instructions;
    private String toolPrefix = "";
    private boolean namespaceInNames = true;
    private McpToolNames toolNames = McpToolNames.STANDARD;
    private McpServerTelemetry telemetry;
    private final List<String> includes = new ArrayList<>();
    private final List<String> excludes = new ArrayList<>();
    private Duration defaultDeadline = Duration.ofMinutes(5);
    private int maxItems = 1_000;
    private long maxItemBytes = 4L * 1024 * 1024;
    private int pageSize = 500;
    private int maxRequestBytes = 4 * 1024 * 1024;
    private long maxQueuedStreamBytes = 8L * 1024 * 1024;
    private int maxSessions = 10_000;
    private Duration sessionIdleTimeout = Duration.ofMinutes(30);
    private int maxSessionsPerClient = 100;
    private Duration unusedSessionTimeout = Duration.ofSeconds(60);
    private ConnectionLimits connectionLimits = ConnectionLimits.defaults();
    private Duration idleTimeout = Duration.ofSeconds(30);
    private final Set<String> allowedHosts = new LinkedHashSet<>();
    private final Set<String> allowedOrigins = new LinkedHashSet<>();
    private McpAuthenticator authenticator;
    private McpResourceMetadata resourceMetadata;
    private Identity stdioIdentity = Identity.anonymous();
    private java.util.function.Function<dev.alkdev.operations.OperationSpec, McpTaskMode> taskMode =
        McpTaskMode.none();
    private Duration taskTtl = Duration.ofHours(1);
    private int maxTasks = 10_000;
    private dev.alkdev.operations.mcpserver.internal.Config.TaskSharing taskSharing;

    private Builder(OperationServer server) {
      this.server = Objects.requireNonNull(server, "server");
    }

    /** The name and version in initialize's {@code serverInfo} ("ops", "0.1.0"). */
    public Builder serverInfo(String name, String version) {
      this.serverName = requireText(name, "name");
      this.serverVersion = requireText(version, "version");
      return this;
    }

    /** Text initialize returns as {@code instructions}, for the model. */
    public Builder instructions(String instructions) {
      this.instructions = requireText(instructions, "instructions");
      return this;
    }

    /**
     * Prepended to every tool name ({@code github_} makes {@code repos.get} {@code
     * github_repos.get}). Letters, digits, {@code _ - .}, at most 32 characters.
     */
    public Builder toolPrefix(String prefix) {
      Objects.requireNonNull(prefix, "prefix");
      if (!prefix.matches("[A-Za-z0-9_.-]{0,32}")) {
        throw new IllegalArgumentException(
            "toolPrefix must be letters, digits, _ - . and at most 32 characters, was " + prefix);
      }
      this.toolPrefix = prefix;
      return this;
    }

    /**
     * Whether tool names carry the namespace ({@code github.repos.get}, the default) or only the
     * operation's name ({@code repos.get}), for a server of one source. Names that then collide are
     * reported by {@link McpServer#collisions()}.
     */
    public Builder namespaceInNames(boolean namespaceInNames) {
      this.namespaceInNames = namespaceInNames;
      return this;
    }

    /**
     * The alphabet of tool names: {@link McpToolNames#STANDARD} (the default) or {@link
     * McpToolNames#MODEL_SAFE} for clients that pass tools to model APIs accepting only {@code
     * [A-Za-z0-9_-]}.
     */
    public Builder toolNames(McpToolNames toolNames) {
      this.toolNames = Objects.requireNonNull(toolNames, "toolNames");
      return this;
    }

    /**
     * OpenTelemetry's MCP spans and metrics for every request ({@link McpServerTelemetry}); none by
     * default.
     */
    public Builder telemetry(McpServerTelemetry telemetry) {
      this.telemetry = Objects.requireNonNull(telemetry, "telemetry");
      return this;
    }

    /**
     * Offers only operations whose id matches one of these globs ({@code *} any run of characters,
     * {@code ?} one); every operation when none is given.
     */
    public Builder include(String... globs) {
      for (String glob : globs) {
        includes.add(requireText(glob, "glob"));
      }
      return this;
    }

    /** Never offers operations whose id matches one of these globs (they win over includes). */
    public Builder exclude(String... globs) {
      for (String glob : globs) {
        excludes.add(requireText(glob, "glob"));
      }
      return this;
    }

    /** The deadline of each call (5 minutes): MCP has no way for a client to send one. */
    public Builder defaultDeadline(Duration deadline) {
      this.defaultDeadline = positive(deadline, "defaultDeadline");
      return this;
    }

    /**
     * Bounds the items a SUBSCRIPTION gathers into one tool result (1,000 items, 4 MiB); the result
     * states where and why it was cut.
     */
    public Builder subscriptionLimits(int maxItems, long maxBytes) {
      if (maxItems < 1 || maxBytes < 1) {
        throw new IllegalArgumentException("subscription limits must be positive");
      }
      this.maxItems = maxItems;
      this.maxItemBytes = maxBytes;
      return this;
    }

    /** Tools per tools/list page (500). */
    public Builder pageSize(int pageSize) {
      if (pageSize < 1) {
        throw new IllegalArgumentException("pageSize must be positive, was " + pageSize);
      }
      this.pageSize = pageSize;
      return this;
    }

    /** The largest message accepted (4 MiB): a POST body, or a stdio line; larger ones get 413. */
    public Builder maxRequestBytes(int bytes) {
      if (bytes < 1024) {
        throw new IllegalArgumentException("maxRequestBytes must be at least 1024, was " + bytes);
      }
      this.maxRequestBytes = bytes;
      return this;
    }

    /**
     * Bytes waiting for a client that does not read (8 MiB per SSE stream, and for stdout): past it
     * the stream is closed and its call cancelled.
     */
    public Builder maxQueuedStreamBytes(long bytes) {
      if (bytes < 1024) {
        throw new IllegalArgumentException("maxQueuedStreamBytes must be at least 1024");
      }
      this.maxQueuedStreamBytes = bytes;
      return this;
    }

    /**
     * Sessions open at once per HTTP endpoint (10,000) and how long a used one lasts without a
     * request (30 minutes). When full, the idlest session not in use is evicted for a newcomer
     * (never-used ones first); only when every session is in use is a newcomer refused (503).
     */
    public Builder sessions(int maxSessions, Duration idleTimeout) {
      if (maxSessions < 1) {
        throw new IllegalArgumentException("maxSessions must be positive, was " + maxSessions);
      }
      this.maxSessions = maxSessions;
      this.sessionIdleTimeout = positive(idleTimeout, "session idle timeout");
      return this;
    }

    /**
     * Sessions one client may hold (100): its identity's subject, or its remote address when
     * anonymous. Its next {@code initialize} evicts its own idlest session (never-used ones first);
     * when all of them are in use it is refused with 429 and {@code Retry-After}.
     */
    public Builder sessionsPerClient(int max) {
      if (max < 1) {
        throw new IllegalArgumentException("sessionsPerClient must be positive, was " + max);
      }
      this.maxSessionsPerClient = max;
      return this;
    }

    /**
     * How long a session that was never used after {@code initialize} (no other request, no GET
     * stream) lasts (60 s): what a flood of initializes leaves behind goes soon.
     */
    public Builder unusedSessionTimeout(Duration timeout) {
      this.unusedSessionTimeout = positive(timeout, "unusedSessionTimeout");
      return this;
    }

    /**
     * What the HTTP endpoint's connections may hold ({@link ConnectionLimits#defaults()}): open
     * connections in all and per address, a request head's time, a body's least rate.
     */
    public Builder connectionLimits(ConnectionLimits limits) {
      this.connectionLimits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /** Jetty's idle timeout per connection (30 s); open SSE streams get keep-alive comments. */
    public Builder idleTimeout(Duration timeout) {
      this.idleTimeout = positive(timeout, "idleTimeout");
      return this;
    }

    /**
     * Host names (as in the Host header, without port) accepted besides localhost, 127.0.0.1, [::1]
     * and the bound address; needed when clients reach the server by another name.
     */
    public Builder allowedHosts(String... hosts) {
      for (String host : hosts) {
        allowedHosts.add(requireText(host, "host"));
      }
      return this;
    }

    /**
     * Origins ({@code https://app.example}) accepted besides those on allowed hosts. A request with
     * any other Origin is refused (403): browsers send it, so a web page cannot drive the server.
     */
    public Builder allowedOrigins(String... origins) {
      for (String origin : origins) {
        allowedOrigins.add(requireText(origin, "origin"));
      }
      return this;
    }

    /**
     * Requires a bearer token on every HTTP request (401 with {@code WWW-Authenticate} otherwise)
     * and publishes {@code metadata} (RFC 9728). The identity it returns is the caller the pipeline
     * checks scopes against, on tools/list (filtered) and tools/call (refused).
     */
    public Builder authenticator(McpAuthenticator authenticator, McpResourceMetadata metadata) {
      this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
      this.resourceMetadata = Objects.requireNonNull(metadata, "metadata");
      return this;
    }

    /**
     * Which tools run as tasks (MCP's tasks extension, 2026-07-28) for clients that declare it;
     * {@link McpTaskMode#none()} by default (the extension is then not advertised).
     */
    public Builder taskMode(
        java.util.function.Function<dev.alkdev.operations.OperationSpec, McpTaskMode> policy) {
      this.taskMode = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * How long a task lives (one hour by default): its call's deadline, and how long after it was
     * created its status and result can be read ({@code ttlMs}).
     */
    public Builder taskTtl(Duration ttl) {
      this.taskTtl = positive(ttl, "taskTtl");
      return this;
    }

    /**
     * Shares tasks with the other MCP servers on {@code pubsub} (the transport the nodes of a mesh
     * already share): a client may read or cancel a task at any of them, whichever runs it. Each
     * server needs its own {@code nodeId}; task ids carry it. The server does not close {@code
     * pubsub}.
     */
    public Builder shareTasks(dev.alkdev.operations.pubsub.PubSub pubsub, String nodeId) {
      Objects.requireNonNull(pubsub, "pubsub");
      if (Objects.requireNonNull(nodeId, "nodeId").isBlank()) {
        throw new IllegalArgumentException("nodeId is blank");
      }
      this.taskSharing =
          new dev.alkdev.operations.mcpserver.internal.Config.TaskSharing(pubsub, nodeId);
      return this;
    }

    /** The most tasks kept at once (10,000); a call that would pass it is refused (429). */
    public Builder maxTasks(int max) {
      if (max < 1) {
        throw new IllegalArgumentException("maxTasks must be positive, was " + max);
      }
      this.maxTasks = max;
      return this;
    }

    /** Who calls over stdio (anonymous): the host that launched the process. */
    public Builder stdioIdentity(Identity identity) {
      this.stdioIdentity = Objects.requireNonNull(identity, "identity");
      return this;
    }

    public McpServer build() {
      Predicate<String> selected = selection(includes, excludes);
      Config config =
          new Config(
              serverName,
              serverVersion,
              Optional.ofNullable(instructions),
              toolPrefix,
              namespaceInNames,
              toolNames,
              selected,
              defaultDeadline,
              maxItems,
              maxItemBytes,
              pageSize,
              maxRequestBytes,
              maxQueuedStreamBytes,
              maxSessions,
              sessionIdleTimeout,
              maxSessionsPerClient,
              unusedSessionTimeout,
              connectionLimits,
              Set.copyOf(allowedHosts),
              Set.copyOf(allowedOrigins),
              Optional.ofNullable(authenticator),
              Optional.ofNullable(resourceMetadata),
              stdioIdentity,
              idleTimeout,
              taskMode,
              taskTtl,
              maxTasks,
              Optional.ofNullable(taskSharing),
              telemetry == null
                  ? dev.alkdev.operations.mcpserver.internal.RequestObserver.NONE
                  : telemetry.observer());
      return new McpServer(new Engine(server, config));
    }

    private static Predicate<String> selection(List<String> includes, List<String> excludes) {
      List<Pattern> in = includes.stream().map(Builder::glob).toList();
      List<Pattern> out = excludes.stream().map(Builder::glob).toList();
      return id ->
          (in.isEmpty() || in.stream().anyMatch(p -> p.matcher(id).matches()))
              && out.stream().noneMatch(p -> p.matcher(id).matches());
    }

    /** {@code *} any run of characters, {@code ?} one; everything else literal. */
    static Pattern glob(String glob) {
      StringBuilder regex = new StringBuilder();
      for (char c : glob.toCharArray()) {
        switch (c) {
          case '*' -> regex.append(".*");
          case '?' -> regex.append('.');
          default -> regex.append(Pattern.quote(String.valueOf(c)));
        }
      }
      return Pattern.compile(regex.toString());
    }

    private static String requireText(String value, String what) {
      Objects.requireNonNull(value, what);
      if (value.isBlank()) {
        throw new IllegalArgumentException(what + " must not be blank");
      }
      return value;
    }

    private static Duration positive(Duration value, String what) {
      Objects.requireNonNull(value, what);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(what + " must be positive, was " + value);
      }
      return value;
    }
  }
}
