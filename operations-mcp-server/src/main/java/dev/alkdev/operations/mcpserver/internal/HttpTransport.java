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
 * Streamable HTTP (MCP 2025-06-18 and 2025-11-25) at {@code /mcp} as a Jetty core handler. Every
 * request is checked before anything else, in this order: Host (DNS rebinding), Origin, the bearer
 * token when an authenticator is set, {@code MCP-Protocol-Version}. POST carries JSON-RPC; GET
 * opens the session's stream for list_changed and logs; DELETE ends the session.
 */
final class HttpTransport extends Handler.Abstract {
  private static final Logger LOG = LoggerFactory.getLogger(HttpTransport.class);
  private static final RateLimitedLog REFUSED = RateLimitedLog.of(LOG);
  static final String PATH = "/mcp";
  static final String METADATA_PATH = "/.well-known/oauth-protected-resource";
  private static final String SESSION_HEADER = "Mcp-Session-Id";
  private static final String VERSION_HEADER = "MCP-Protocol-Version";

  private final Engine engine;
  private final SessionStore sessions;
  private final Set<String> allowedHosts;
  private final Set<String> allowedOrigins;
  private final Optional<McpAuthenticator> authenticator;
  private final Optional<McpResourceMetadata> metadata;
  private final String metadataUrl;
  private final byte[] metadataJson;
  private final Set<SseStream> streams = ConcurrentHashMap.newKeySet();

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
                    ? challenge("invalid_token", "The token is not valid")
                    : challenge(null, null));
        return refuse(
            request, response, callback, 401, "Unauthorized: a valid bearer token is required");
      }
      identity = who.get();
    }
    String version = request.getHeaders().get(VERSION_HEADER);
    if (version != null && !Protocol.HEADER_VERSIONS.contains(version)) {
      return refuse(
          request,
          response,
          callback,
          400,
          "Bad Request: unsupported MCP-Protocol-Version "
              + version
              + "; supported: "
              + String.join(", ", Protocol.NEGOTIATED));
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

  String challenge(String error, String description) {
    StringBuilder value = new StringBuilder("Bearer");
    String sep = " ";
    if (metadataUrl != null) {
      value.append(sep).append("resource_metadata=\"").append(metadataUrl).append('"');
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
      rpcError(response, callback, 400, Json.PARSE_ERROR, e.getMessage());
      return;
    }
    String problem = Protocol.malformed(message);
    if (problem != null) {
      rpcError(response, callback, 400, Json.INVALID_REQUEST, problem);
      return;
    }
    String sessionId = request.getHeaders().get(SESSION_HEADER);
    boolean initialize = "initialize".equals(message.path("method").asString(""));
    Session session;
    if (initialize) {
      if (sessionId != null) {
        rpcError(
            response,
            callback,
            400,
            Json.INVALID_REQUEST,
            "initialize opens a session: send it without Mcp-Session-Id");
        return;
      }
      if (!Protocol.isRequest(message)) {
        rpcError(response, callback, 400, Json.INVALID_REQUEST, "initialize needs an id");
        return;
      }
      SessionStore.Created created = sessions.create(identity, clientOf(request, identity));
      if (created.session().isEmpty()) {
        boolean clientFull = created.refusal().orElseThrow() == SessionStore.Refusal.CLIENT_FULL;
        response.getHeaders().put(HttpHeader.RETRY_AFTER, clientFull ? "1" : "10");
        rpcError(
            response,
            callback,
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
    HttpExchange exchange = new HttpExchange(this, response, callback, acceptsSse);
    request.addFailureListener(failure -> exchange.broken());
    request.addIdleTimeoutListener(timeout -> !exchange.isPending());
    engine.protocol.request(session, message, exchange);
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
          400,
          Json.INVALID_REQUEST,
          "Bad Request: Mcp-Session-Id header is required");
      return Optional.empty();
    }
    Optional<Session> session = sessions.get(id, identity);
    if (session.isEmpty()) {
      rpcError(
          response, callback, 404, Json.INVALID_REQUEST, "Session not found; initialize a new one");
    }
    return session;
  }

  SseStream openStream(Response response, Callback callback) {
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
    SseStream stream = new SseStream(response, callback, engine.config.maxQueuedStreamBytes());
    streams.add(stream);
    stream.onBroken(() -> streams.remove(stream));
    return stream;
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
        status,
        status == 401 || status == 403 ? -32001 : Json.INVALID_REQUEST,
        message);
    return true;
  }

  private static void rpcError(
      Response response, Callback callback, int status, int code, String message) {
    writeJson(response, callback, status, Json.bytes(Json.error(null, code, message, null)));
  }

  static void writeJson(Response response, Callback callback, int status, byte[] body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.write(true, ByteBuffer.wrap(body), callback);
  }
}
