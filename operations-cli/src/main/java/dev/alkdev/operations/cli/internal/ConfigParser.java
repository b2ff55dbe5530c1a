package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.cli.config.AuthConfig;
import dev.alkdev.operations.cli.config.ConfigException;
import dev.alkdev.operations.cli.config.McpServerConfig;
import dev.alkdev.operations.cli.config.OpenApiSourceConfig;
import dev.alkdev.operations.cli.config.OpsConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads the configuration file into {@link OpsConfig}. Strict where a typo would go unnoticed
 * (unknown keys at the top and in OpenAPI entries are refused) and lenient in {@code mcpServers},
 * whose entries MCP hosts decorate with keys of their own.
 */
public final class ConfigParser {
  private ConfigParser() {}

  private static final ObjectMapper JSON = JsonMapper.builder().build();
  private static final ObjectMapper YAML = YAMLMapper.builder().build();

  /** Keys whose value is a secret when written literally. */
  private static final Pattern SECRET_KEY =
      Pattern.compile("(?i).*(token|secret|password|passwd|api[_-]?key|credential|auth).*");

  private static final Set<String> TOP_KEYS = Set.of("openapi", "mcpServers");
  private static final Set<String> OPENAPI_KEYS =
      Set.of("namespace", "location", "baseUrl", "auth");

