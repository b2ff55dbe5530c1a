package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.cli.config.ConfigException;
import dev.alkdev.operations.cli.config.OpsConfig;
import dev.alkdev.operations.source.SourceEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads the configuration file into {@link OpsConfig}: each section's entries become source entries
 * ({@code openapi} of kind openapi, {@code mcpServers} of kind mcp, {@code sources} of the kind
 * each names), whose settings the adapters' source factories read. What is checked here is ops's
 * own rules for its own file: the top-level keys and OpenAPI entries' keys (a typo should not go
 * unnoticed), names that can be namespaces, and no literal secrets. Entries marked {@code disabled:
 * true} are left out, in every section, as MCP hosts do.
 */
public final class ConfigParser {
  private ConfigParser() {}

  private static final ObjectMapper JSON = JsonMapper.builder().build();
  private static final ObjectMapper YAML = YAMLMapper.builder().build();

  /**
   * The last word of a key whose value is a secret when written literally (GITHUB_TOKEN,
   * CLIENT_SECRET, DB_PASSWORD, Authorization); matched by word, not substring, so MAX_TOKENS,
   * AUTHOR_NAME and SECRET_SCANNING are not secrets.
   */
  private static final Set<String> SECRET_WORDS =
      Set.of(
          "token",
          "secret",
          "password",
          "passwd",
          "pwd",
          "credential",
          "credentials",
          "auth",
          "authorization",
          "apikey",
          "pat");

  /** Words before "key" that make it a secret: API_KEY, AWS_SECRET_ACCESS_KEY, X-Api-Key. */
  private static final Set<String> SECRET_KEY_QUALIFIERS =
      Set.of("api", "access", "secret", "private", "client", "signing", "auth");

  /** A value that is a number or a boolean is a setting, whatever its key says. */
  private static final Pattern PLAIN_SETTING =
      Pattern.compile("(?i)-?\\d+(\\.\\d+)?|true|false|yes|no|on|off");

  /** A value that refers to an environment variable ({@code ${NAME}}, {@code ${env:NAME}}, ...). */
  private static final Pattern REFERENCE = Pattern.compile("\\$\\{[^}]+}");

  private static final Set<String> TOP_KEYS = Set.of("openapi", "mcpServers", "sources");

