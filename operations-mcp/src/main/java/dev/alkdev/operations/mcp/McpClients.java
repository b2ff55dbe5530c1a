package dev.alkdev.operations.mcp;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.mcp.internal.DefaultMcpClientWrapper;

/** Creates MCP clients: the seeds' {@code createMCPClient}. */
public final class McpClients {
  private McpClients() {}

  /**
   * Connects to the server, runs the {@code initialize} handshake and lists its tools, all within
   * {@link McpClientConfig#initializeTimeout()} (listing within the request timeout).
   *
   * @param name the server's name: the namespace of its operations ({@code [A-Za-z0-9_-]{1,64}})
   * @throws CallError UNAVAILABLE when the server cannot be started or reached, DEADLINE_EXCEEDED
   *     when it does not answer in time, PROTOCOL_ERROR when it does not speak MCP
   */
  public static McpClientWrapper createMcpClient(String name, McpClientConfig config) {
    return createMcpClient(name, config, McpClientOptions.defaults());
  }

  /** As {@link #createMcpClient(String, McpClientConfig)}, with listeners and options. */
  public static McpClientWrapper createMcpClient(
      String name, McpClientConfig config, McpClientOptions options) {
    return DefaultMcpClientWrapper.connect(name, config, options);
  }
}
