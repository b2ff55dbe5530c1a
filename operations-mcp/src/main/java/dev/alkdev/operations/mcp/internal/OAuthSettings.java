package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.mcp.McpAuthorizationPrompt;
import dev.alkdev.operations.mcp.McpOAuth;
import dev.alkdev.operations.mcp.McpTokenStore;
import dev.alkdev.operations.source.SourceEntry;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * The {@code ops} extension {@code auth: {oauth: {...}}} of an MCP server over HTTP, as an {@link
 * McpOAuth}. Every key is optional: {@code clientId} (a pre-registered client; its secret in the
 * variable {@code clientSecretEnv}), {@code clientMetadataUrl}, {@code grant} ({@code
 * authorization_code} or {@code client_credentials}), {@code redirectPort}, {@code tokenFile}
 * (relative to the entry's base directory). Tokens go to {@link #defaultTokenFile} unless told
 * otherwise. The user is asked in a browser, or headless when the entry's environment has {@code
 * OPS_OAUTH_HEADLESS=1}; the user has the entry's load timeout to authorize.
 */
final class OAuthSettings {
  static final Set<String> KEYS =
      Set.of(
          "clientId", "clientSecretEnv", "clientMetadataUrl", "grant", "redirectPort", "tokenFile");

  private OAuthSettings() {}

  static McpOAuth read(String where, JsonNode body, SourceEntry entry) {
    if (!body.isObject()) {
      throw new IllegalArgumentException(where + " must be an object (it may be empty: {})");
    }
    for (String key : body.propertyNames()) {
      if (!KEYS.contains(key)) {
        throw new IllegalArgumentException(
            where
                + ": unknown key "
                + key
                + "; expected "
                + String.join(", ", KEYS.stream().sorted().toList()));
      }
    }
    Optional<String> clientId = text(where, body, "clientId");
    Optional<String> secret = text(where, body, "clientSecretEnv").map(entry::variable);
    String grant = text(where, body, "grant").orElse("authorization_code");
    McpOAuth.Builder oauth;
    switch (grant) {
      case "authorization_code" -> {
        oauth = McpOAuth.builder();
        clientId.ifPresent(
            id -> {
              if (secret.isPresent()) {
                oauth.clientId(id, secret.get());
              } else {
                oauth.clientId(id);
              }
            });
      }
      case "client_credentials" -> {
        if (clientId.isEmpty() || secret.isEmpty()) {
          throw new IllegalArgumentException(
              where + ": the client_credentials grant needs clientId and clientSecretEnv");
        }
        oauth = McpOAuth.clientCredentials(clientId.get(), secret.get());
      }
      default ->
          throw new IllegalArgumentException(
              where + ".grant must be authorization_code or client_credentials, was " + grant);
    }
    if (secret.isPresent() && clientId.isEmpty()) {
      throw new IllegalArgumentException(where + ": clientSecretEnv needs a clientId");
    }
    text(where, body, "clientMetadataUrl").ifPresent(oauth::clientMetadataUrl);
    if (body.has("redirectPort")) {
      JsonNode port = body.get("redirectPort");
      if (!port.isIntegralNumber() || port.asInt() < 0 || port.asInt() > 65535) {
        throw new IllegalArgumentException(
            where + ".redirectPort must be a port number (0..65535)");
      }
      oauth.redirectPort(port.asInt());
    }
    Path tokenFile =
        text(where, body, "tokenFile")
            .map(file -> entry.baseDirectory().resolve(file))
            .orElseGet(() -> defaultTokenFile(entry.environment()));
    boolean headless = "1".equals(entry.environment().get("OPS_OAUTH_HEADLESS"));
    return oauth
        .tokenStore(McpTokenStore.file(tokenFile))
        .prompt(
            headless ? McpAuthorizationPrompt.headless() : McpAuthorizationPrompt.systemBrowser())
        .authorizationTimeout(entry.loadTimeout())
        .build();
  }

  /**
   * {@code $XDG_CONFIG_HOME/ops/mcp-tokens.json}, else {@code ~/.config/ops/mcp-tokens.json}:
   * beside ops's own configuration.
   */
  static Path defaultTokenFile(java.util.Map<String, String> environment) {
    String xdg = environment.get("XDG_CONFIG_HOME");
    String home = environment.getOrDefault("HOME", System.getProperty("user.home"));
    Path config = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(home, ".config");
    return config.resolve("ops").resolve("mcp-tokens.json");
  }

  private static Optional<String> text(String where, JsonNode body, String key) {
    JsonNode value = body.get(key);
    if (value == null) {
      return Optional.empty();
    }
    if (!value.isString() || value.stringValue().isBlank()) {
      throw new IllegalArgumentException(where + "." + key + " must be a non-empty string");
    }
    return Optional.of(value.stringValue());
  }
}
