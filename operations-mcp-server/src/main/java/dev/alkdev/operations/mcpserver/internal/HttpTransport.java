package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.internal.RateLimitedLog;
import dev.alkdev.operations.jetty.internal.BoundedBody;
import dev.alkdev.operations.jetty.internal.UnreadBody;
import dev.alkdev.operations.mcpserver.McpAuthenticator;
import dev.alkdev.operations.mcpserver.McpResourceMetadata;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Streamable HTTP at {@code /mcp} as a Jetty core handler, for both eras of MCP on one endpoint:
 * 2026-07-28 (a POST per request, no session, metadata in each request) and 2025-06-18/2025-11-25
 * (initialize opens a session; GET opens its stream for list_changed and logs; DELETE ends it).
 * Every request is checked before anything else, in this order: Host (DNS rebinding), Origin, the
 * bearer token when an authenticator is set; then a POST's body tells its era ({@link
 * Modern#isModern}) and is checked by that era's rules.
 */
final class HttpTransport extends Handler.Abstract {
  private static final Logger LOG = LoggerFactory.getLogger(HttpTransport.class);
  private static final RateLimitedLog REFUSED = RateLimitedLog.of(LOG);
  static final String PATH = "/mcp";
  static final String METADATA_PATH = "/.well-known/oauth-protected-resource";
  private static final String SESSION_HEADER = "Mcp-Session-Id";
  private static final String VERSION_HEADER = "MCP-Protocol-Version";
  private static final String METHOD_HEADER = "Mcp-Method";
  private static final String NAME_HEADER = "Mcp-Name";

  private final Engine engine;
  private final SessionStore sessions;
  private final Set<String> allowedHosts;
  private final Set<String> allowedOrigins;
  private final Optional<McpAuthenticator> authenticator;
  private final Optional<McpResourceMetadata> metadata;
  private final String metadataUrl;
  private final byte[] metadataJson;
  private final Set<SseStream> streams = ConcurrentHashMap.newKeySet();
  private final Set<HttpExchange> pending = ConcurrentHashMap.newKeySet();

  HttpTransport(Engine engine, Set<String> allowedHosts, Set<String> allowedOrigins) {
    super(InvocationType.BLOCKING);
    this.engine = engine;
    this.sessions =
        new SessionStore(
            engine.config.maxSessions(),
            engine.config.maxSessionsPerClient(),
            engine.config.sessionIdleTimeout(),
            engine.config.unusedSessionTimeout());
    this.allowedHosts = allowedHosts;
    this.allowedOrigins = allowedOrigins;
    this.authenticator = engine.config.authenticator();
    this.metadata = engine.config.resourceMetadata();
    if (metadata.isPresent()) {
      URI resource = metadata.get().resource();
      String path = resource.getRawPath() == null ? "" : resource.getRawPath();
      this.metadataUrl =
          resource.getScheme() + "://" + resource.getRawAuthority() + METADATA_PATH + path;
      ObjectNode json = Json.object();
      json.put("resource", resource.toString());
      ArrayNode servers = json.putArray("authorization_servers");
      metadata.get().authorizationServers().forEach(uri -> servers.add(uri.toString()));
      ArrayNode scopes = json.putArray("scopes_supported");
      metadata.get().scopesSupported().forEach(scopes::add);
      json.putArray("bearer_methods_supported").add("header");
      this.metadataJson = Json.bytes(json);
    } else {
      this.metadataUrl = null;
      this.metadataJson = null;
    }
  }

  SessionStore sessions() {
    return sessions;
  }

