package dev.alkdev.operations.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.sse.SseEvent;
import dev.alkdev.operations.sse.SseLimits;
import dev.alkdev.operations.sse.SseParser;
import java.io.InputStream;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The gateway end to end over real HTTP: URLs, methods, envelopes, errors, auth, streams. */
class GatewayTest extends GatewayTestSupport {
  static Fixtures fixtures;
  static OperationServer server;
  static HttpGateway gateway;

  @BeforeAll
  static void start() {
    fixtures = new Fixtures();
    server = OperationServer.create(fixtures.registry);
    gateway =
        HttpGateway.builder(server)
            .authenticator(
                Authenticator.bearerTokens(
                    Map.of(
                        "admin-token", Identity.of("root", "admin"),
                        "user-token", Identity.of("ada"))))
            .keepAliveInterval(java.time.Duration.ofMillis(100))
            .start();
  }

  @AfterAll
  static void stop() {
    gateway.close();
    server.close();
    fixtures.registry.close();
  }

  @Test
  void listensOnLoopbackByDefault() {
    assertThat(gateway.uri().getHost()).isEqualTo("127.0.0.1");
    assertThat(gateway.port()).isPositive();
  }

  @Test
  void aQueryByGetWithPlainFieldsAnswersTheEnvelope() throws Exception {
    HttpResponse<String> response = get(gateway, "/ops/demo.echo?message=hi&repeat=2");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(response.headers().firstValue("ops-request-id")).isPresent();
    JsonNode body = json(response);
    assertThat(body.get("data").asString()).isEqualTo("hihi");
    assertThat(body.path("meta").path("source").asString()).isEqualTo("local");
  }

  @Test
  void aQueryTakesItsInputAsUrlEncodedJsonOrAsABody() throws Exception {
    String input = URLEncoder.encode("{\"message\":\"a b&c\"}", StandardCharsets.UTF_8);
    assertThat(json(get(gateway, "/ops/demo.echo?input=" + input)).get("data").asString())
        .isEqualTo("a b&c");
    assertThat(
            json(post(gateway, "/ops/demo.echo", "{\"message\":\"x\",\"repeat\":3}"))
                .get("data")
                .asString())
        .isEqualTo("xxx");
  }

  @Test
  void noInputIsAnEmptyObjectForAnObjectSchemaSoTheMissingFieldIsNamed() throws Exception {
    // The rule of every surface (OperationSpec.noInput): not JSON null, which would only say
    // "object expected".
    for (HttpResponse<String> response :
        List.of(
            get(gateway, "/ops/demo.echo"),
            send(
                request(gateway, "/ops/demo.echo")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build()))) {
      assertThat(response.statusCode()).isEqualTo(400);
      JsonNode error = json(response).get("error");
      assertThat(error.at("/details/errors/0/instancePath").asString()).isEmpty();
      assertThat(error.at("/details/errors/0/keyword").asString()).isEqualTo("required");
    }
  }

  @Test
  void arraysAndNumbersInTheQueryFollowTheSchema() throws Exception {
    HttpResponse<String> response = get(gateway, "/ops/demo.sum?numbers=1.5&numbers=2&exact=true");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(json(response).get("data").asDouble()).isEqualTo(3.5);
  }

  @Test
  void preferReturnMinimalAnswersTheDataAlone() throws Exception {
    HttpResponse<String> response =
        send(
            request(gateway, "/ops/demo.echo?message=hi")
                .header("Prefer", "return=minimal")
                .GET()
                .build());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("\"hi\"");
    assertThat(response.headers().firstValue("preference-applied")).hasValue("return=minimal");
  }

  @Test
  void aMutationIsPostOnly() throws Exception {
    HttpResponse<String> ok =
        post(
            gateway,
            "/ops/shop.order",
            "{\"item\":\"tea\",\"quantity\":2,\"address\":{\"city\":\"Oslo\"}}");
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(json(ok).at("/data/orderId").asString()).isEqualTo("o-tea");

    HttpResponse<String> byGet = get(gateway, "/ops/shop.order?item=tea");
    assertThat(byGet.statusCode()).isEqualTo(405);
    assertThat(byGet.headers().firstValue("allow")).hasValue("POST");
    assertThat(json(byGet).at("/error/code").asString()).isEqualTo("INVALID_INPUT");

    HttpResponse<String> put =
        send(
            request(gateway, "/ops/demo.echo")
                .PUT(HttpRequest.BodyPublishers.ofString("{}"))
                .build());
    assertThat(put.statusCode()).isEqualTo(405);
  }

  @Test
  void invalidInputIs400WithEveryFieldError() throws Exception {
    HttpResponse<String> response =
        post(
            gateway,
            "/ops/shop.order",
            "{\"item\":\"\",\"quantity\":0,\"address\":{},\"extra\":1}");
    assertThat(response.statusCode()).isEqualTo(400);
    JsonNode error = json(response).get("error");
    assertThat(error.get("code").asString()).isEqualTo("INVALID_INPUT");
    assertThat(error.get("retryable").asBoolean()).isFalse();
    List<String> pointers = new ArrayList<>();
    error.at("/details/errors").forEach(e -> pointers.add(e.get("instancePath").asString()));
    assertThat(pointers).contains("/item", "/quantity", "/address");
  }

