package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.serving.OperationServer;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The mapping, streaming, cancellation and list_changed over streamable HTTP. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class McpHttpServerTest {
  private OperationRegistry registry;
  private OperationServer pipeline;
  private McpServer server;
  private McpHttpEndpoint http;

  @BeforeEach
  void start() {
    Fixtures.slowRelease = new CountDownLatch(1);
    registry = Fixtures.general();
    pipeline = OperationServer.create(registry);
    server =
        McpServer.builder(pipeline)
            .subscriptionLimits(5, 1_000_000)
            .defaultDeadline(Duration.ofSeconds(20))
            .build();
    http = server.startHttp(0);
  }

  @AfterEach
  void stop() {
    Fixtures.slowRelease.countDown();
    http.close();
    server.close();
    pipeline.close();
    registry.close();
  }

  private static ObjectNode params(String json) {
    return (ObjectNode) Fixtures.json(json);
  }

  @Test
  void initializeNegotiatesTheRevisionAndAnswersWithASession() throws Exception {
    TestClient client = new TestClient(http.uri(), Map.of());
    HttpResponse<String> old =
        client.post(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-06-18\",\"capabilities\":{}}}");
    JsonNode result = Fixtures.json(old.body()).get("result");
    assertThat(result.get("protocolVersion").asString()).isEqualTo("2025-06-18");
    assertThat(result.at("/capabilities/tools/listChanged").asBoolean()).isTrue();
    assertThat(result.at("/capabilities/logging").isObject()).isTrue();
    assertThat(old.headers().firstValue("mcp-session-id").orElseThrow()).hasSizeGreaterThan(20);

    HttpResponse<String> unknown =
        client.post(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"1999-01-01\",\"capabilities\":{}}}");
    assertThat(Fixtures.json(unknown.body()).at("/result/protocolVersion").asString())
        .isEqualTo("2025-11-25");
    assertThat(unknown.headers().firstValue("mcp-session-id"))
        .isNotEqualTo(old.headers().firstValue("mcp-session-id"));
  }

  @Test
  void toolsCarryTheSpecs() throws Exception {
    TestClient client = TestClient.open(http);
    JsonNode tools = client.request("tools/list", params("{}")).at("/result/tools");
    Map<String, JsonNode> byName = new java.util.HashMap<>();
    tools.forEach(tool -> byName.put(tool.get("name").asString(), tool));
    assertThat(byName)
        .containsKeys("math.add", "text.echo", "text.upper", "feed.numbers", "slow.wait");
    // admin.reset needs a scope the anonymous caller lacks: hidden.
    assertThat(byName).doesNotContainKey("admin.reset");

    JsonNode add = byName.get("math.add");
    assertThat(add.get("description").asString()).isEqualTo("Adds two numbers");
    assertThat(add.at("/inputSchema/required").toString()).isEqualTo("[\"a\",\"b\"]");
    assertThat(add.at("/outputSchema/properties/sum/type").asString()).isEqualTo("number");
    assertThat(add.at("/annotations/readOnlyHint").asBoolean()).isTrue();
    assertThat(add.at("/annotations/idempotentHint").asBoolean()).isTrue();
    assertThat(add.at("/_meta/dev.alkdev.operations~1operationId").asString())
        .isEqualTo("math.add");

    JsonNode echo = byName.get("text.echo");
    assertThat(echo.at("/annotations/readOnlyHint").asBoolean()).isFalse();
    assertThat(echo.at("/annotations/idempotentHint").asBoolean()).isTrue();
    assertThat(byName.get("slow.wait").at("/annotations/idempotentHint").isMissingNode()).isTrue();

    // A string input travels as arguments.input; a string output has no outputSchema.
    JsonNode upper = byName.get("text.upper");
    assertThat(upper.at("/inputSchema/properties/input/type").asString()).isEqualTo("string");
    assertThat(upper.has("outputSchema")).isFalse();
  }

  @Test
  void resultsAreStructuredContentAndText() throws Exception {
    TestClient client = TestClient.open(http);
    JsonNode sum = client.call("math.add", "{\"a\":1,\"b\":2}").get("result");
    assertThat(sum.at("/structuredContent/sum").asDouble()).isEqualTo(3.0);
    assertThat(sum.at("/content/0/type").asString()).isEqualTo("text");
    assertThat(Fixtures.json(sum.at("/content/0/text").asString()))
        .isEqualTo(sum.get("structuredContent"));
    assertThat(sum.has("isError")).isFalse();

    JsonNode upper = client.call("text.upper", "{\"input\":\"abc\"}").get("result");
    assertThat(upper.at("/content/0/text").asString()).isEqualTo("\"ABC\"");
    assertThat(upper.has("structuredContent")).isFalse();
  }

  @Test
  void invalidArgumentsAreAToolErrorListingEveryField() throws Exception {
    TestClient client = TestClient.open(http);
    JsonNode result =
        client.call("math.add", "{\"a\":\"one\",\"b\":\"two\",\"c\":3}").get("result");
    assertThat(result.get("isError").asBoolean()).isTrue();
    String text = result.at("/content/0/text").asString();
    assertThat(text).contains("/a").contains("/b").contains("c");
    JsonNode error = result.at("/_meta/dev.alkdev.operations~1error");
    assertThat(error.get("code").asString()).isEqualTo("INVALID_INPUT");
    // The error object of every surface (HTTP's body, ops --json): details.errors[].instancePath.
    assertThat(error.at("/details/errors").size()).isGreaterThanOrEqualTo(3);
    assertThat(error.at("/details/errors/0/instancePath").asString()).startsWith("/");
    assertThat(error.get("message").asString()).contains("math.add");
  }

  @Test
  void unknownToolsAndMethodsAreJsonRpcErrors() throws Exception {
    TestClient client = TestClient.open(http);
    JsonNode unknown = client.call("nope.nothing", "{}");
    assertThat(unknown.at("/error/code").asInt()).isEqualTo(-32602);
    assertThat(unknown.at("/error/message").asString()).contains("nope.nothing");
    assertThat(client.request("resources/list", params("{}")).at("/error/code").asInt())
        .isEqualTo(-32601);
    assertThat(client.request("ping", null).get("result").isObject()).isTrue();
    JsonNode badArgs =
        client.request("tools/call", params("{\"name\":\"math.add\",\"arguments\":[1]}"));
    assertThat(badArgs.at("/error/code").asInt()).isEqualTo(-32602);
    JsonNode badLevel = client.request("logging/setLevel", params("{\"level\":\"loud\"}"));
    assertThat(badLevel.at("/error/code").asInt()).isEqualTo(-32602);
  }

  @Test
  void aSubscriptionStreamsItsItemsAsProgressAndReturnsThem() throws Exception {
    TestClient client = TestClient.open(http);
    HttpResponse<String> response =
        client.post(
            TestClient.message(
                "tools/call",
                params(
                    "{\"name\":\"feed.numbers\",\"arguments\":{\"count\":3},\"_meta\":{\"progressToken\":\"p1\"}}"),
                7));
    assertThat(response.headers().firstValue("content-type").orElseThrow())
        .startsWith("text/event-stream");
    List<JsonNode> events = new ArrayList<>();
    for (String line : response.body().split("\n")) {
      if (line.startsWith("data: ")) {
        events.add(Fixtures.json(line.substring(6)));
      }
    }
    assertThat(events).hasSize(4);
    for (int i = 0; i < 3; i++) {
      assertThat(events.get(i).get("method").asString()).isEqualTo("notifications/progress");
      assertThat(events.get(i).at("/params/progressToken").asString()).isEqualTo("p1");
      assertThat(events.get(i).at("/params/progress").asInt()).isEqualTo(i + 1);
    }
    JsonNode result = events.get(3).get("result");
    assertThat(result.at("/structuredContent/items").toString())
        .isEqualTo("[{\"n\":1},{\"n\":2},{\"n\":3}]");
    assertThat(result.at("/structuredContent/complete").asBoolean()).isTrue();

    // Past the limit (5 items here) the stream is cut and the result says so.
    JsonNode cut = client.call("feed.numbers", "{\"count\":100}").get("result");
    assertThat(cut.at("/structuredContent/items").size()).isEqualTo(5);
    assertThat(cut.at("/structuredContent/complete").asBoolean()).isFalse();
    assertThat(cut.at("/structuredContent/end").asString()).contains("5 items");
  }

  @Test
  void notificationsCancelledCancelsTheHandler() throws Exception {
    TestClient client = TestClient.open(http);
    int before = Fixtures.slowCancelled.get();
    int started = Fixtures.slowStarted.get();
    CompletableFuture<HttpResponse<String>> call =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return client.post(
                    TestClient.message(
                        "tools/call",
                        params("{\"name\":\"slow.wait\",\"arguments\":{}}"),
                        "slow-1"));
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (Fixtures.slowStarted.get() == started && System.nanoTime() < end) {
      Thread.sleep(10);
    }
    client.notify(
        "notifications/cancelled", params("{\"requestId\":\"slow-1\",\"reason\":\"user stop\"}"));
    HttpResponse<String> response = call.get(10, TimeUnit.SECONDS);
    assertThat(response.statusCode()).isEqualTo(202);
    assertThat(response.body()).isEmpty();
    end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (Fixtures.slowCancelled.get() == before && System.nanoTime() < end) {
      Thread.sleep(10);
    }
    assertThat(Fixtures.slowCancelled.get()).isEqualTo(before + 1);
  }

  @Test
  void theDefaultDeadlineEndsALongCall() throws Exception {
    try (McpServer quick =
            McpServer.builder(pipeline).defaultDeadline(Duration.ofMillis(200)).build();
        McpHttpEndpoint endpoint = quick.startHttp(0)) {
      TestClient client = TestClient.open(endpoint);
      JsonNode result = client.call("slow.wait", "{}").get("result");
      assertThat(result.get("isError").asBoolean()).isTrue();
      assertThat(result.at("/_meta/dev.alkdev.operations~1error/code").asString())
          .isEqualTo("DEADLINE_EXCEEDED");
    }
  }

  @Test
  void registryChangesReachTheSessionStreamAsListChanged() throws Exception {
    TestClient client = TestClient.open(http);
    LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    HttpRequest get =
        HttpRequest.newBuilder(http.uri())
            .header("Accept", "text/event-stream")
            .header("Mcp-Session-Id", client.session)
            .GET()
            .build();
    CompletableFuture<HttpResponse<Stream<String>>> stream =
        TestClient.HTTP.sendAsync(get, HttpResponse.BodyHandlers.ofLines());
    HttpResponse<Stream<String>> open = stream.get(10, TimeUnit.SECONDS);
    assertThat(open.statusCode()).isEqualTo(200);
    Thread reader = new Thread(() -> open.body().forEach(lines::add));
    reader.setDaemon(true);
    reader.start();

    registry.register(
        OperationSpec.builder("late", "joiner")
            .type(OperationType.QUERY)
            .description("New")
            .build(),
        Handler.blocking((input, context) -> "hi"));
    String line;
    do {
      line = lines.poll(10, TimeUnit.SECONDS);
      assertThat(line).as("list_changed within 10 s").isNotNull();
    } while (!line.startsWith("data: "));
    assertThat(Fixtures.json(line.substring(6)).get("method").asString())
        .isEqualTo("notifications/tools/list_changed");
    JsonNode tools = client.request("tools/list", params("{}")).at("/result/tools");
    assertThat(tools.toString()).contains("late.joiner");

    registry.unregister("late.joiner");
    do {
      line = lines.poll(10, TimeUnit.SECONDS);
      assertThat(line).isNotNull();
    } while (!line.startsWith("data: "));
    assertThat(client.request("tools/list", params("{}")).at("/result/tools").toString())
        .doesNotContain("late.joiner");
  }

  @Test
  void pagesFollowTheCursor() throws Exception {
    try (McpServer paged = McpServer.builder(pipeline).pageSize(2).build();
        McpHttpEndpoint endpoint = paged.startHttp(0)) {
      TestClient client = TestClient.open(endpoint);
      List<String> names = new ArrayList<>();
      String cursor = null;
      int pages = 0;
      do {
        JsonNode result =
            client
                .request(
                    "tools/list",
                    cursor == null ? params("{}") : params("{\"cursor\":\"" + cursor + "\"}"))
                .get("result");
        result.get("tools").forEach(tool -> names.add(tool.get("name").asString()));
        cursor = result.has("nextCursor") ? result.get("nextCursor").asString() : null;
        pages++;
      } while (cursor != null);
      assertThat(pages).isEqualTo(3);
      assertThat(names).hasSize(5).doesNotHaveDuplicates();
      assertThat(
              client.request("tools/list", params("{\"cursor\":\"zz\"}")).at("/error/code").asInt())
          .isEqualTo(-32602);
    }
  }

  @Test
  void includeAndExcludeGlobsAndThePrefixShapeTheNames() throws Exception {
    try (McpServer filtered =
        McpServer.builder(pipeline)
            .include("math.*", "text.*")
            .exclude("*.upper")
            .toolPrefix("x_")
            .build()) {
      assertThat(filtered.tools())
          .extracting(McpTool::name)
          .containsExactly("x_math.add", "x_text.echo");
    }
  }
}
