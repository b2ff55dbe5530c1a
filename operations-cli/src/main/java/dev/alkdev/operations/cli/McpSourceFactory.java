package dev.alkdev.operations.cli;

import dev.alkdev.operations.cli.config.McpServerConfig;
import java.util.Map;

/**
 * Turns an MCP server entry of the configuration into a source (the seeds' {@code MCPClientLoader}
 * for one server). Found with {@link java.util.ServiceLoader}: the MCP adapter provides one (listed
 * in {@code META-INF/services/dev.alkdev.operations.cli.McpSourceFactory}); without it the command
 * says "MCP support not built in".
 */
public interface McpSourceFactory {

  /**
   * A source for {@code config}, not loaded yet.
   *
   * @param environment where {@code ${NAME}} references in the entry's env and headers are read
   *     from (see {@link McpServerConfig#expand})
   */
  OperationSource create(McpServerConfig config, Map<String, String> environment);
}
