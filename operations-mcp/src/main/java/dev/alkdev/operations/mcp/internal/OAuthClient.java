package dev.alkdev.operations.mcp.internal;

import com.nimbusds.oauth2.sdk.AccessTokenResponse;
import com.nimbusds.oauth2.sdk.AuthorizationCode;
import com.nimbusds.oauth2.sdk.AuthorizationCodeGrant;
import com.nimbusds.oauth2.sdk.AuthorizationGrant;
import com.nimbusds.oauth2.sdk.AuthorizationRequest;
import com.nimbusds.oauth2.sdk.AuthorizationResponse;
import com.nimbusds.oauth2.sdk.ClientCredentialsGrant;
import com.nimbusds.oauth2.sdk.ErrorObject;
import com.nimbusds.oauth2.sdk.ParseException;
import com.nimbusds.oauth2.sdk.RefreshTokenGrant;
import com.nimbusds.oauth2.sdk.ResponseType;
import com.nimbusds.oauth2.sdk.Scope;
import com.nimbusds.oauth2.sdk.TokenRequest;
import com.nimbusds.oauth2.sdk.TokenResponse;
import com.nimbusds.oauth2.sdk.as.AuthorizationServerMetadata;
import com.nimbusds.oauth2.sdk.auth.ClientSecretBasic;
import com.nimbusds.oauth2.sdk.auth.ClientSecretPost;
import com.nimbusds.oauth2.sdk.auth.Secret;
import com.nimbusds.oauth2.sdk.http.HTTPRequest;
import com.nimbusds.oauth2.sdk.id.ClientID;
import com.nimbusds.oauth2.sdk.id.State;
import com.nimbusds.oauth2.sdk.pkce.CodeChallengeMethod;
import com.nimbusds.oauth2.sdk.pkce.CodeVerifier;
import com.nimbusds.oauth2.sdk.token.RefreshToken;
import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.mcp.McpOAuth;
import dev.alkdev.operations.mcp.McpOAuthTokens;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * OAuth 2.1 for one MCP server over HTTP, as MCP's authorization specification (2025-11-25 and
 * 2026-07-28) has it. The transport sends {@link #authorization()} with every request and, when the
 * server answers 401 or 403, calls {@link #challenge}; when that completes, the request is sent
 * again. One authorization runs at a time: requests refused together wait for the same one.
 *
 * <p>An authorization, on a thread of its own:
 *
 * <ol>
 *   <li>the protected resource metadata (RFC 9728): the challenge's {@code resource_metadata}, or
 *       the path-suffixed well-known URL, then the root one; its {@code resource} must be this
 *       server (same origin, a prefix of its path) and is sent verbatim as the resource indicator
 *       (RFC 8707);
 *   <li>the authorization server's metadata (RFC 8414, then OpenID Connect discovery, with path
 *       insertion for an issuer with a path); its {@code issuer} must be exactly the one the
 *       resource named;
 *   <li>a refresh, when the tokens held came from that issuer with a refresh token and the server
 *       did not ask for more scope;
 *   <li>otherwise a client id (pre-registered, a client ID metadata document, or dynamic
 *       registration, kept per issuer) and an authorization with PKCE (S256) and state, whose
 *       response's {@code iss} (RFC 9207) must be the issuer when present and is required when the
 *       issuer says it sends one; then the code is exchanged for tokens.
 * </ol>
 *
 * The scope asked for is the challenge's, else everything the resource lists, joined with what the
 * held token had when the server asks for more (step-up), plus {@code offline_access} when the
 * authorization server offers it. A 403 for a scope the token already has is final.
 */
final class OAuthClient implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OAuthClient.class);
  private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(30);
  private static final int MAX_METADATA_BYTES = 1 << 20;
  private static final String REDIRECT_PATH = "/callback";

  private static final ExecutorService FLOWS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "ops-oauth");
            t.setDaemon(true);
            return t;
          });

  private final String serverName;
  private final URI serverUrl;
  private final McpOAuth config;
  private final HttpClient http;

  /** The client each authorization server knows this client as. */
  private final Map<String, Registration> registrations = new HashMap<>();

  private volatile McpOAuthTokens tokens;
  private volatile boolean closed;
  private volatile LoopbackRedirect activeRedirect;

  /** The authorization under way; guarded by this. */
  private CompletableFuture<Void> running;

  OAuthClient(String serverName, URI serverUrl, McpOAuth config) {
    this.serverName = serverName;
    this.serverUrl = serverUrl;
    this.config = config;
    this.tokens = config.tokenStore().load(serverUrl).orElse(null);
    this.http =
        HttpClient.newBuilder()
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(HTTP_TIMEOUT)
            .build();
  }

  /** The {@code Authorization} header to send, when there is a token. */
  Optional<String> authorization() {
    McpOAuthTokens held = tokens;
    return held == null ? Optional.empty() : Optional.of("Bearer " + held.accessToken());
  }

  /**
   * The server refused a request that carried {@code sent} (null when it carried no token) with
   * {@code status} and {@code wwwAuthenticate}. Completes when there is a token worth sending the
   * request again with; fails with a CallError (UNAUTHENTICATED, or ACCESS_DENIED for a scope that
   * cannot be had) when there is none.
   */
  synchronized CompletableFuture<Void> challenge(int status, String wwwAuthenticate, String sent) {
    if (closed) {
      return CompletableFuture.failedFuture(
          CallError.of(ErrorCode.UNAVAILABLE, "MCP client " + serverName + " closed"));
    }
    Optional<String> now = authorization();
    if (now.isPresent() && !now.get().equals(sent)) {
      return CompletableFuture.completedFuture(null); // renewed since the request went out
    }
    if (running == null || running.isDone()) {
      BearerChallenge challenge = BearerChallenge.parse(wwwAuthenticate);
      running = CompletableFuture.runAsync(() -> authorize(status, challenge), FLOWS);
    }
    return running;
  }

  @Override
  public void close() {
    closed = true;
    LoopbackRedirect redirect = activeRedirect;
    if (redirect != null) {
      redirect.response().completeExceptionally(new IllegalStateException("the client closed"));
    }
  }

  private void authorize(int status, BearerChallenge challenge) {
    boolean stepUp =
        status == 403 && challenge.get("error").orElse("").equals("insufficient_scope");
    if (status == 403 && !stepUp) {
      throw denied("the server refused the request (HTTP 403)" + described(challenge));
    }
    McpOAuthTokens held = tokens;
    if (stepUp && held != null) {
      Set<String> wanted = scopes(challenge.get("scope").orElse(""));
      Set<String> granted = scopes(held.scope().orElse(""));
      if (!wanted.isEmpty() && granted.containsAll(wanted)) {
        throw denied(
            "the server asks for scope \""
                + String.join(" ", wanted)
                + "\", which the token already has, and still refuses"
                + described(challenge));
      }
    }
    ResourceMetadata resource = resourceMetadata(challenge);
    String issuer = resource.authorizationServers().get(0);
    ServerMetadata server = serverMetadata(issuer);
    if (held != null
        && !stepUp
        && held.issuer().equals(issuer)
        && held.refreshToken().isPresent()
        && refresh(held, resource, server)) {
      return;
    }
    Scope scope = scope(challenge, resource, server, stepUp ? held : null);
    McpOAuthTokens got =
        config.grant() == McpOAuth.Grant.CLIENT_CREDENTIALS
            ? clientCredentials(resource, server, scope)
            : authorizationCode(resource, server, scope);
    tokens = got;
    config.tokenStore().save(got);
  }

  // ---- discovery

  /** The protected resource's metadata, found as RFC 9728 and MCP say, and checked. */
  private ResourceMetadata resourceMetadata(BearerChallenge challenge) {
    List<URI> candidates = new ArrayList<>();
    Optional<String> named = challenge.get("resource_metadata");
    if (named.isPresent()) {
      candidates.add(URI.create(named.get()));
    } else {
      String origin = origin(serverUrl);
      String path = trimSlash(serverUrl.getRawPath());
      if (!path.isEmpty()) {
        candidates.add(URI.create(origin + "/.well-known/oauth-protected-resource" + path));
      }
      candidates.add(URI.create(origin + "/.well-known/oauth-protected-resource"));
    }
    for (URI candidate : candidates) {
      Optional<JsonNode> found = getJson(candidate);
      if (found.isEmpty()) {
        continue;
      }
      JsonNode json = found.get();
      String resource = json.path("resource").asString("");
      List<String> servers =
          json.path("authorization_servers")
              .valueStream()
              .filter(JsonNode::isString)
              .map(JsonNode::stringValue)
              .toList();
      if (resource.isEmpty() || servers.isEmpty()) {
        throw unauthenticated(
            "the protected resource metadata at "
                + candidate
                + " names no resource or no authorization server");
      }
      if (!protects(resource)) {
        throw unauthenticated(
            "the protected resource metadata at "
                + candidate
                + " is for "
                + resource
                + ", not for this server ("
                + serverUrl
                + "): no token is requested for it");
      }
      List<String> scopes =
          json.path("scopes_supported")
              .valueStream()
              .filter(JsonNode::isString)
              .map(JsonNode::stringValue)
              .toList();
      return new ResourceMetadata(resource, servers, scopes);
    }
    throw unauthenticated(
        "the server asks for authorization but publishes no protected resource metadata (tried "
            + candidates
            + ")");
  }

  /** Whether {@code resource} names this server: same origin, and a prefix of its path. */
  private boolean protects(String resource) {
    URI uri;
    try {
      uri = URI.create(resource);
    } catch (IllegalArgumentException e) {
      return false;
    }
    if (uri.getFragment() != null || uri.getScheme() == null || uri.getHost() == null) {
      return false;
    }
    if (!origin(uri).equalsIgnoreCase(origin(serverUrl))) {
      return false;
    }
    String prefix = trimSlash(uri.getRawPath() == null ? "" : uri.getRawPath());
    String path = trimSlash(serverUrl.getRawPath());
    return prefix.isEmpty() || path.equals(prefix) || path.startsWith(prefix + "/");
  }

  /** The authorization server's metadata, at the well-known URLs RFC 8414 and MCP list. */
  private ServerMetadata serverMetadata(String issuer) {
    URI issuerUri;
    try {
      issuerUri = URI.create(issuer);
    } catch (IllegalArgumentException e) {
      throw unauthenticated("the authorization server " + issuer + " is not a URL");
    }
    requireSecure(issuerUri, "the authorization server");
    String origin = origin(issuerUri);
    String path = trimSlash(issuerUri.getRawPath() == null ? "" : issuerUri.getRawPath());
    List<URI> candidates =
        path.isEmpty()
            ? List.of(
                URI.create(origin + "/.well-known/oauth-authorization-server"),
                URI.create(origin + "/.well-known/openid-configuration"))
            : List.of(
                URI.create(origin + "/.well-known/oauth-authorization-server" + path),
                URI.create(origin + "/.well-known/openid-configuration" + path),
                URI.create(origin + path + "/.well-known/openid-configuration"));
    for (URI candidate : candidates) {
      Optional<JsonNode> found = getJson(candidate);
      if (found.isEmpty()) {
        continue;
      }
      JsonNode json = found.get();
      String claimed = json.path("issuer").asString("");
      if (!claimed.equals(issuer)) {
        throw unauthenticated(
            "the authorization server metadata at "
                + candidate
                + " names issuer "
                + claimed
                + ", not "
                + issuer
                + ": it is not used");
      }
      AuthorizationServerMetadata metadata;
      try {
        metadata = AuthorizationServerMetadata.parse(json.toString());
      } catch (ParseException e) {
        throw unauthenticated(
            "the authorization server metadata at "
                + candidate
                + " is not valid: "
                + e.getMessage());
      }
      if (metadata.getCodeChallengeMethods() == null
          || !metadata.getCodeChallengeMethods().contains(CodeChallengeMethod.S256)) {
        throw unauthenticated(
            "the authorization server " + issuer + " does not support PKCE with S256");
      }
      requireSecure(metadata.getTokenEndpointURI(), "the token endpoint");
      return new ServerMetadata(issuer, metadata, json);
    }
    throw unauthenticated("no metadata found for the authorization server " + issuer);
  }

  // ---- scopes

  private Scope scope(
      BearerChallenge challenge,
      ResourceMetadata resource,
      ServerMetadata server,
      McpOAuthTokens stepUpFrom) {
    Set<String> scopes = new LinkedHashSet<>();
    if (stepUpFrom != null) {
      scopes.addAll(scopes(stepUpFrom.scope().orElse("")));
    }
    Optional<String> challenged = challenge.get("scope");
    if (challenged.isPresent()) {
      scopes.addAll(scopes(challenged.get()));
    } else {
      scopes.addAll(resource.scopes());
    }
    Scope offered = server.metadata().getScopes();
    if (config.grant() == McpOAuth.Grant.AUTHORIZATION_CODE
        && offered != null
        && offered.contains("offline_access")) {
      scopes.add("offline_access"); // so that the user is not asked again when the token expires
    }
    return scopes.isEmpty() ? null : new Scope(scopes.toArray(String[]::new));
  }

  private static Set<String> scopes(String text) {
    Set<String> scopes = new LinkedHashSet<>();
    for (String scope : text.trim().split("\\s+")) {
      if (!scope.isEmpty()) {
        scopes.add(scope);
      }
    }
    return scopes;
  }

  // ---- grants

  private McpOAuthTokens authorizationCode(
      ResourceMetadata resource, ServerMetadata server, Scope scope) {
    URI authorizationEndpoint = server.metadata().getAuthorizationEndpointURI();
    if (authorizationEndpoint == null) {
      throw unauthenticated(
          "the authorization server " + server.issuer() + " has no authorization endpoint");
    }
    requireSecure(authorizationEndpoint, "the authorization endpoint");
    try (LoopbackRedirect redirect = new LoopbackRedirect(config.redirectPort(), REDIRECT_PATH)) {
      activeRedirect = redirect;
      Registration client = registration(server, redirect.uri());
      CodeVerifier verifier = new CodeVerifier();
      State state = new State();
      URI resourceUri = URI.create(resource.resource());
      URI authorizationUrl =
          new AuthorizationRequest.Builder(ResponseType.CODE, new ClientID(client.clientId()))
              .endpointURI(authorizationEndpoint)
              .redirectionURI(redirect.uri())
              .scope(scope)
              .state(state)
              .codeChallenge(verifier, CodeChallengeMethod.S256)
              .resource(resourceUri)
              .build()
              .toURI();
      LOG.info("MCP server {}: authorizing at {}", serverName, server.issuer());
      URI response = awaitRedirect(redirect, authorizationUrl);
      Map<String, String> query = query(response);
      AuthorizationResponse parsed;
      try {
        parsed = AuthorizationResponse.parse(response);
      } catch (ParseException e) {
        throw unauthenticated("the authorization response is not valid: " + e.getMessage());
      }
      if (!parsed.indicatesSuccess()) {
        ErrorObject error = parsed.toErrorResponse().getErrorObject();
        throw unauthenticated("the authorization was refused: " + describe(error));
      }
      if (!state.equals(parsed.getState())) {
        throw unauthenticated("the authorization response carries another request's state");
      }
      checkIssuer(server, query.get("iss"));
      AuthorizationCode code = parsed.toSuccessResponse().getAuthorizationCode();
      return token(
          server,
          client,
          new AuthorizationCodeGrant(code, redirect.uri(), verifier),
          null,
          resourceUri,
          scope);
    } catch (IOException e) {
      throw unauthenticated("could not listen for the authorization redirect: " + e.getMessage());
    } finally {
      activeRedirect = null;
    }
  }

  /**
   * RFC 9207: an {@code iss} in the response must be the issuer, exactly; the server saying it
   * sends one makes it required. This is what tells a response from the authorization server the
   * client asked apart from one a mix-up attacker made.
   */
  private void checkIssuer(ServerMetadata server, String iss) {
    if (iss == null) {
      if (server.metadata().supportsAuthorizationResponseIssuerParam()) {
        throw unauthenticated(
            "the authorization response has no iss, though "
                + server.issuer()
                + " says it sends one: it is not used");
      }
      return;
    }
    if (!iss.equals(server.issuer())) {
      throw unauthenticated(
          "the authorization response comes from issuer "
              + iss
              + ", not "
              + server.issuer()
              + ": it is not used");
    }
  }

  private URI awaitRedirect(LoopbackRedirect redirect, URI authorizationUrl) {
    CompletableFuture<URI> answer = new CompletableFuture<>();
    redirect.response().whenComplete((uri, e) -> complete(answer, uri, e));
    CompletableFuture<Optional<URI>> shown;
    try {
      shown = config.prompt().authorize(authorizationUrl, redirect.uri());
    } catch (RuntimeException e) {
      shown = CompletableFuture.failedFuture(e);
    }
    shown.whenComplete(
        (seen, e) -> {
          if (e != null) {
            answer.completeExceptionally(e);
          } else if (seen != null && seen.isPresent()) {
            answer.complete(seen.get());
          }
        });
    try {
      return answer.get(config.authorizationTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw unauthenticated(
          "no authorization within " + config.authorizationTimeout().toSeconds() + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unauthenticated("interrupted while waiting for the authorization");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw unauthenticated("the authorization failed: " + cause.getMessage());
    }
  }

  private static <T> void complete(CompletableFuture<T> future, T value, Throwable error) {
    if (error != null) {
      future.completeExceptionally(error);
    } else {
      future.complete(value);
    }
  }

  private McpOAuthTokens clientCredentials(
      ResourceMetadata resource, ServerMetadata server, Scope scope) {
    Registration client =
        new Registration(
            config.clientId().orElseThrow(),
            config.clientSecret(),
            secretMethod(server, config.clientSecret().isPresent()));
    return token(
        server, client, new ClientCredentialsGrant(), null, URI.create(resource.resource()), scope);
  }

  private boolean refresh(McpOAuthTokens held, ResourceMetadata resource, ServerMetadata server) {
    Registration client =
        new Registration(
            held.clientId(),
            held.clientSecret(),
            secretMethod(server, held.clientSecret().isPresent()));
    try {
      McpOAuthTokens renewed =
          token(
              server,
              client,
              new RefreshTokenGrant(new RefreshToken(held.refreshToken().orElseThrow())),
              held,
              URI.create(resource.resource()),
              null);
      tokens = renewed;
      config.tokenStore().save(renewed);
      LOG.debug("MCP server {}: token refreshed at {}", serverName, server.issuer());
      return true;
    } catch (CallError e) {
      LOG.info(
          "MCP server {}: refreshing the token failed ({}); authorizing again",
          serverName,
          e.getMessage());
      return false;
    }
  }

  /** A token request; {@code previous} supplies what a refresh response may leave out. */
  private McpOAuthTokens token(
      ServerMetadata server,
      Registration client,
      AuthorizationGrant grant,
      McpOAuthTokens previous,
      URI resource,
      Scope scope) {
    URI endpoint = server.metadata().getTokenEndpointURI();
    if (endpoint == null) {
      throw unauthenticated(
          "the authorization server " + server.issuer() + " has no token endpoint");
    }
    TokenRequest.Builder request =
        switch (client.method()) {
          case "client_secret_basic" ->
              new TokenRequest.Builder(
                  endpoint,
                  new ClientSecretBasic(
                      new ClientID(client.clientId()), new Secret(client.secret().orElseThrow())),
                  grant);
          case "client_secret_post" ->
              new TokenRequest.Builder(
                  endpoint,
                  new ClientSecretPost(
                      new ClientID(client.clientId()), new Secret(client.secret().orElseThrow())),
                  grant);
          default -> new TokenRequest.Builder(endpoint, new ClientID(client.clientId()), grant);
        };
    request.resource(resource);
    if (scope != null && !(grant instanceof AuthorizationCodeGrant)) {
      request.scope(scope);
    }
    HTTPRequest httpRequest = request.build().toHTTPRequest();
    httpRequest.setConnectTimeout((int) HTTP_TIMEOUT.toMillis());
    httpRequest.setReadTimeout((int) HTTP_TIMEOUT.toMillis());
    httpRequest.setFollowRedirects(false);
    TokenResponse response;
    try {
      response = TokenResponse.parse(httpRequest.send());
    } catch (IOException e) {
      throw CallError.of(
          ErrorCode.UNAVAILABLE,
          "MCP server "
              + serverName
              + ": the token endpoint "
              + endpoint
              + " failed: "
              + e.getMessage(),
          e);
    } catch (ParseException e) {
      throw unauthenticated("the token endpoint's answer is not valid: " + e.getMessage());
    }
    if (!response.indicatesSuccess()) {
      throw unauthenticated(
          "the token endpoint refused: " + describe(response.toErrorResponse().getErrorObject()));
    }
    AccessTokenResponse ok = response.toSuccessResponse();
    var access = ok.getTokens().getAccessToken();
    Optional<String> refresh =
        Optional.ofNullable(ok.getTokens().getRefreshToken())
            .map(RefreshToken::getValue)
            .or(() -> previous == null ? Optional.empty() : previous.refreshToken());
    Optional<String> granted =
        Optional.ofNullable(access.getScope())
            .map(Scope::toString)
            .or(() -> Optional.ofNullable(scope).map(Scope::toString))
            .or(() -> previous == null ? Optional.empty() : previous.scope());
    Optional<Instant> expires =
        access.getLifetime() > 0
            ? Optional.of(Instant.now().plusSeconds(access.getLifetime()))
            : Optional.empty();
    return new McpOAuthTokens(
        serverUrl,
        server.issuer(),
        client.clientId(),
        client.secret(),
        access.getValue(),
        refresh,
        expires,
        granted);
  }

  // ---- client registration

  /** The client id for {@code server}: pre-registered, a metadata document, or registered now. */
  private Registration registration(ServerMetadata server, URI redirectUri) {
    if (config.clientId().isPresent()) {
      return new Registration(
          config.clientId().get(),
          config.clientSecret(),
          secretMethod(server, config.clientSecret().isPresent()));
    }
    if (config.clientMetadataUrl().isPresent()
        && server.json().path("client_id_metadata_document_supported").asBoolean(false)) {
      return new Registration(
          config.clientMetadataUrl().get().toString(), Optional.empty(), "none");
    }
    McpOAuthTokens held = tokens;
    synchronized (registrations) {
      Registration known = registrations.get(server.issuer());
      if (known != null) {
        return known;
      }
    }
    if (held != null && held.issuer().equals(server.issuer())) {
      return new Registration(
          held.clientId(),
          held.clientSecret(),
          secretMethod(server, held.clientSecret().isPresent()));
    }
    Registration registered = register(server, redirectUri);
    synchronized (registrations) {
      registrations.put(server.issuer(), registered);
    }
    return registered;
  }

  /** Dynamic client registration (RFC 7591) as a native application. */
  private Registration register(ServerMetadata server, URI redirectUri) {
    URI endpoint = server.metadata().getRegistrationEndpointURI();
    if (endpoint == null) {
      throw unauthenticated(
          "the authorization server "
              + server.issuer()
              + " offers no dynamic registration, and no client id is configured"
              + " (McpOAuth.builder().clientId(...), or a client metadata URL it accepts)");
    }
    requireSecure(endpoint, "the registration endpoint");
    String method = preferredMethod(server);
    ObjectNode body = ToolMapper.JSON.createObjectNode();
    body.put("client_name", config.clientName());
    body.putArray("redirect_uris").add(redirectUri.toString());
    body.putArray("grant_types").add("authorization_code").add("refresh_token");
    body.putArray("response_types").add("code");
    body.put("token_endpoint_auth_method", method);
    body.put("application_type", "native");
    JsonNode answer = postJson(endpoint, body);
    String clientId = answer.path("client_id").asString("");
    if (clientId.isEmpty()) {
      throw unauthenticated("the registration at " + endpoint + " gave no client_id");
    }
    Optional<String> secret =
        Optional.of(answer.path("client_secret").asString("")).filter(s -> !s.isEmpty());
    String granted = answer.path("token_endpoint_auth_method").asString("");
    if (granted.isEmpty()) {
      granted = secret.isPresent() ? secretMethod(server, true) : "none";
    }
    if (!granted.equals("none") && secret.isEmpty()) {
      throw unauthenticated(
          "the registration at " + endpoint + " asks for " + granted + " but gave no secret");
    }
    LOG.debug(
        "MCP server {}: registered as client {} at {}", serverName, clientId, server.issuer());
    return new Registration(clientId, secret, granted);
  }

  /** The token endpoint method a new registration asks for: none when offered, else a secret. */
  private static String preferredMethod(ServerMetadata server) {
    List<String> offered = offeredMethods(server);
    for (String method : List.of("none", "client_secret_basic", "client_secret_post")) {
      if (offered.contains(method)) {
        return method;
      }
    }
    throw CallError.of(
        ErrorCode.UNAUTHENTICATED,
        "the authorization server "
            + server.issuer()
            + " offers none of the token endpoint methods this client has (none,"
            + " client_secret_basic, client_secret_post): "
            + offered);
  }

  /** How a client with (or without) a secret authenticates at {@code server}'s token endpoint. */
  private static String secretMethod(ServerMetadata server, boolean hasSecret) {
    if (!hasSecret) {
      return "none";
    }
    List<String> offered = offeredMethods(server);
    return !offered.contains("client_secret_basic") && offered.contains("client_secret_post")
        ? "client_secret_post"
        : "client_secret_basic";
  }

  /** RFC 8414: without the list, client_secret_basic is what the server takes. */
  private static List<String> offeredMethods(ServerMetadata server) {
    JsonNode list = server.json().path("token_endpoint_auth_methods_supported");
    if (!list.isArray()) {
      return List.of("client_secret_basic");
    }
    return list.valueStream().filter(JsonNode::isString).map(JsonNode::stringValue).toList();
  }

  // ---- HTTP

  /** A JSON object at {@code url}; empty for a 4xx (try the next place), an error otherwise. */
  private Optional<JsonNode> getJson(URI url) {
    HttpRequest request =
        HttpRequest.newBuilder(url)
            .timeout(HTTP_TIMEOUT)
            .header("Accept", "application/json")
            .header("MCP-Protocol-Version", ModernWire.VERSION)
            .GET()
            .build();
    HttpResponse<InputStream> response = send(request);
    int status = response.statusCode();
    String text = body(response, url);
    if (status >= 400 && status < 500) {
      return Optional.empty();
    }
    if (status != 200) {
      throw unauthenticated("GET " + url + " answered HTTP " + status);
    }
    try {
      JsonNode json = ToolMapper.JSON.readTree(text);
      return json.isObject() ? Optional.of(json) : Optional.empty();
    } catch (RuntimeException e) {
      return Optional.empty(); // not metadata: an HTML page, say
    }
  }

  private JsonNode postJson(URI url, JsonNode body) {
    HttpRequest request =
        HttpRequest.newBuilder(url)
            .timeout(HTTP_TIMEOUT)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build();
    HttpResponse<InputStream> response = send(request);
    String text = body(response, url);
    if (response.statusCode() / 100 != 2) {
      throw unauthenticated(
          "the registration at "
              + url
              + " answered HTTP "
              + response.statusCode()
              + ": "
              + Texts.oneLine(text));
    }
    try {
      return ToolMapper.JSON.readTree(text);
    } catch (RuntimeException e) {
      throw unauthenticated("the registration at " + url + " answered with no JSON");
    }
  }

  private HttpResponse<InputStream> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      throw CallError.of(
          ErrorCode.UNAVAILABLE,
          "MCP server "
              + serverName
              + ": "
              + request.method()
              + " "
              + request.uri()
              + " failed: "
              + e.getMessage(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unauthenticated("interrupted");
    }
  }

  private String body(HttpResponse<InputStream> response, URI url) {
    try (InputStream in = response.body()) {
      byte[] bytes = in.readNBytes(MAX_METADATA_BYTES + 1);
      if (bytes.length > MAX_METADATA_BYTES) {
        throw unauthenticated(url + " answered with more than " + MAX_METADATA_BYTES + " bytes");
      }
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw CallError.of(ErrorCode.UNAVAILABLE, "reading " + url + " failed: " + e.getMessage(), e);
    }
  }

  // ---- helpers

  /** Authorization endpoints must be https, except on this machine (tests, local servers). */
  private void requireSecure(URI url, String what) {
    if (url == null) {
      return;
    }
    String host = String.valueOf(url.getHost());
    boolean loopback =
        host.equals("localhost")
            || host.equals("127.0.0.1")
            || host.equals("[::1]")
            || host.equals("::1");
    if (!"https".equalsIgnoreCase(url.getScheme()) && !loopback) {
      throw unauthenticated(what + " " + url + " is not https; OAuth needs TLS off this machine");
    }
  }

  private static Map<String, String> query(URI uri) {
    Map<String, String> params = new HashMap<>();
    String raw = uri.getRawQuery();
    if (raw == null) {
      return params;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String value =
          eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      params.putIfAbsent(key, value);
    }
    return params;
  }

  private static String origin(URI uri) {
    return uri.getScheme().toLowerCase(java.util.Locale.ROOT) + "://" + uri.getRawAuthority();
  }

  private static String trimSlash(String path) {
    String p = path == null ? "" : path;
    while (p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return p;
  }

  private static String described(BearerChallenge challenge) {
    return challenge.get("error_description").map(d -> ": " + d).orElse("");
  }

  private static String describe(ErrorObject error) {
    if (error == null) {
      return "no reason given";
    }
    return error.getCode()
        + (error.getDescription() == null ? "" : " (" + error.getDescription() + ")");
  }

  private CallError unauthenticated(String what) {
    return CallError.of(ErrorCode.UNAUTHENTICATED, "MCP server " + serverName + ": " + what);
  }

  private CallError denied(String what) {
    return CallError.of(ErrorCode.ACCESS_DENIED, "MCP server " + serverName + ": " + what);
  }

  private record ResourceMetadata(
      String resource, List<String> authorizationServers, List<String> scopes) {}

  private record ServerMetadata(
      String issuer, AuthorizationServerMetadata metadata, JsonNode json) {}

  /**
   * How this client is known to an authorization server, and authenticates at its token endpoint.
   */
  private record Registration(String clientId, Optional<String> secret, String method) {}
}
