package dev.alkdev.operations.mcp;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationDefinition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Many MCP servers at once (the seeds' {@code MCPClientLoader}): connects them in parallel, keeps
 * the ones that connected, and reports the ones that did not instead of failing as a whole.
 * Thread-safe; closing it closes every client.
 */
public final class McpClientLoader implements AutoCloseable {
  private final Map<String, McpClientWrapper> clients;
  private final Map<String, CallError> failures;

  private McpClientLoader(Map<String, McpClientWrapper> clients, Map<String, CallError> failures) {
    this.clients = clients;
    this.failures = failures;
  }

  /** Connects every server; returns once each connected or failed (each within its timeouts). */
  public static McpClientLoader load(Map<String, McpClientConfig> servers) {
    return load(servers, McpClientOptions.defaults());
  }

  /** As {@link #load(Map)}, with the same options for every client. */
  public static McpClientLoader load(
      Map<String, McpClientConfig> servers, McpClientOptions options) {
    Objects.requireNonNull(servers, "servers");
    Objects.requireNonNull(options, "options");
    Map<String, CompletableFuture<McpClientWrapper>> pending = new LinkedHashMap<>();
    ExecutorService pool = Executors.newCachedThreadPool(daemonThreads());
    try {
      servers.forEach(
          (name, config) ->
              pending.put(
                  name,
                  CompletableFuture.supplyAsync(
                      () -> McpClients.createMcpClient(name, config, options), pool)));
      Map<String, McpClientWrapper> clients = new LinkedHashMap<>();
      Map<String, CallError> failures = new LinkedHashMap<>();
      for (Map.Entry<String, CompletableFuture<McpClientWrapper>> entry : pending.entrySet()) {
        McpClientConfig config = servers.get(entry.getKey());
        // Each connect is bounded by its own timeouts; this wait is a backstop on top.
        long bound = config.initializeTimeout().plus(config.requestTimeout()).toMillis() + 5_000;
        try {
          clients.put(entry.getKey(), entry.getValue().get(bound, TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          failures.put(entry.getKey(), CallError.of(ErrorCode.CANCELLED, "Interrupted", e));
        } catch (java.util.concurrent.TimeoutException e) {
          entry.getValue().thenAccept(McpClientWrapper::close);
          failures.put(
              entry.getKey(),
              CallError.of(ErrorCode.DEADLINE_EXCEEDED, "Connecting took too long", e));
        } catch (java.util.concurrent.ExecutionException e) {
          failures.put(
              entry.getKey(),
              CallError.from(
                  e,
                  cause ->
                      CallError.of(
                          ErrorCode.UNAVAILABLE,
                          "Connecting to " + entry.getKey() + " failed: " + cause.getMessage(),
                          cause)));
        }
      }
      return new McpClientLoader(
          java.util.Collections.unmodifiableMap(clients),
          java.util.Collections.unmodifiableMap(failures));
    } finally {
      pool.shutdown();
    }
  }

  private static java.util.concurrent.ThreadFactory daemonThreads() {
    return runnable -> {
      Thread thread = new Thread(runnable, "mcp-loader");
      thread.setDaemon(true);
      return thread;
    };
  }

  /** The connected client named {@code name}. */
  public Optional<McpClientWrapper> get(String name) {
    return Optional.ofNullable(clients.get(name));
  }

  /** Every connected client, in the order the servers were given. */
  public List<McpClientWrapper> clients() {
    return List.copyOf(clients.values());
  }

  /** Why each server that did not connect failed, by name. */
  public Map<String, CallError> failures() {
    return failures;
  }

  /** The operations of every connected client. */
  public List<OperationDefinition> operations() {
    List<OperationDefinition> all = new ArrayList<>();
    clients.values().forEach(client -> all.addAll(client.operations()));
    return List.copyOf(all);
  }

  /** Closes every client; the seeds' {@code closeAll}. */
  public void closeAll() {
    clients.values().parallelStream().forEach(McpClientWrapper::close);
  }

  @Override
  public void close() {
    closeAll();
  }
}