  public static OpsConfig read(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new ConfigException("cannot read the configuration file " + file + ": " + e, e);
    }
    return parse(text, file.toString());
  }

  public static OpsConfig parse(String text, String origin) {
    boolean json = origin.toLowerCase(Locale.ROOT).endsWith(".json");
    JsonNode root;
    try {
      root = (json ? JSON : YAML).readTree(text);
    } catch (JacksonException e) {
      throw new ConfigException(
          origin + ": not valid " + (json ? "JSON" : "YAML") + " " + JsonInput.describe(e), e);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      return OpsConfig.empty();
    }
    if (!root.isObject()) {
      throw new ConfigException(origin + ": expected an object with openapi and mcpServers");
    }
    requireKnownKeys(origin, "", root, TOP_KEYS);
    List<OpenApiSourceConfig> documents = openApi(origin, root.path("openapi"));
    List<McpServerConfig> servers = mcpServers(origin, root.path("mcpServers"));
    try {
      return new OpsConfig(documents, servers);
    } catch (ConfigException e) {
      throw new ConfigException(origin + ": " + e.getMessage(), e);
    }
  }

  private static List<OpenApiSourceConfig> openApi(String origin, JsonNode node) {
    List<OpenApiSourceConfig> documents = new ArrayList<>();
    if (node.isMissingNode() || node.isNull()) {
      return documents;
    }
    if (node.isObject()) {
      // The usual form, like mcpServers: the key is the namespace.
      for (Map.Entry<String, JsonNode> entry : node.properties()) {
        documents.add(openApiEntry(origin, "openapi." + entry.getKey(), entry.getKey(), entry));
      }
    } else if (node.isArray()) {
      int i = 0;
      for (JsonNode item : node) {
        String where = "openapi[" + i++ + "]";
        String namespace = requireText(origin, where, item, "namespace");
        documents.add(openApiEntry(origin, where, namespace, Map.entry(namespace, item)));
      }
    } else {
      throw new ConfigException(origin + ": openapi must map each namespace to its document");
    }
    return documents;
  }

  private static OpenApiSourceConfig openApiEntry(
      String origin, String where, String namespace, Map.Entry<String, JsonNode> entry) {
    JsonNode item = entry.getValue();
    if (item.isString()) {
      // Shorthand: "petstore: ./petstore.yaml".
      item = JSON.createObjectNode().put("location", item.asString());
    }
    if (!item.isObject()) {
      throw new ConfigException(origin + ": " + where + " must be an object with a location");
    }
    requireKnownKeys(origin, where + ".", item, OPENAPI_KEYS);
    requireName(origin, where, namespace);
    String location = requireText(origin, where, item, "location");
    Optional<String> baseUrl = optionalText(origin, where, item, "baseUrl");
    Optional<AuthConfig> auth =
        item.has("auth")
            ? Optional.of(auth(origin, where + ".auth", item.get("auth")))
            : Optional.empty();
    return new OpenApiSourceConfig(namespace, location, baseUrl, auth);
  }

  static AuthConfig auth(String origin, String where, JsonNode node) {
    if (!node.isObject() || node.size() != 1) {
      throw new ConfigException(
          origin + ": " + where + " must have exactly one of bearer, apiKey or basic");
    }
    Map.Entry<String, JsonNode> entry = node.properties().iterator().next();
    String kind = entry.getKey();
    JsonNode body = entry.getValue();
    String at = where + "." + kind;
    if (!body.isObject()) {
      throw new ConfigException(origin + ": " + at + " must be an object");
    }
    switch (kind) {
      case "bearer" -> {
        refuseLiteral(origin, at, body, "token", "tokenEnv");
        requireKnownKeys(origin, at + ".", body, Set.of("tokenEnv"));
        return new AuthConfig.Bearer(requireEnvName(origin, at, body, "tokenEnv"));
      }
      case "apiKey" -> {
        refuseLiteral(origin, at, body, "value", "valueEnv");
        refuseLiteral(origin, at, body, "key", "valueEnv");
        requireKnownKeys(origin, at + ".", body, Set.of("name", "in", "valueEnv"));
        String in = optionalText(origin, at, body, "in").orElse("header");
        AuthConfig.KeyLocation location;
        try {
          location = AuthConfig.KeyLocation.valueOf(in.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
          throw new ConfigException(origin + ": " + at + ".in must be header or query, not " + in);
        }
        return new AuthConfig.ApiKey(
            requireText(origin, at, body, "name"),
            location,
            requireEnvName(origin, at, body, "valueEnv"));
      }
      case "basic" -> {
        refuseLiteral(origin, at, body, "password", "passwordEnv");
        refuseLiteral(origin, at, body, "username", "usernameEnv");
        requireKnownKeys(origin, at + ".", body, Set.of("usernameEnv", "passwordEnv"));
        return new AuthConfig.Basic(
            requireEnvName(origin, at, body, "usernameEnv"),
            requireEnvName(origin, at, body, "passwordEnv"));
      }
      default ->
          throw new ConfigException(
              origin + ": " + where + ": unknown auth " + kind + "; use bearer, apiKey or basic");
    }
  }

  private static List<McpServerConfig> mcpServers(String origin, JsonNode node) {
    List<McpServerConfig> servers = new ArrayList<>();
    if (node.isMissingNode() || node.isNull()) {
      return servers;
    }
    if (!node.isObject()) {
      throw new ConfigException(origin + ": mcpServers must map each server's name to its entry");
    }
    for (Map.Entry<String, JsonNode> entry : node.properties()) {
      String name = entry.getKey();
      String where = "mcpServers." + name;
      JsonNode item = entry.getValue();
      if (!item.isObject()) {
        throw new ConfigException(origin + ": " + where + " must be an object");
      }
      if (item.path("disabled").asBoolean(false)) {
        continue; // MCP hosts switch servers off this way; so does ops.
      }
      requireName(origin, where, name);
      Map<String, String> env = stringMap(origin, where + ".env", item.path("env"));
      Map<String, String> headers = stringMap(origin, where + ".headers", item.path("headers"));
      refuseLiteralSecrets(origin, where + ".env", env);
      refuseLiteralSecrets(origin, where + ".headers", headers);
      boolean hasCommand = item.has("command");
      boolean hasUrl = item.has("url") || item.has("serverUrl");
      if (hasCommand == hasUrl) {
        throw new ConfigException(
            origin + ": " + where + " needs either a command (stdio) or a url (HTTP), not both");
      }
      if (hasCommand) {
        List<String> args = new ArrayList<>();
        JsonNode argsNode = item.path("args");
        if (!argsNode.isMissingNode()) {
          if (!argsNode.isArray()) {
            throw new ConfigException(origin + ": " + where + ".args must be a list of strings");
          }
          argsNode.forEach(a -> args.add(a.asString()));
        }
        servers.add(
            new McpServerConfig.Stdio(
                name,
                requireText(origin, where, item, "command"),
                args,
                env,
                optionalText(origin, where, item, "cwd")));
      } else {
        String url =
            item.has("url")
                ? requireText(origin, where, item, "url")
                : requireText(origin, where, item, "serverUrl");
        Optional<AuthConfig> auth =
            item.has("auth")
                ? Optional.of(auth(origin, where + ".auth", item.get("auth")))
                : Optional.empty();
        servers.add(new McpServerConfig.Http(name, url, headers, auth));
      }
    }
    return servers;
  }

  private static Map<String, String> stringMap(String origin, String where, JsonNode node) {
    Map<String, String> map = new LinkedHashMap<>();
    if (node.isMissingNode() || node.isNull()) {
      return map;
    }
    if (!node.isObject()) {
      throw new ConfigException(origin + ": " + where + " must map names to strings");
    }
    for (Map.Entry<String, JsonNode> entry : node.properties()) {
      if (!entry.getValue().isValueNode()) {
        throw new ConfigException(
            origin + ": " + where + "." + entry.getKey() + " must be a string");
      }
      map.put(entry.getKey(), entry.getValue().asString());
    }
    return map;
  }

  /** A secret-looking env var or header written out instead of as {@code ${NAME}}. */
  private static void refuseLiteralSecrets(
      String origin, String where, Map<String, String> values) {
    values.forEach(
        (key, value) -> {
          if (SECRET_KEY.matcher(key).matches()
              && !value.isEmpty()
              && !McpServerConfig.REFERENCE.matcher(value).find()) {
            throw new ConfigException(
                origin
                    + ": "
                    + where
                    + "."
                    + key
                    + " holds a literal secret, which the configuration file must not; put it in"
                    + " an environment variable and write \"${VARIABLE}\" instead (e.g. "
                    + key
                    + ": \"${"
                    + suggestVariable(key)
                    + "}\")");
          }
        });
  }

  private static void refuseLiteral(
      String origin, String where, JsonNode body, String literalKey, String envKey) {
    if (body.has(literalKey)) {
      throw new ConfigException(
          origin
              + ": "
              + where
              + "."
              + literalKey
              + " is a literal secret, which the configuration file must not hold; put it in an"
              + " environment variable and name the variable instead ("
              + envKey
              + ": VARIABLE)");
    }
  }

  private static String suggestVariable(String key) {
    return key.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9_]", "_");
  }

  private static String requireEnvName(String origin, String where, JsonNode node, String key) {
    String name = requireText(origin, where, node, key);
    if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
      throw new ConfigException(
          origin
              + ": "
              + where
              + "."
              + key
              + " must be the NAME of an environment variable (letters, digits, _), not its value");
    }
    return name;
  }

  private static void requireName(String origin, String where, String name) {
    if (!OperationSpec.isValidId(name + ".x") || name.contains(".")) {
      throw new ConfigException(
          origin
              + ": "
              + where
              + ": "
              + name
              + " cannot be a namespace; use letters, digits, - and _, starting with a letter");
    }
  }

  private static String requireText(String origin, String where, JsonNode node, String key) {
    JsonNode value = node.get(key);
    if (value == null || !value.isString() || value.asString().isBlank()) {
      throw new ConfigException(origin + ": " + where + "." + key + " is required (a string)");
    }
    return value.asString();
  }

  private static Optional<String> optionalText(
      String origin, String where, JsonNode node, String key) {
    JsonNode value = node.get(key);
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    if (!value.isString()) {
      throw new ConfigException(origin + ": " + where + "." + key + " must be a string");
    }
    return Optional.of(value.asString());
  }

  private static void requireKnownKeys(
      String origin, String prefix, JsonNode node, Set<String> known) {
    for (String key : node.propertyNames()) {
      if (!known.contains(key)) {
        throw new ConfigException(
            origin
                + ": unknown key "
                + prefix
                + key
                + "; expected one of "
                + String.join(", ", known.stream().sorted().toList()));
      }
    }
  }
}
