package dev.alkdev.operations.mcpserver;

import java.net.URI;
import java.util.List;
import java.util.Objects;

/**
 * The OAuth 2.0 protected-resource metadata (RFC 9728) the HTTP endpoint publishes when an {@link
 * McpAuthenticator} is set, at {@code /.well-known/oauth-protected-resource/mcp} (and without the
 * {@code /mcp} suffix), and names in {@code WWW-Authenticate} on every 401.
 *
 * @param resource the resource identifier clients ask tokens for (the endpoint's public URL)
 * @param authorizationServers the issuers that hand out tokens for it (at least one)
 * @param scopesSupported the scopes the served operations require; may be empty
 */
public record McpResourceMetadata(
    URI resource, List<URI> authorizationServers, List<String> scopesSupported) {
  public McpResourceMetadata {
    Objects.requireNonNull(resource, "resource");
    authorizationServers = List.copyOf(authorizationServers);
    scopesSupported = List.copyOf(scopesSupported);
    if (authorizationServers.isEmpty()) {
      throw new IllegalArgumentException(
          "protected-resource metadata needs an authorization server");
    }
  }
}
