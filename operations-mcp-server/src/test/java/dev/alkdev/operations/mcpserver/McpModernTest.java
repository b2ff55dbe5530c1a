package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.serving.OperationServer;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * MCP 2026-07-28 on the streamable HTTP endpoint that also serves 2025 sessions: metadata in each
 * request, the headers that mirror the body, the revision's errors with their HTTP statuses and the
 * request's id, server/discover, subscriptions/listen, per-request log levels, and cancellation by
 * closing the response.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class McpModernTest {
  static final String META =
      "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
          + "\"io.modelcontextprotocol/clientCapabilities\":{}}";

  private OperationRegistry registry;
  private OperationServer pipeline;
  private McpServer server;
  private McpHttpEndpoint http;

  @BeforeEach
  void start() {
    Fixtures.slowRelease = new CountDownLatch(1);
    registry = Fixtures.general();
    registry.register(
        OperationSpec.builder("logs", "one")
            .type(OperationType.MUTATION)
            .description("Logs at info, then answers")
            .build(),
        Handler.blocking(
            (input, context) -> {
              McpNotifications.log(context, McpLogLevel.INFO, "hello from the handler");
              return "done";
            }));
    registry.register(
        OperationSpec.builder("geo", "lookup")
            .type(OperationType.QUERY)
            .description("A parameter mirrored into a header")
            .inputSchema(
                "{\"type\":\"object\",\"properties\":{\"region\":{\"type\":\"string\","
                    + "\"x-mcp-header\":\"Region\"},\"limit\":{\"type\":\"integer\","
                    + "\"x-mcp-header\":\"Limit\"}}}")
            .build(),
        Handler.blocking((input, context) -> input));
    pipeline = OperationServer.create(registry);
    // A short idle timeout: keep-alives every second notice clients that went away.
    server =
        McpServer.builder(pipeline)
            .sessionsPerClient(2)
            .idleTimeout(java.time.Duration.ofSeconds(2))
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

  private RawHttp.Response modern(String method, String params, Map<String, String> extra)
      throws Exception {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("MCP-Protocol-Version", "2026-07-28");
    headers.put("Mcp-Method", method);
    headers.putAll(extra);
    return RawHttp.post(
        http.port(),
        headers,
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\""
            + method
            + "\",\"params\":{"
            + params
            + (params.isEmpty() ? "" : ",")
            + META
            + "}}");
  }

  private RawHttp.Response call(String tool, String arguments, Map<String, String> extra)
      throws Exception {
    Map<String, String> headers = new LinkedHashMap<>(Map.of("Mcp-Name", tool));
    headers.putAll(extra);
    return modern("tools/call", "\"name\":\"" + tool + "\",\"arguments\":" + arguments, headers);
  }

  @Test
  void aCallNeedsNoHandshakeAndNoSession() throws Exception {
    RawHttp.Response answer = call("math.add", "{\"a\":2,\"b\":3}", Map.of());
    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.header("Mcp-Session-Id")).isNull();
    JsonNode result = answer.message().get("result");
    assertThat(result.at("/structuredContent/sum").asDouble()).isEqualTo(5.0);
    assertThat(result.get("resultType").asString()).isEqualTo("complete");
    assertThat(result.at("/_meta/io.modelcontextprotocol~1serverInfo/name").isString()).isTrue();

    RawHttp.Response list = modern("tools/list", "", Map.of());
    JsonNode tools = list.json().get("result");
    assertThat(tools.get("tools").size()).isGreaterThan(3);
    assertThat(tools.get("ttlMs").asInt()).isZero();
    assertThat(tools.get("cacheScope").asString()).isEqualTo("public");
  }

  @Test
  void discoverNamesBothErasAndTheCapabilities() throws Exception {
    JsonNode result = modern("server/discover", "", Map.of()).json().get("result");
    assertThat(result.get("supportedVersions").toString())
        .contains("2026-07-28")
        .contains("2025-11-25");
    assertThat(result.at("/capabilities/tools/listChanged").asBoolean()).isTrue();
    assertThat(result.has("ttlMs")).isTrue();
    assertThat(result.get("resultType").asString()).isEqualTo("complete");
  }

  @Test
  void bothErasOnOneEndpointAtOnce() throws Exception {
    TestClient legacy = TestClient.open(http);
    assertThat(legacy.call("math.add", "{\"a\":1,\"b\":1}").toString()).contains("\"sum\":2");
    assertThat(call("math.add", "{\"a\":1,\"b\":2}", Map.of()).message().toString())
        .contains("\"sum\":3");
    // The session still works after a modern request, and the modern one made none.
    assertThat(legacy.call("math.add", "{\"a\":2,\"b\":2}").toString()).contains("\"sum\":4");
  }

  @Test
  void errorsCarryTheRequestIdAndTheRevisionsStatuses() throws Exception {
    // No metadata: -32602 and 400.
    RawHttp.Response noMeta =
        RawHttp.post(
            http.port(),
            Map.of("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list"),
            "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/list\",\"params\":{}}");
    assertThat(noMeta.status()).isEqualTo(400);
    assertThat(noMeta.json().get("id").asString()).isEqualTo("a");
    assertThat(noMeta.json().at("/error/code").asInt()).isEqualTo(-32602);

    // An unknown version: -32022 with what was asked and what is spoken.
    RawHttp.Response unknown =
        RawHttp.post(
            http.port(),
            Map.of("MCP-Protocol-Version", "2099-01-01", "Mcp-Method", "tools/list"),
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{"
                + META.replace("2026-07-28", "2099-01-01")
                + "}}");
    assertThat(unknown.status()).isEqualTo(400);
    JsonNode error = unknown.json();
    assertThat(error.get("id").asInt()).isEqualTo(3);
    assertThat(error.at("/error/code").asInt()).isEqualTo(-32022);
    assertThat(error.at("/error/data/requested").asString()).isEqualTo("2099-01-01");
    assertThat(error.at("/error/data/supported").toString()).contains("2026-07-28");

    // The headers must mirror the body.
    RawHttp.Response wrongMethod = modern("tools/list", "", Map.of("Mcp-Method", "prompts/list"));
    assertThat(wrongMethod.status()).isEqualTo(400);
    assertThat(wrongMethod.json().at("/error/code").asInt()).isEqualTo(-32020);
    assertThat(wrongMethod.json().get("id").asInt()).isEqualTo(7);
    RawHttp.Response wrongName = call("math.add", "{\"a\":1,\"b\":1}", Map.of("Mcp-Name", "x"));
    assertThat(wrongName.json().at("/error/code").asInt()).isEqualTo(-32020);
    RawHttp.Response encodedName =
        call(
            "math.add",
            "{\"a\":1,\"b\":1}",
            Map.of("Mcp-Name", "=?base64?bWF0aC5hZGQ=?=")); // "math.add"
    assertThat(encodedName.message().at("/result/structuredContent/sum").asDouble()).isEqualTo(2.0);

    // Methods the revision removed, or that never were: 404 and -32601.
    for (String method : new String[] {"initialize", "ping", "logging/setLevel", "no/such"}) {
      RawHttp.Response missing = modern(method, "", Map.of());
      assertThat(missing.status()).as(method).isEqualTo(404);
      assertThat(missing.json().at("/error/code").asInt()).as(method).isEqualTo(-32601);
    }
  }

  @Test
  void mirroredParametersMustMatchTheirArguments() throws Exception {
    String arguments = "{\"region\":\"eu-west\",\"limit\":5}";
    RawHttp.Response ok =
        call(
            "geo.lookup",
            arguments,
            Map.of("Mcp-Param-Region", "eu-west", "Mcp-Param-Limit", "5.0"));
    assertThat(ok.status()).isEqualTo(200);
    assertThat(ok.message().at("/result/structuredContent/region").asString()).isEqualTo("eu-west");
    RawHttp.Response missing = call("geo.lookup", arguments, Map.of("Mcp-Param-Limit", "5"));
    assertThat(missing.status()).isEqualTo(400);
    assertThat(missing.json().at("/error/message").asString()).contains("Mcp-Param-Region");
    RawHttp.Response different =
        call(
            "geo.lookup", arguments, Map.of("Mcp-Param-Region", "us-east", "Mcp-Param-Limit", "5"));
    assertThat(different.json().at("/error/code").asInt()).isEqualTo(-32020);
    RawHttp.Response badBase64 =
        call(
            "geo.lookup",
            arguments,
            Map.of("Mcp-Param-Region", "=?base64?ZXUtd2VzdA?=", "Mcp-Param-Limit", "5"));
    assertThat(badBase64.json().at("/error/code").asInt()).isEqualTo(-32020);
    // An argument not given needs no header.
    assertThat(call("geo.lookup", "{}", Map.of()).status()).isEqualTo(200);
  }

  @Test
  void handlerLogsAreSentOnlyWhenTheRequestAsksForThem() throws Exception {
    RawHttp.Response quiet = call("logs.one", "{}", Map.of());
    assertThat(quiet.body()).doesNotContain("notifications/message");
    RawHttp.Response asked =
        RawHttp.post(
            http.port(),
            Map.of(
                "MCP-Protocol-Version",
                "2026-07-28",
                "Mcp-Method",
                "tools/call",
                "Mcp-Name",
                "logs.one"),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"logs.one\","
                + META.replace("}}", "},\"io.modelcontextprotocol/logLevel\":\"info\"}")
                + "}}");
    assertThat(asked.body()).contains("notifications/message").contains("hello from the handler");
    assertThat(asked.message().at("/result/resultType").asString()).isEqualTo("complete");
  }

  @Test
  void closingTheResponseCancelsTheCall() throws Exception {
    int started = Fixtures.slowStarted.get();
    int cancelled = Fixtures.slowCancelled.get();
    HttpRequest request = request("tools/call", "slow.wait", "\"name\":\"slow.wait\"", 9);
    var pending = TestClient.HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream());
    until(() -> Fixtures.slowStarted.get() > started);
    pending.cancel(true);
    // The JDK client cancels the exchange; when the server notices, the handler is cancelled.
    pending.handle(
        (response, failure) -> {
          if (response != null) {
            try {
              response.body().close();
            } catch (java.io.IOException e) {
              // closing is all that matters
            }
          }
          return null;
        });
    until(() -> Fixtures.slowCancelled.get() > cancelled);
  }

  @Test
  void aListenStreamHearsToolChangesTaggedWithItsId() throws Exception {
    HttpRequest listen =
        request("subscriptions/listen", null, "\"notifications\":{\"toolsListChanged\":true}", 41);
    HttpResponse<Stream<String>> response =
        TestClient.HTTP.send(listen, HttpResponse.BodyHandlers.ofLines());
    assertThat(response.headers().firstValue("content-type").orElse(""))
        .startsWith("text/event-stream");
    Iterator<String> lines = response.body().filter(line -> line.startsWith("data: ")).iterator();
    JsonNode ack = Fixtures.json(lines.next().substring(6));
    assertThat(ack.get("method").asString()).isEqualTo("notifications/subscriptions/acknowledged");
    assertThat(ack.at("/params/notifications/toolsListChanged").asBoolean()).isTrue();
    assertThat(ack.at("/params/_meta/io.modelcontextprotocol~1subscriptionId").asInt())
        .isEqualTo(41);
    registry.register(
        OperationSpec.builder("late", "tool").type(OperationType.QUERY).build(),
        Handler.blocking((input, context) -> "late"));
    JsonNode changed = Fixtures.json(lines.next().substring(6));
    assertThat(changed.get("method").asString()).isEqualTo("notifications/tools/list_changed");
    assertThat(changed.at("/params/_meta/io.modelcontextprotocol~1subscriptionId").asInt())
        .isEqualTo(41);
    response.body().close();
  }

  @Test
  void listenStreamsAreBoundedPerClient() throws Exception {
    HttpRequest listen = request("subscriptions/listen", null, "\"notifications\":{}", 1);
    HttpResponse<Stream<String>> first =
        TestClient.HTTP.send(listen, HttpResponse.BodyHandlers.ofLines());
    HttpResponse<Stream<String>> second =
        TestClient.HTTP.send(listen, HttpResponse.BodyHandlers.ofLines());
    first.body().filter(line -> line.startsWith("data: ")).findFirst();
    second.body().filter(line -> line.startsWith("data: ")).findFirst();
    HttpResponse<String> third = TestClient.HTTP.send(listen, HttpResponse.BodyHandlers.ofString());
    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(third.body()).contains("most subscriptions");
    first.body().close();
    second.body().close();
    // A closed listen frees its place.
    until(
        () -> {
          HttpResponse<Stream<String>> again =
              TestClient.HTTP.send(listen, HttpResponse.BodyHandlers.ofLines());
          boolean open = again.statusCode() == 200;
          again.body().close();
          return open;
        });
  }

  interface Condition {
    boolean holds() throws Exception;
  }

  /** Waits up to 10 s for {@code condition}, failing the test when it never holds. */
  private static void until(Condition condition) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.holds()) {
      assertThat(System.nanoTime()).as("the condition within 10 s").isLessThan(end);
      Thread.sleep(20);
    }
  }

  private HttpRequest request(String method, String name, String params, int id) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(http.uri())
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method)
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"jsonrpc\":\"2.0\",\"id\":"
                        + id
                        + ",\"method\":\""
                        + method
                        + "\",\"params\":{"
                        + params
                        + ","
                        + META
                        + "}}"));
    if (name != null) {
      builder.header("Mcp-Name", name);
    }
    return builder.build();
  }
}
