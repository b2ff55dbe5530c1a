package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.source.SourceEntry;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * The {@code ops} extension {@code auth} of an MCP server over HTTP, as headers: {@code {bearer:
 * {tokenEnv}}}, {@code {apiKey: {name, valueEnv}}} (a header), {@code {basic: {usernameEnv,
 * passwordEnv}}}. The settings name environment variables; the secrets are read from the entry's
 * environment.
 */
final class AuthHeaders {
  private AuthHeaders() {}

  static Map<String, String> read(String where, JsonNode auth, SourceEntry entry) {
    if (!auth.isObject() || auth.size() != 1) {
      throw new IllegalArgumentException(
          where + " must have exactly one of bearer, apiKey or basic");
    }
    Map.Entry<String, JsonNode> only = auth.properties().iterator().next();
    String at = where + "." + only.getKey();
    JsonNode body = only.getValue();
    return switch (only.getKey()) {
      case "bearer" -> {
        known(at, body, Set.of("tokenEnv"));
        yield Map.of("Authorization", "Bearer " + entry.variable(text(at, body, "tokenEnv")));
      }
      case "apiKey" -> {
        known(at, body, Set.of("name", "in", "valueEnv"));
        String in = body.path("in").asString("header");
        if (!in.equals("header")) {
          throw new IllegalArgumentException(
              at + ".in must be header for an MCP server (it has no query parameters), was " + in);
        }
        yield Map.of(text(at, body, "name"), entry.variable(text(at, body, "valueEnv")));
      }
      case "basic" -> {
        known(at, body, Set.of("usernameEnv", "passwordEnv"));
        String pair =
            entry.variable(text(at, body, "usernameEnv"))
                + ":"
                + entry.variable(text(at, body, "passwordEnv"));
        yield Map.of(
            "Authorization",
            "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
      }
      default ->
          throw new IllegalArgumentException(
              where + ": unknown auth " + only.getKey() + "; use bearer, apiKey, basic or oauth");
    };
  }

  private static String text(String where, JsonNode body, String key) {
    JsonNode value = body.path(key);
    if (!value.isString() || value.stringValue().isBlank()) {
      throw new IllegalArgumentException(where + "." + key + " is required (a string)");
    }
    return value.stringValue();
  }

  private static void known(String where, JsonNode body, Set<String> keys) {
    if (!body.isObject()) {
      throw new IllegalArgumentException(where + " must be an object");
    }
    for (String key : body.propertyNames()) {
      if (!keys.contains(key)) {
        throw new IllegalArgumentException(
            where
                + ": unknown key "
                + key
                + "; expected "
                + String.join(", ", keys.stream().sorted().toList()));
      }
    }
  }
}
