package dev.alkdev.operations.http.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.Deadline;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.http.HttpGateway;
import dev.alkdev.operations.internal.TraceContext;
import dev.alkdev.operations.jetty.internal.BoundedBody;
import dev.alkdev.operations.jetty.internal.HealthRoutes;
import dev.alkdev.operations.jetty.internal.UnreadBody;
import dev.alkdev.operations.serving.CallRequest;
import dev.alkdev.operations.serving.OperationServer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The gateway's one Jetty handler: routes, the browser guards (Host, Origin, CORS), authentication,
 * reading the call, and handing it to the pipeline with a sink that writes JSON or SSE.
 */
public final class GatewayHandler extends Handler.Abstract {
  private static final Logger LOG = LoggerFactory.getLogger(GatewayHandler.class);
  private static final String OPS = "/ops";
  private static final String OPS_PREFIX = "/ops/";
  private static final long MAX_TIMEOUT_MS = 24L * 3600 * 1000;
  static final String REQUEST_ID_HEADER = "Ops-Request-Id";
  private static final String ALLOWED_HEADERS =
      "Authorization, Content-Type, Prefer, Last-Event-ID, traceparent, tracestate, "
          + HttpGateway.TIMEOUT_HEADER;

  private final OperationServer server;
  private final GatewayConfig config;
  private final Executor writers;
  private final ScheduledExecutorService keepAlives;
  private final StreamTicks streamTicks;
  private final Console console;
  private final OpenApiDocument document;
  private final java.util.concurrent.atomic.AtomicInteger inFlight =
      new java.util.concurrent.atomic.AtomicInteger();

