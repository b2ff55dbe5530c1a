package dev.alkdev.operations.openapi.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.HttpResponseMeta;
import dev.alkdev.operations.openapi.HttpAuth;
import dev.alkdev.operations.openapi.HttpServiceConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * One imported operation's HTTP call: builds the request from the input (path, query, header and
 * cookie parameters, body), sends it without blocking, follows same-origin redirects, and turns the
 * response into an HTTP envelope or a CallError.
 */
public final class HttpOperation {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Set<Integer> REDIRECTS = Set.of(301, 302, 303, 307, 308);

  /** How much of an error response body goes into the CallError details. */
  static final int ERROR_EXCERPT_CHARS = 1024;

  /** A parameter as the document declares it. */
  public record Param(String name, String in, String style, boolean explode) {}

  private final String operationId;
  private final String method;
  private final String pathTemplate;
  private final List<Param> params;
  private final String bodyMediaType; // "" when the operation has no request body
  private final Map<String, FormBodies.Field> formFields; // the form body's fields, by name
  private final HttpServiceConfig config;
  private final BaseUrl baseUrl;
  private final Supplier<HttpClient> client; // the JDK client: streams, and a user's own client
  private final Optional<JettyClient> jetty; // unary calls, unless the user gave a JDK client
  private final EventStreamOpener events;
  private final boolean reconnectOnClose; // a stream its server ends is resumed, not ended

  HttpOperation(
      String operationId,
      String method,
      String pathTemplate,
      List<Param> params,
      String bodyMediaType,
      Map<String, FormBodies.Field> formFields,
      HttpServiceConfig config,
      BaseUrl baseUrl,
      Supplier<HttpClient> client,
      Optional<JettyClient> jetty,
      EventStreamOpener events,
      boolean reconnectOnClose) {
    this.operationId = operationId;
    this.method = method.toUpperCase(Locale.ROOT);
    this.pathTemplate = pathTemplate;
    this.params = List.copyOf(params);
    this.bodyMediaType = bodyMediaType;
    this.formFields = Map.copyOf(formFields);
    this.config = config;
    this.baseUrl = baseUrl;
    this.client = client;
    this.jetty = jetty;
    this.events = events;
    this.reconnectOnClose = reconnectOnClose;
  }

  /** The AsyncOperationHandler body. */
  public CompletionStage<?> call(JsonNode input, OperationContext context) {
    CompletableFuture<Object> result = new CompletableFuture<>();
    try {
      context.throwIfDone();
      send(build(input, context, false), context, result, config.maxRedirects());
    } catch (CallError e) {
      return CompletableFuture.failedFuture(e);
    }
    return result;
  }

  /** The SubscriptionHandler body: the request is handed to the SSE seam. */
  public Flow.Publisher<?> subscribe(JsonNode input, OperationContext context) {
    context.throwIfDone();
    HttpRequest request = toJdk(build(input, context, true), timeout(context));
    return events.open(client.get(), request, context, config.maxResponseBytes(), reconnectOnClose);
  }

  /**
   * A request as built from the input, for either client.
   *
   * @param body the body's bytes; empty for none
   */
  record Prepared(String method, URI uri, List<String[]> headers, Optional<byte[]> body) {}

  /** A response, from either client. */
  record Reply(int status, Map<String, List<String>> headers, String contentType, byte[] body) {
    Optional<String> header(String name) {
      List<String> values = headers.get(name);
      return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }
  }

  /**
   * Headers the request's framing and routing depend on: set by the client, never by a parameter or
   * the config (the JDK client refuses the first five itself; Jetty's would send them).
   */
  private static final Set<String> RESTRICTED_HEADERS =
      Set.of(
          "connection",
          "content-length",
          "expect",
          "host",
          "upgrade",
          "transfer-encoding",
          "te",
          "trailer",
          "keep-alive",
          "proxy-connection");

