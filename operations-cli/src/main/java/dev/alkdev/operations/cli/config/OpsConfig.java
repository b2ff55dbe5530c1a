package dev.alkdev.operations.cli.config;

import dev.alkdev.operations.cli.internal.ConfigParser;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Everything {@code ops} loads besides the demo: OpenAPI documents and MCP servers, from a
 * configuration file ({@code --config}, {@code $OPS_CONFIG}, {@code ~/.config/ops/config.yaml}) and
 * from the one-off flags. Every entry's name is its namespace, so names are unique across both
 * lists.
 *
 * <pre>{@code
 * openapi:
 *   petstore:
 *     location: ./petstore.yaml          # a file or an http(s) URL
 *     baseUrl: http://localhost:8080     # optional: else the document's first server
 *     auth: {bearer: {tokenEnv: PETSTORE_TOKEN}}
 * mcpServers:                            # the format MCP hosts write
 *   files:
 *     command: npx
 *     args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
 *   remote:
 *     url: https://example.com/mcp
 *     headers: {Authorization: "Bearer ${REMOTE_TOKEN}"}
 * }</pre>
 */
public record OpsConfig(List<OpenApiSourceConfig> openApi, List<McpServerConfig> mcpServers) {
  public OpsConfig {
    openApi = List.copyOf(openApi);
    mcpServers = List.copyOf(mcpServers);
    Set<String> names = new HashSet<>();
    for (OpenApiSourceConfig source : openApi) {
      requireUnique(names, source.namespace());
    }
    for (McpServerConfig server : mcpServers) {
      requireUnique(names, server.name());
    }
  }

  public static OpsConfig empty() {
    return new OpsConfig(List.of(), List.of());
  }

  /**
   * Reads a configuration file: JSON if its name ends in {@code .json}, else YAML.
   *
   * @throws ConfigException if the file cannot be read, does not parse, has an unknown key, or
   *     holds a literal secret
   */
  public static OpsConfig read(Path file) {
    return ConfigParser.read(file);
  }

  /**
   * Parses a configuration's text; {@code origin} names it in messages (a file name).
   *
   * @throws ConfigException as {@link #read} does
   */
  public static OpsConfig parse(String text, String origin) {
    return ConfigParser.parse(text, origin);
  }

  /**
   * Both configurations' entries.
   *
   * @throws ConfigException if a name is in both
   */
  public OpsConfig plus(OpsConfig other) {
    List<OpenApiSourceConfig> documents = new ArrayList<>(openApi);
    documents.addAll(other.openApi);
    List<McpServerConfig> servers = new ArrayList<>(mcpServers);
    servers.addAll(other.mcpServers);
    return new OpsConfig(documents, servers);
  }

  private static void requireUnique(Set<String> names, String name) {
    if (!names.add(name)) {
      throw new ConfigException(
          "the name "
              + name
              + " is used twice; each OpenAPI document and MCP server needs its own name (it is"
              + " the namespace of its operations)");
    }
  }
}
