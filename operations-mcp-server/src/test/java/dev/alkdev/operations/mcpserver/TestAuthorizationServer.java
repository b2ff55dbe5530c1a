package dev.alkdev.operations.mcpserver;

import com.nimbusds.oauth2.sdk.pkce.CodeChallenge;
import com.nimbusds.oauth2.sdk.pkce.CodeChallengeMethod;
import com.nimbusds.oauth2.sdk.pkce.CodeVerifier;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An OAuth 2.1 authorization server for tests, on a loopback port: RFC 8414 metadata, dynamic
 * registration, an authorization endpoint that approves at once (or refuses, when told), and a
 * token endpoint for the authorization code (PKCE S256 checked), refresh token and client
 * credentials grants, with client_secret_basic. It counts what it was asked and can expire every
 * access token it issued, so tests see a client refresh.
 */
final class TestAuthorizationServer implements AutoCloseable {
  final AtomicInteger registrations = new AtomicInteger();
  final AtomicInteger authorizations = new AtomicInteger();
  final AtomicInteger codeGrants = new AtomicInteger();
  final AtomicInteger refreshGrants = new AtomicInteger();
  final AtomicInteger clientCredentialGrants = new AtomicInteger();

  /** When set, the authorization page refuses (error=access_denied) instead of approving. */
  volatile boolean refuseAuthorizations;

  private final HttpServer server;
  private final String issuer;
  private final Map<String, String> clients = new ConcurrentHashMap<>(); // id -> secret
  private final Map<String, Code> codes = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> accessTokens = new ConcurrentHashMap<>();
  private final Map<String, Grant> refreshTokens = new ConcurrentHashMap<>();
  private final AtomicInteger counter = new AtomicInteger();

  private record Code(
      String clientId, String challenge, String redirectUri, Set<String> scope, String resource) {}

  private record Grant(String clientId, Set<String> scope) {}

  TestAuthorizationServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    issuer = "http://127.0.0.1:" + server.getAddress().getPort();
    server.createContext("/.well-known/oauth-authorization-server", this::metadata);
    server.createContext("/register", this::register);
    server.createContext("/authorize", this::authorize);
    server.createContext("/token", this::token);
    server.start();
  }

  /** Adds a pre-registered confidential client. */
  void addClient(String id, String secret) {
    clients.put(id, secret);
  }

  URI issuer() {
    return URI.create(issuer);
  }

  /** The scopes of a valid access token. */
  Optional<Set<String>> validate(String token) {
    return Optional.ofNullable(accessTokens.get(token));
  }

  /** Every access token issued so far stops being valid (refresh tokens stay valid). */
  void expireAccessTokens() {
    accessTokens.clear();
  }

  private void metadata(HttpExchange exchange) throws IOException {
    ObjectNode json = Fixtures.JSON.createObjectNode();
    json.put("issuer", issuer);
    json.put("authorization_endpoint", issuer + "/authorize");
    json.put("token_endpoint", issuer + "/token");
    json.put("registration_endpoint", issuer + "/register");
    json.putArray("response_types_supported").add("code");
    json.putArray("grant_types_supported")
        .add("authorization_code")
        .add("refresh_token")
        .add("client_credentials");
    json.putArray("code_challenge_methods_supported").add("S256");
    json.putArray("token_endpoint_auth_methods_supported").add("client_secret_basic");
    json.put("authorization_response_iss_parameter_supported", true);
    reply(exchange, 200, json);
  }

  private void register(HttpExchange exchange) throws IOException {
    JsonNode body =
        Fixtures.json(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
    registrations.incrementAndGet();
    String id = "client-" + counter.incrementAndGet();
    String secret = "secret-" + counter.incrementAndGet();
    clients.put(id, secret);
    ObjectNode json = Fixtures.JSON.createObjectNode();
    json.put("client_id", id);
    json.put("client_secret", secret);
    json.put("token_endpoint_auth_method", "client_secret_basic");
    json.set("redirect_uris", body.path("redirect_uris"));
    reply(exchange, 201, json);
  }

  private void authorize(HttpExchange exchange) throws IOException {
    Map<String, String> q = form(exchange.getRequestURI().getRawQuery());
    String redirect = q.get("redirect_uri");
    if (!clients.containsKey(q.get("client_id"))
        || redirect == null
        || !"S256".equals(q.get("code_challenge_method"))
        || q.get("code_challenge") == null
        || q.get("resource") == null) {
      reply(exchange, 400, Fixtures.json("{\"error\":\"invalid_request\"}"));
      return;
    }
    authorizations.incrementAndGet();
    String state = q.get("state") == null ? "" : "&state=" + encode(q.get("state"));
    String location;
    if (refuseAuthorizations) {
      location =
          redirect + "?error=access_denied&error_description=no" + state + "&iss=" + encode(issuer);
    } else {
      String code = "code-" + counter.incrementAndGet();
      codes.put(
          code,
          new Code(
              q.get("client_id"),
              q.get("code_challenge"),
              redirect,
              scopes(q.get("scope")),
              q.get("resource")));
      location = redirect + "?code=" + code + state + "&iss=" + encode(issuer);
    }
    exchange.getResponseHeaders().set("Location", location);
    exchange.sendResponseHeaders(302, -1);
    exchange.close();
  }

  private void token(HttpExchange exchange) throws IOException {
    Map<String, String> form =
        form(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
    String client = authenticatedClient(exchange);
    if (client == null) {
      reply(exchange, 401, Fixtures.json("{\"error\":\"invalid_client\"}"));
      return;
    }
    Set<String> scope;
    switch (String.valueOf(form.get("grant_type"))) {
      case "authorization_code" -> {
        Code code = codes.remove(String.valueOf(form.get("code")));
        String verifier = form.get("code_verifier");
        if (code == null
            || !code.clientId().equals(client)
            || !code.redirectUri().equals(form.get("redirect_uri"))
            || !code.resource().equals(form.get("resource"))
            || verifier == null
            || !CodeChallenge.compute(CodeChallengeMethod.S256, new CodeVerifier(verifier))
                .getValue()
                .equals(code.challenge())) {
          reply(exchange, 400, Fixtures.json("{\"error\":\"invalid_grant\"}"));
          return;
        }
        codeGrants.incrementAndGet();
        scope = code.scope();
      }
      case "refresh_token" -> {
        Grant grant = refreshTokens.get(String.valueOf(form.get("refresh_token")));
        if (grant == null || !grant.clientId().equals(client)) {
          reply(exchange, 400, Fixtures.json("{\"error\":\"invalid_grant\"}"));
          return;
        }
        refreshGrants.incrementAndGet();
        scope = grant.scope();
      }
      case "client_credentials" -> {
        clientCredentialGrants.incrementAndGet();
        scope = scopes(form.get("scope"));
      }
      default -> {
        reply(exchange, 400, Fixtures.json("{\"error\":\"unsupported_grant_type\"}"));
        return;
      }
    }
    String access = "access-" + counter.incrementAndGet();
    accessTokens.put(access, scope);
    ObjectNode json = Fixtures.JSON.createObjectNode();
    json.put("access_token", access);
    json.put("token_type", "Bearer");
    json.put("expires_in", 3600);
    json.put("scope", String.join(" ", scope));
    if (!form.get("grant_type").equals("client_credentials")) {
      String refresh = "refresh-" + counter.incrementAndGet();
      refreshTokens.put(refresh, new Grant(client, scope));
      json.put("refresh_token", refresh);
    }
    reply(exchange, 200, json);
  }

  /** The client a client_secret_basic header proves, or null. */
  private String authenticatedClient(HttpExchange exchange) {
    String header = exchange.getRequestHeaders().getFirst("Authorization");
    if (header == null || !header.startsWith("Basic ")) {
      return null;
    }
    String pair =
        new String(Base64.getDecoder().decode(header.substring(6)), StandardCharsets.UTF_8);
    int colon = pair.indexOf(':');
    String id = URLDecoder.decode(pair.substring(0, colon), StandardCharsets.UTF_8);
    String secret = URLDecoder.decode(pair.substring(colon + 1), StandardCharsets.UTF_8);
    return secret.equals(clients.get(id)) ? id : null;
  }

  private static Set<String> scopes(String text) {
    Set<String> scopes = new LinkedHashSet<>();
    if (text != null) {
      for (String s : text.trim().split("\\s+")) {
        if (!s.isEmpty()) {
          scopes.add(s);
        }
      }
    }
    return scopes;
  }

  private static Map<String, String> form(String raw) {
    Map<String, String> params = new HashMap<>();
    if (raw == null || raw.isEmpty()) {
      return params;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      params.put(
          URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
          eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
    }
    return params;
  }

  private static String encode(String value) {
    return java.net.URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  private static void reply(HttpExchange exchange, int status, JsonNode json) throws IOException {
    byte[] body = json.toString().getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
