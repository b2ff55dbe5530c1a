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
  private final Supplier<HttpClient> client;
  private final EventStreamOpener events;

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
      EventStreamOpener events) {
    this.operationId = operationId;
    this.method = method.toUpperCase(Locale.ROOT);
    this.pathTemplate = pathTemplate;
    this.params = List.copyOf(params);
    this.bodyMediaType = bodyMediaType;
    this.formFields = Map.copyOf(formFields);
    this.config = config;
    this.baseUrl = baseUrl;
    this.client = client;
    this.events = events;
  }

  /** The AsyncOperationHandler body. */
  public CompletionStage<?> call(JsonNode input, OperationContext context) {
    HttpRequest request;
    try {
      context.throwIfDone();
      request = build(input, context, false).build();
    } catch (CallError e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<Object> result = new CompletableFuture<>();
    send(request, context, result, config.maxRedirects());
    return result;
  }

  /** The SubscriptionHandler body: the request is handed to the SSE seam. */
  public Flow.Publisher<?> subscribe(JsonNode input, OperationContext context) {
    context.throwIfDone();
    HttpRequest request = build(input, context, true).build();
    return events.open(client.get(), request, context, config.maxResponseBytes());
  }

  private HttpRequest.Builder build(JsonNode input, OperationContext context, boolean stream) {
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
    HttpRequest.Builder builder;
    try {
      builder = HttpRequest.newBuilder(new URI(uri));
    } catch (java.net.URISyntaxException | IllegalArgumentException e) {
      throw CallError.of(ErrorCode.INVALID_INPUT, "request URI is not valid: " + e.getMessage());
    }
    builder.timeout(timeout(context));
    try {
      for (String[] header : headers) {
        builder.header(header[0], header[1]);
      }
      if (stream) {
        builder.header("Accept", "text/event-stream");
      }
    } catch (IllegalArgumentException e) {
      throw CallError.of(ErrorCode.INVALID_INPUT, "header refused: " + e.getMessage());
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
      builder.header("Content-Type", contentType);
      builder.method(method, HttpRequest.BodyPublishers.ofByteArray(bytes));
    } else {
      builder.method(method, HttpRequest.BodyPublishers.noBody());
    }
    return builder;
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
      HttpRequest request,
      OperationContext context,
      CompletableFuture<Object> result,
      int hopsLeft) {
    CompletableFuture<HttpResponse<byte[]>> exchange =
        client.get().sendAsync(request, BoundedBody.handler(config.maxResponseBytes()));
    // The request's own timeout covers only the response headers: a server that then sends one
    // byte a second would keep the call for as long as it likes. This bounds the whole exchange,
    // body included, and cancelling the JDK's future aborts it.
    Duration whole = timeout(context);
    java.util.concurrent.atomic.AtomicBoolean timedOut =
        new java.util.concurrent.atomic.AtomicBoolean();
    CompletableFuture<Void> timer =
        new CompletableFuture<Void>().orTimeout(whole.toNanos(), TimeUnit.NANOSECONDS);
    timer.whenComplete(
        (ignored, late) -> {
          if (late != null && !exchange.isDone()) {
            timedOut.set(true);
            exchange.cancel(true); // cancel first: completing it first would not abort the I/O
          }
        });
    exchange.whenComplete((response, error) -> timer.complete(null)); // drops the timer
    // Cancelling the call, or its deadline, fails the result and cancels the exchange.
    context
        .bind(exchange)
        .whenComplete(
            (response, error) -> {
              if (result.isDone()) {
                return;
              }
              try {
                if (error != null && timedOut.get()) {
                  result.completeExceptionally(
                      CallError.of(
                          ErrorCode.DEADLINE_EXCEEDED,
                          operationId
                              + ": no complete response within "
                              + whole.toMillis()
                              + " ms: "
                              + request.uri(),
                          error));
                } else if (error != null) {
                  result.completeExceptionally(mapError(error, request));
                } else if (REDIRECTS.contains(response.statusCode())
                    && response.headers().firstValue("location").isPresent()) {
                  redirect(request, response, context, result, hopsLeft);
                } else {
                  result.complete(toResult(response));
                }
              } catch (RuntimeException e) {
                result.completeExceptionally(e);
              }
            });
  }

  private void redirect(
      HttpRequest request,
      HttpResponse<byte[]> response,
      OperationContext context,
      CompletableFuture<Object> result,
      int hopsLeft) {
    String location = response.headers().firstValue("location").orElseThrow();
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
    HttpRequest.Builder next = HttpRequest.newBuilder(request, (name, value) -> true).uri(target);
    next.timeout(timeout(context));
    if (response.statusCode() == 303
        || ((response.statusCode() == 301 || response.statusCode() == 302)
            && request.method().equals("POST"))) {
      next.method("GET", HttpRequest.BodyPublishers.noBody());
    }
    send(next.build(), context, result, hopsLeft - 1);
  }

  private CallError redirectError(HttpResponse<byte[]> response, String location, String why) {
    ObjectNode details = JsonNodeFactory.instance.objectNode();
    details.put("status", response.statusCode());
    details.put("location", location);
    return CallError.builder(
            ErrorCode.EXECUTION_ERROR,
            operationId + ": redirect (HTTP " + response.statusCode() + ") not followed: " + why)
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
  private CallError mapError(Throwable error, HttpRequest request) {
    return CallError.from(
        error,
        cause -> {
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

  private Object toResult(HttpResponse<byte[]> response) {
    int status = response.statusCode();
    String contentType = response.headers().firstValue("content-type").orElse("");
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
    Map<String, List<String>> headerValues = response.headers().map();
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