  @Test
  void unknownOperationsAre404() throws Exception {
    HttpResponse<String> response = get(gateway, "/ops/demo.nothing");
    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(json(response).at("/error/code").asString()).isEqualTo("OPERATION_NOT_FOUND");
    assertThat(get(gateway, "/ops/not-an-id").statusCode()).isEqualTo(404);
    assertThat(get(gateway, "/nowhere").statusCode()).isEqualTo(404);
  }

  @Test
  void scopesAreEnforcedAndListingsFiltered() throws Exception {
    HttpResponse<String> anonymous = get(gateway, "/ops/admin.stats");
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(anonymous.headers().firstValue("www-authenticate")).hasValue("Bearer");
    assertThat(json(anonymous).at("/error/code").asString()).isEqualTo("UNAUTHENTICATED");

    HttpResponse<String> badToken = send(bearer("/ops/admin.stats", "nope"));
    assertThat(badToken.statusCode()).isEqualTo(401);
    HttpResponse<String> basic =
        send(
            request(gateway, "/ops/demo.echo?message=x")
                .header("Authorization", "Basic YTpi")
                .build());
    assertThat(basic.statusCode()).isEqualTo(401);

    HttpResponse<String> user = send(bearer("/ops/admin.stats", "user-token"));
    assertThat(user.statusCode()).isEqualTo(403);
    assertThat(json(user).at("/error/code").asString()).isEqualTo("ACCESS_DENIED");

    HttpResponse<String> admin = send(bearer("/ops/admin.stats", "admin-token"));
    assertThat(admin.statusCode()).isEqualTo(200);
    assertThat(json(admin).at("/data/who").asString()).isEqualTo("root");

    assertThat(ids(json(get(gateway, "/ops")))).contains("demo.echo").doesNotContain("admin.stats");
    assertThat(ids(json(send(bearer("/ops", "admin-token"))))).contains("demo.echo", "admin.stats");
  }

  @Test
  void aFailingHandlerIs500WithoutItsInternals() throws Exception {
    HttpResponse<String> response = get(gateway, "/ops/demo.fail");
    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(json(response).at("/error/code").asString()).isEqualTo("EXECUTION_ERROR");
    assertThat(response.body()).doesNotContain("secret internal detail");
  }

  @Test
  void theTimeoutHeaderSetsTheDeadline() throws Exception {
    HttpResponse<String> traced =
        send(
            request(gateway, "/ops/demo.trace").header(HttpGateway.TIMEOUT_HEADER, "5000").build());
    long left = json(traced).at("/data/deadlineMs").asLong();
    assertThat(left).isBetween(1L, 5000L);

    long start = System.nanoTime();
    HttpResponse<String> slow =
        send(request(gateway, "/ops/demo.slow").header(HttpGateway.TIMEOUT_HEADER, "200").build());
    assertThat(slow.statusCode()).isEqualTo(504);
    assertThat(json(slow).at("/error/code").asString()).isEqualTo("DEADLINE_EXCEEDED");
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5000);

