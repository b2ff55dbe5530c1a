package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.mcp.McpClientConfig;
import dev.alkdev.operations.mcp.McpClientOptions;
import dev.alkdev.operations.mcp.McpClientWrapper;
import dev.alkdev.operations.mcp.McpServersJson;
import dev.alkdev.operations.source.OperationSource;
import dev.alkdev.operations.source.SourceEntry;
import dev.alkdev.operations.source.SourceFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import tools.jackson.databind.JsonNode;

/**
 * Sources of kind {@code mcp}: one MCP server per entry (the seeds' {@code MCPClientLoader} for one
 * server). The settings are an entry as MCP hosts write it under {@code mcpServers}, read by {@link
 * McpServersJson#server} with the entry's environment, plus {@code auth} for a server over HTTP:
 * static headers ({@link AuthHeaders}) or OAuth ({@link OAuthSettings}). A relative {@code cwd}
 * starts at the entry's base directory; connecting and the {@code initialize} handshake are bounded
 * by the entry's load timeout when it is shorter than the server's own, so a stdio server never
 * outlives a host that gave up waiting.
 *
 * <p>Found through {@link java.util.ServiceLoader}; public only for that.
 */
public final class McpSourceFactory implements SourceFactory {

  /** The kind this factory makes. */
  public static final String KIND = "mcp";

  @Override
  public Optional<OperationSource> create(SourceEntry entry) {
    if (!KIND.equals(entry.kind())) {
      return Optional.empty();
    }
    JsonNode settings = entry.settings();
    McpClientConfig config =
        McpServersJson.server(entry.name(), settings, entry.environment())
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "mcpServers." + entry.name() + " is disabled; leave it out instead"));
    return Optional.of(new Source(entry.name(), adapt(config, settings, entry)));
  }

  private static McpClientConfig adapt(
      McpClientConfig config, JsonNode settings, SourceEntry entry) {
    String where = "mcpServers." + entry.name();
    Duration initialize = min(config.initializeTimeout(), entry.loadTimeout());
    if (config instanceof McpClientConfig.Stdio stdio) {
      if (settings.has("auth")) {
        throw new IllegalArgumentException(
            where + ".auth applies to servers over HTTP; give a stdio server its secrets in env");
      }
      McpClientConfig.Stdio.Builder builder =
          McpClientConfig.stdio(stdio.command())
              .args(stdio.args())
              .env(stdio.env())
              .initializeTimeout(initialize)
              .requestTimeout(stdio.requestTimeout());
      stdio
          .cwd()
          .ifPresent(cwd -> builder.cwd(entry.baseDirectory().resolve(Path.of(cwd)).toString()));
      return builder.build();
    }
    McpClientConfig.StreamableHttp http = (McpClientConfig.StreamableHttp) config;
    McpClientConfig.StreamableHttp.Builder builder =
        McpClientConfig.streamableHttp(http.url().toString())
            .headers(http.headers())
            .initializeTimeout(initialize)
            .requestTimeout(http.requestTimeout());
    JsonNode auth = settings.path("auth");
    if (auth.isObject() && auth.size() == 1 && auth.has("oauth")) {
      builder.oauth(OAuthSettings.read(where + ".auth.oauth", auth.get("oauth"), entry));
    } else if (settings.has("auth")) {
      builder.headers(AuthHeaders.read(where + ".auth", auth, entry));
    }
    return builder.build();
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** One server: started or reached on a background thread, closed with its whole process tree. */
  private static final class Source implements OperationSource {
    private final String name;
    private final McpClientConfig config;
    private final AtomicReference<McpClientWrapper> client = new AtomicReference<>();
    private volatile boolean closed;

    Source(String name, McpClientConfig config) {
      this.name = name;
      this.config = config;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String kind() {
      return "MCP";
    }

    @Override
    public CompletableFuture<Void> load(OperationRegistry registry) {
      return CompletableFuture.runAsync(
          () -> {
            // The client is known before its handshake starts, so a close() that comes while it
            // connects (the host gave up waiting, or got a signal) kills the server's tree.
            McpClientWrapper wrapper =
                DefaultMcpClientWrapper.connect(
                    name,
                    config,
                    McpClientOptions.defaults(),
                    started -> {
                      client.set(started);
                      if (closed) {
                        close();
                      }
                    });
            if (closed) {
              close();
              return;
            }
            wrapper.registerInto(registry);
          },
          task -> daemon(task, "mcp-source-" + name));
    }

    @Override
    public void close() {
      closed = true;
      McpClientWrapper wrapper = client.getAndSet(null);
      if (wrapper != null) {
        try {
          wrapper.close();
        } catch (RuntimeException ignored) {
          // close never throws: the process tree is killed by the wrapper whatever happens
        }
      }
    }
  }

  /** Loads run on a daemon thread of their own, so a stuck server never keeps the JVM alive. */
  private static void daemon(Runnable task, String name) {
    Thread thread = new Thread(task, name);
    thread.setDaemon(true);
    thread.start();
  }
}
