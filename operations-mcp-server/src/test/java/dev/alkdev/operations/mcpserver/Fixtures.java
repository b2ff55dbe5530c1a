package dev.alkdev.operations.mcpserver;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.McpContentBlock;
import dev.alkdev.operations.envelope.McpResourceContent;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;

/** The registries the tests serve: the conformance suite's fixture tools, and a general one. */
final class Fixtures {
  static final JsonMapper JSON = JsonMapper.builder().build();
  // A 1x1 PNG and a tiny WAV header, base64.
  static final String PNG =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
  static final String WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

  static final AtomicInteger slowStarted = new AtomicInteger();
  static final AtomicInteger slowCancelled = new AtomicInteger();
  static volatile CountDownLatch slowRelease = new CountDownLatch(1);

  private Fixtures() {}

  /** The tools @modelcontextprotocol/conformance 0.1.16 calls, in namespace "conformance". */
  static OperationRegistry conformance() {
    OperationRegistry registry = OperationRegistry.create();
    blocks(
        registry,
        "test_simple_text",
        List.of(McpContentBlock.text("This is a simple text response for testing.")));
    blocks(registry, "test_image_content", List.of(McpContentBlock.image(PNG, "image/png")));
    blocks(registry, "test_audio_content", List.of(McpContentBlock.audio(WAV, "audio/wav")));
    McpContentBlock resource =
        McpContentBlock.resource(
            McpResourceContent.ofText(
                "test://embedded-resource", "text/plain", "This is an embedded resource content."));
    blocks(registry, "test_embedded_resource", List.of(resource));
    blocks(
        registry,
        "test_multiple_content_types",
        List.of(
            McpContentBlock.text("Multiple content types test:"),
            McpContentBlock.image(PNG, "image/png"),
            resource));
    registry.register(
        spec("test_tool_with_logging", OperationType.MUTATION).build(),
        Handler.blocking(
            (input, context) -> {
              for (String message :
                  List.of(
                      "Tool execution started",
                      "Tool processing data",
                      "Tool execution completed")) {
                McpNotifications.log(context, McpLogLevel.INFO, message);
                Thread.sleep(50);
              }
              return "logged three messages";
            }));
    registry.register(
        spec("test_error_handling", OperationType.MUTATION).build(),
        Handler.blocking(
            (input, context) -> {
              throw new IllegalStateException(
                  "This tool intentionally returns an error for testing");
            }));
    registry.register(
        spec("test_tool_with_progress", OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (input, context, emitter) -> {
              for (int progress : new int[] {0, 50, 100}) {
                emitter.emit(Map.of("progress", progress, "total", 100));
                Thread.sleep(50);
              }
            }));
    registry.register(
        spec("json_schema_2020_12_tool", OperationType.QUERY)
            .description("Tool with JSON Schema 2020-12 features")
            .inputSchema(
                "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
                    + "\"$defs\":{\"address\":{\"type\":\"object\",\"properties\":{\"street\":{\"type\":\"string\"},"
                    + "\"city\":{\"type\":\"string\"}}}},\"properties\":{\"name\":{\"type\":\"string\"},"
                    + "\"address\":{\"$ref\":\"#/$defs/address\"}},\"additionalProperties\":false}")
            .build(),
        Handler.blocking((input, context) -> input));
    return registry;
  }

  private static OperationSpec.Builder spec(String name, OperationType type) {
    return OperationSpec.builder("conformance", name)
        .type(type)
        .description("Conformance fixture " + name);
  }

  private static void blocks(
      OperationRegistry registry, String name, List<McpContentBlock> content) {
    ArrayNode data = JSON.createArrayNode();
    content.forEach(block -> data.add(block.toJson()));
    registry.register(
        spec(name, OperationType.QUERY).build(),
        Handler.blocking((input, context) -> Envelopes.mcpEnvelope(data, false, content)));
  }

  /** The general registry: typed input and output, scopes, a slow call, a stream. */
  static OperationRegistry general() {
    OperationRegistry registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("math", "add")
            .type(OperationType.QUERY)
            .description("Adds two numbers")
            .inputSchema(
                "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}},"
                    + "\"required\":[\"a\",\"b\"],\"additionalProperties\":false}")
            .outputSchema(
                "{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"number\"}},\"required\":[\"sum\"]}")
            .build(),
        Handler.blocking(
            (input, context) ->
                Map.of("sum", input.get("a").asDouble() + input.get("b").asDouble())));
    registry.register(
        OperationSpec.builder("text", "echo")
            .type(OperationType.MUTATION)
            .idempotent(true)
            .description("Echoes its input")
            .inputSchema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}")
            .build(),
        Handler.blocking((input, context) -> input));
    registry.register(
        OperationSpec.builder("text", "upper")
            .type(OperationType.QUERY)
            .description("Upper-cases a string: a non-object input")
            .inputSchema("{\"type\":\"string\"}")
            .outputSchema("{\"type\":\"string\"}")
            .build(),
        Handler.blocking((input, context) -> input.asString().toUpperCase(java.util.Locale.ROOT)));
    registry.register(
        OperationSpec.builder("admin", "reset")
            .type(OperationType.MUTATION)
            .description("Needs the admin scope")
            .requiredScopes("admin")
            .build(),
        Handler.blocking((input, context) -> Map.of("reset", true)));
    registry.register(
        OperationSpec.builder("slow", "wait")
            .type(OperationType.MUTATION)
            .description("Waits until released or cancelled")
            .build(),
        Handler.blocking(
            (input, context) -> {
              slowStarted.incrementAndGet();
              try {
                while (!slowRelease.await(20, TimeUnit.MILLISECONDS)) {
                  if (context.isDone()) {
                    slowCancelled.incrementAndGet();
                    context.throwIfDone(); // its deadline or cancellation, never a result
                  }
                }
              } catch (InterruptedException e) {
                slowCancelled.incrementAndGet();
                throw e;
              }
              return "released";
            }));
    registry.register(
        OperationSpec.builder("feed", "numbers")
            .type(OperationType.SUBSCRIPTION)
            .description("Counts from 1 to input.count")
            .inputSchema("{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"integer\"}}}")
            .build(),
        Handler.emitter(
            (input, context, emitter) -> {
              int count = input.path("count").asInt(3);
              for (int i = 1; i <= count; i++) {
                emitter.emit(Map.of("n", i));
              }
            }));
    return registry;
  }

  static JsonNode json(String text) {
    return JSON.readTree(text);
  }
}
