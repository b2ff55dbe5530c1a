package dev.alkdev.operations.cli.config;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.cli.internal.ConfigParser;
import dev.alkdev.operations.cli.internal.SourceSet;
import dev.alkdev.operations.source.OperationSource;
import dev.alkdev.operations.source.SourceEntry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Everything {@code ops} loads besides the demo, as source entries (kind, name, settings) for the
 * source factories of the adapter modules: from a configuration file ({@code --config}, {@code
 * $OPS_CONFIG}, {@code ~/.config/ops/config.yaml}) and from the one-off flags. Every entry's name
 * is its namespace, so names are unique across all sections.
 *
 * <pre>{@code
 * openapi:                               # kind openapi
 *   petstore:
 *     location: ./petstore.yaml          # a file or an http(s) URL
 *     baseUrl: http://localhost:8080     # optional: else the document's first server
 *     auth: {bearer: {tokenEnv: PETSTORE_TOKEN}}
 * mcpServers:                            # kind mcp, the format MCP hosts write
 *   files:
 *     command: npx
 *     args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
 *   remote:
 *     url: https://example.com/mcp
 *     headers: {Authorization: "Bearer ${REMOTE_TOKEN}"}
 * sources:                               # any kind a factory provides
 *   other: {kind: openapi, location: ./other.yaml}
 * }</pre>
 */
public record OpsConfig(List<SourceEntry> sources) {
  public OpsConfig {
    sources = List.copyOf(sources);
    Set<String> names = new HashSet<>();
    for (SourceEntry source : sources) {
      if (!names.add(source.name())) {
        throw new ConfigException(
            "the name "
                + source.name()
                + " is used twice; each source (OpenAPI document, MCP server, ...) needs its own"
                + " name (it is the namespace of its operations)");
      }
    }
  }

  public static OpsConfig empty() {
    return new OpsConfig(List.of());
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
   * The sources of this configuration, loaded into {@code registry} the way {@code ops} loads them:
   * each entry made by the first {@link dev.alkdev.operations.source.SourceFactory} on the class or
   * module path that accepts its kind, all loaded at once, waiting up to {@code loadTimeout}. For
   * hosts that embed the configuration (the Spring Boot starter). Closing the result closes the
   * sources.
   *
   * @param environment where settings that name a secret's variable read it
   * @throws ConfigException naming each source that could not be created or did not load (those
   *     that did are closed again)
   */
  public Loaded load(
      OperationRegistry registry, Map<String, String> environment, Duration loadTimeout) {
    SourceSet set;
    try {
      set = SourceSet.create(false, this, environment, loadTimeout);
    } catch (SourceSet.SourceFailure e) {
      throw new ConfigException(e.getMessage());
    }
    try {
      set.load(registry, loadTimeout, SourceSet.Progress.NONE);
    } catch (SourceSet.SourceFailure e) {
      set.close();
      throw new ConfigException(e.getMessage());
    }
    return new Loaded() {
      @Override
      public List<OperationSource> sources() {
        return set.sources();
      }

      @Override
      public void close() {
        set.close();
      }
    };
  }

  /** The sources {@link #load} loaded; closing it closes them. */
  public interface Loaded extends AutoCloseable {
    List<OperationSource> sources();

    @Override
    void close();
  }

  /** The entry called {@code name}, if there is one. */
  public Optional<SourceEntry> source(String name) {
    return sources.stream().filter(source -> source.name().equals(name)).findFirst();
  }

  /**
   * Both configurations' entries.
   *
   * @throws ConfigException if a name is in both
   */
  public OpsConfig plus(OpsConfig other) {
    List<SourceEntry> all = new ArrayList<>(sources);
    all.addAll(other.sources);
    return new OpsConfig(all);
  }
}