  public GatewayHandler(OperationServer server, GatewayConfig config, Executor writers) {
    this.server = server;
    this.config = config;
    this.writers = writers;
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "ops-http-keepalive");
              t.setDaemon(true);
              return t;
            });
    // A unary call's probe is cancelled when it is answered, nearly always long before it is due:
    // removed at once, not kept in the queue for a keep-alive period.
    timer.setRemoveOnCancelPolicy(true);
    this.keepAlives = timer;
    this.streamTicks = new StreamTicks(timer, config.keepAlive());
    this.console = new Console(config.title());
    this.document = new OpenApiDocument(config.title(), config.authenticator().isPresent());
  }

  /** Jetty's own errors (a bad URI, a header too large) in the gateway's error shape. */
  public ErrorHandler errorHandler() {
    return new JsonErrorHandler();
  }

  @Override
  protected void doStop() throws Exception {
    keepAlives.shutdownNow();
    super.doStop();
  }

  /**
   * Waits until no exchange is in flight (a stream's last event written, a unary answer sent), at
   * most {@code timeout}: a drain ends the calls first, and the answers still need writing.
   *
   * @return whether every exchange ended in time
   */
  public boolean awaitIdle(Duration timeout) {
    long end = System.nanoTime() + timeout.toNanos();
    synchronized (inFlight) {
      long left;
      while (inFlight.get() > 0 && (left = end - System.nanoTime()) > 0) {
        try {
          inFlight.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      return inFlight.get() == 0;
    }
  }

  @Override
  public boolean handle(Request request, Response response, Callback done) {
    Callback callback = tracked(done);
    response.getHeaders().put("X-Content-Type-Options", "nosniff");
    try {
      route(request, response, callback);
    } catch (CallError e) {
      writeError(request, response, callback, e);
    } catch (MethodNotAllowed | UnsupportedType e) {
      writeRefusal(request, response, callback, e);
    } catch (RuntimeException e) {
      LOG.error(
          "The HTTP gateway failed on {} {}",
          request.getMethod(),
          request.getHttpURI().getPath(),
          e); // no query: GET inputs may hold secrets
      writeError(
          request,
          response,
          callback,
          Errors.of(ErrorCode.EXECUTION_ERROR, "The gateway failed to handle the request"));
    }
    return true;
  }

  /** The exchange's callback, counted while it is in flight. */
  private Callback tracked(Callback callback) {
    inFlight.incrementAndGet();
    return new Callback() {
      @Override
      public void succeeded() {
        try {
          callback.succeeded();
        } finally {
          ended();
        }
      }

      @Override
      public void failed(Throwable failure) {
        try {
          callback.failed(failure);
        } finally {
          ended();
        }
      }

      @Override
      public InvocationType getInvocationType() {
        return callback.getInvocationType();
      }
    };
  }

  private void ended() {
    if (inFlight.decrementAndGet() == 0) {
      synchronized (inFlight) {
        inFlight.notifyAll();
      }
    }
  }

  private void route(Request request, Response response, Callback callback) {
    checkHost(request);
    String path = Request.getPathInContext(request);
    String method = request.getMethod();
    Optional<String> origin = Optional.ofNullable(request.getHeaders().get(HttpHeader.ORIGIN));
    boolean cors =
        origin.map(o -> config.corsOrigins().contains(o.toLowerCase(Locale.ROOT))).orElse(false);
    if (cors) {
      response.getHeaders().put("Access-Control-Allow-Origin", origin.get());
      response.getHeaders().add("Vary", "Origin");
      response.getHeaders().put("Access-Control-Expose-Headers", REQUEST_ID_HEADER);
    }
    if (method.equals("OPTIONS")) {
      preflight(request, response, callback, origin, cors);
      return;
    }
    if (HealthRoutes.answer(request, response, callback, () -> Optional.of(server.stats()))) {
      return;
    }
    if (path.equals(HealthRoutes.HEALTH) || path.equals(HealthRoutes.READY)) {
      requireGet(method); // the routes answer GET only
    }
    TextRoute extra = config.textRoutes().get(path);
    if (extra != null) {
      requireGet(method);
      checkOrigin(request, origin, cors);
      if (config.authenticator().isPresent()
          && request.getHeaders().get(HttpHeader.AUTHORIZATION) == null) {
        throw Errors.of(ErrorCode.UNAUTHENTICATED, path + " needs a bearer token");
      }
      authenticate(request);
      writeText(response, callback, extra);
      return;
    }
    if (path.equals(OPS) || path.startsWith(OPS_PREFIX) || path.equals("/openapi.json")) {
      checkOrigin(request, origin, cors);
      Identity identity = authenticate(request);
      if (path.equals("/openapi.json")) {
        requireGet(method);
        List<OperationSpec> specs = server.registry().listCallableBy(identity);
        boolean v32 = "3.2".equals(queryValue(request, "openapi"));
        writeJson(response, callback, 200, document.build(specs, v32));
      } else if (path.equals(OPS)) {
        requireGet(method);
        writeJson(response, callback, 200, listing(identity));
      } else {
        call(request, response, callback, path.substring(OPS_PREFIX.length()), identity);
      }
      return;
    }
    if (config.console() && console.serve(path, method, response, callback)) {
      return;
    }
    throw Errors.of(ErrorCode.OPERATION_NOT_FOUND, "Nothing here: " + Inputs.printable(path));
  }

  // ------------------------------------------------------------------ guards

  /**
   * While listening on loopback, only loopback host names: a page on another site that rebinds its
   * DNS name to 127.0.0.1 sends its own name as Host, and is refused.
   */
  /**
   * An IPv4 literal in 127.0.0.0/8, and nothing else: a prefix test would let a name such as {@code
   * 127.attacker.example}, rebound to 127.0.0.1, pass as loopback (DNS rebinding).
   */
  private static final java.util.regex.Pattern LOOPBACK_V4 =
      java.util.regex.Pattern.compile(
          "127\\.(25[0-5]|2[0-4]\\d|1?\\d?\\d)\\.(25[0-5]|2[0-4]\\d|1?\\d?\\d)\\.(25[0-5]|2[0-4]\\d|1?\\d?\\d)");

  private void checkHost(Request request) {
    if (!config.loopbackOnly()) {
      return;
    }
    String host = request.getHeaders().get(HttpHeader.HOST);
    if (host == null) {
      throw Errors.of(ErrorCode.INVALID_INPUT, "The request has no Host header");
    }
    String name = hostName(host).toLowerCase(Locale.ROOT);
    if (name.equals("localhost")
        || LOOPBACK_V4.matcher(name).matches()
        || name.equals("[::1]")
        || name.equals("::1")
        || config.allowedHosts().contains(name)) {
      return;
    }
    throw Errors.of(
        ErrorCode.ACCESS_DENIED,
        "Host '"
            + Inputs.printable(host)
            + "' is not served here: the gateway listens on loopback and answers loopback names"
            + " (allowedHosts adds others)");
  }

  private static String hostName(String host) {
    if (host.startsWith("[")) {
      int end = host.indexOf(']');
      return end > 0 ? host.substring(0, end + 1) : host;
    }
    int colon = host.lastIndexOf(':');
    return colon >= 0 ? host.substring(0, colon) : host;
  }

  /**
   * A request from a page of another origin is refused unless that origin is allowed: it could
   * otherwise make the user's browser call operations. Browsers send Origin with every POST and
   * every CORS request, but not with a plain cross-site GET (an image, a link, a no-cors fetch);
   * for those, Fetch Metadata tells: {@code Sec-Fetch-Site} other than {@code same-origin} or
   * {@code none} (the user typed the URL) without an Origin is refused too (D65).
   */
  private void checkOrigin(Request request, Optional<String> origin, boolean cors) {
    if (cors) {
      return;
    }
    if (origin.isEmpty()) {
      String site = request.getHeaders().get("Sec-Fetch-Site");
      if (site != null && !site.equalsIgnoreCase("same-origin") && !site.equalsIgnoreCase("none")) {
        throw Errors.of(
            ErrorCode.ACCESS_DENIED,
            "Requests from another site are refused (Sec-Fetch-Site: "
                + Inputs.printable(site)
                + "): only the gateway's own pages and configured origins may call");
      }
      return;
    }
    String value = origin.get().toLowerCase(Locale.ROOT);
    String host = request.getHeaders().get(HttpHeader.HOST);
    String own =
        request.getHttpURI().getScheme()
            + "://"
            + (host == null ? "" : host.toLowerCase(Locale.ROOT));
    if (value.equals(own) || config.allowedOrigins().contains(value)) {
      return;
    }
    throw Errors.of(
        ErrorCode.ACCESS_DENIED,
        "Requests from origin '"
            + Inputs.printable(origin.get())
            + "' are refused: only the gateway's own origin and configured origins may call");
  }

  private void preflight(
      Request request,
      Response response,
      Callback callback,
      Optional<String> origin,
      boolean cors) {
    if (!cors) {
      throw Errors.of(
          ErrorCode.ACCESS_DENIED,
          origin.isPresent()
              ? "CORS is not enabled for origin '" + Inputs.printable(origin.get()) + "'"
              : "OPTIONS is only answered to CORS preflight requests");
    }
    response.getHeaders().put("Access-Control-Allow-Methods", "GET, POST");
    response.getHeaders().put("Access-Control-Allow-Headers", ALLOWED_HEADERS);
    response.getHeaders().put("Access-Control-Max-Age", "600");
    response.setStatus(204);
    callback.succeeded();
  }

  private Identity authenticate(Request request) {
    String authorization = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    if (authorization == null || config.authenticator().isEmpty()) {
      return Identity.anonymous();
    }
    if (authorization.length() < 8
        || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)
        || authorization.substring(7).isBlank()) {
      throw Errors.of(
          ErrorCode.UNAUTHENTICATED,
          "Only bearer tokens are accepted: Authorization: Bearer <token>");
    }
    String token = authorization.substring(7).trim();
    Optional<Identity> identity;
    try {
      identity = config.authenticator().get().authenticate(token);
    } catch (CallError e) {
      throw e;
    } catch (RuntimeException e) {
      LOG.error("The authenticator failed", e);
      throw Errors.of(ErrorCode.EXECUTION_ERROR, "The authenticator failed");
    }
    if (identity == null || identity.isEmpty()) {
      throw Errors.of(ErrorCode.UNAUTHENTICATED, "The bearer token is not valid");
    }
    return identity.get();
  }

  private static String queryValue(Request request, String name) {
    try {
      return Request.extractQueryParameters(request, StandardCharsets.UTF_8).getValue(name);
    } catch (RuntimeException e) {
      throw Errors.of(ErrorCode.INVALID_INPUT, "The query string is not valid");
    }
  }

  private static void requireGet(String method) {
    if (!method.equals("GET") && !method.equals("HEAD")) {
      throw new MethodNotAllowed("GET", method);
    }
  }

  // ------------------------------------------------------------------ listing

  private ObjectNode listing(Identity identity) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    ArrayNode operations = body.putArray("operations");
    for (OperationSpec spec : server.registry().listCallableBy(identity)) {
      operations.add(spec.toJson());
    }
    return body;
  }

  // ------------------------------------------------------------------ calls

  private void call(
      Request request,
      Response response,
      Callback callback,
      String operationId,
      Identity identity) {
    if (!OperationSpec.isValidId(operationId)) {
      throw Errors.of(
          ErrorCode.OPERATION_NOT_FOUND,
          "Operation not found: '"
              + Inputs.printable(operationId)
              + "' is not an operation id (namespace.name)");
    }
    String method = request.getMethod();
    Optional<OperationSpec> spec = server.registry().getSpec(operationId);
    OperationType type = spec.map(OperationSpec::type).orElse(OperationType.QUERY);
    boolean post = method.equals("POST");
    if (!post && !method.equals("GET")) {
      throw new MethodNotAllowed(type == OperationType.MUTATION ? "POST" : "GET, POST", method);
    }
    if (!post && type == OperationType.MUTATION) {
      throw new MethodNotAllowed("POST", method);
    }
    // An anonymous caller's fair share is its remote address's (connections are cheap to open;
    // addresses are not): behind a proxy every caller shares it, so authenticate there (D91).
    CallRequest.Builder call =
        CallRequest.builder(operationId)
            .identity(identity)
            .client("http " + Request.getRemoteAddr(request));
    timeout(request).ifPresent(call::deadline);
    call.metadata(metadata(request));
    boolean stream = type == OperationType.SUBSCRIPTION || accepts(request, "text/event-stream");
    boolean dataOnly = prefersMinimal(request);
    if (!post) {
      Fields fields;
      try {
        fields = Request.extractQueryParameters(request, StandardCharsets.UTF_8);
      } catch (RuntimeException e) {
        throw Errors.of(
            ErrorCode.INVALID_INPUT,
            "The query string is not valid: " + Inputs.printable(String.valueOf(e.getMessage())));
      }
      Map<String, List<String>> parameters = new LinkedHashMap<>();
      for (Fields.Field field : fields) {
        parameters.put(field.getName(), field.getValues());
      }
      if (spec.isPresent()) {
        Inputs.query(parameters, spec.get()).ifPresent(call::input);
      }
      serve(request, response, callback, call, stream, dataOnly);
      return;
    }
    checkContentType(request);
    long length = request.getLength();
    if (length > config.maxRequestBytes()) {
      throw Errors.tooLarge(config.maxRequestBytes());
    }
    BoundedBody.read(request, (int) config.maxRequestBytes())
        .whenComplete(
            (bytes, failure) -> {
              try {
                if (failure != null) {
                  if (failure instanceof BoundedBody.TooLarge) {
                    throw Errors.tooLarge(config.maxRequestBytes());
                  }
                  throw Errors.of(ErrorCode.INVALID_INPUT, "The request body could not be read");
                }
                Inputs.body(bytes).ifPresent(call::input);
                serve(request, response, callback, call, stream, dataOnly);
              } catch (CallError e) {
                writeError(request, response, callback, e);
              } catch (MethodNotAllowed | UnsupportedType e) {
                writeRefusal(request, response, callback, e);
              } catch (RuntimeException e) {
                LOG.error("The HTTP gateway failed on POST {}", request.getHttpURI().getPath(), e);
                writeError(
                    request,
                    response,
                    callback,
                    Errors.of(
                        ErrorCode.EXECUTION_ERROR, "The gateway failed to handle the request"));
              }
            });
  }

  private void serve(
      Request request,
      Response response,
      Callback callback,
      CallRequest.Builder call,
      boolean stream,
      boolean dataOnly) {
    if (stream) {
      StreamExchange exchange =
          new StreamExchange(
              request, response, callback, dataOnly, writers, streamTicks, config.idleTimeout());
      call.demand(StreamExchange.WINDOW);
      CallRequest built = call.build();
      response.getHeaders().put(REQUEST_ID_HEADER, built.requestId());
      exchange.watch();
      exchange.open(server.serve(built, exchange));
    } else {
      UnaryExchange exchange = new UnaryExchange(request, response, callback, dataOnly);
      CallRequest built = call.build();
      response.getHeaders().put(REQUEST_ID_HEADER, built.requestId());
      exchange.watch(keepAlives, config.keepAlive());
      server.serve(built, exchange);
    }
  }

  private static Optional<Deadline> timeout(Request request) {
    String value = request.getHeaders().get(HttpGateway.TIMEOUT_HEADER);
    if (value == null) {
      return Optional.empty();
    }
    long ms;
    try {
      ms = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      ms = -1;
    }
    if (ms < 1 || ms > MAX_TIMEOUT_MS) {
      throw Errors.of(
          ErrorCode.INVALID_INPUT,
          HttpGateway.TIMEOUT_HEADER
              + " must be a whole number of milliseconds from 1 to "
              + MAX_TIMEOUT_MS
              + ", was '"
              + Inputs.printable(value)
              + "'");
    }
    return Optional.of(Deadline.afterMillis(ms));
  }

  /**
   * W3C trace context and the stream's Last-Event-ID, into the call's metadata. An invalid
   * traceparent is dropped, as the W3C rules say (and tracestate with it).
   */
  private static CallMetadata metadata(Request request) {
    Map<String, String> entries = new HashMap<>();
    TraceContext.putFromClient(
        entries,
        request.getHeaders().get(TraceContext.TRACEPARENT),
        request.getHeaders().get(TraceContext.TRACESTATE));
    String lastEventId = request.getHeaders().get("Last-Event-ID");
    if (lastEventId != null) {
      if (lastEventId.length() > 1024
          || CallMetadata.valueProblem(HttpGateway.LAST_EVENT_ID, lastEventId).isPresent()) {
        throw Errors.of(
            ErrorCode.INVALID_INPUT,
            "Last-Event-ID must be at most 1024 characters without control characters");
      }
      entries.put(HttpGateway.LAST_EVENT_ID, lastEventId);
    }
    return CallMetadata.of(entries);
  }

  private static void checkContentType(Request request) {
    String contentType = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
    if (contentType == null) {
      if (request.getLength() == 0) {
        return; // no body, no type: a call without input
      }
      throw new UnsupportedType("none");
    }
    String[] parts = contentType.split(";");
    String media = parts[0].trim().toLowerCase(Locale.ROOT);
    if (!media.equals("application/json")
        && !(media.startsWith("application/") && media.endsWith("+json"))) {
      throw new UnsupportedType(contentType);
    }
    for (int i = 1; i < parts.length; i++) {
      String parameter = parts[i].trim().toLowerCase(Locale.ROOT);
      if (parameter.startsWith("charset=")
          && !parameter.substring(8).replace("\"", "").equals("utf-8")) {
        throw new UnsupportedType(contentType);
      }
    }
  }

  private static boolean accepts(Request request, String media) {
    for (String value : request.getHeaders().getValuesList(HttpHeader.ACCEPT)) {
      for (String part : value.split(",")) {
        if (part.split(";")[0].trim().equalsIgnoreCase(media)) {
          return true;
        }
      }
    }
    return false;
  }

  /** RFC 7240 {@code Prefer: return=minimal}: the data alone instead of the envelope. */
  static boolean prefersMinimal(Request request) {
    for (String value : request.getHeaders().getValuesList("Prefer")) {
      for (String part : value.split("[,;]")) {
        if (part.trim().replace(" ", "").equalsIgnoreCase("return=minimal")) {
          return true;
        }
      }
    }
    return false;
  }

  // ------------------------------------------------------------------ writing

  private static void writeText(Response response, Callback callback, TextRoute route) {
    String text;
    try {
      text = route.body().get();
    } catch (RuntimeException e) {
      LOG.error("An extra route's body failed", e);
      throw Errors.of(ErrorCode.EXECUTION_ERROR, "The route failed to produce its answer");
    }
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, route.contentType());
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, Integer.toString(bytes.length));
    response.write(true, ByteBuffer.wrap(bytes), callback);
  }

  static void writeJson(Response response, Callback callback, int status, JsonNode body) {
    byte[] bytes = Inputs.JSON.writeValueAsBytes(body);
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, Integer.toString(bytes.length));
    response.write(true, ByteBuffer.wrap(bytes), callback);
  }

  /**
   * Once a call has begun its body has been read whole: an error written then has no body to
   * settle.
   */
  static final long BODY_READ = 0;

  /**
   * Answers with {@code error}; a body left unread is settled ({@link UnreadBody}), reading at most
   * {@code bodyLimit} more of it.
   */
  static void writeError(
      Request request, Response response, Callback callback, CallError error, long bodyLimit) {
    if (response.isCommitted()) {
      callback.failed(error);
      return;
    }
    Callback settled = UnreadBody.settle(request, response, callback, bodyLimit);
    response.getHeaders().remove(HttpHeader.CONTENT_TYPE);
    if (error.code() == ErrorCode.UNAUTHENTICATED) {
      response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer");
    }
    Errors.retryAfterSeconds(error)
        .ifPresent(seconds -> response.getHeaders().put(HttpHeader.RETRY_AFTER, seconds));
    writeJson(response, settled, Errors.status(error), Errors.body(error));
  }

  private void writeError(Request request, Response response, Callback callback, CallError error) {
    writeError(request, response, callback, error, config.maxRequestBytes());
  }

  private void writeRefusal(
      Request request, Response response, Callback callback, RuntimeException e) {
    if (response.isCommitted()) {
      callback.failed(e);
      return;
    }
    Callback settled = UnreadBody.settle(request, response, callback, config.maxRequestBytes());
    if (e instanceof MethodNotAllowed m) {
      response.getHeaders().put(HttpHeader.ALLOW, m.allow);
      writeJson(
          response, settled, 405, Errors.body(Errors.of(ErrorCode.INVALID_INPUT, m.getMessage())));
    } else if (e instanceof UnsupportedType u) {
      writeJson(
          response, settled, 415, Errors.body(Errors.of(ErrorCode.INVALID_INPUT, u.getMessage())));
    }
  }

  /** A method the route does not take: 405 with Allow. */
  static final class MethodNotAllowed extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String allow;

    MethodNotAllowed(String allow, String method) {
      super(
          "Method " + Inputs.printable(method) + " is not allowed here; use " + allow,
          null,
          false,
          false);
      this.allow = allow;
    }
  }

  /** A body that is not JSON: 415. */
  static final class UnsupportedType extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnsupportedType(String contentType) {
      super(
          "Content-Type must be application/json (UTF-8), was " + Inputs.printable(contentType),
          null,
          false,
          false);
    }
  }

  /** Jetty's own refusals (bad URI, oversized headers) in the gateway's JSON error shape. */
  private static final class JsonErrorHandler extends ErrorHandler {
    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      int status = response.getStatus();
      if (request.getAttribute(ERROR_STATUS) instanceof Integer s) {
        status = s;
      }
      if (status < 400) {
        status = 500;
      }
      Object message = request.getAttribute(ERROR_MESSAGE);
      ErrorCode code =
          switch (status) {
            case 404 -> ErrorCode.OPERATION_NOT_FOUND;
            case 413, 431 -> ErrorCode.RESOURCE_EXHAUSTED;
            case 503 -> ErrorCode.UNAVAILABLE;
            default -> status >= 500 ? ErrorCode.EXECUTION_ERROR : ErrorCode.INVALID_INPUT;
          };
      String text =
          "The request was refused (HTTP "
              + status
              + (message == null ? "" : ": " + Inputs.printable(message.toString()))
              + ")";
      writeJson(response, callback, status, Errors.body(Errors.of(code, text)));
      return true;
    }
  }
}