  private static void checkHeaderName(String name) {
    if (name.isEmpty()) {
      throw new IllegalArgumentException("empty header name");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean token =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!token) {
        throw new IllegalArgumentException("invalid header name: \"" + name + "\"");
      }
    }
    if (RESTRICTED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException("restricted header name: \"" + name + "\"");
    }
  }

  private static HttpRequest toJdk(Prepared prepared, Duration timeout) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(prepared.uri()).timeout(timeout);
    try {
      for (String[] header : prepared.headers()) {
        builder.header(header[0], header[1]);
      }
    } catch (IllegalArgumentException e) {
      throw CallError.of(ErrorCode.INVALID_INPUT, "header refused: " + e.getMessage());
    }
    builder.method(
        prepared.method(),
        prepared
            .body()
            .map(HttpRequest.BodyPublishers::ofByteArray)
            .orElseGet(HttpRequest.BodyPublishers::noBody));
    return builder.build();
  }

  private Prepared build(JsonNode input, OperationContext context, boolean stream) {
    JsonNode in = input == null ? JsonNodeFactory.instance.objectNode() : input;
    StringBuilder path = new StringBuilder();
    StringBuilder query = new StringBuilder();
    List<String[]> headers = new ArrayList<>();
    List<String> cookies = new ArrayList<>();
    config.headers().forEach((name, value) -> headers.add(new String[] {name, value}));
    expandPath(in, path);
    for (Param param : params) {
      JsonNode value = in.get(param.name());
      if (value == null || value.isNull() || param.in().equals("path")) {
        continue;
      }
      switch (param.in()) {
        case "query" -> ParamStyles.query(param, value, query);
        case "header" -> {
          String text = ParamStyles.simple(value, param.explode());
          checkHeaderValue("header parameter " + param.name(), text);
          headers.add(new String[] {param.name(), text});
        }
        case "cookie" -> {
          String text = ParamStyles.simple(value, param.explode());
          checkHeaderValue("cookie parameter " + param.name(), text);
          cookies.add(param.name() + "=" + UriEncoding.component(text));
        }
        default -> {}
      }
    }
    if (!cookies.isEmpty()) {
      headers.add(new String[] {"Cookie", String.join("; ", cookies)});
    }
    config.auth().ifPresent(auth -> applyAuth(auth, headers, query));
    // W3C trace context from the call's metadata (a tracing interceptor puts the call's span
    // there), so the upstream continues the trace; a header parameter of the same name wins.
    // CallMetadata refuses control characters, so the values cannot split a header.
    for (String name : new String[] {"traceparent", "tracestate"}) {
      Optional<String> value = context.metadata().get(name);
      if (value.isPresent()
          && headers.stream().noneMatch(header -> header[0].equalsIgnoreCase(name))) {
        headers.add(new String[] {name, value.get()});
      }
    }
    String base = baseUrl.require(operationId).toString();
    if (base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    String uri = base + path + (query.length() == 0 ? "" : "?" + query);
    URI target;
    try {
      target = new URI(uri);
    } catch (java.net.URISyntaxException e) {
      throw CallError.of(ErrorCode.INVALID_INPUT, "request URI is not valid: " + e.getMessage());
    }
    if (target.getHost() == null) {
      throw CallError.of(ErrorCode.INVALID_INPUT, "request URI has no host: " + uri);
    }
    try {
      for (String[] header : headers) {
        checkHeaderName(header[0]);
      }
    } catch (IllegalArgumentException e) {
      throw CallError.of(ErrorCode.INVALID_INPUT, "header refused: " + e.getMessage());
    }
    if (stream) {
      headers.add(new String[] {"Accept", "text/event-stream"});
    }
    JsonNode body = in.get("body");
    if (!bodyMediaType.isEmpty() && body != null && !body.isMissingNode()) {
      byte[] bytes;
      String contentType = isJson(bodyMediaType) ? "application/json" : bodyMediaType;
      if (FormBodies.isForm(bodyMediaType)) {
        FormBodies.Encoded form = FormBodies.encode(bodyMediaType, body, formFields);
        bytes = form.bytes();
        contentType = form.contentType();
      } else if (body.isString() && !isJson(bodyMediaType)) {
        bytes = body.asString().getBytes(StandardCharsets.UTF_8);
      } else {
        bytes = JSON.writeValueAsBytes(body);
      }
      headers.add(new String[] {"Content-Type", contentType});
      return new Prepared(method, target, headers, Optional.of(bytes));
    }
    return new Prepared(method, target, headers, Optional.empty());
  }

  private void expandPath(JsonNode in, StringBuilder path) {
    int i = 0;
    while (i < pathTemplate.length()) {
      int open = pathTemplate.indexOf('{', i);
      if (open < 0) {
        path.append(pathTemplate, i, pathTemplate.length());
        break;
      }
      int close = pathTemplate.indexOf('}', open);
      if (close < 0) {
        path.append(pathTemplate, i, pathTemplate.length());
        break;
      }
      path.append(pathTemplate, i, open);
      String name = pathTemplate.substring(open + 1, close);
      JsonNode value = in.get(name);
      if (value == null || value.isNull() || value.isMissingNode()) {
        throw CallError.of(ErrorCode.INVALID_INPUT, "path parameter '" + name + "' is missing");
      }
      String text = ParamStyles.simple(value, false);
      if (text.isEmpty()) {
        throw CallError.of(ErrorCode.INVALID_INPUT, "path parameter '" + name + "' is empty");
      }
      path.append(UriEncoding.segment(text));
      i = close + 1;
    }
  }

  private static void applyAuth(HttpAuth auth, List<String[]> headers, StringBuilder query) {
    if (auth instanceof HttpAuth.Bearer b) {
      headers.add(new String[] {"Authorization", "Bearer " + b.token()});
    } else if (auth instanceof HttpAuth.Basic b) {
      String pair = b.user() + ":" + b.password();
      headers.add(
          new String[] {
            "Authorization",
            "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8))
          });
    } else if (auth instanceof HttpAuth.ApiKey k) {
      if (k.in() == HttpAuth.ApiKeyIn.HEADER) {
        headers.add(new String[] {k.name(), k.value()});
      } else {
        ParamStyles.append(
            query, UriEncoding.component(k.name()), UriEncoding.component(k.value()));
      }
    }
  }

  static void checkHeaderValue(String what, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\r' || c == '\n' || c == 0) {
        throw CallError.of(ErrorCode.INVALID_INPUT, what + " contains CR, LF or NUL");
      }
    }
  }

  private Duration timeout(OperationContext context) {
    Duration timeout = config.timeout();
    if (context.deadline().isPresent()) {
      Duration remaining = context.deadline().get().remaining();
      if (remaining.compareTo(timeout) < 0) {
        timeout = remaining.isNegative() || remaining.isZero() ? Duration.ofMillis(1) : remaining;
      }
    }
    return timeout;
  }

  private void send(
      Prepared request, OperationContext context, CompletableFuture<Object> result, int hopsLeft) {
    // Both clients bound the whole exchange, body included, by this: the JDK request's own timeout
    // covers only the headers, so a server that then sends one byte a second would keep the call.
    Duration whole = timeout(context);
    CompletableFuture<Reply> exchange =
        jetty.isPresent() ? sendJetty(jetty.get(), request, whole) : sendJdk(request, whole);
    // Cancelling the call, or its deadline, fails the result and cancels the exchange.
    context
        .bind(exchange)
        .whenComplete(
            (response, error) -> {
              if (result.isDone()) {
                return;
              }
              try {
                if (error != null) {
                  result.completeExceptionally(mapError(error, request, whole));
                } else if (REDIRECTS.contains(response.status())
                    && response.header("location").isPresent()) {
                  redirect(request, response, context, result, hopsLeft);
                } else {
                  result.complete(toResult(response));
                }
              } catch (RuntimeException e) {
                result.completeExceptionally(e);
              }
            });
  }

  /** Thrown (as a cause) when the whole exchange took longer than its timeout. */
  private static final class ExchangeTimeout extends RuntimeException {
    ExchangeTimeout() {
      super("no complete response in time", null, false, false);
    }
  }

  /**
   * The exchange on Jetty's client: its total timeout covers the whole exchange, the body is read
   * here under the cap, and cancelling the returned future aborts the exchange.
   */
  private CompletableFuture<Reply> sendJetty(JettyClient jetty, Prepared prepared, Duration whole) {
    org.eclipse.jetty.client.Request request =
        jetty
            .get()
            .newRequest(prepared.uri())
            .method(prepared.method())
            .timeout(Math.max(1, whole.toMillis()), TimeUnit.MILLISECONDS);
    request.headers(
        fields -> {
          for (String[] header : prepared.headers()) {
            fields.add(header[0], header[1]);
          }
        });
    prepared
        .body()
        .ifPresent(bytes -> request.body(new org.eclipse.jetty.client.BytesRequestContent(bytes)));
    CompletableFuture<Reply> exchange = new CompletableFuture<>();
    exchange.whenComplete(
        (reply, error) -> {
          if (error instanceof CancellationException) {
            request.abort(error);
          }
        });
    request.send(new BoundedBody.JettyListener(config.maxResponseBytes(), exchange));
    return exchange;
  }

  /** The exchange on a JDK client the user gave; cancelling its future aborts it. */
  private CompletableFuture<Reply> sendJdk(Prepared prepared, Duration whole) {
    HttpRequest request = toJdk(prepared, whole);
    CompletableFuture<HttpResponse<byte[]>> sent =
        client.get().sendAsync(request, BoundedBody.handler(config.maxResponseBytes()));
    CompletableFuture<Reply> exchange = new CompletableFuture<>();
    CompletableFuture<Void> timer =
        new CompletableFuture<Void>().orTimeout(whole.toNanos(), TimeUnit.NANOSECONDS);
    timer.whenComplete(
        (ignored, late) -> {
          if (late != null && !sent.isDone()) {
            // Ours first, so the call fails as timed out, not as cancelled; then the JDK's
            // future is cancelled, which aborts its I/O.
            exchange.completeExceptionally(new ExchangeTimeout());
            sent.cancel(true);
          }
        });
    exchange.whenComplete(
        (reply, error) -> {
          timer.complete(null); // drops the timer
          if (error instanceof CancellationException) {
            sent.cancel(true);
          }
        });
    sent.whenComplete(
        (response, error) -> {
          if (error != null) {
            exchange.completeExceptionally(error);
          } else {
            String contentType = response.headers().firstValue("content-type").orElse("");
            exchange.complete(
                new Reply(
                    response.statusCode(),
                    BoundedBody.lowerCaseNames(response.headers().map()),
                    contentType,
                    response.body()));
          }
        });
    return exchange;
  }

  private void redirect(
      Prepared request,
      Reply response,
      OperationContext context,
      CompletableFuture<Object> result,
      int hopsLeft) {
    String location = response.header("location").orElseThrow();
    URI target;
    try {
      target = request.uri().resolve(new URI(location));
    } catch (java.net.URISyntaxException | IllegalArgumentException e) {
      throw redirectError(response, location, "its Location is not a valid URI");
    }
    if (!sameOrigin(request.uri(), target)) {
      // Credentials (Authorization, API key, cookies) must not reach another origin: not followed.
      throw redirectError(response, location, "it leads to another origin");
    }
    if (hopsLeft <= 0) {
      throw redirectError(response, location, "too many redirects");
    }
    context.throwIfDone();
    Prepared next = new Prepared(request.method(), target, request.headers(), request.body());
    if (response.status() == 303
        || ((response.status() == 301 || response.status() == 302)
            && request.method().equals("POST"))) {
      // The body goes, and with it the header that described it.
      List<String[]> headers =
          request.headers().stream()
              .filter(header -> !header[0].equalsIgnoreCase("Content-Type"))
              .toList();
      next = new Prepared("GET", target, headers, Optional.empty());
    }
    send(next, context, result, hopsLeft - 1);
  }

  private CallError redirectError(Reply response, String location, String why) {
    ObjectNode details = JsonNodeFactory.instance.objectNode();
    details.put("status", response.status());
    details.put("location", location);
    return CallError.builder(
            ErrorCode.EXECUTION_ERROR,
            operationId + ": redirect (HTTP " + response.status() + ") not followed: " + why)
        .details(details)
        .build();
  }

  static boolean sameOrigin(URI a, URI b) {
    return a.getScheme() != null
        && a.getScheme().equalsIgnoreCase(Objects.requireNonNullElse(b.getScheme(), ""))
        && a.getHost() != null
        && a.getHost().equalsIgnoreCase(Objects.requireNonNullElse(b.getHost(), ""))
        && port(a) == port(b);
  }

  private static int port(URI uri) {
    if (uri.getPort() >= 0) {
      return uri.getPort();
    }
    return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
  }

  /** The call's own error (its cancellation, its deadline), else what the exchange's means. */
  private CallError mapError(Throwable error, Prepared request, Duration whole) {
    return CallError.from(
        error,
        cause -> {
          if (cause instanceof ExchangeTimeout
              || cause instanceof java.util.concurrent.TimeoutException) {
            return CallError.of(
                ErrorCode.DEADLINE_EXCEEDED,
                operationId
                    + ": no complete response within "
                    + whole.toMillis()
                    + " ms: "
                    + request.uri(),
                cause);
          }
          if (cause instanceof HttpTimeoutException) {
            return CallError.of(
                ErrorCode.DEADLINE_EXCEEDED,
                operationId + ": HTTP request timed out: " + request.uri(),
                cause);
          }
          if (cause instanceof CancellationException) {
            return CallError.of(
                ErrorCode.CANCELLED, operationId + ": HTTP request cancelled", cause);
          }
          return CallError.of(
              ErrorCode.UNAVAILABLE, operationId + ": HTTP request failed: " + cause, cause);
        });
  }

  private Object toResult(Reply response) {
    int status = response.status();
    String contentType = response.contentType();
    byte[] bytes = response.body();
    if (status < 200 || status > 299) {
      ObjectNode details = JsonNodeFactory.instance.objectNode();
      details.put("status", status);
      details.put("contentType", contentType);
      String text = new String(bytes, StandardCharsets.UTF_8);
      details.put(
          "body",
          text.length() > ERROR_EXCERPT_CHARS ? text.substring(0, ERROR_EXCERPT_CHARS) : text);
      details.put("truncated", text.length() > ERROR_EXCERPT_CHARS);
      return failWith(
          CallError.builder(ErrorCode.EXECUTION_ERROR, operationId + ": HTTP " + status)
              .details(details)
              .build());
    }
    Object data = parseBody(bytes, contentType);
    Map<String, List<String>> headerValues = response.headers();
    return Envelopes.httpEnvelope(
        data, HttpResponseMeta.ofHeaderValues(status, headerValues, contentType));
  }

  private static Object failWith(CallError error) {
    throw error;
  }

  private Object parseBody(byte[] bytes, String contentType) {
    String media = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    if (bytes.length == 0) {
      return JsonNodeFactory.instance.nullNode();
    }
    if (isJson(media)) {
      try {
        return JSON.readTree(bytes);
      } catch (tools.jackson.core.exc.StreamConstraintsException e) {
        // Valid JSON, perhaps, but past what we read: say which limit, not "not valid JSON".
        throw CallError.builder(
                ErrorCode.RESOURCE_EXHAUSTED,
                operationId
                    + ": the response is past a JSON reading limit: "
                    + e.getOriginalMessage())
            .retryable(false)
            .cause(e)
            .build();
      } catch (JacksonException e) {
        throw CallError.of(
            ErrorCode.EXECUTION_ERROR,
            operationId + ": response says " + media + " but is not valid JSON",
            e);
      }
    }
    if (media.startsWith("text/")) {
      return new String(bytes, charset(contentType));
    }
    return bytes;
  }

  private static java.nio.charset.Charset charset(String contentType) {
    for (String part : contentType.split(";")) {
      String p = part.trim();
      if (p.toLowerCase(Locale.ROOT).startsWith("charset=")) {
        try {
          return java.nio.charset.Charset.forName(p.substring(8).replace("\"", "").trim());
        } catch (RuntimeException e) {
          return StandardCharsets.UTF_8;
        }
      }
    }
    return StandardCharsets.UTF_8;
  }

  static boolean isJson(String media) {
    String m = media.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    return m.equals("application/json") || m.endsWith("+json");
  }
}