  /**
   * Where MCP hosts keep their servers: Claude Desktop and Cursor {@code mcpServers}, VS Code
   * {@code servers}. A file with one of them may be a host's own (with {@code globalShortcut},
   * {@code preferences}, {@code inputs} beside it), read as it is.
   */
  private static final List<String> HOST_SERVER_KEYS = List.of("mcpServers", "servers");

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
      throw new ConfigException(
          origin + ": expected an object with openapi, mcpServers and sources");
    }
    boolean hostFile = HOST_SERVER_KEYS.stream().anyMatch(key -> root.path(key).isObject());
    if (!hostFile) {
      // ops's own file: a typo in a top-level key must not go unnoticed.
      requireKnownKeys(origin, "", root, TOP_KEYS);
    }
    List<SourceEntry> entries = new ArrayList<>(openApi(origin, root.path("openapi")));
    entries.addAll(
        mcpServers(origin, root.path("mcpServers").isObject() ? "mcpServers" : "servers", root));
    entries.addAll(sources(origin, root.path("sources")));
    try {
      return new OpsConfig(entries);
    } catch (ConfigException e) {
      throw new ConfigException(origin + ": " + e.getMessage(), e);
    }
  }

  private static List<SourceEntry> openApi(String origin, JsonNode node) {
    List<SourceEntry> documents = new ArrayList<>();
    if (node.isMissingNode() || node.isNull()) {
      return documents;
    }
    if (node.isObject()) {
      // The usual form, like mcpServers: the key is the namespace.
      for (Map.Entry<String, JsonNode> entry : node.properties()) {
        if (!disabled(entry.getValue())) {
          documents.add(
              openApiEntry(origin, "openapi." + entry.getKey(), entry.getKey(), entry.getValue()));
        }
      }
    } else if (node.isArray()) {
      int i = 0;
      for (JsonNode item : node) {
        String where = "openapi[" + i++ + "]";
        String namespace = requireText(origin, where, item, "namespace");
        if (!disabled(item)) {
          ObjectNode settings = ((ObjectNode) item).deepCopy();
          settings.remove("namespace");
          documents.add(openApiEntry(origin, where, namespace, settings));
        }
      }
    } else {
      throw new ConfigException(origin + ": openapi must map each namespace to its document");
    }
    return documents;
  }

  private static SourceEntry openApiEntry(
      String origin, String where, String namespace, JsonNode item) {
    if (item.isString()) {
      // Shorthand: "petstore: ./petstore.yaml".
      item = JSON.createObjectNode().put("location", item.asString());
    }
    if (!item.isObject()) {
      throw new ConfigException(origin + ": " + where + " must be an object with a location");
    }
    ObjectNode settings = ((ObjectNode) item).deepCopy();
    settings.remove("disabled");
    requireKnownKeys(origin, where + ".", settings, OPENAPI_KEYS);
    requireName(origin, where, namespace);
    requireText(origin, where, settings, "location");
    optionalText(origin, where, settings, "baseUrl");
    if (settings.has("auth")) {
      checkAuth(origin, where + ".auth", settings.get("auth"), false);
    }
    return SourceEntry.of("openapi", namespace, settings);
  }

  /**
   * {@code auth} names environment variables, never secrets: {@code bearer: {tokenEnv}}, {@code
   * apiKey: {name, in, valueEnv}}, {@code basic: {usernameEnv, passwordEnv}}, and for an MCP server
   * {@code oauth: {clientId, clientSecretEnv, ...}}. The adapters read the secrets from the
   * environment when the source is made.
   */
  static void checkAuth(String origin, String where, JsonNode node, boolean mcp) {
    String kinds = mcp ? "bearer, apiKey, basic or oauth" : "bearer, apiKey or basic";
    if (!node.isObject() || node.size() != 1) {
      throw new ConfigException(origin + ": " + where + " must have exactly one of " + kinds);
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
        requireEnvName(origin, at, body, "tokenEnv");
      }
      case "apiKey" -> {
        refuseLiteral(origin, at, body, "value", "valueEnv");
        refuseLiteral(origin, at, body, "key", "valueEnv");
        requireKnownKeys(origin, at + ".", body, Set.of("name", "in", "valueEnv"));
        String in = optionalText(origin, at, body, "in").orElse("header");
        if (!Set.of("header", "query").contains(in.toLowerCase(Locale.ROOT))) {
          throw new ConfigException(origin + ": " + at + ".in must be header or query, not " + in);
        }
        requireText(origin, at, body, "name");
        requireEnvName(origin, at, body, "valueEnv");
      }
      case "basic" -> {
        refuseLiteral(origin, at, body, "password", "passwordEnv");
        refuseLiteral(origin, at, body, "username", "usernameEnv");
        requireKnownKeys(origin, at + ".", body, Set.of("usernameEnv", "passwordEnv"));
        requireEnvName(origin, at, body, "usernameEnv");
        requireEnvName(origin, at, body, "passwordEnv");
      }
      case "oauth" -> {
        if (!mcp) {
          throw new ConfigException(
              origin + ": " + at + ": OAuth is for MCP servers; use " + kinds + " here");
        }
        refuseLiteral(origin, at, body, "clientSecret", "clientSecretEnv");
        requireKnownKeys(
            origin,
            at + ".",
            body,
            Set.of(
                "clientId",
                "clientSecretEnv",
                "clientMetadataUrl",
                "grant",
                "redirectPort",
                "tokenFile"));
        if (body.has("clientSecretEnv")) {
          requireEnvName(origin, at, body, "clientSecretEnv");
        }
      }
      default ->
          throw new ConfigException(
              origin + ": " + where + ": unknown auth " + kind + "; use " + kinds);
    }
  }

  /**
   * {@code mcpServers} (or VS Code's {@code servers}), as MCP hosts write it: each entry goes to
   * the MCP adapter as it is (its reader, {@code McpServersJson}, checks the fields); here only the
   * name. Literal values in its {@code env} and {@code headers} are accepted: this section is the
   * hosts' format, and a host's file holds the user's own values on the user's own machine (D48);
   * ops's own sections ({@code openapi}, {@code sources}) keep secrets out.
   */
  private static List<SourceEntry> mcpServers(String origin, String key, JsonNode root) {
    JsonNode node = root.path(key);
    List<SourceEntry> servers = new ArrayList<>();
    if (node.isMissingNode() || node.isNull()) {
      return servers;
    }
    if (!node.isObject()) {
      throw new ConfigException(origin + ": " + key + " must map each server's name to its entry");
    }
    for (Map.Entry<String, JsonNode> entry : node.properties()) {
      String name = entry.getKey();
      String where = key + "." + name;
      JsonNode item = entry.getValue();
      if (!item.isObject()) {
        throw new ConfigException(origin + ": " + where + " must be an object");
      }
      if (disabled(item)) {
        continue; // MCP hosts switch servers off this way; so does ops.
      }
      requireName(origin, where, name);
      servers.add(SourceEntry.of("mcp", name, withDefaultOAuth((ObjectNode) item)));
    }
    return servers;
  }

  /** {@code sources}: entries of any kind, {@code NAME: {kind: KIND, ...its settings}}. */
  private static List<SourceEntry> sources(String origin, JsonNode node) {
    List<SourceEntry> sources = new ArrayList<>();
    if (node.isMissingNode() || node.isNull()) {
      return sources;
    }
    if (!node.isObject()) {
      throw new ConfigException(
          origin + ": sources must map each source's name to {kind: KIND, ...its settings}");
    }
    for (Map.Entry<String, JsonNode> entry : node.properties()) {
      String name = entry.getKey();
      String where = "sources." + name;
      if (!entry.getValue().isObject()) {
        throw new ConfigException(origin + ": " + where + " must be an object with a kind");
      }
      ObjectNode settings = ((ObjectNode) entry.getValue()).deepCopy();
      if (disabled(settings)) {
        continue;
      }
      requireName(origin, where, name);
      String kind = requireText(origin, where, settings, "kind");
      settings.remove("kind");
      refuseLiteralSecrets(origin, where, settings, kind.equals("mcp"));
      sources.add(
          SourceEntry.of(kind, name, kind.equals("mcp") ? withDefaultOAuth(settings) : settings));
    }
    return sources;
  }

  /** {@code disabled: true}: the entry is kept in the file but not loaded. */
  private static boolean disabled(JsonNode item) {
    return item.path("disabled").isBoolean() && item.path("disabled").asBoolean();
  }

  /**
   * ops's own file holds no literal secrets: {@code auth} names variables, and secret-looking
   * {@code env} and {@code headers} values refer to them as {@code ${NAME}}.
   */
  private static void refuseLiteralSecrets(
      String origin, String where, JsonNode item, boolean mcp) {
    for (String field : List.of("env", "headers")) {
      JsonNode values = item.path(field);
      if (values.isObject()) {
        for (Map.Entry<String, JsonNode> value : values.properties()) {
          if (value.getValue().isValueNode()) {
            refuseLiteralSecret(
                origin, where + "." + field, value.getKey(), value.getValue().asString());
          }
        }
      }
    }
    if (item.has("auth")) {
      checkAuth(origin, where + ".auth", item.get("auth"), mcp);
    }
  }

  /**
   * An MCP server over HTTP with no {@code auth} and no {@code Authorization} header gets OAuth, as
   * MCP hosts do: nothing changes for a server that never answers 401, and one that does asks the
   * user to authorize once (tokens kept in ~/.config/ops/mcp-tokens.json).
   */
  static ObjectNode withDefaultOAuth(ObjectNode item) {
    if (!item.has("url") || item.has("auth")) {
      return item;
    }
    JsonNode headers = item.path("headers");
    if (headers.isObject()) {
      for (String header : headers.propertyNames()) {
        if (header.equalsIgnoreCase("Authorization")) {
          return item;
        }
      }
    }
    ObjectNode copy = item.deepCopy();
    copy.putObject("auth").putObject("oauth");
    return copy;
  }

  /** A secret-looking env var or header written out instead of as {@code ${NAME}}. */
  private static void refuseLiteralSecret(String origin, String where, String key, String value) {
    if (isSecretKey(key)
        && !value.isEmpty()
        && !PLAIN_SETTING.matcher(value.strip()).matches()
        && !REFERENCE.matcher(value).find()) {
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
  }

  /** Whether a key names a secret, by its last word (see {@link #SECRET_WORDS}). */
  static boolean isSecretKey(String key) {
    // Words: split on _ - . and space, and at camelCase humps (clientSecret, xApiKey).
    String[] words =
        key.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT).split("[_\\-. ]+");
    if (words.length == 0) {
      return false;
    }
    String last = words[words.length - 1];
    if (SECRET_WORDS.contains(last)) {
      return true;
    }
    return last.equals("key")
        && words.length > 1
        && SECRET_KEY_QUALIFIERS.contains(words[words.length - 2]);
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
