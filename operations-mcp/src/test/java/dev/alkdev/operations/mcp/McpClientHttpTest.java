package dev.alkdev.operations.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.Cancellation;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.Progress;
import dev.alkdev.operations.envelope.McpContentBlock;
import dev.alkdev.operations.envelope.McpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class McpClientHttpTest {
  static HttpTestServer server;
  static McpClientWrapper client;
  static OperationRegistry registry;
  static final List<McpProgress> progress = new CopyOnWriteArrayList<>();
  static final List<List<ToolChange>> changes = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    server = new HttpTestServer();
    client =
        McpClients.createMcpClient(
            "test",
            McpClientConfig.streamableHttp(server.url())
                .initializeTimeout(Duration.ofSeconds(10))
                .requestTimeout(Duration.ofSeconds(10))
                .build(),
            McpClientOptions.builder()
                .progressListener(progress::add)
                .toolChangeListener((name, c) -> changes.add(c))
                .build());
    registry = OperationRegistry.create();
    client.registerInto(registry);
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    registry.close();
    server.close();
  }

  static ResponseEnvelope<JsonNode> call(String op, Object input) throws Exception {
    return registry.execute(op, input).get(20, TimeUnit.SECONDS);
  }

  @Test
  void aServerThatSpeaksOnly2025IsFoundByTheProbeAndSpokenTo() {
    // The SDK's server answers the modern server/discover probe with an error of 2025.
    assertThat(client.protocolVersion()).startsWith("2025-");
    assertThatThrownBy(
            () ->
                McpClients.createMcpClient(
                    "modernonly",
                    McpClientConfig.streamableHttp(server.url())
                        .era(McpClientConfig.Era.MODERN)
                        .initializeTimeout(Duration.ofSeconds(10))
                        .build(),
                    McpClientOptions.defaults()))
        .isInstanceOf(CallError.class)
        .hasMessageContaining("does not speak MCP 2026-07-28");
  }

  @Test
  void listsToolsAsSpecs() {
    assertThat(registry.getSpec("test.echo")).isPresent();
    assertThat(registry.getSpec("test.echo").get().type()).isEqualTo(OperationType.QUERY);
    assertThat(registry.getSpec("test.add").get().type()).isEqualTo(OperationType.MUTATION);
    assertThat(registry.getSpec("test.echo").get().idempotent()).isTrue(); // idempotentHint
    assertThat(registry.getSpec("test.add").get().idempotent()).isFalse();
    assertThat(registry.getSpec("test.add").get().outputSchema().isUnknown()).isFalse();
    assertThat(registry.getSpec("test.echo").get().outputSchema().isUnknown()).isTrue();
    assertThat(registry.getSpec("test.add").get().description()).isEqualTo("Adds two numbers");
  }

  @Test
  void textResultIsContentBlocks() throws Exception {
    ResponseEnvelope<JsonNode> result = call("test.echo", Map.of("text", "hi"));
    McpResponseMeta meta = (McpResponseMeta) result.meta();
    assertThat(meta.isError()).isFalse();
    assertThat(meta.content()).containsExactly(McpContentBlock.text("echo: hi"));
    assertThat(result.data().isArray()).isTrue();
    assertThat(result.data().get(0).get("text").stringValue()).isEqualTo("echo: hi");
  }

  @Test
  void structuredContentIsData() throws Exception {
    ResponseEnvelope<JsonNode> result = call("test.add", Map.of("a", 1, "b", 2));
    assertThat(result.data().get("sum").asDouble()).isEqualTo(3.0);
    McpResponseMeta meta = (McpResponseMeta) result.meta();
    assertThat(meta.structuredContent()).isPresent();
    assertThat(meta.meta().get().get("trace").stringValue()).isEqualTo("t-1");
  }

  @Test
  void sdkServerRefusesOutputSchemaToolWithoutStructuredContent() throws Exception {
    // The SDK server itself turns such a result into isError; ResultMapperTest covers our side.
    ResponseEnvelope<JsonNode> result = call("test.add-as-text", Map.of("a", 2, "b", 2));
    assertThat(((McpResponseMeta) result.meta()).isError()).isTrue();
  }

  @Test
  void isErrorIsAnEnvelopeNotAnException() throws Exception {
    ResponseEnvelope<JsonNode> result = call("test.fail", Map.of());
    McpResponseMeta meta = (McpResponseMeta) result.meta();
    assertThat(meta.isError()).isTrue();
    assertThat(meta.content()).containsExactly(McpContentBlock.text("it failed"));
  }

  @Test
  void everyBlockTypeMaps() throws Exception {
    ResponseEnvelope<JsonNode> result = call("test.media", Map.of());
    List<McpContentBlock> blocks = ((McpResponseMeta) result.meta()).content();
    assertThat(blocks)
        .extracting(McpContentBlock::type)
        .containsExactly("image", "audio", "resource", "resource", "resource_link");
    assertThat(((McpContentBlock.Image) blocks.get(0)).mimeType()).isEqualTo("image/png");
    assertThat(((McpContentBlock.Resource) blocks.get(2)).resource().text()).contains("hello");
    assertThat(((McpContentBlock.Resource) blocks.get(3)).resource().blob()).contains("AAEC");
    assertThat(((McpContentBlock.ResourceLink) blocks.get(4)).uri()).isEqualTo("file:///c.txt");
  }

  @Test
  void renamedToolIsCalledByItsOriginalName() throws Exception {
    assertThat(client.renamedTools()).containsValue("files/read.v2");
    String op = client.renamedTools().keySet().iterator().next();
    assertThat(op).startsWith("files_read_v2_");
    ResponseEnvelope<JsonNode> result = call("test." + op, Map.of());
    assertThat(((McpResponseMeta) result.meta()).content())
        .containsExactly(McpContentBlock.text("read"));
  }

  @Test
  void progressReachesTheListenerInTheCallsContext() throws Exception {
    List<Progress> heard = new CopyOnWriteArrayList<>();
    OperationContext context =
        OperationContext.builder().attribute(Progress.LISTENER, heard::add).build();
    registry.execute("test.progress", Map.of(), context).get(20, TimeUnit.SECONDS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (heard.size() < 3 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(heard).extracting(Progress::progress).containsExactly(1.0, 2.0, 3.0);
    assertThat(heard.get(2).total()).contains(3.0);
    assertThat(heard.get(2)).hasToString("3/3: step 3");
  }

  @Test
  void progressReachesTheListener() throws Exception {
    OperationContext context = OperationContext.builder().requestId("progress-1").build();
    registry.execute("test.progress", Map.of(), context).get(20, TimeUnit.SECONDS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (progress.stream().filter(p -> p.requestId().equals("progress-1")).count() < 3
        && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(progress)
        .filteredOn(p -> p.requestId().equals("progress-1"))
        .extracting(McpProgress::progress)
        .containsExactly(1.0, 2.0, 3.0);
    assertThat(progress.get(0).operationId()).isEqualTo("test.progress");
  }

  @Test
  void theCallsTraceContextTravelsInMeta() throws Exception {
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    OperationContext context =
        OperationContext.builder()
            .metadata(dev.alkdev.operations.CallMetadata.of("traceparent", traceparent))
            .build();
    ResponseEnvelope<JsonNode> traced =
        registry.execute("test.progress", Map.of(), context).get(20, TimeUnit.SECONDS);
    assertThat(traced.data().get(0).get("text").stringValue())
        .isEqualTo("progressed " + traceparent);
    ResponseEnvelope<JsonNode> untraced = call("test.progress", Map.of());
    assertThat(untraced.data().get(0).get("text").stringValue()).isEqualTo("progressed");
  }

  @Test
  void deadlineSendsCancelled() throws Exception {
    TestTools.slowRelease = new CountDownLatch(1);
    OperationContext context = OperationContext.builder().timeout(Duration.ofMillis(300)).build();
    CompletableFuture<ResponseEnvelope<JsonNode>> call =
        registry.execute("test.slow", Map.of(), context);
    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED));
    awaitCancelledNotification();
    TestTools.slowRelease.countDown();
  }

  @Test
  void cancelSendsCancelled() throws Exception {
    TestTools.slowRelease = new CountDownLatch(1);
    server.bodies.clear();
    Cancellation cancellation = Cancellation.create();
    OperationContext context = OperationContext.builder().cancellation(cancellation).build();
    CompletableFuture<ResponseEnvelope<JsonNode>> call =
        registry.execute("test.slow", Map.of(), context);
    Thread.sleep(300);
    cancellation.cancel(CallError.of(ErrorCode.CANCELLED, "stop"));
    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED));
    awaitCancelledNotification();
    TestTools.slowRelease.countDown();
  }

  private static void awaitCancelledNotification() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!server.sawCancelled() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(server.sawCancelled()).as("server saw notifications/cancelled").isTrue();
  }

  @Test
  void handlerExceptionIsAnErrorResultOrExecutionError() throws Exception {
    // The SDK server turns a throwing handler into an isError result (or a JSON-RPC error).
    try {
      ResponseEnvelope<JsonNode> result = call("test.throws", Map.of());
      assertThat(((McpResponseMeta) result.meta()).isError()).isTrue();
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(CallError.class);
    }
  }

  @Test
  void listChangedUpdatesRegistryAndReportsChanges() throws Exception {
    changes.clear();
    TestTools.addExtra(server.mcp, "first");
    awaitSpec("test.extra", true);
    assertThat(call("test.extra", Map.of()).data().get(0).get("text").stringValue())
        .isEqualTo("extra");

    server.mcp.removeTool("extra");
    TestTools.addExtra(server.mcp, "second");
    server.mcp.notifyToolsListChanged();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!registry.getSpec("test.extra").map(s -> s.description().equals("second")).orElse(false)
        && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(registry.getSpec("test.extra").get().description()).isEqualTo("second");
    assertThat(changes.stream().flatMap(List::stream))
        .anySatisfy(
            c -> {
              assertThat(c.kind()).isEqualTo(ToolChange.Kind.CHANGED);
              assertThat(c.changed()).contains(ToolChange.Aspect.DESCRIPTION);
              assertThat(c.oldSpec().get().description()).isEqualTo("first");
            });

    server.mcp.removeTool("extra");
    awaitSpec("test.extra", false);
    assertThat(client.operations()).noneMatch(op -> op.spec().name().equals("extra"));
  }

  /**
   * Refreshes asked for together, around a change, end with the server's latest tools: an older
   * listing is never applied after a newer one (it was, when listings overlapped, and a removed
   * tool could come back for good; CI, stop 29).
   */
  @Test
  void refreshesAskedForTogetherEndWithTheServersLatestTools() throws Exception {
    List<CompletableFuture<List<ToolChange>>> refreshes = new java.util.ArrayList<>();
    TestTools.addExtra(server.mcp, "coming and going");
    for (int i = 0; i < 10; i++) {
      refreshes.add(client.refresh());
    }
    server.mcp.removeTool("extra");
    for (int i = 0; i < 10; i++) {
      refreshes.add(client.refresh());
    }
    CompletableFuture.allOf(refreshes.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    assertThat(registry.getSpec("test.extra")).isEmpty();
    assertThat(client.operations()).noneMatch(op -> op.spec().name().equals("extra"));
  }

  private static void awaitSpec(String id, boolean present) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (registry.getSpec(id).isPresent() != present && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(registry.getSpec(id).isPresent()).isEqualTo(present);
  }

  @Test
  void unknownToolIsOperationNotFound() throws Exception {
    // Call the handler of a tool that the server no longer has.
    TestTools.addExtra(server.mcp, "gone soon");
    awaitSpec("test.extra", true);
    var handler = registry.getHandler("test.extra").get();
    server.mcp.getAsyncServer().removeTool("extra").block(Duration.ofSeconds(5));
    var async = (dev.alkdev.operations.AsyncOperationHandler) handler.function();
    CompletableFuture<?> result =
        async
            .handle(
                tools.jackson.databind.json.JsonMapper.shared().createObjectNode(),
                OperationContext.create())
            .toCompletableFuture();
    try {
      Object value = result.get(10, TimeUnit.SECONDS);
      // Some SDK versions answer an unknown tool with an isError result instead.
      assertThat(((ResponseEnvelope<?>) value).meta()).isInstanceOf(McpResponseMeta.class);
    } catch (ExecutionException e) {
      assertThat(((CallError) e.getCause()).code())
          .isIn(ErrorCode.OPERATION_NOT_FOUND, ErrorCode.INVALID_INPUT);
    }
    awaitSpec("test.extra", false);
  }

  @Test
  void configuredHeadersAreSent() {
    try (McpClientWrapper withHeader =
        McpClients.createMcpClient(
            "headers",
            McpClientConfig.streamableHttp(server.url()).header("X-Test", "secret-1").build())) {
      assertThat(withHeader.operations()).isNotEmpty();
    }
    assertThat(server.testHeaders).contains("secret-1");
  }

  @Test
  void unreachableServerIsUnavailable() {
    assertThatThrownBy(
            () ->
                McpClients.createMcpClient(
                    "nobody",
                    McpClientConfig.streamableHttp("http://127.0.0.1:1/mcp")
                        .initializeTimeout(Duration.ofSeconds(3))
                        .build()))
        .isInstanceOfSatisfying(
            CallError.class,
            e -> assertThat(e.code()).isIn(ErrorCode.UNAVAILABLE, ErrorCode.DEADLINE_EXCEEDED));
  }
}
