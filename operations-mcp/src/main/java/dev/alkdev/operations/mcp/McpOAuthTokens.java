package dev.alkdev.operations.mcp;

import java.net.URI;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The tokens an MCP client holds for one server (its resource), bound to the authorization server
 * that issued them and the client they were issued to: a token is only sent to the resource it was
 * issued for, and a refresh token only to its issuer. {@link #toString} shows no secret.
 *
 * @param resource the MCP server's canonical URI, the token's audience
 * @param issuer the authorization server that issued the tokens (its metadata's {@code issuer})
 * @param clientId the client the tokens were issued to
 * @param clientSecret the client's secret, when it has one (a dynamically registered client)
 * @param accessToken the bearer token sent to the server
 * @param refreshToken used to get a new access token without the user, when the issuer gave one
 * @param expiresAt when the access token expires, when the issuer said
 * @param scope the scope the access token was granted, when known
 */
public record McpOAuthTokens(
    URI resource,
    String issuer,
    String clientId,
    Optional<String> clientSecret,
    String accessToken,
    Optional<String> refreshToken,
    Optional<Instant> expiresAt,
    Optional<String> scope) {

  public McpOAuthTokens {
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(issuer, "issuer");
    Objects.requireNonNull(clientId, "clientId");
    Objects.requireNonNull(clientSecret, "clientSecret");
    Objects.requireNonNull(accessToken, "accessToken");
    Objects.requireNonNull(refreshToken, "refreshToken");
    Objects.requireNonNull(expiresAt, "expiresAt");
    Objects.requireNonNull(scope, "scope");
    if (accessToken.isEmpty()) {
      throw new IllegalArgumentException("accessToken is empty");
    }
  }

  /** Whether the access token has expired, or will within {@code marginSeconds}. */
  public boolean expiresWithin(long marginSeconds) {
    return expiresAt.map(at -> Instant.now().plusSeconds(marginSeconds).isAfter(at)).orElse(false);
  }

  @Override
  public String toString() {
    return "McpOAuthTokens[resource="
        + resource
        + ", issuer="
        + issuer
        + ", clientId="
        + clientId
        + ", accessToken=***"
        + (refreshToken.isPresent() ? ", refreshToken=***" : "")
        + expiresAt.map(at -> ", expiresAt=" + at).orElse("")
        + scope.map(s -> ", scope=" + s).orElse("")
        + "]";
  }
}
