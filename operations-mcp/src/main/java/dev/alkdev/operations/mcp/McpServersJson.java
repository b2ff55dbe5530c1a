package dev.alkdev.operations.mcp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the MCP server entries that MCP hosts write, the one reader for the MCP module and the
 * {@code ops} command. A whole file ({@link #parse}) or one entry ({@link #server}).
 *
 * <ul>
 *   <li>Files: Claude Desktop and Cursor write {@code {"mcpServers": {NAME: ENTRY}}}, VS Code
 *       {@code {"servers": {NAME: ENTRY}}}; every other top-level key ({@code globalShortcut},
 *       {@code preferences}, VS Code's {@code inputs}) is ignored.
 *   <li>Entries: {@code command}, {@code args}, {@code env}, {@code cwd} for a server started over
 *       stdio; {@code url} (or {@code serverUrl}) and {@code headers} for streamable HTTP; {@code
 *       type} {@code stdio}, {@code http}, {@code streamable-http} or {@code streamableHttp}
 *       (optional: a command means stdio, a url HTTP); {@code disabled: true} skips the entry;
 *       {@code timeout} and {@code initTimeout} (milliseconds) set the request and initialize
 *       timeouts. Other keys hosts add ({@code autoApprove}, {@code alwaysAllow}, ...) are ignored.
 *   <li>{@code type: "sse"} is an error that names the server: it is the legacy HTTP+SSE transport
 *       (MCP 2024-11-05), which this client does not speak. Refusing it, rather than skipping it,
 *       means a server's tools never vanish without a word; set {@code "disabled": true} to keep
 *       such an entry in a file that is loaded here.
 *   <li>{@code ${VAR}} (also Cursor's and VS Code's {@code ${env:VAR}}, and {@code
 *       ${VAR:-default}}) in {@code command}, {@code args}, {@code env}, {@code cwd}, {@code url}
 *       and {@code headers} is replaced from the environment given, because hosts' files carry
 *       secrets that way; an unset variable without a default is an error, so a missing secret is
 *       found at load time. {@code $${VAR}} stays a literal {@code ${VAR}}. VS Code's {@code
 *       ${input:ID}} prompts cannot be answered here and are an error.
 * </ul>
 *
 * <p>Every error is an {@link IllegalArgumentException} whose message names the server and the
 * field ({@code mcpServers.files.args[1] must be a string, was a number}).
 */
public final class McpServersJson {
  /**
   * {@code $${...}} (escaped), {@code ${VAR}}, {@code ${env:VAR}}, {@code ${VAR:-x}}, {@code
   * ${input:x}}.
   */
  private static final Pattern VARIABLE =
      Pattern.compile(
          "(\\$?)\\$\\{(?:(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?|input:([^}]*))}");

  private static final JsonMapper JSON = JsonMapper.shared();

  private McpServersJson() {}

  /** Parses a host's file with variables from the process environment. */
  public static Map<String, McpClientConfig> parse(String json) {
    return parse(json, System.getenv());
  }

  /**
   * Parses a host's file: {@code mcpServers} (or VS Code's {@code servers}), disabled entries left
   * out, in the file's order.
   *
   * @param environment where {@code ${VAR}} references are read from
   * @throws IllegalArgumentException naming the server and field that is wrong
   */
  public static Map<String, McpClientConfig> parse(String json, Map<String, String> environment) {
    Objects.requireNonNull(json, "json");
    Objects.requireNonNull(environment, "environment");
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JacksonException e) {
      throw new IllegalArgumentException("mcpServers JSON is not valid JSON: " + e.getMessage(), e);
    }
    String section = root.has("mcpServers") ? "mcpServers" : root.has("servers") ? "servers" : null;
    if (!root.isObject() || section == null) {
      throw new IllegalArgumentException(
          "expected a JSON object with \"mcpServers\" (Claude Desktop, Cursor) or \"servers\" (VS"
              + " Code)");
    }
    JsonNode servers = root.get(section);
    if (!servers.isObject()) {
      throw new IllegalArgumentException(
          section
              + " must be an object that maps each server's name to its entry, was "
              + a(servers));
    }
    Map<String, McpClientConfig> result = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> entry : servers.properties()) {
      read(section + "." + entry.getKey(), entry.getValue(), environment)
          .ifPresent(config -> result.put(entry.getKey(), config));
    }
    return Collections.unmodifiableMap(result);
  }

  /**
   * Reads one entry of {@code mcpServers}, as hosts write it.
   *
   * @param name the server's name, for messages ({@code mcpServers.NAME.args ...})
   * @param environment where {@code ${VAR}} references are read from
   * @return the server's config; empty when the entry says {@code "disabled": true}
   * @throws IllegalArgumentException naming the server and field that is wrong
   */
  public static Optional<McpClientConfig> server(
      String name, JsonNode entry, Map<String, String> environment) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(entry, "entry");
    Objects.requireNonNull(environment, "environment");
    return read("mcpServers." + name, entry, environment);
  }

  private static Optional<McpClientConfig> read(
      String where, JsonNode node, Map<String, String> environment) {
    if (!node.isObject()) {
      throw new IllegalArgumentException(where + " must be an object, was " + a(node));
    }
    JsonNode disabled = node.path("disabled");
    if (!disabled.isMissingNode() && !disabled.isNull() && !disabled.isBoolean()) {
      throw new IllegalArgumentException(
          where + ".disabled must be true or false, was " + a(disabled));
    }
    if (disabled.asBoolean(false)) {
      return Optional.empty();
    }
    Expander expander = new Expander(environment);
    boolean http = isHttp(where, node);
    if (http) {
      String urlField = node.hasNonNull("url") ? "url" : "serverUrl";
      String url = expander.expand(text(node, urlField, where), where + "." + urlField);
      McpClientConfig.StreamableHttp.Builder builder;
      try {
        builder = McpClientConfig.streamableHttp(url);
        stringMap(node, "headers", where)
            .forEach((k, v) -> builder.header(k, expander.expand(v, where + ".headers." + k)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(where + "." + urlField + ": " + e.getMessage(), e);
      }
      timeouts(node, where, builder::initializeTimeout, builder::requestTimeout);
      return Optional.of(build(where + "." + urlField, builder::build));
    }
    String command = expander.expand(text(node, "command", where), where + ".command");
    if (command.isBlank()) {
      throw new IllegalArgumentException(where + ".command is empty");
    }
    McpClientConfig.Stdio.Builder builder = McpClientConfig.stdio(command);
    List<String> args = new ArrayList<>();
    JsonNode argsNode = node.path("args");
    if (!argsNode.isMissingNode() && !argsNode.isNull()) {
      if (!argsNode.isArray()) {
        throw new IllegalArgumentException(
            where + ".args must be an array of strings, was " + a(argsNode));
      }
      for (int i = 0; i < argsNode.size(); i++) {
        JsonNode arg = argsNode.get(i);
        String at = where + ".args[" + i + "]";
        if (!arg.isString()) {
          throw new IllegalArgumentException(at + " must be a string, was " + a(arg));
        }
        args.add(expander.expand(arg.stringValue(), at));
      }
    }
    builder.args(args);
    stringMap(node, "env", where)
        .forEach((k, v) -> builder.env(k, expander.expand(v, where + ".env." + k)));
    if (node.hasNonNull("cwd")) {
      builder.cwd(expander.expand(text(node, "cwd", where), where + ".cwd"));
    }
    timeouts(node, where, builder::initializeTimeout, builder::requestTimeout);
    return Optional.of(build(where, builder::build));
  }

  /** Which transport the entry asks for: its {@code type}, else whether it has a url. */
  private static boolean isHttp(String where, JsonNode node) {
    boolean hasCommand = node.hasNonNull("command");
    boolean hasUrl = node.hasNonNull("url") || node.hasNonNull("serverUrl");
    JsonNode typeNode = node.path("type");
    if (typeNode.isMissingNode() || typeNode.isNull()) {
      if (hasCommand == hasUrl) {
        throw new IllegalArgumentException(
            where
                + (hasCommand
                    ? " has both a command and a url; it needs one of them: a command (stdio) or a"
                        + " url (HTTP)"
                    : " needs either a command (stdio) or a url (HTTP)"));
      }
      return hasUrl;
    }
    if (!typeNode.isString()) {
      throw new IllegalArgumentException(where + ".type must be a string, was " + a(typeNode));
    }
    String type = typeNode.stringValue();
    switch (type) {
      case "stdio" -> {
        if (!hasCommand) {
          throw new IllegalArgumentException(where + " has type stdio but no command");
        }
        return false;
      }
      case "http", "streamable-http", "streamableHttp" -> {
        if (!hasUrl) {
          throw new IllegalArgumentException(where + " has type " + type + " but no url");
        }
        return true;
      }
      case "sse" ->
          throw new IllegalArgumentException(
              where
                  + ".type is \"sse\", the legacy HTTP+SSE transport (MCP 2024-11-05), which this"
                  + " client does not support; point url at the server's streamable HTTP endpoint"
                  + " (often /mcp) with \"type\": \"http\", or set \"disabled\": true");
      default ->
          throw new IllegalArgumentException(
              where
                  + ".type must be stdio, http, streamable-http, streamableHttp (or the"
                  + " unsupported sse), was \""
                  + type
                  + "\"");
    }
  }

  private static void timeouts(
      JsonNode node, String where, Consumer<Duration> initialize, Consumer<Duration> request) {
    // Not in every host's format; "timeout" (ms) is what several hosts use for requests.
    millis(node, "timeout", where).ifPresent(request);
    millis(node, "initTimeout", where).ifPresent(initialize);
  }

  private static Optional<Duration> millis(JsonNode node, String field, String where) {
    JsonNode value = node.path(field);
    if (value.isMissingNode() || value.isNull()) {
      return Optional.empty();
    }
    if (!value.isIntegralNumber() || value.asLong() <= 0) {
      throw new IllegalArgumentException(
          where + "." + field + " must be a positive number of milliseconds, was " + a(value));
    }
    return Optional.of(Duration.ofMillis(value.asLong()));
  }

  private static <T> T build(String where, java.util.function.Supplier<T> build) {
    try {
      return build.get();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
  }

  private static String text(JsonNode node, String field, String where) {
    JsonNode value = node.path(field);
    if (!value.isString()) {
      throw new IllegalArgumentException(
          where + "." + field + " must be a string, was " + a(value));
    }
    return value.stringValue();
  }

  /**
   * An object of names to values. Numbers and booleans are taken as their text: YAML and some hosts
   * write {@code MAX_TOKENS: 4096}, and an environment variable is text anyway.
   */
  private static Map<String, String> stringMap(JsonNode node, String field, String where) {
    JsonNode map = node.path(field);
    Map<String, String> result = new LinkedHashMap<>();
    if (map.isMissingNode() || map.isNull()) {
      return result;
    }
    if (!map.isObject()) {
      throw new IllegalArgumentException(
          where + "." + field + " must be an object of names to strings, was " + a(map));
    }
    for (Map.Entry<String, JsonNode> entry : map.properties()) {
      JsonNode value = entry.getValue();
      if (!value.isString() && !value.isNumber() && !value.isBoolean()) {
        throw new IllegalArgumentException(
            where + "." + field + "." + entry.getKey() + " must be a string, was " + a(value));
      }
      result.put(entry.getKey(), value.asString());
    }
    return result;
  }

  /** How a wrong value is described in messages: its JSON type, never its content. */
  private static String a(JsonNode node) {
    if (node.isMissingNode()) {
      return "missing";
    }
    return switch (node.getNodeType()) {
      case ARRAY -> "an array";
      case OBJECT -> "an object";
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      default -> node.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
    };
  }

  /** Replaces variable references in one entry's values. */
  private record Expander(Map<String, String> environment) {
    String expand(String value, String where) {
      Matcher matcher = VARIABLE.matcher(value);
      StringBuilder out = new StringBuilder();
      while (matcher.find()) {
        String replacement;
        if (!matcher.group(1).isEmpty()) {
          replacement = matcher.group().substring(1); // $${VAR}: the literal ${VAR}
        } else if (matcher.group(4) != null) {
          throw new IllegalArgumentException(
              where
                  + " uses ${input:"
                  + matcher.group(4)
                  + "}, a VS Code prompt that cannot be answered here; put the value in an"
                  + " environment variable and write ${NAME}");
        } else {
          String variable = matcher.group(2);
          replacement = environment.get(variable);
          if (replacement == null) {
            replacement = matcher.group(3);
          }
          if (replacement == null) {
            throw new IllegalArgumentException(
                where + " uses ${" + variable + "}, which is not set in the environment");
          }
        }
        matcher.appendReplacement(out, Matcher.quoteReplacement(replacement));
      }
      matcher.appendTail(out);
      return out.toString();
    }
  }
}
