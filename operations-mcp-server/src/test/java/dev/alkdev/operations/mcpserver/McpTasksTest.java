package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.mcp.McpClientConfig;
import dev.alkdev.operations.mcp.McpClientOptions;
import dev.alkdev.operations.mcp.McpClientWrapper;
import dev.alkdev.operations.mcp.McpClients;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.serving.OperationServer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * MCP's tasks extension (2026-07-28) on our server, on the wire and through our client: a tool call
 * answered at once with a task, read with tasks/get until it ends, cancelled with tasks/cancel (the
 * handler's context is cancelled), refused with -32021 to a client that does not declare the
 * extension when the tool runs only as a task, and answered in the request when it may. Our client
 * follows a task to its end, so the caller sees an ordinary call.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class McpTasksTest {
  static final String WITH_TASKS =
      "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
          + "\"io.modelcontextprotocol/clientCapabilities\":"
          + "{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}}";
  static final String WITHOUT_TASKS =
      "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
          + "\"io.modelcontextprotocol/clientCapabilities\":{}}";

  private OperationRegistry registry;
  private OperationServer pipeline;
  private McpServer server;
  private McpHttpEndpoint http;

  @BeforeEach
  void start() {
    Fixtures.slowRelease = new CountDownLatch(1);
    Fixtures.slowStarted.set(0);
    Fixtures.slowCancelled.set(0);
    registry = Fixtures.general();
    pipeline = OperationServer.create(registry);
    server =
        McpServer.builder(pipeline)
            .taskMode(
                spec ->
                    switch (spec.id()) {
                      case "slow.wait" -> McpTaskMode.REQUIRED;
                      case "math.add", "feed.numbers" -> McpTaskMode.OPTIONAL;
                      default -> McpTaskMode.FORBIDDEN;
                    })
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

  private RawHttp.Response request(String method, String params, String meta, String name)
      throws Exception {
    return request(http.port(), method, params, meta, name);
  }

  private static RawHttp.Response request(
      int port, String method, String params, String meta, String name) throws Exception {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("MCP-Protocol-Version", "2026-07-28");
    headers.put("Mcp-Method", method);
    if (name != null) {
      headers.put("Mcp-Name", name);
    }
    return RawHttp.post(
        port,
        headers,
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\""
            + method
            + "\",\"params\":{"
            + params
            + ","
            + meta
            + "}}");
  }

  private RawHttp.Response call(String tool, String arguments, String meta) throws Exception {
    return request(
        "tools/call", "\"name\":\"" + tool + "\",\"arguments\":" + arguments, meta, tool);
  }

  private JsonNode task(String method, String taskId) throws Exception {
    RawHttp.Response answer = request(method, "\"taskId\":\"" + taskId + "\"", WITH_TASKS, taskId);
    return answer.message();
  }

  private JsonNode awaitTerminal(String taskId) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      JsonNode got = task("tasks/get", taskId).get("result");
      String status = got.path("status").asString();
      if (!status.equals("working") || System.nanoTime() > until) {
        return got;
      }
      Thread.sleep(20);
    }
  }

  @Test
  void discoverAdvertisesTheExtension() throws Exception {
    JsonNode result = request("server/discover", "\"x\":1", WITHOUT_TASKS, null).message();
    assertThat(result.at("/result/capabilities/extensions").has("io.modelcontextprotocol/tasks"))
        .isTrue();
  }

  @Test
  void aCallRunsAsATaskWhoseResultTasksGetGives() throws Exception {
    JsonNode created = call("math.add", "{\"a\":2,\"b\":3}", WITH_TASKS).message().get("result");
    assertThat(created.get("resultType").asString()).isEqualTo("task");
    assertThat(created.get("taskId").asString()).hasSize(32);
    assertThat(created.get("ttlMs").asLong()).isEqualTo(3_600_000L);
    assertThat(created.has("createdAt")).isTrue();
    JsonNode done = awaitTerminal(created.get("taskId").asString());
    assertThat(done.get("status").asString()).isEqualTo("completed");
    assertThat(done.get("resultType").asString()).isEqualTo("complete");
    assertThat(done.at("/result/structuredContent/sum").asDouble()).isEqualTo(5.0);

    // The same tool for a client without the extension: answered in the request.
    JsonNode plain = call("math.add", "{\"a\":2,\"b\":3}", WITHOUT_TASKS).message().get("result");
    assertThat(plain.get("resultType").asString()).isEqualTo("complete");
    assertThat(plain.at("/structuredContent/sum").asDouble()).isEqualTo(5.0);
  }

  @Test
  void aSubscriptionTaskGivesItsItemsWithItsResult() throws Exception {
    JsonNode created = call("feed.numbers", "{\"count\":4}", WITH_TASKS).message().get("result");
    JsonNode done = awaitTerminal(created.get("taskId").asString());
    assertThat(done.get("status").asString()).isEqualTo("completed");
    assertThat(done.at("/result/structuredContent/items").size()).isEqualTo(4);
  }

  @Test
  void tasksCancelCancelsTheHandler() throws Exception {
    JsonNode created = call("slow.wait", "{}", WITH_TASKS).message().get("result");
    String taskId = created.get("taskId").asString();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (Fixtures.slowStarted.get() == 0 && System.nanoTime() < until) {
      Thread.sleep(10);
    }
    JsonNode ack = task("tasks/cancel", taskId).get("result");
    assertThat(ack.get("resultType").asString()).isEqualTo("complete");
    assertThat(ack.has("status")).isFalse();
    assertThat(task("tasks/get", taskId).at("/result/status").asString()).isEqualTo("cancelled");
    while (Fixtures.slowCancelled.get() == 0 && System.nanoTime() < until) {
      Thread.sleep(10);
    }
    assertThat(Fixtures.slowCancelled.get()).isEqualTo(1);
    // Cancelling an ended task is the same empty acknowledgement.
    assertThat(task("tasks/cancel", taskId).at("/result/resultType").asString())
        .isEqualTo("complete");
  }

  @Test
  void refusalsSayWhy() throws Exception {
    RawHttp.Response required = call("slow.wait", "{}", WITHOUT_TASKS);
    assertThat(required.status()).isEqualTo(400);
    assertThat(required.message().at("/error/code").asInt()).isEqualTo(-32021);
    assertThat(
            required
                .message()
                .at("/error/data/requiredCapabilities/extensions")
                .has("io.modelcontextprotocol/tasks"))
        .isTrue();
    assertThat(Fixtures.slowStarted.get()).isZero();

    RawHttp.Response undeclared = request("tasks/get", "\"taskId\":\"abc\"", WITHOUT_TASKS, "abc");
    assertThat(undeclared.message().at("/error/code").asInt()).isEqualTo(-32021);
    assertThat(task("tasks/get", "not-a-task").at("/error/code").asInt()).isEqualTo(-32602);
    assertThat(request("tasks/result", "\"taskId\":\"abc\"", WITH_TASKS, null).status())
        .isEqualTo(404);
    RawHttp.Response wrongName = request("tasks/get", "\"taskId\":\"abc\"", WITH_TASKS, "other");
    assertThat(wrongName.message().at("/error/code").asInt()).isEqualTo(-32020);
  }

  @Test
  void anotherServerOfTheMeshAnswersForATask() throws Exception {
    try (InProcessPubSub mesh = InProcessPubSub.create();
        McpServer first =
            McpServer.builder(pipeline)
                .taskMode(McpTaskMode.allOptional())
                .shareTasks(mesh, "node-a")
                .build();
        McpHttpEndpoint a = first.startHttp(0);
        McpServer second =
            McpServer.builder(pipeline)
                .taskMode(McpTaskMode.allOptional())
                .shareTasks(mesh, "node-b")
                .build();
        McpHttpEndpoint b = second.startHttp(0)) {
      JsonNode created =
          at(a, "tools/call", "\"name\":\"slow.wait\",\"arguments\":{}", "slow.wait");
      String taskId = created.at("/result/taskId").asString();
      assertThat(taskId).endsWith("." + java.util.HexFormat.of().formatHex("node-a".getBytes()));
      // Asked at the other server: answered by the one that runs it.
      assertThat(
              at(b, "tasks/get", "\"taskId\":\"" + taskId + "\"", taskId)
                  .at("/result/status")
                  .asString())
          .isEqualTo("working");
      Fixtures.slowRelease.countDown();
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      JsonNode got;
      do {
        Thread.sleep(20);
        got = at(b, "tasks/get", "\"taskId\":\"" + taskId + "\"", taskId);
      } while (got.at("/result/status").asString().equals("working") && System.nanoTime() < until);
      assertThat(got.at("/result/status").asString()).isEqualTo("completed");
      assertThat(got.at("/result/result/content/0/text").asString()).contains("released");
      // A task of a server that is gone is not found; a made-up owner is not found either.
      a.close();
      first.close();
      assertThat(
              at(b, "tasks/get", "\"taskId\":\"" + taskId + "\"", taskId).at("/error/code").asInt())
          .isEqualTo(-32602);
    }
  }

  private static JsonNode at(McpHttpEndpoint endpoint, String method, String params, String name)
      throws Exception {
    return request(endpoint.port(), method, params, WITH_TASKS, name).message();
  }

  @Test
  void ourClientFollowsATaskAndCancelsItWithTheCall() throws Exception {
    try (McpClientWrapper client =
            McpClients.createMcpClient(
                "back",
                McpClientConfig.streamableHttp(http.uri().toString())
                    .era(McpClientConfig.Era.MODERN)
                    .build(),
                McpClientOptions.defaults());
        OperationRegistry back = OperationRegistry.create()) {
      client.registerInto(back);
      ResponseEnvelope<JsonNode> sum =
          back.execute("back.math.add", Map.of("a", 1, "b", 2)).get(15, TimeUnit.SECONDS);
      assertThat(sum.data().get("sum").asDouble()).isEqualTo(3.0);

      // slow.wait runs only as a task; the caller's deadline cancels it on the server.
      OperationContext shortly =
          OperationContext.builder().timeout(Duration.ofMillis(1500)).build();
      assertThatThrownBy(
              () -> back.execute("back.slow.wait", Map.of(), shortly).get(15, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOfSatisfying(
              CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED));
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (Fixtures.slowCancelled.get() == 0 && System.nanoTime() < until) {
        Thread.sleep(10);
      }
      assertThat(Fixtures.slowCancelled.get()).isEqualTo(1);

      // Released at once: the client polls until the task has its result.
      Fixtures.slowRelease.countDown();
      ResponseEnvelope<JsonNode> released =
          back.execute("back.slow.wait", Map.of()).get(15, TimeUnit.SECONDS);
      assertThat(released.data().toString()).contains("released");
    }
  }
}
