package dev.alkdev.operations.mcp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the {@code mcpServers} JSON that MCP hosts use (Claude Desktop, VS Code, Cursor): {@code
 * {"mcpServers": {"name": {"command", "args", "env", "cwd"} | {"url", "headers", "type"}}}}. VS
 * Code's {@code {"servers": ...}} is read too. An entry with a {@code url} is streamable HTTP
 * ({@code type} {@code "sse"} is refused: the old SSE transport is not supported); else it needs a
 * {@code command}.
 *
 * <p>{@code ${VAR}} in {@code args}, {@code env}, {@code cwd}, {@code url} and {@code headers}
 * values is replaced from the variables given (the process environment by default), because host
 * configs put secrets there that way; an unset variable is an error rather than an empty string, so
 * a missing secret is found at load time. {@code $${VAR}} stays {@code ${VAR}}.
 */
public final class McpServersJson {
  private static final Pattern VARIABLE = Pattern.compile("\\$?\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");
  private static final JsonMapper JSON = JsonMapper.shared();

  private McpServersJson() {}

  /** Parses with variables from {@link System#getenv()} and the default timeouts. */
  public static Map<String, McpClientConfig> parse(String json) {
    return parse(json, System.getenv()::get);
  }

  /**
   * Parses {@code json}.
   *
   * @param variables looks up {@code ${VAR}}; returns null when unset
   * @throws IllegalArgumentException naming the server and field that is wrong
   */
  public static Map<String, McpClientConfig> parse(
      String json, Function<String, String> variables) {
    Objects.requireNonNull(json, "json");
    Objects.requireNonNull(variables, "variables");
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JacksonException e) {
      throw new IllegalArgumentException("mcpServers JSON is not valid JSON: " + e.getMessage(), e);
    }
    JsonNode servers = root.has("mcpServers") ? root.get("mcpServers") : root.get("servers");
    if (servers == null || !servers.isObject()) {
      throw new IllegalArgumentException("Expected an object \"mcpServers\" (or \"servers\")");
    }
    Map<String, McpClientConfig> result = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> entry : servers.properties()) {
      result.put(entry.getKey(), server(entry.getKey(), entry.getValue(), variables));
    }
    return java.util.Collections.unmodifiableMap(result);
  }

  private static McpClientConfig server(
      String name, JsonNode node, Function<String, String> variables) {
    if (!node.isObject()) {
      throw new IllegalArgumentException("mcpServers." + name + " is not an object");
    }
    String where = "mcpServers." + name;
    String type = node.path("type").asString("");
    if (type.equals("sse")) {
      throw new IllegalArgumentException(where + ": the SSE transport is not supported");
    }
    if (node.hasNonNull("url")) {
      McpClientConfig.StreamableHttp.Builder builder =
          McpClientConfig.streamableHttp(expand(text(node, "url", where), variables, where));
      stringMap(node.get("headers"), where + ".headers")
          .forEach((k, v) -> builder.header(k, expand(v, variables, where + ".headers." + k)));
      timeouts(node, where, builder::initializeTimeout, builder::requestTimeout);
      return builder.build();
    }
    if (!node.hasNonNull("command")) {
      throw new IllegalArgumentException(where + " needs a \"command\" or a \"url\"");
    }
    McpClientConfig.Stdio.Builder builder = McpClientConfig.stdio(text(node, "command", where));
    List<String> args = new ArrayList<>();
    JsonNode argsNode = node.get("args");
    if (argsNode != null && !argsNode.isNull()) {
      if (!argsNode.isArray()) {
        throw new IllegalArgumentException(where + ".args is not an array");
      }
      for (JsonNode arg : argsNode) {
        if (!arg.isString()) {
          throw new IllegalArgumentException(where + ".args holds a non-string");
        }
        args.add(expand(arg.stringValue(), variables, where + ".args"));
      }
    }
    builder.args(args);
    stringMap(node.get("env"), where + ".env")
        .forEach((k, v) -> builder.env(k, expand(v, variables, where + ".env." + k)));
    if (node.hasNonNull("cwd")) {
      builder.cwd(expand(text(node, "cwd", where), variables, where + ".cwd"));
    }
    timeouts(node, where, builder::initializeTimeout, builder::requestTimeout);
    return builder.build();
  }

  private static void timeouts(
      JsonNode node,
      String where,
      java.util.function.Consumer<Duration> initialize,
      java.util.function.Consumer<Duration> request) {
    // Not part of the host format; "timeout" (ms) is what several hosts use for requests.
    if (node.path("timeout").isNumber()) {
      request.accept(Duration.ofMillis(node.get("timeout").asLong()));
    }
    if (node.path("initTimeout").isNumber()) {
      initialize.accept(Duration.ofMillis(node.get("initTimeout").asLong()));
    }
  }

  private static String text(JsonNode node, String field, String where) {
    JsonNode value = node.get(field);
    if (value == null || !value.isString()) {
      throw new IllegalArgumentException(where + "." + field + " is not a string");
    }
    return value.stringValue();
  }

  private static Map<String, String> stringMap(JsonNode node, String where) {
    Map<String, String> map = new LinkedHashMap<>();
    if (node == null || node.isNull()) {
      return map;
    }
    if (!node.isObject()) {
      throw new IllegalArgumentException(where + " is not an object");
    }
    for (Map.Entry<String, JsonNode> entry : node.properties()) {
      if (!entry.getValue().isString()) {
        throw new IllegalArgumentException(where + "." + entry.getKey() + " is not a string");
      }
      map.put(entry.getKey(), entry.getValue().stringValue());
    }
    return map;
  }

  static String expand(String value, Function<String, String> variables, String where) {
    Matcher matcher = VARIABLE.matcher(value);
    StringBuilder out = new StringBuilder();
    while (matcher.find()) {
      String replacement;
      if (matcher.group().startsWith("$$")) {
        replacement = matcher.group().substring(1);
      } else {
        replacement = variables.apply(matcher.group(1));
        if (replacement == null) {
          throw new IllegalArgumentException(
              where + " uses ${" + matcher.group(1) + "}, which is not set");
        }
      }
      matcher.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    matcher.appendTail(out);
    return out.toString();
  }
}
