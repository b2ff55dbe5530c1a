package dev.alkdev.operations.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.AsyncOperationHandler;
import dev.alkdev.operations.CallError;
import dev.alkdev.operations.Cancellation;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationDefinition;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.envelope.HttpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

@Timeout(30)
class HttpCallTest {
  static final String DOC =
      """
      openapi: 3.1.0
      info: {title: calls, version: '1'}
      servers: [{url: 'http://unused.invalid'}]
      paths:
        /items/{id}:
          get:
            operationId: getItem
            parameters:
              - {name: id, in: path, required: true, schema: {type: string}}
              - {name: q, in: query, schema: {type: string}}
              - {name: tags, in: query, schema: {type: array, items: {type: string}}}
              - {name: flat, in: query, explode: false, schema: {type: array, items: {type: string}}}
              - {name: obj, in: query, schema: {type: object}}
              - {name: objflat, in: query, explode: false, schema: {type: object}}
              - {name: spaced, in: query, style: spaceDelimited, explode: false, schema: {type: array}}
              - {name: piped, in: query, style: pipeDelimited, explode: false, schema: {type: array}}
              - {name: deep, in: query, style: deepObject, schema: {type: object}}
              - {name: X-Trace, in: header, schema: {type: string}}
              - {name: X-List, in: header, schema: {type: array}}
              - {name: session, in: cookie, schema: {type: string}}
            responses:
              '200': {description: ok, content: {application/json: {schema: {}}}}
        /items:
          post:
            operationId: createItem
            requestBody:
              required: true
              content: {application/json: {schema: {type: object}}}
            responses:
              '201': {description: created}
        /text:
          get: {operationId: text, responses: {'200': {description: t}}}
        /bin:
          get: {operationId: bin, responses: {'200': {description: b}}}
        /empty:
          delete: {operationId: empty, responses: {'204': {description: e}}}
        /cookies:
          get: {operationId: cookies, responses: {'200': {description: c}}}
        /fail:
          get: {operationId: fail, responses: {'200': {description: f}}}
        /big:
          get: {operationId: big, responses: {'200': {description: big}}}
        /slow:
          get: {operationId: slow, responses: {'200': {description: slow}}}
        /trickle:
          get: {operationId: trickle, responses: {'200': {description: one byte a second}}}
        /deep:
          get: {operationId: deep, responses: {'200': {description: nested 100k deep}}}
        /redirect/same:
          get: {operationId: redirectSame, responses: {'200': {description: r}}}
        /redirect/other:
          get: {operationId: redirectOther, responses: {'200': {description: r}}}
        /redirect/loop:
          get: {operationId: redirectLoop, responses: {'200': {description: r}}}
        /events:
          get:
            operationId: events
            responses: {'200': {description: e, content: {text/event-stream: {}}}}
      """;

  RecordingServer server;
  RecordingServer other;
  CountDownLatch slowRelease = new CountDownLatch(1);

