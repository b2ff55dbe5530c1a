package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.McpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.mcp.McpClientConfig;
import dev.alkdev.operations.mcp.McpClientOptions;
import dev.alkdev.operations.mcp.McpClientWrapper;
import dev.alkdev.operations.mcp.McpClients;
import dev.alkdev.operations.mcp.McpProgress;
import dev.alkdev.operations.serving.OperationServer;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * A registry served over MCP and imported back through our own MCP client adapter: the same specs
 * and the same envelopes come out; and the MCP Java SDK's client lists and calls the same tools.
 * The client finds the server speaks 2026-07-28 and uses it; {@link LegacyRoundTripTest} runs the
 * same over a 2025 session.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RoundTripTest {
  private OperationRegistry served;
  private OperationServer pipeline;
  private McpServer server;
  private McpHttpEndpoint http;
  private McpClientWrapper client;
  private OperationRegistry back;
  private final List<McpProgress> progress = new CopyOnWriteArrayList<>();

  /** The era the client is told to speak. */
  McpClientConfig.Era era() {
    return McpClientConfig.Era.AUTO;
  }

  @BeforeEach
  void start() {
    Fixtures.slowRelease = new CountDownLatch(1);
    served = Fixtures.general();
    pipeline = OperationServer.create(served);
    server = McpServer.builder(pipeline).build();
    http = server.startHttp(0);
    client =
        McpClients.createMcpClient(
            "back",
            McpClientConfig.streamableHttp(http.uri().toString())
                .era(era())
                .initializeTimeout(Duration.ofSeconds(10))
                .requestTimeout(Duration.ofSeconds(10))
                .build(),
            McpClientOptions.builder().progressListener(progress::add).build());
    back = OperationRegistry.create();
    client.registerInto(back);
    assertThat(client.protocolVersion())
        .isEqualTo(era() == McpClientConfig.Era.LEGACY ? "2025-11-25" : "2026-07-28");
  }

  @AfterEach
  void stop() {
    Fixtures.slowRelease.countDown();
    client.close();
    back.close();
    http.close();
    server.close();
    pipeline.close();
    served.close();
  }

  @Test
  void specsComeBackTheSame() {
    for (String id : List.of("math.add", "text.echo", "slow.wait", "feed.numbers")) {
      OperationSpec original = served.getSpec(id).orElseThrow();
      OperationSpec imported = back.getSpec("back." + id).orElseThrow();
      assertThat(imported.type()).as(id).isEqualTo(original.type());
      assertThat(imported.idempotent())
          .as(id)
          .isEqualTo(original.idempotent() || original.type() == OperationType.QUERY);
      assertThat(imported.description()).as(id).isEqualTo(original.description());
      if (!original.inputSchema().isUnknown()) {
        assertThat(imported.inputSchema().json()).as(id).isEqualTo(original.inputSchema().json());
      }
      assertThat(imported.outputSchema().json()).as(id).isEqualTo(original.outputSchema().json());
    }
    // Scoped operations are not offered to an anonymous client at all.
    assertThat(back.getSpec("back.admin.reset")).isEmpty();
  }

  @Test
  void envelopesComeBackTheSame() throws Exception {
    ResponseEnvelope<JsonNode> local =
        served.execute("math.add", Map.of("a", 2, "b", 5)).get(10, TimeUnit.SECONDS);
    ResponseEnvelope<JsonNode> remote =
        back.execute("back.math.add", Map.of("a", 2, "b", 5)).get(10, TimeUnit.SECONDS);
    assertThat(remote.data()).isEqualTo(local.data());
    McpResponseMeta meta = (McpResponseMeta) remote.meta();
    assertThat(meta.isError()).isFalse();
    assertThat(meta.structuredContent().orElseThrow()).isEqualTo(local.data());

    ResponseEnvelope<JsonNode> echo =
        back.execute("back.text.echo", Map.of("text", "hi")).get(10, TimeUnit.SECONDS);
    assertThat(echo.data()).isEqualTo(Fixtures.json("{\"text\":\"hi\"}"));
  }

  @Test
  void anMcpSourcedEnvelopePassesThroughUnchanged() throws Exception {
    // Serve the imported registry again: blocks and isError of an MCP source go through as they
    // are.
    served.register(
        OperationSpec.builder("flaky", "fail")
            .type(OperationType.MUTATION)
            .description("Fails")
            .build(),
        Handler.blocking(
            (input, context) -> {
              throw new IllegalStateException("broken on purpose");
            }));
    awaitTool("back.flaky.fail");
    ResponseEnvelope<JsonNode> failed =
        back.execute("back.flaky.fail", Map.of()).get(10, TimeUnit.SECONDS);
    McpResponseMeta meta = (McpResponseMeta) failed.meta();
    assertThat(meta.isError()).isTrue();
    assertThat(meta.meta().orElseThrow().at("/dev.alkdev.operations~1error/code").asString())
        .isEqualTo("EXECUTION_ERROR");

    try (OperationServer again = OperationServer.create(back);
        McpServer second = McpServer.builder(again).build();
        McpHttpEndpoint secondHttp = second.startHttp(0)) {
      TestClient raw = TestClient.open(secondHttp);
      JsonNode result = raw.call("back.flaky.fail", "{}").get("result");
      assertThat(result.get("isError").asBoolean()).isTrue();
      assertThat(result.get("content")).isEqualTo(Fixtures.JSON.valueToTree(meta.content()));
    }
  }

  @Test
  void aStreamComesBackAsAStreamWhoseItemsArriveAsTheyAreProduced() throws Exception {
    CountDownLatch second = new CountDownLatch(1);
    served.register(
        OperationSpec.builder("feed", "gated")
            .type(OperationType.SUBSCRIPTION)
            .description("One item, then a second when let go")
            .build(),
        Handler.emitter(
            (input, context, emitter) -> {
              emitter.emit(Map.of("n", 1));
              if (!second.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never let go");
              }
              emitter.emit(Map.of("n", 2));
            }));
    awaitTool("back.feed.gated");
    assertThat(back.getSpec("back.feed.gated").orElseThrow().type())
        .isEqualTo(OperationType.SUBSCRIPTION);
    java.util.concurrent.BlockingQueue<Object> seen =
        new java.util.concurrent.LinkedBlockingQueue<>();
    back.subscribe("back.feed.gated", Map.of())
        .subscribe(
            new java.util.concurrent.Flow.Subscriber<>() {
              @Override
              public void onSubscribe(java.util.concurrent.Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
              }

              @Override
              public void onNext(ResponseEnvelope<JsonNode> item) {
                seen.add(item.data());
              }

              @Override
              public void onError(Throwable error) {
                seen.add(error);
              }

              @Override
              public void onComplete() {
                seen.add("complete");
              }
            });
    // The first item comes while the handler still holds the second back.
    assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo(Fixtures.json("{\"n\":1}"));
    second.countDown();
    assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo(Fixtures.json("{\"n\":2}"));
    assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo("complete");
    assertThat(seen.poll(200, TimeUnit.MILLISECONDS)).as("nothing after the end").isNull();
  }

  @Test
  void theClientsDeadlineCancelsTheHandler() throws Exception {
    // Warm the path first, so the deadline falls while the handler runs, not before it starts.
    back.execute("back.math.add", Map.of("a", 1, "b", 1)).get(10, TimeUnit.SECONDS);
    int started = Fixtures.slowStarted.get();
    int cancelled = Fixtures.slowCancelled.get();
    OperationContext context = OperationContext.builder().timeout(Duration.ofMillis(1500)).build();
    assertThatThrownBy(
            () -> back.execute("back.slow.wait", Map.of(), context).get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED));
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (Fixtures.slowCancelled.get() == cancelled && System.nanoTime() < end) {
      Thread.sleep(10);
    }
    assertThat(Fixtures.slowStarted.get()).isEqualTo(started + 1);
    assertThat(Fixtures.slowCancelled.get())
        .as("the served handler saw the cancel")
        .isEqualTo(cancelled + 1);
    assertThat(pipeline.stats().running()).isZero();
  }

  @Test
  void aNewOperationReachesTheClientThroughListChanged() throws Exception {
    served.register(
        OperationSpec.builder("late", "joiner")
            .type(OperationType.QUERY)
            .description("New")
            .build(),
        Handler.blocking((input, context) -> Map.of("ok", true)));
    awaitTool("back.late.joiner");
    served.unregister("late.joiner");
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (back.getSpec("back.late.joiner").isPresent() && System.nanoTime() < end) {
      Thread.sleep(20);
    }
    assertThat(back.getSpec("back.late.joiner")).isEmpty();
  }

  @Test
  void theSdkClientListsAndCalls() {
    String base = "http://127.0.0.1:" + http.port();
    McpSyncClient sdk =
        McpClient.sync(HttpClientStreamableHttpTransport.builder(base).endpoint("/mcp").build())
            .requestTimeout(Duration.ofSeconds(10))
            .build();
    try {
      sdk.initialize();
      assertThat(sdk.listTools().tools())
          .extracting(McpSchema.Tool::name)
          .contains("math.add", "text.echo");
      McpSchema.CallToolResult result =
          sdk.callTool(new McpSchema.CallToolRequest("math.add", Map.of("a", 1, "b", 2)));
      assertThat(result.isError()).isNotEqualTo(Boolean.TRUE);
      assertThat(result.structuredContent().toString()).contains("3.0");
    } finally {
      sdk.closeGracefully();
    }
  }

  private void awaitTool(String id) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (back.getSpec(id).isEmpty() && System.nanoTime() < end) {
      Thread.sleep(20);
    }
    assertThat(back.getSpec(id)).as(id + " reached the client").isPresent();
  }
}