  boolean hasAuthenticator() {
    return authenticator.isPresent();
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    boolean mcp = PATH.equals(path);
    boolean wellKnown =
        metadataJson != null && (path.equals(METADATA_PATH) || path.equals(METADATA_PATH + PATH));
    if (!mcp && !wellKnown) {
      return false;
    }
    String host = request.getHeaders().get(HttpHeader.HOST);
    if (!hostAllowed(host)) {
      return refuse(
          request, response, callback, 403, "Forbidden: Host " + host + " is not allowed");
    }
    String origin = request.getHeaders().get(HttpHeader.ORIGIN);
    if (origin != null && !originAllowed(origin)) {
      return refuse(
          request, response, callback, 403, "Forbidden: Origin " + origin + " is not allowed");
    }
    if (wellKnown) {
      if (!"GET".equals(request.getMethod())) {
        response.getHeaders().put(HttpHeader.ALLOW, "GET");
        return refuse(request, response, callback, 405, "Method not allowed");
      }
      writeJson(response, callback, 200, metadataJson);
      return true;
    }
    Identity identity = Identity.anonymous();
    if (authenticator.isPresent()) {
      Optional<Identity> who = authenticate(request.getHeaders().get(HttpHeader.AUTHORIZATION));
      if (who.isEmpty()) {
        boolean sent = request.getHeaders().get(HttpHeader.AUTHORIZATION) != null;
        response
            .getHeaders()
            .put(
                HttpHeader.WWW_AUTHENTICATE,
                sent
                    ? challenge("invalid_token", "The token is not valid", null)
                    : challenge(null, null, null));
        return refuse(
            request, response, callback, 401, "Unauthorized: a valid bearer token is required");
      }
      identity = who.get();
    }
    String version = request.getHeaders().get(VERSION_HEADER);
    if (!"POST".equals(request.getMethod())
        && version != null
        && !Protocol.HEADER_VERSIONS.contains(version)) {
      // GET and DELETE are a 2025 session's; a POST's version is checked with its body, so the
      // error can carry the request's id.
      Modern.Refusal refusal = Modern.unsupportedVersion(null, version);
      LOG.debug("MCP HTTP request refused: unsupported version {}", Modern.printable(version));
      writeJson(
          response,
          UnreadBody.settle(request, response, callback, engine.config.maxRequestBytes()),
          refusal.status(),
          Json.bytes(refusal.error()));
      return true;
    }
    switch (request.getMethod()) {
      case "POST" -> post(request, response, callback, identity);
      case "GET" -> get(request, response, callback, identity);
      case "DELETE" -> delete(request, response, callback, identity);
      default -> {
        response.getHeaders().put(HttpHeader.ALLOW, "GET, POST, DELETE");
        refuse(request, response, callback, 405, "Method not allowed");
      }
    }
    return true;
  }