  @BeforeEach
  void start() throws Exception {
    server = new RecordingServer();
    other = new RecordingServer();
    server.on(
        "/text",
        ex ->
            RecordingServer.send(
                ex, 200, "text/plain; charset=utf-8", "héllo".getBytes(StandardCharsets.UTF_8)));
    server.on(
        "/bin",
        ex ->
            RecordingServer.send(
                ex, 200, "application/octet-stream", new byte[] {0, 1, 2, (byte) 255}));
    server.on("/empty", ex -> RecordingServer.send(ex, 204, null, new byte[0]));
    server.on(
        "/cookies",
        ex -> {
          ex.getResponseHeaders().add("Set-Cookie", "a=1; Path=/");
          ex.getResponseHeaders().add("Set-Cookie", "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT");
          RecordingServer.json(ex, 200, "{}");
        });
    server.on(
        "/fail", ex -> RecordingServer.json(ex, 418, "{\"error\":\"" + "x".repeat(5000) + "\"}"));
    server.on(
        "/big", ex -> RecordingServer.send(ex, 200, "application/octet-stream", new byte[10_000]));
    server.on(
        "/slow",
        ex -> {
          try {
            slowRelease.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          RecordingServer.json(ex, 200, "{}");
        });
    server.on(
        "/trickle",
        ex -> {
          // Headers at once, then the body one byte a second: the JDK client's own timeout
          // covers only the headers.
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(200, 100);
          try (var body = ex.getResponseBody()) {
            for (int i = 0; i < 100 && slowRelease.getCount() > 0; i++) {
              body.write(' ');
              body.flush();
              slowRelease.await(1, TimeUnit.SECONDS);
            }
          } catch (InterruptedException | IOException e) {
            // The client gave up.
          }
        });
    server.on(
        "/deep", ex -> RecordingServer.json(ex, 200, "[".repeat(100_000) + "]".repeat(100_000)));
    server.on(
        "/redirect/same",
        ex -> {
          ex.getResponseHeaders().set("Location", "/text");
          RecordingServer.send(ex, 302, null, new byte[0]);
        });
    server.on(
        "/redirect/other",
        ex -> {
          ex.getResponseHeaders().set("Location", other.base() + "/steal");
          RecordingServer.send(ex, 307, null, new byte[0]);
        });
    server.on(
        "/redirect/loop",
        ex -> {
          ex.getResponseHeaders().set("Location", "/redirect/loop");
          RecordingServer.send(ex, 302, null, new byte[0]);
        });
  }

  @AfterEach
  void stop() {
    slowRelease.countDown();
    server.close();
    other.close();
  }

  Map<String, OperationDefinition> ops(HttpServiceConfig.Builder config) {
    return OpenApiImportTest.byName(
        FromOpenApi.fromString(DOC, config.baseUrl(server.base() + "/").build()));
  }

  Map<String, OperationDefinition> ops() {
    return ops(
        HttpServiceConfig.builder("t").maxResponseBytes(1000).timeout(Duration.ofSeconds(10)));
  }

  static CompletableFuture<?> start(
      OperationDefinition op, String input, OperationContext context) {
    AsyncOperationHandler handler = (AsyncOperationHandler) op.handler().function();
    return handler.handle(OpenApiImportTest.json(input), context).toCompletableFuture();
  }

  @SuppressWarnings("unchecked")
  static ResponseEnvelope<Object> call(OperationDefinition op, String input) throws Exception {
    return (ResponseEnvelope<Object>)
        start(op, input, OperationContext.create()).get(10, TimeUnit.SECONDS);
  }

  static CallError failure(OperationDefinition op, String input, OperationContext context) {
    try {
      start(op, input, context).get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(CallError.class);
      return (CallError) e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("call succeeded");
  }

  @Test
  void pathParametersAreOneEncodedSegment() throws Exception {
    var get = ops().get("getItem");
    Map<String, String> cases =
        Map.of(
            "..", "/items/%2E%2E",
            ".", "/items/%2E",
            "../../admin", "/items/..%2F..%2Fadmin",
            "a/b", "/items/a%2Fb",
            "a?x=1", "/items/a%3Fx%3D1",
            "a#f", "/items/a%23f",
            "%2e%2e", "/items/%252e%252e",
            "a\\r\\nHost: x", "/items/a%0D%0AHost%3A%20x",
            "é 日", "/items/%C3%A9%20%E6%97%A5");
    for (Map.Entry<String, String> c : cases.entrySet()) {
      call(get, "{\"id\":\"" + c.getKey() + "\"}");
      assertThat(server.last().rawPath()).as(c.getKey()).isEqualTo(c.getValue());
      assertThat(server.last().rawQuery()).isNull();
    }
  }

  @Test
  void queryStyles() throws Exception {
    var get = ops().get("getItem");
    call(
        get,
        """
        {"id":"1","q":"a b&c=d","tags":["x","y z"],"flat":["p","q"],"obj":{"k":"v","n":1},
         "objflat":{"k":"v"},"spaced":["a","b"],"piped":["a","b"],"deep":{"color":"red","size":2}}
        """);
    assertThat(server.last().rawQuery())
        .isEqualTo(
            "q=a%20b%26c%3Dd&tags=x&tags=y%20z&flat=p,q&k=v&n=1&objflat=k,v&spaced=a%20b"
                + "&piped=a%7Cb&deep%5Bcolor%5D=red&deep%5Bsize%5D=2");
  }

  @Test
  void theCallsTraceContextIsSentAsW3cHeaders() throws Exception {
    var get = ops().get("getItem");
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    OperationContext traced =
        OperationContext.builder()
            .metadata(
                dev.alkdev.operations.CallMetadata.of(
                    Map.of("traceparent", traceparent, "tracestate", "k=v", "other", "x")))
            .build();
    start(get, "{\"id\":\"1\"}", traced).get(10, TimeUnit.SECONDS);
    assertThat(server.last().header("traceparent")).isEqualTo(traceparent);
    assertThat(server.last().header("tracestate")).isEqualTo("k=v");
    assertThat(server.last().header("other")).isNull(); // only the trace context crosses
    call(get, "{\"id\":\"1\"}");
    assertThat(server.last().header("traceparent")).isNull();
  }

  @Test
  void headerAndCookieParameters() throws Exception {
    var get = ops().get("getItem");
    call(get, "{\"id\":\"1\",\"X-Trace\":\"abc\",\"X-List\":[1,2],\"session\":\"s 1\"}");
    assertThat(server.last().header("X-Trace")).isEqualTo("abc");
    assertThat(server.last().header("X-List")).isEqualTo("1,2");
    assertThat(server.last().header("Cookie")).isEqualTo("session=s%201");
  }

  @Test
  void crLfAndNulInHeadersAreRefusedBeforeSending() {
    var get = ops().get("getItem");
    int before = server.requests.size();
    for (String bad : List.of("a\\r\\nX-Evil: 1", "a\\nb", "a\\u0000b")) {
      CallError e =
          failure(get, "{\"id\":\"1\",\"X-Trace\":\"" + bad + "\"}", OperationContext.create());
      assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT);
      e = failure(get, "{\"id\":\"1\",\"session\":\"" + bad + "\"}", OperationContext.create());
      assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT);
    }
    assertThat(server.requests.size()).isEqualTo(before);
    assertThatThrownBy(() -> HttpServiceConfig.builder("t").header("X", "a\r\nb").build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> HttpServiceConfig.builder("t").auth(HttpAuth.bearer("t\nX: y")).build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void authModesAndDefaultHeaders() throws Exception {
    call(
        ops(HttpServiceConfig.builder("t").auth(HttpAuth.bearer("tok")).header("X-App", "1"))
            .get("text"),
        "{}");
    assertThat(server.last().header("Authorization")).isEqualTo("Bearer tok");
    assertThat(server.last().header("X-App")).isEqualTo("1");
    call(ops(HttpServiceConfig.builder("t").auth(HttpAuth.basic("u", "p w"))).get("text"), "{}");
    assertThat(server.last().header("Authorization"))
        .isEqualTo(
            "Basic "
                + Base64.getEncoder().encodeToString("u:p w".getBytes(StandardCharsets.UTF_8)));
    call(
        ops(HttpServiceConfig.builder("t")
                .auth(HttpAuth.apiKey("X-Key", HttpAuth.ApiKeyIn.HEADER, "k1")))
            .get("text"),
        "{}");
    assertThat(server.last().header("X-Key")).isEqualTo("k1");
    call(
        ops(HttpServiceConfig.builder("t")
                .auth(HttpAuth.apiKey("api key", HttpAuth.ApiKeyIn.QUERY, "k&2")))
            .get("text"),
        "{}");
    assertThat(server.last().rawQuery()).isEqualTo("api%20key=k%262");
  }

  @Test
  void jsonBodyAndJsonResponse() throws Exception {
    var env = call(ops().get("createItem"), "{\"body\":{\"name\":\"x\",\"n\":[1,2]}}");
    assertThat(server.last().method()).isEqualTo("POST");
    assertThat(server.last().header("Content-Type")).isEqualTo("application/json");
    assertThat(OpenApiImportTest.json(server.last().bodyText()))
        .isEqualTo(OpenApiImportTest.json("{\"name\":\"x\",\"n\":[1,2]}"));
    assertThat(env.data()).isEqualTo(OpenApiImportTest.json("{\"ok\":true}"));
    HttpResponseMeta meta = (HttpResponseMeta) env.meta();
    assertThat(meta.statusCode()).isEqualTo(200);
    assertThat(meta.contentType()).isEqualTo("application/json");
  }

  @Test
  void textBinaryAndEmptyResponses() throws Exception {
    assertThat(call(ops().get("text"), "{}").data()).isEqualTo("héllo");
    assertThat((byte[]) call(ops().get("bin"), "{}").data()).containsExactly(0, 1, 2, 255);
    var empty = call(ops().get("empty"), "{}");
    assertThat(((JsonNode) empty.data()).isNull()).isTrue();
    assertThat(((HttpResponseMeta) empty.meta()).statusCode()).isEqualTo(204);
    assertThat(server.last().method()).isEqualTo("DELETE");
  }

  @Test
  void repeatedHeadersKeepEveryValue() throws Exception {
    HttpResponseMeta meta = (HttpResponseMeta) call(ops().get("cookies"), "{}").meta();
    assertThat(meta.headerValues("set-cookie"))
        .containsExactly("a=1; Path=/", "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT");
  }

  @Test
  void non2xxIsExecutionErrorWithBoundedExcerpt() {
    CallError e =
        failure(ops(HttpServiceConfig.builder("t")).get("fail"), "{}", OperationContext.create());
    assertThat(e.code()).isEqualTo(ErrorCode.EXECUTION_ERROR);
    JsonNode details = e.details().orElseThrow();
    assertThat(details.get("status").asInt()).isEqualTo(418);
    assertThat(details.get("body").asString()).hasSize(1024).startsWith("{\"error\":\"xxx");
    assertThat(details.get("truncated").asBoolean()).isTrue();
  }

  @Test
  void oversizedBodyIsRefused() {
    CallError e = failure(ops().get("big"), "{}", OperationContext.create());
    assertThat(e.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
  }

  @Test
  void sameOriginRedirectIsFollowedCrossOriginIsNot() throws Exception {
    var bearer = ops(HttpServiceConfig.builder("t").auth(HttpAuth.bearer("secret")));
    assertThat(call(bearer.get("redirectSame"), "{}").data()).isEqualTo("héllo");
    assertThat(server.last().rawPath()).isEqualTo("/text");
    assertThat(server.last().header("Authorization")).isEqualTo("Bearer secret");

    CallError e = failure(bearer.get("redirectOther"), "{}", OperationContext.create());
    assertThat(e.code()).isEqualTo(ErrorCode.EXECUTION_ERROR);
    assertThat(e.getMessage()).contains("another origin");
    assertThat(other.requests).isEmpty();

    CallError loop = failure(bearer.get("redirectLoop"), "{}", OperationContext.create());
    assertThat(loop.getMessage()).contains("too many redirects");
  }

  @Test
  void deadlineBecomesRequestTimeout() {
    var context = OperationContext.builder().timeout(Duration.ofMillis(300)).build();
    long start = System.nanoTime();
    CallError e = failure(ops().get("slow"), "{}", context);
    assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void theTimeoutBoundsTheWholeExchangeNotOnlyTheHeaders() {
    Map<String, OperationDefinition> ops =
        ops(HttpServiceConfig.builder("t").timeout(Duration.ofSeconds(1)));
    long start = System.nanoTime();
    CallError e = failure(ops.get("trickle"), "{}", OperationContext.create());
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
    assertThat(e.getMessage()).contains("no complete response within 1000 ms");
    assertThat(took).isLessThan(Duration.ofSeconds(4));
  }

  @Test
  void anAnswerNestedTooDeepSaysSoInsteadOfNotValidJson() {
    CallError e =
        failure(
            ops(HttpServiceConfig.builder("t").timeout(Duration.ofSeconds(10))).get("deep"),
            "{}",
            OperationContext.create());
    assertThat(e.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(e.getMessage()).contains("JSON reading limit").containsIgnoringCase("nesting depth");
    assertThat(e.retryable()).isFalse();
  }

  @Test
  void cancellationCancelsTheRequest() throws Exception {
    Cancellation cancellation = Cancellation.create();
    var context = OperationContext.builder().cancellation(cancellation).build();
    CompletableFuture<?> future = start(ops().get("slow"), "{}", context);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (server.requests.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    cancellation.cancel(CallError.of(ErrorCode.CANCELLED, "stop"));
    assertThatThrownBy(() -> future.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(CallError.class)
        .satisfies(
            t -> assertThat(((CallError) t.getCause()).code()).isEqualTo(ErrorCode.CANCELLED));
  }

  @Test
  void worksThroughTheRegistryWithDataAsJson() throws Exception {
    try (OperationRegistry registry = OperationRegistry.create()) {
      FromOpenApi.fromString(DOC, HttpServiceConfig.builder("t").baseUrl(server.base()).build())
          .registerAll(registry);
      var env = registry.execute("t.getItem", Map.of("id", "../x")).get(10, TimeUnit.SECONDS);
      assertThat(env.data()).isEqualTo(OpenApiImportTest.json("{\"ok\":true}"));
      assertThat(server.last().rawPath()).isEqualTo("/items/..%2Fx");
      // the registry validates the input against the imported schema
      assertThatThrownBy(() -> registry.execute("t.getItem", Map.of()).get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(CallError.class);
    }
  }

  @Test
  void aSubscriptionYieldsOneEnvelopePerServerSentEvent() throws Exception {
    server.on(
        "/events",
        ex -> {
          ex.getResponseHeaders().set("Content-Type", "text/event-stream");
          ex.sendResponseHeaders(200, 0);
          try (var body = ex.getResponseBody()) {
            body.write(
                ("event: tick\nid: 1\ndata: {\"n\":1}\n\n"
                        + ": comment\nid: 2\ndata: plain\ndata: text\n\n")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
          }
        });
    var items = new java.util.concurrent.CopyOnWriteArrayList<ResponseEnvelope<JsonNode>>();
    try (OperationRegistry registry = OperationRegistry.create()) {
      FromOpenApi.fromString(DOC, HttpServiceConfig.builder("t").baseUrl(server.base()).build())
          .registerAll(registry);
      subscribeTwo(registry, items);
    }
    assertThat(items).hasSize(2);
    assertThat(items.get(0).data()).isEqualTo(OpenApiImportTest.json("{\"n\":1}"));
    var first = (HttpResponseMeta) items.get(0).meta();
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.event()).hasValueSatisfying(e -> assertThat(e.type()).isEqualTo("tick"));
    assertThat(items.get(1).data().asString()).isEqualTo("plain\ntext");
    assertThat(((HttpResponseMeta) items.get(1).meta()).event().orElseThrow().id()).contains("2");
    assertThat(server.last().header("Accept")).isEqualTo("text/event-stream");
  }

  @Test
  void aStreamItsServerEndsEndsUnlessTheOperationSaysItResumes() throws Exception {
    // A finite stream: two events with ids, then the server ends the response. Asked again with
    // Last-Event-ID, this server answers 204 (WHATWG: stop).
    server.on(
        "/events",
        ex -> {
          if (ex.getRequestHeaders().getFirst("Last-Event-ID") != null) {
            ex.sendResponseHeaders(204, -1);
            return;
          }
          ex.getResponseHeaders().set("Content-Type", "text/event-stream");
          ex.sendResponseHeaders(200, 0);
          try (var body = ex.getResponseBody()) {
            body.write(
                "id: 1\ndata: 1\n\nid: 2\ndata: 2\n\n"
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
          }
        });
    // By default the end of the response is the end of the stream: one request.
    assertThat(allItems(DOC, HttpServiceConfig.builder("t").baseUrl(server.base()).build()))
        .hasSize(2);
    assertThat(server.requests).hasSize(1);
    // Resumed by the operation's own word: a second request, with Last-Event-ID.
    String line =
        DOC.lines().filter(l -> l.endsWith("operationId: events")).findFirst().orElseThrow();
    String indent = line.substring(0, line.indexOf('o'));
    String resumable =
        DOC.replace(line + "\n", line + "\n" + indent + "x-ops-sse-reconnect: true\n");
    assertThat(allItems(resumable, HttpServiceConfig.builder("t").baseUrl(server.base()).build()))
        .hasSize(2);
    assertThat(server.requests).hasSize(3);
    assertThat(server.last().header("Last-Event-ID")).isEqualTo("2");
    // And by the config's, for every operation of the source.
    assertThat(
            allItems(
                DOC,
                HttpServiceConfig.builder("t")
                    .baseUrl(server.base())
                    .sseReconnectOnClose(true)
                    .build()))
        .hasSize(2);
    assertThat(server.requests).hasSize(5);
  }

  /** Every item of t.events until the stream completes (within 10 s). */
  private static List<ResponseEnvelope<JsonNode>> allItems(String doc, HttpServiceConfig config)
      throws Exception {
    var items = new java.util.concurrent.CopyOnWriteArrayList<ResponseEnvelope<JsonNode>>();
    var done = new CompletableFuture<Void>();
    try (OperationRegistry registry = OperationRegistry.create()) {
      FromOpenApi.fromString(doc, config).registerAll(registry);
      registry
          .subscribe("t.events", Map.of(), OperationContext.create())
          .subscribe(
              new java.util.concurrent.Flow.Subscriber<ResponseEnvelope<JsonNode>>() {
                public void onSubscribe(java.util.concurrent.Flow.Subscription s) {
                  s.request(Long.MAX_VALUE);
                }

                public void onNext(ResponseEnvelope<JsonNode> item) {
                  items.add(item);
                }

                public void onError(Throwable t) {
                  done.completeExceptionally(t);
                }

                public void onComplete() {
                  done.complete(null);
                }
              });
      done.get(10, TimeUnit.SECONDS);
    }
    return items;
  }

  private static void subscribeTwo(
      OperationRegistry registry, List<ResponseEnvelope<JsonNode>> items) throws Exception {
    var done = new CompletableFuture<Void>();
    registry
        .subscribe("t.events", Map.of(), OperationContext.create())
        .subscribe(
            new java.util.concurrent.Flow.Subscriber<ResponseEnvelope<JsonNode>>() {
              java.util.concurrent.Flow.Subscription subscription;

              public void onSubscribe(java.util.concurrent.Flow.Subscription s) {
                subscription = s;
                s.request(1);
              }

              public void onNext(ResponseEnvelope<JsonNode> item) {
                items.add(item);
                if (items.size() == 2) {
                  subscription.cancel();
                  done.complete(null);
                } else {
                  subscription.request(1);
                }
              }

              public void onError(Throwable t) {
                done.completeExceptionally(t);
              }

              public void onComplete() {
                done.complete(null);
              }
            });
    done.get(10, TimeUnit.SECONDS);
  }

  @Test
  void petstoreDocumentsCallTheLoopbackServer() throws Exception {
    server.on("/v1/pets", ex -> RecordingServer.json(ex, 200, "[{\"id\":1,\"name\":\"Rex\"}]"));
    var yaml =
        OpenApiImportTest.byName(
            FromOpenApi.fromFile(
                OpenApiImportTest.PETSTORE_30,
                HttpServiceConfig.builder("pets")
                    .serverVariable("host", "127.0.0.1")
                    .serverVariable("port", String.valueOf(server.port()))
                    .build()));
    var env = call(yaml.get("listPets"), "{\"limit\":5,\"tags\":[\"a\",\"b\"]}");
    assertThat(server.last().target()).isEqualTo("/v1/pets?limit=5&tags=a&tags=b");
    assertThat(yaml.get("listPets").spec().outputSchema().isValid((JsonNode) env.data())).isTrue();
    call(yaml.get("showPetById"), "{\"petId\":\"../admin\"}");
    assertThat(server.last().rawPath()).isEqualTo("/v1/pets/..%2Fadmin");

    var json =
        OpenApiImportTest.byName(
            FromOpenApi.fromFile(
                OpenApiImportTest.PETSTORE_31,
                HttpServiceConfig.builder("pets").baseUrl(server.base() + "/v1").build()));
    call(json.get("createPet"), "{\"body\":{\"name\":\"Rex\"}}");
    assertThat(server.last().method()).isEqualTo("POST");
    assertThat(server.last().bodyText()).isEqualTo("{\"name\":\"Rex\"}");
  }

  @Test
  void restrictedHeadersAndEmptyPathValuesAreInvalidInput() {
    String doc =
        DOC.replace(
            "- {name: X-Trace, in: header, schema: {type: string}}",
            "- {name: X-Trace, in: header, schema: {type: string}}\n"
                + "        - {name: Host, in: header, schema: {type: string}}");
    var get =
        OpenApiImportTest.byName(
                FromOpenApi.fromString(
                    doc, HttpServiceConfig.builder("t").baseUrl(server.base()).build()))
            .get("getItem");
    assertThat(failure(get, "{\"id\":\"1\",\"Host\":\"evil\"}", OperationContext.create()).code())
        .isEqualTo(ErrorCode.INVALID_INPUT);
    assertThat(failure(get, "{\"id\":\"\"}", OperationContext.create()).code())
        .isEqualTo(ErrorCode.INVALID_INPUT);
    assertThat(server.requests).isEmpty();
  }

  @Test
  void framingHeadersAreRefusedAsParameters() {
    // Jetty's client sends what it is given: headers that frame or route the request are refused
    // before sending, whatever the client (the JDK's refused only some of them).
    for (String name : List.of("Transfer-Encoding", "Connection", "TE", "Bad Name")) {
      String doc =
          DOC.replace(
              "- {name: X-Trace, in: header, schema: {type: string}}",
              "- {name: X-Trace, in: header, schema: {type: string}}\n"
                  + "        - {name: '"
                  + name
                  + "', in: header, schema: {type: string}}");
      var get =
          OpenApiImportTest.byName(
                  FromOpenApi.fromString(
                      doc, HttpServiceConfig.builder("t").baseUrl(server.base()).build()))
              .get("getItem");
      CallError e =
          failure(get, "{\"id\":\"1\",\"" + name + "\":\"chunked\"}", OperationContext.create());
      assertThat(e.code()).as(name).isEqualTo(ErrorCode.INVALID_INPUT);
      assertThat(e.getMessage()).as(name).contains("header refused");
    }
    assertThat(server.requests).isEmpty();
  }

  @Test
  void callsCompleteOnJettysClientThreadsNotAThreadPerCall() throws Exception {
    CompletableFuture<?> call = start(ops().get("slow"), "{}", OperationContext.create());
    CompletableFuture<String> completedOn =
        call.handle((result, error) -> Thread.currentThread().getName());
    slowRelease.countDown();
    // The JDK client's sendAsync completed through the common pool (a new thread per task on
    // fewer than three CPUs, D17); Jetty's completes on the thread that read the response.
    assertThat(completedOn.get(10, TimeUnit.SECONDS)).startsWith("ops-openapi-http");
    assertThat(call.get(10, TimeUnit.SECONDS)).isNotNull();
  }

  @Test
  void moreCallsInFlightThanJettysDefaultQueueAllComplete() throws Exception {
    // Jetty's client queues calls past its 64 connections and by default refuses past 1,024.
    var slow = ops().get("slow");
    List<CompletableFuture<?>> calls = new java.util.ArrayList<>();
    for (int i = 0; i < 1_150; i++) { // 64 on connections, the rest queued: over 1,024
      calls.add(start(slow, "{}", OperationContext.create()));
    }
    slowRelease.countDown();
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(25, TimeUnit.SECONDS);
  }

  @Test
  void aJdkClientTheUserGivesIsStillTheOneUsed() throws Exception {
    java.util.concurrent.atomic.AtomicInteger tasks =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newCachedThreadPool();
    try {
      java.net.http.HttpClient own =
          java.net.http.HttpClient.newBuilder()
              .followRedirects(java.net.http.HttpClient.Redirect.NEVER)
              .executor(
                  task -> {
                    tasks.incrementAndGet();
                    pool.execute(task);
                  })
              .build();
      var ops = ops(HttpServiceConfig.builder("t").httpClient(own).maxResponseBytes(1000));
      assertThat(call(ops.get("text"), "{}").data()).isEqualTo("héllo");
      assertThat(tasks.get()).isPositive();
      // Its exchanges keep the same bounds: the body cap and the whole-exchange timeout.
      assertThat(failure(ops.get("big"), "{}", OperationContext.create()).code())
          .isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      var short1s =
          ops(HttpServiceConfig.builder("t").httpClient(own).timeout(Duration.ofSeconds(1)));
      CallError late = failure(short1s.get("trickle"), "{}", OperationContext.create());
      assertThat(late.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
      assertThat(late.getMessage()).contains("no complete response within 1000 ms");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void seeOtherAfterPostBecomesGet() throws Exception {
    server.on(
        "/items",
        ex -> {
          if (ex.getRequestMethod().equals("POST")) {
            ex.getResponseHeaders().set("Location", "/text");
            RecordingServer.send(ex, 303, null, new byte[0]);
          } else {
            RecordingServer.json(ex, 200, "{}");
          }
        });
    assertThat(call(ops().get("createItem"), "{\"body\":{}}").data()).isEqualTo("héllo");
    assertThat(server.requests)
        .extracting(RecordingServer.Request::method)
        .containsExactly("POST", "GET");
    assertThat(server.last().body()).isEmpty();
  }

  @Test
  void expiredDeadlineOrCancelledContextSendsNothing() {
    var expired = OperationContext.builder().timeout(Duration.ofMillis(1)).build();
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
    while (System.nanoTime() < until) {
      Thread.onSpinWait();
    }
    assertThat(failure(ops().get("text"), "{}", expired).code())
        .isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
    Cancellation cancellation = Cancellation.create();
    cancellation.cancel(CallError.of(ErrorCode.CANCELLED, "before"));
    var cancelled = OperationContext.builder().cancellation(cancellation).build();
    assertThat(failure(ops().get("text"), "{}", cancelled).code()).isEqualTo(ErrorCode.CANCELLED);
    assertThat(server.requests).isEmpty();
  }
}
