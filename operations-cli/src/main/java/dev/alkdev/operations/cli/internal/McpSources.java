package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.cli.McpSourceFactory;
import dev.alkdev.operations.cli.OperationSource;
import dev.alkdev.operations.cli.config.McpServerConfig;
import dev.alkdev.operations.mcp.McpClientConfig;
import dev.alkdev.operations.mcp.McpClientWrapper;
import dev.alkdev.operations.mcp.McpClients;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * MCP server entries of the configuration as sources: the server is started (stdio) or reached
 * (streamable HTTP) with {@link McpClients#createMcpClient} on a background thread and its tools
 * registered in the entry's namespace. Closing the source closes the client, which kills a stdio
 * server's whole process tree.
 */
public final class McpSources implements McpSourceFactory {

  @Override
  public OperationSource create(McpServerConfig config, Map<String, String> environment) {
    return new Source(config, Map.copyOf(environment));
  }

  static McpClientConfig toClientConfig(McpServerConfig config, Map<String, String> environment) {
    if (config instanceof McpServerConfig.Stdio stdio) {
      McpClientConfig.Stdio.Builder builder =
          McpClientConfig.stdio(stdio.command())
              .args(stdio.args())
              .env(McpServerConfig.expand(stdio.env(), environment));
      stdio.cwd().ifPresent(builder::cwd);
      return builder.build();
    }
    McpServerConfig.Http http = (McpServerConfig.Http) config;
    Map<String, String> headers =
        new LinkedHashMap<>(McpServerConfig.expand(http.headers(), environment));
    http.auth().ifPresent(auth -> headers.putAll(auth.resolve(environment).headers()));
    return McpClientConfig.streamableHttp(McpServerConfig.expand(http.url(), environment))
        .headers(headers)
        .build();
  }

  private static final class Source implements OperationSource {
    private final McpServerConfig config;
    private final Map<String, String> environment;
    private final AtomicReference<McpClientWrapper> client = new AtomicReference<>();
    private volatile boolean closed;

    Source(McpServerConfig config, Map<String, String> environment) {
      this.config = config;
      this.environment = environment;
    }

    @Override
    public String name() {
      return config.name();
    }

    @Override
    public String kind() {
      return "MCP";
    }

    @Override
    public CompletableFuture<Void> load(OperationRegistry registry) {
      return CompletableFuture.runAsync(
          () -> {
            McpClientWrapper wrapper =
                McpClients.createMcpClient(config.name(), toClientConfig(config, environment));
            client.set(wrapper);
            if (closed) {
              // closed while connecting: do not leave the server running
              wrapper.close();
              return;
            }
            wrapper.registerInto(registry);
          },
          SourceThreads.EXECUTOR);
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
}