  private Optional<Identity> authenticate(String authorization) {
    if (authorization == null
        || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)
        || authorization.length() <= 7) {
      return Optional.empty();
    }
    try {
      return authenticator.get().authenticate(authorization.substring(7).trim());
    } catch (RuntimeException e) {
      REFUSED.warn("The MCP authenticator failed; the request is refused as unauthenticated", e);
      return Optional.empty();
    }
  }

  String challenge(String error, String description, String scope) {
    StringBuilder value = new StringBuilder("Bearer");
    String sep = " ";
    if (metadataUrl != null) {
      value.append(sep).append("resource_metadata=\"").append(metadataUrl).append('"');
      sep = ", ";
    }
    if (scope != null && !scope.isEmpty()) {
      // RFC 6750, section 3: the scope a token needs here (the client's step-up asks for it).
      value.append(sep).append("scope=\"").append(scope).append('"');
      sep = ", ";
    }
    if (error != null) {
      value.append(sep).append("error=\"").append(error).append('"');
      sep = ", ";
      if (description != null) {
        value
            .append(sep)
            .append("error_description=\"")
            .append(description.replace('"', '\''))
            .append('"');
      }
    }
    return value.toString();
  }

  private void post(Request request, Response response, Callback callback, Identity identity) {
    String type = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
    if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      refuse(request, response, callback, 415, "Unsupported Media Type: send application/json");
      return;
    }
    String accept = request.getHeaders().get(HttpHeader.ACCEPT);
    boolean acceptsSse = accepts(accept, "text/event-stream");
    if (accept != null && !acceptsSse && !accepts(accept, "application/json")) {
      refuse(
          request,
          response,
          callback,
          406,
          "Not Acceptable: accept application/json and text/event-stream");
      return;
    }
    int max = engine.config.maxRequestBytes();
    long length = request.getLength();
    if (length > max) {
      refuse(request, response, callback, 413, "Payload Too Large: at most " + max + " bytes");
      return;
    }
    BoundedBody.read(request, max)
        .whenComplete(
            (body, failure) -> {
              if (failure instanceof BoundedBody.TooLarge) {
                refuse(
                    request,
                    response,
                    callback,
                    413,
                    "Payload Too Large: at most " + max + " bytes");
              } else if (failure != null) {
                refuse(request, response, callback, 400, "Bad Request: the body could not be read");
              } else {
                message(request, response, callback, identity, body, acceptsSse);
              }
            });
  }

  private void message(
      Request request,
      Response response,
      Callback callback,
      Identity identity,
      byte[] body,
      boolean acceptsSse) {
    JsonNode message;
    try {
      message = Json.read(body, 0, body.length);
    } catch (CallError e) {
      rpcError(response, callback, null, 400, Json.PARSE_ERROR, e.getMessage());
      return;
    }
    String problem = Protocol.malformed(message);
    if (problem != null) {
      JsonNode badId = message != null && message.isObject() ? message.get("id") : null;
      rpcError(
          response,
          callback,
          badId != null && (badId.isString() || badId.isIntegralNumber()) ? badId : null,
          400,
          Json.INVALID_REQUEST,
          problem);
      return;
    }
    JsonNode id = message.get("id");
    String sessionId = request.getHeaders().get(SESSION_HEADER);
    String version = request.getHeaders().get(VERSION_HEADER);
    if (Modern.isModern(sessionId != null, version, message)) {
      modern(request, response, callback, identity, message, version, acceptsSse);
      return;
    }
    if (version != null && !Protocol.HEADER_VERSIONS.contains(version)) {
      // A session's request naming a revision it cannot have negotiated.
      Modern.Refusal refusal = Modern.unsupportedVersion(id, version);
      writeJson(response, callback, refusal.status(), Json.bytes(refusal.error()));
      return;
    }
    boolean initialize = "initialize".equals(message.path("method").asString(""));
    Session session;
    if (initialize) {
      if (sessionId != null) {
        rpcError(
            response,
            callback,
            id,
            400,
            Json.INVALID_REQUEST,
            "initialize opens a session: send it without Mcp-Session-Id");
        return;
      }
      if (!Protocol.isRequest(message)) {
        rpcError(response, callback, id, 400, Json.INVALID_REQUEST, "initialize needs an id");
        return;
      }
      SessionStore.Created created = sessions.create(identity, clientOf(request, identity));
      if (created.session().isEmpty()) {
        boolean clientFull = created.refusal().orElseThrow() == SessionStore.Refusal.CLIENT_FULL;
        response.getHeaders().put(HttpHeader.RETRY_AFTER, clientFull ? "1" : "10");
        rpcError(
            response,
            callback,
            id,
            clientFull ? 429 : 503,
            Json.INTERNAL_ERROR,
            clientFull
                ? "This client holds its most sessions ("
                    + engine.config.maxSessionsPerClient()
                    + "), all in use; end one (DELETE) or try again later"
                : "Too many sessions, all in use; try again later");
        return;
      }
      session = created.session().get();
      response.getHeaders().put(SESSION_HEADER, session.id);
    } else {
      if (sessionId == null) {
        rpcError(
            response,
            callback,
            id,
            400,
            Json.INVALID_REQUEST,
            "Bad Request: Mcp-Session-Id header is required");
        return;
      }
      Optional<Session> found = sessions.get(sessionId, identity);
      if (found.isEmpty()) {
        rpcError(
            response,
            callback,
            id,
            404,
            Json.INVALID_REQUEST,
            "Session not found; initialize a new one");
        return;
      }
      session = found.get();
      if (Protocol.isRequest(message)) {
        session.markUsed(); // a request besides initialize: the client really uses it
      }
    }
    if (!Protocol.isRequest(message)) {
      engine.protocol.notification(session, message);
      response.setStatus(202);
      response.write(true, ByteBuffer.allocate(0), callback);
      return;
    }
    HttpExchange exchange = new HttpExchange(this, response, callback, acceptsSse, false);
    pending.add(exchange);
    request.addFailureListener(failure -> exchange.broken());
    request.addIdleTimeoutListener(timeout -> !exchange.isPending());
    engine.protocol.request(session, message, exchange);
  }

  /**
   * A modern (2026-07-28) message: no session. Checked in the revision's order: the metadata, the
   * version header against it, the version, then the headers that mirror the body ({@code
   * Mcp-Method}, {@code Mcp-Name}, {@code Mcp-Param-*}); only then served, with a request-scoped
   * session for who calls.
   */
  private void modern(
      Request request,
      Response response,
      Callback callback,
      Identity identity,
      JsonNode message,
      String versionHeader,
      boolean acceptsSse) {
    JsonNode id = message.get("id");
    Optional<Modern.Refusal> refusal = Modern.checkMeta(id, message);
    if (refusal.isEmpty()) {
      refusal = checkHeaders(request, message, versionHeader);
    }
    if (refusal.isPresent()) {
      LOG.debug("MCP 2026 request refused: {}", refusal.get().error());
      writeJson(response, callback, refusal.get().status(), Json.bytes(refusal.get().error()));
      return;
    }
    if (!Protocol.isRequest(message)) {
      // The revision defines no client notifications over HTTP (closing a stream cancels).
      response.setStatus(202);
      response.write(true, ByteBuffer.allocate(0), callback);
      return;
    }
    String method = message.get("method").asString();
    if (method.equals("subscriptions/listen") && !acceptsSse) {
      rpcError(
          response,
          callback,
          id,
          406,
          Json.INVALID_REQUEST,
          "Not Acceptable: subscriptions/listen answers as a text/event-stream");
      return;
    }
    Session session = new Session(Session.STATELESS, identity, clientOf(request, identity));
    session.opened = true;
    HttpExchange exchange = new HttpExchange(this, response, callback, acceptsSse, true);
    pending.add(exchange);
    request.addFailureListener(failure -> exchange.broken());
    request.addIdleTimeoutListener(timeout -> !exchange.isPending());
    engine.protocol.modernRequest(session, message, exchange);
  }

  /** The version header against the metadata, the version, and the mirrored headers. */
  private Optional<Modern.Refusal> checkHeaders(
      Request request, JsonNode message, String versionHeader) {
    JsonNode id = message.get("id");
    String version = Modern.meta(message).protocolVersion();
    if (versionHeader == null) {
      return Optional.of(Modern.headerMismatch(id, VERSION_HEADER + " is required"));
    }
    if (!versionHeader.strip().equals(version)) {
      return Optional.of(
          Modern.headerMismatch(
              id,
              VERSION_HEADER
                  + " "
                  + Modern.printable(versionHeader)
                  + " does not match params._meta's "
                  + Modern.printable(version)));
    }
    Optional<Modern.Refusal> unsupported = Modern.checkVersion(id, version);
    if (unsupported.isPresent()) {
      return unsupported;
    }
    if (!Protocol.isRequest(message)) {
      return Optional.empty();
    }
    String method = message.get("method").asString();
    String methodHeader = request.getHeaders().get(METHOD_HEADER);
    if (methodHeader == null) {
      return Optional.of(Modern.headerMismatch(id, METHOD_HEADER + " is required"));
    }
    if (!methodHeader.strip().equals(method)) {
      return Optional.of(
          Modern.headerMismatch(
              id,
              METHOD_HEADER
                  + " "
                  + Modern.printable(methodHeader)
                  + " does not match the method "
                  + Modern.printable(method)));
    }
    JsonNode params = message.path("params");
    String nameField =
        switch (method) {
          case "tools/call", "prompts/get" -> "name";
          case "resources/read" -> "uri";
          case "tasks/get", "tasks/update", "tasks/cancel" -> "taskId"; // the tasks extension
          default -> null;
        };
    if (nameField == null) {
      return Optional.empty();
    }
    String nameHeader = request.getHeaders().get(NAME_HEADER);
    if (nameHeader == null) {
      return Optional.of(Modern.headerMismatch(id, NAME_HEADER + " is required for " + method));
    }
    Optional<String> name = HeaderValues.decode(nameHeader);
    JsonNode bodyName = params.get(nameField);
    if (name.isEmpty()
        || bodyName == null
        || !bodyName.isString()
        || !name.get().equals(bodyName.asString())) {
      return Optional.of(
          Modern.headerMismatch(
              id, NAME_HEADER + " does not match params." + nameField + " of the body"));
    }
    if (method.equals("tools/call")) {
      ToolCatalog.Tool tool = engine.protocol.tool(bodyName.asString());
      JsonNode arguments = params.path("arguments");
      if (tool != null && arguments.isObject()) {
        Optional<String> mismatch =
            HeaderValues.paramMismatch(
                tool.headerParams(), arguments, header -> request.getHeaders().get(header));
        if (mismatch.isPresent()) {
          return Optional.of(Modern.headerMismatch(id, mismatch.get()));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Who a session's client is, for its cap and its fair share of the pipeline: the authenticated
   * subject, or the remote address of an anonymous client (more connections give it no more).
   */
  static String clientOf(Request request, Identity identity) {
    return identity.equals(Identity.anonymous())
        ? "mcp " + Request.getRemoteAddr(request)
        : "mcp identity " + identity.subject();
  }

  private void get(Request request, Response response, Callback callback, Identity identity) {
    if (!accepts(request.getHeaders().get(HttpHeader.ACCEPT), "text/event-stream")) {
      refuse(request, response, callback, 406, "Not Acceptable: GET opens a text/event-stream");
      return;
    }
    Optional<Session> session = session(request, response, callback, identity);
    if (session.isEmpty()) {
      return;
    }
    SseStream stream = openStream(response, callback);
    request.addFailureListener(failure -> stream.close());
    stream.onBroken(() -> session.get().dropChannel(stream));
    session.get().markUsed();
    session.get().channel(stream);
    stream.keepalive(); // commits the headers now, so the client knows the stream is open
  }

  private void delete(Request request, Response response, Callback callback, Identity identity) {
    Optional<Session> session = session(request, response, callback, identity);
    if (session.isPresent()) {
      sessions.remove(session.get(), "The client ended the session");
      response.setStatus(204);
      response.write(true, ByteBuffer.allocate(0), callback);
    }
  }

  private Optional<Session> session(
      Request request, Response response, Callback callback, Identity identity) {
    String id = request.getHeaders().get(SESSION_HEADER);
    if (id == null) {
      rpcError(
          response,
          callback,
          null,
          400,
          Json.INVALID_REQUEST,
          "Bad Request: Mcp-Session-Id header is required");
      return Optional.empty();
    }
    Optional<Session> session = sessions.get(id, identity);
    if (session.isEmpty()) {
      rpcError(
          response,
          callback,
          null,
          404,
          Json.INVALID_REQUEST,
          "Session not found; initialize a new one");
    }
    return session;
  }

  SseStream openStream(Response response, Callback callback) {
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
    // Proxies such as nginx hold a response back unless told not to; a stream must flow.
    response.getHeaders().put("X-Accel-Buffering", "no");
    SseStream stream = new SseStream(response, callback, engine.config.maxQueuedStreamBytes());
    streams.add(stream);
    stream.onBroken(() -> streams.remove(stream));
    return stream;
  }

  /**
   * The endpoint closes: every request still unanswered ends now (see {@link
   * HttpExchange#shutdown}).
   */
  void shutdownPending() {
    for (HttpExchange exchange : pending) {
      exchange.shutdown();
    }
  }

  /** An exchange answered, cancelled or broken: no keep-alive tick needs it any more. */
  void settled(HttpExchange exchange) {
    pending.remove(exchange);
  }

  void streamEnded(SseStream stream) {
    streams.remove(stream);
  }

  /** Every open stream gets a comment, so Jetty's idle timeout does not end a quiet one. */
  void keepalive() {
    for (SseStream stream : streams) {
      stream.keepalive();
    }
  }

  /**
   * A liveness tick for the requests still unanswered: one unanswered for longer than {@code
   * afterNanos} streams its answer and gets a comment each tick (see {@link HttpExchange#tick}).
   */
  void tickCalls(long afterNanos) {
    for (HttpExchange exchange : pending) {
      if (!exchange.tick(afterNanos)) {
        pending.remove(exchange);
      }
    }
  }

  boolean hostAllowed(String host) {
    return host != null && allowedHosts.contains(hostname(host));
  }

  private boolean originAllowed(String origin) {
    if (allowedOrigins.contains(origin.toLowerCase(Locale.ROOT))) {
      return true;
    }
    try {
      URI uri = URI.create(origin);
      String host = uri.getHost();
      String scheme = uri.getScheme();
      return host != null
          && ("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
          && allowedHosts.contains(host.toLowerCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** The host part of a Host header: {@code [::1]:8080} → {@code [::1]}, lower case. */
  static String hostname(String host) {
    String value = host.trim().toLowerCase(Locale.ROOT);
    if (value.startsWith("[")) {
      int end = value.indexOf(']');
      return end < 0 ? value : value.substring(0, end + 1);
    }
    int colon = value.indexOf(':');
    return colon < 0 ? value : value.substring(0, colon);
  }

  private static boolean accepts(String accept, String type) {
    if (accept == null) {
      return false;
    }
    String value = accept.toLowerCase(Locale.ROOT);
    return value.contains(type) || value.contains("*/*");
  }

  private boolean refuse(
      Request request, Response response, Callback callback, int status, String message) {
    LOG.debug("MCP HTTP request refused with {}: {}", status, message);
    rpcError(
        response,
        UnreadBody.settle(request, response, callback, engine.config.maxRequestBytes()),
        null,
        status,
        status == 401 || status == 403 ? -32001 : Json.INVALID_REQUEST,
        message);
    return true;
  }

  /** A JSON-RPC error as the HTTP answer, with the request's id when it is known. */
  private static void rpcError(
      Response response, Callback callback, JsonNode id, int status, int code, String message) {
    writeJson(response, callback, status, Json.bytes(Json.error(id, code, message, null)));
  }

  static void writeJson(Response response, Callback callback, int status, byte[] body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.write(true, ByteBuffer.wrap(body), callback);
  }
}
