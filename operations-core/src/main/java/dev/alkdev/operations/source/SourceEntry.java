package dev.alkdev.operations.source;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * One configured source, as a {@link SourceFactory} receives it: what the configuration said (its
 * kind, its name and its settings) and what the host hands every source (the environment secrets
 * are read from, how long loading may take, the directory relative paths start from).
 *
 * @param kind which factory it is for, e.g. {@code "openapi"}, {@code "mcp"}
 * @param name the source's name: the namespace of its operations
 * @param settings the entry's own settings, a JSON object whose keys the factory defines (a copy:
 *     changing it changes nothing here)
 * @param environment environment variables, for settings that name a secret's variable ({@code
 *     tokenEnv: GITHUB_TOKEN}) or refer to one ({@code "${GITHUB_TOKEN}"}); see {@link #variable}
 * @param loadTimeout how long the host waits for {@link OperationSource#load}; a source may bound
 *     its own connect and listing steps by it, so nothing it starts outlives the wait
 * @param baseDirectory where relative paths in the settings start (absolute)
 */
public record SourceEntry(
    String kind,
    String name,
    JsonNode settings,
    Map<String, String> environment,
    Duration loadTimeout,
    Path baseDirectory) {

  /** The load timeout of {@link #of}. */
  public static final Duration DEFAULT_LOAD_TIMEOUT = Duration.ofSeconds(30);

  public SourceEntry {
    requireText(kind, "kind");
    requireText(name, "name");
    Objects.requireNonNull(settings, "settings");
    if (!settings.isObject()) {
      throw new IllegalArgumentException(
          "settings of source " + name + " must be a JSON object, was " + settings.getNodeType());
    }
    settings = settings.deepCopy();
    environment = Map.copyOf(environment);
    Objects.requireNonNull(loadTimeout, "loadTimeout");
    if (loadTimeout.isNegative() || loadTimeout.isZero()) {
      throw new IllegalArgumentException("loadTimeout must be positive, was " + loadTimeout);
    }
    baseDirectory = baseDirectory.toAbsolutePath();
  }

  /**
   * An entry with no environment, the {@link #DEFAULT_LOAD_TIMEOUT} and the working directory as
   * base directory; the {@code with...} methods change those.
   */
  public static SourceEntry of(String kind, String name, JsonNode settings) {
    return new SourceEntry(
        kind, name, settings, Map.of(), DEFAULT_LOAD_TIMEOUT, Path.of("").toAbsolutePath());
  }

  /** A copy of the settings, so a factory may read (or even change) it freely. */
  @Override
  public JsonNode settings() {
    return settings.deepCopy();
  }

  public SourceEntry withSettings(JsonNode settings) {
    return new SourceEntry(kind, name, settings, environment, loadTimeout, baseDirectory);
  }

  public SourceEntry withEnvironment(Map<String, String> environment) {
    return new SourceEntry(kind, name, settings, environment, loadTimeout, baseDirectory);
  }

  public SourceEntry withLoadTimeout(Duration loadTimeout) {
    return new SourceEntry(kind, name, settings, environment, loadTimeout, baseDirectory);
  }

  public SourceEntry withBaseDirectory(Path baseDirectory) {
    return new SourceEntry(kind, name, settings, environment, loadTimeout, baseDirectory);
  }

  /**
   * The value of the environment variable {@code variable}, for a setting that names where a secret
   * is kept.
   *
   * @throws IllegalArgumentException naming the variable and this source, if it is unset or empty
   *     (a missing secret is found when the source is made, not at its first call)
   */
  public String variable(String variable) {
    String value = environment.get(variable);
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException(
          "environment variable "
              + variable
              + " is not set; source "
              + name
              + " reads a secret from it (export "
              + variable
              + "=...)");
    }
    return value;
  }

  /** Keeps the environment (secrets) out of logs and messages. */
  @Override
  public String toString() {
    return "SourceEntry[kind="
        + kind
        + ", name="
        + name
        + ", settings="
        + settings
        + ", loadTimeout="
        + loadTimeout
        + ", baseDirectory="
        + baseDirectory
        + "]";
  }

  private static void requireText(String value, String what) {
    Objects.requireNonNull(value, what);
    if (value.isBlank()) {
      throw new IllegalArgumentException(what + " is blank");
    }
  }
}
