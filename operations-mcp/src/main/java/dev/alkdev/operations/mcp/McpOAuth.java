package dev.alkdev.operations.mcp;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * OAuth 2.1 for an MCP server over HTTP, as MCP's authorization specification has it: when the
 * server answers 401 (or 403 for a scope the token lacks), the client reads the server's protected
 * resource metadata, the authorization server's metadata, gets itself a client id, has the user
 * authorize with PKCE, and sends the token it gets; later 401s refresh it. See docs/mcp.md,
 * "Authorization".
 *
 * <p>The client id comes from, in this order: {@link Builder#clientId pre-registration}, a {@link
 * Builder#clientMetadataUrl client ID metadata document} when the authorization server accepts
 * those, or dynamic client registration.
 *
 * @param grant how tokens are obtained
 * @param clientId a client id registered with the authorization server beforehand
 * @param clientSecret that client's secret, if it has one
 * @param clientMetadataUrl an https URL serving this client's metadata document, used as its id
 * @param clientName the name a dynamically registered client is given
 * @param prompt how the user is asked to authorize ({@link Grant#AUTHORIZATION_CODE})
 * @param tokenStore where tokens are kept
 * @param redirectPort the loopback port the redirect is received on, 0 for any free one
 * @param authorizationTimeout how long the user has to authorize
 */
public record McpOAuth(
    Grant grant,
    Optional<String> clientId,
    Optional<String> clientSecret,
    Optional<URI> clientMetadataUrl,
    String clientName,
    McpAuthorizationPrompt prompt,
    McpTokenStore tokenStore,
    int redirectPort,
    Duration authorizationTimeout) {

  /** How the client obtains tokens. */
  public enum Grant {
    /** A user authorizes in a browser (authorization code with PKCE): a person's access. */
    AUTHORIZATION_CODE,
    /** The client authenticates as itself with its id and secret: a service's own access. */
    CLIENT_CREDENTIALS
  }

  public McpOAuth {
    Objects.requireNonNull(grant, "grant");
    Objects.requireNonNull(clientId, "clientId");
    Objects.requireNonNull(clientSecret, "clientSecret");
    Objects.requireNonNull(clientMetadataUrl, "clientMetadataUrl");
    Objects.requireNonNull(clientName, "clientName");
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(tokenStore, "tokenStore");
    Objects.requireNonNull(authorizationTimeout, "authorizationTimeout");
    if (clientSecret.isPresent() && clientId.isEmpty()) {
      throw new IllegalArgumentException("clientSecret is set without a clientId");
    }
    if (grant == Grant.CLIENT_CREDENTIALS && clientId.isEmpty()) {
      throw new IllegalArgumentException(
          "the client credentials grant needs a clientId (and usually a clientSecret)");
    }
    clientMetadataUrl.ifPresent(
        url -> {
          if (!"https".equals(url.getScheme())
              || url.getPath() == null
              || url.getPath().isEmpty()
              || url.getPath().equals("/")) {
            throw new IllegalArgumentException(
                "clientMetadataUrl must be an https URL with a path, was " + url);
          }
        });
    if (redirectPort < 0 || redirectPort > 65535) {
      throw new IllegalArgumentException("redirectPort must be 0..65535, was " + redirectPort);
    }
    if (authorizationTimeout.isNegative() || authorizationTimeout.isZero()) {
      throw new IllegalArgumentException(
          "authorizationTimeout must be positive, was " + authorizationTimeout);
    }
  }

  /** Authorization by a user in a browser (or headless, see {@link Builder#prompt}). */
  public static Builder builder() {
    return new Builder(Grant.AUTHORIZATION_CODE);
  }

  /** The client credentials grant, for a client acting on its own behalf. */
  public static Builder clientCredentials(String clientId, String clientSecret) {
    return new Builder(Grant.CLIENT_CREDENTIALS).clientId(clientId, clientSecret);
  }

  @Override
  public String toString() {
    return "McpOAuth[grant="
        + grant
        + clientId.map(id -> ", clientId=" + id).orElse("")
        + (clientSecret.isPresent() ? ", clientSecret=***" : "")
        + clientMetadataUrl.map(url -> ", clientMetadataUrl=" + url).orElse("")
        + "]";
  }

  /** Builds {@link McpOAuth}. */
  public static final class Builder {
    private final Grant grant;
    private String clientId;
    private String clientSecret;
    private URI clientMetadataUrl;
    private String clientName = "operations-java";
    private McpAuthorizationPrompt prompt = McpAuthorizationPrompt.fromEnvironment();
    private McpTokenStore tokenStore = McpTokenStore.inMemory();
    private int redirectPort;
    private Duration authorizationTimeout = Duration.ofMinutes(5);

    private Builder(Grant grant) {
      this.grant = grant;
    }

    /** A public client registered beforehand (no secret). */
    public Builder clientId(String clientId) {
      this.clientId = Objects.requireNonNull(clientId, "clientId");
      this.clientSecret = null;
      return this;
    }

    /** A confidential client registered beforehand. */
    public Builder clientId(String clientId, String clientSecret) {
      this.clientId = Objects.requireNonNull(clientId, "clientId");
      this.clientSecret = Objects.requireNonNull(clientSecret, "clientSecret");
      return this;
    }

    /**
     * The https URL of this client's metadata document (a Client ID Metadata Document), used as its
     * client id where the authorization server supports those.
     */
    public Builder clientMetadataUrl(String url) {
      this.clientMetadataUrl = URI.create(Objects.requireNonNull(url, "url"));
      return this;
    }

    /** The {@code client_name} of a dynamically registered client; "operations-java" by default. */
    public Builder clientName(String name) {
      this.clientName = Objects.requireNonNull(name, "name");
      return this;
    }

    /** How the user authorizes; {@link McpAuthorizationPrompt#fromEnvironment()} by default. */
    public Builder prompt(McpAuthorizationPrompt prompt) {
      this.prompt = Objects.requireNonNull(prompt, "prompt");
      return this;
    }

    /** Where tokens are kept; {@link McpTokenStore#inMemory()} by default. */
    public Builder tokenStore(McpTokenStore store) {
      this.tokenStore = Objects.requireNonNull(store, "store");
      return this;
    }

    /** The loopback port for the redirect; any free one by default. */
    public Builder redirectPort(int port) {
      this.redirectPort = port;
      return this;
    }

    /** How long the user has to authorize; five minutes by default. */
    public Builder authorizationTimeout(Duration timeout) {
      this.authorizationTimeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    public McpOAuth build() {
      return new McpOAuth(
          grant,
          Optional.ofNullable(clientId),
          Optional.ofNullable(clientSecret),
          Optional.ofNullable(clientMetadataUrl),
          clientName,
          prompt,
          tokenStore,
          redirectPort,
          authorizationTimeout);
    }
  }
}