    for (String bad : List.of("0", "-5", "soon", "99999999999999")) {
      HttpResponse<String> refused =
          send(request(gateway, "/ops/demo.trace").header(HttpGateway.TIMEOUT_HEADER, bad).build());
      assertThat(refused.statusCode()).as(bad).isEqualTo(400);
      assertThat(json(refused).at("/error/message").asString())
          .contains(HttpGateway.TIMEOUT_HEADER);
    }
  }

  @Test
  void traceparentReachesTheContextAndAnInvalidOneIsDropped() throws Exception {
    String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    JsonNode data =
        json(send(
                request(gateway, "/ops/demo.trace")
                    .header("traceparent", traceparent)
                    .header("tracestate", "congo=t61rcWkgMzE")
                    .build()))
            .get("data");
    assertThat(data.get("traceparent").asString()).isEqualTo(traceparent);
    assertThat(data.get("tracestate").asString()).isEqualTo("congo=t61rcWkgMzE");

    JsonNode dropped =
        json(send(request(gateway, "/ops/demo.trace").header("traceparent", "00-zz-11-01").build()))
            .get("data");
    assertThat(dropped.has("traceparent")).isFalse();
  }

  @Test
  void aSubscriptionStreamsEventsWithIdsThenCompletes() throws Exception {
    HttpResponse<String> response = get(gateway, "/ops/demo.ticks?count=3");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream");
    List<SseEvent> events = parse(response.body());
    assertThat(events).hasSize(4);
    for (int i = 0; i < 3; i++) {
      assertThat(events.get(i).id()).hasValue(Integer.toString(i + 1));
      assertThat(JSON.readTree(events.get(i).data()).at("/data/n").asInt()).isEqualTo(i + 1);
    }
    assertThat(events.get(3).type()).isEqualTo("call.completed");
  }

  @Test
  void lastEventIdReachesTheHandlerAndIdsCountOnFromIt() throws Exception {
    HttpResponse<String> response =
        send(request(gateway, "/ops/demo.ticks?count=2").header("Last-Event-ID", "5").build());
    List<SseEvent> events = parse(response.body());
    assertThat(fixtures.lastEventId.get()).isEqualTo("5");
    assertThat(events.get(0).id()).hasValue("6");
    assertThat(JSON.readTree(events.get(0).data()).at("/data/n").asInt()).isEqualTo(6);
  }

  @Test
  void aQueryAskedAsAStreamIsAStreamOfOne() throws Exception {
    HttpResponse<String> response =
        send(
            request(gateway, "/ops/demo.echo?message=one")
                .header("Accept", "text/event-stream")
                .header("Prefer", "return=minimal")
                .build());
    List<SseEvent> events = parse(response.body());
    assertThat(events).extracting(SseEvent::type).containsExactly("message", "call.completed");
    assertThat(events.get(0).data()).isEqualTo("\"one\"");
  }

  @Test
  void aStreamRefusedAtOnceIsAPlainJsonError() throws Exception {
    HttpResponse<String> response = get(gateway, "/ops/demo.ticks?count=-1");
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(json(response).at("/error/details/errors/0/instancePath").asString())
        .isEqualTo("/count");
  }

  @Test
  void idleStreamsGetKeepAliveCommentsBetweenTheirItems() throws Exception {
    // Two streams at once, each idle for a second between its two items: the gateway's one tick
    // (every 100 ms here) writes comments into both, and the items are whole around them.
    List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> streams = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      streams.add(
          CLIENT.sendAsync(
              request(gateway, "/ops/demo.ticks?count=2&intervalMs=1000").build(),
              HttpResponse.BodyHandlers.ofString()));
    }
    for (var stream : streams) {
      String body = stream.get(10, TimeUnit.SECONDS).body();
      long comments = body.lines().filter(":"::equals).count();
      assertThat(comments).as("keep-alive comments in %s", body).isGreaterThanOrEqualTo(2);
      List<SseEvent> events = new ArrayList<>();
      SseParser parser = SseParser.create(SseLimits.defaults(), events::add);
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      parser.feed(bytes, 0, bytes.length);
      assertThat(events).extracting(e -> e.id().orElse("")).contains("1", "2");
      assertThat(events.get(events.size() - 1).type()).isEqualTo("call.completed");
    }
  }

  @Test
  void aClientThatGoesAwayCancelsTheHandler() throws Exception {
    HttpResponse<InputStream> response =
        CLIENT.send(
            request(gateway, "/ops/demo.ticks?intervalMs=20").build(),
            HttpResponse.BodyHandlers.ofInputStream());
    List<SseEvent> events = new ArrayList<>();
    SseParser parser = SseParser.create(SseLimits.defaults(), events::add);
    try (InputStream body = response.body()) {
      byte[] buffer = new byte[256];
      while (events.size() < 3) {
        int n = body.read(buffer);
        assertThat(n).isPositive();
        parser.feed(buffer, 0, n);
      }
    }
    assertThat(fixtures.ticksCancelled.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aClientThatReadsNothingHoldsTheHandlerBack() throws Exception {
    HttpResponse<InputStream> response =
        CLIENT.send(
            request(gateway, "/ops/demo.big").build(), HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream body = response.body()) {
      // The handler stops once the demand window (32) and the socket buffers are full.
      long held = -1;
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (held != fixtures.bigEmitted.get()) {
        assertThat(System.nanoTime()).as("the handler never stopped").isLessThan(until);
        held = fixtures.bigEmitted.get();
        Thread.sleep(300);
      }
      assertThat(held).isLessThan(400); // 64 KiB items: at most ~25 MiB in flight
      byte[] buffer = new byte[1 << 16];
      long read = 0;
      while (read < 8L * 1024 * 1024) {
        int n = body.read(buffer);
        assertThat(n).isPositive();
        read += n;
      }
      // Reading lets it go on.
      assertThat(fixtures.bigEmitted.get()).isGreaterThan(held);
    }
  }

  @Test
  void healthAndReadiness() throws Exception {
    assertThat(get(gateway, "/healthz").statusCode()).isEqualTo(200);
    HttpResponse<String> ready = get(gateway, "/readyz");
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(json(ready).get("status").asString()).isEqualTo("ready");
  }

  private static HttpRequest bearer(String path, String token) {
    return request(gateway, path).header("Authorization", "Bearer " + token).build();
  }

  private static List<String> ids(JsonNode listing) {
    List<String> ids = new ArrayList<>();
    listing
        .get("operations")
        .forEach(
            spec -> ids.add(spec.get("namespace").asString() + "." + spec.get("name").asString()));
    return ids;
  }

  static List<SseEvent> parse(String body) {
    List<SseEvent> events = new ArrayList<>();
    SseParser parser = SseParser.create(SseLimits.defaults(), events::add);
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    parser.feed(bytes, 0, bytes.length);
    parser.end();
    return events;
  }
}
