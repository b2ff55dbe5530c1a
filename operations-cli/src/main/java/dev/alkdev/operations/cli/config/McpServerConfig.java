package dev.alkdev.operations.cli.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One MCP server, as MCP hosts write it under {@code mcpServers} (the seeds' {@code
 * createMCPClient} configuration): a command to start over stdio, or a URL to reach over HTTP. Its
 * tools become operations in the namespace {@link #name}.
 *
 * <p>Values in {@code env} and {@code headers} may refer to environment variables as {@code
 * ${NAME}}; {@link #expand} replaces them when the server is started. Secrets must be written that
 * way: a literal value for a secret-looking key (a token, key, secret, password, or an {@code
 * Authorization} header) is refused when the file is read.
 */
public sealed interface McpServerConfig {

  String name();

  /** A server started as a subprocess, spoken to over its stdin and stdout. */
  record Stdio(
      String name, String command, List<String> args, Map<String, String> env, Optional<String> cwd)
      implements McpServerConfig {
    public Stdio {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(command, "command");
      args = List.copyOf(args);
      env = Map.copyOf(env);
      Objects.requireNonNull(cwd, "cwd");
    }
  }

  /** A server reached over HTTP (streamable HTTP, or SSE for older servers). */
  record Http(String name, String url, Map<String, String> headers, Optional<AuthConfig> auth)
      implements McpServerConfig {
    public Http {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(url, "url");
      headers = Map.copyOf(headers);
      Objects.requireNonNull(auth, "auth");
    }
  }

  /**
   * {@code values} with every {@code ${NAME}} replaced by that environment variable.
   *
   * @throws ConfigException naming the variable, if one is unset
   */
  static Map<String, String> expand(Map<String, String> values, Map<String, String> environment) {
    Map<String, String> expanded = new LinkedHashMap<>();
    values.forEach((key, value) -> expanded.put(key, expand(value, environment)));
    return expanded;
  }

  /** One value with every {@code ${NAME}} replaced; see {@link #expand(Map, Map)}. */
  static String expand(String value, Map<String, String> environment) {
    Matcher matcher = REFERENCE.matcher(value);
    StringBuilder out = new StringBuilder();
    while (matcher.find()) {
      String variable = matcher.group(1);
      String replacement = environment.get(variable);
      if (replacement == null) {
        throw new ConfigException(
            "environment variable " + variable + " is not set; the MCP configuration refers to it");
      }
      matcher.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    matcher.appendTail(out);
    return out.toString();
  }

  /** {@code ${NAME}}: what a value that names an environment variable looks like. */
  Pattern REFERENCE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");
}
