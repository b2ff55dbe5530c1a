package dev.alkdev.operations.examples;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.McpContentBlock;
import dev.alkdev.operations.envelope.McpResourceContent;
import dev.alkdev.operations.mcpserver.McpHttpEndpoint;
import dev.alkdev.operations.mcpserver.McpLogLevel;
import dev.alkdev.operations.mcpserver.McpNotifications;
import dev.alkdev.operations.mcpserver.McpServer;
import dev.alkdev.operations.mcpserver.McpTaskMode;
import dev.alkdev.operations.serving.OperationServer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;

/**
 * The fixture tools of the MCP conformance suite ({@code @modelcontextprotocol/conformance}) as
 * operations, served over streamable HTTP at {@code /mcp}, so anyone can run the suite against this
 * server: {@code mvn -B -q compile exec:java -pl operations-examples -am
 * -Dexec.mainClass=dev.alkdev.operations.examples.McpConformanceServer -Dexec.args=3001}, then
 * {@code conformance server --url http://localhost:3001/mcp --requirements 2026-07-28}.
 *
 * <p>Every tool is an ordinary operation in namespace {@code conformance}; the server offers them
 * by their names alone.
 */
public final class McpConformanceServer {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** A 1x1 PNG, base64. */
  static final String PNG =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

  /** A WAV header without samples, base64. */
  static final String WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

  /** The operation the trigger tool adds and removes, so the tool list changes. */
  static final String TOGGLED = "test_toggled_tool";

  private McpConformanceServer() {}

  /**
   * Serves the fixture tools on {@code args[0]} (the port; 3001 when absent) until the process is
   * stopped.
   */
  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 3001;
    try (OperationRegistry registry = registry();
        OperationServer pipeline = OperationServer.create(registry);
        McpServer server = server(pipeline);
        McpHttpEndpoint http = server.startHttp(port)) {
      System.out.println("MCP conformance fixture server at " + http.uri());
      new CountDownLatch(1).await();
    }
  }

  /** The MCP server over {@code pipeline} as the suite expects it: tools by their plain names. */
  public static McpServer server(OperationServer pipeline) {
    return McpServer.builder(pipeline)
        .serverInfo("operations-conformance-fixture", "1.0.0")
        .namespaceInNames(false)
        .taskMode(McpConformanceServer::taskMode)
        .build();
  }

  /**
   * The tasks extension's fixtures: slow_compute and protocol_error_job may run as tasks,
   * failing_job must; the rest answer in the request (test_tool_with_progress too: its items are
   * checked as progress notifications).
   */
  static McpTaskMode taskMode(OperationSpec spec) {
    return switch (spec.name()) {
      case "slow_compute", "protocol_error_job" -> McpTaskMode.OPTIONAL;
      case "failing_job" -> McpTaskMode.REQUIRED;
      default -> McpTaskMode.FORBIDDEN;
    };
  }

  /** The suite's fixture tools, each an operation in namespace {@code conformance}. */
  public static OperationRegistry registry() {
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
    // Answers at once; 2026-07-28 checks that nothing but notifications precede the result.
    blocks(
        registry,
        "test_streaming_elicitation",
        List.of(McpContentBlock.text("Streamed without asking the client anything.")));
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
    // Logs one message: sent only when the request asks for logs (2026-07-28: its logLevel).
    registry.register(
        spec("test_logging_tool", OperationType.MUTATION).build(),
        Handler.blocking(
            (input, context) -> {
              McpNotifications.log(context, McpLogLevel.INFO, "test_logging_tool ran");
              return "logged one message";
            }));
    registry.register(
        spec("test_error_handling", OperationType.MUTATION).build(),
        Handler.blocking(
            (input, context) -> {
              throw new IllegalStateException(
                  "This tool intentionally returns an error for testing");
            }));
    // A stream: each item reaches the client as a notifications/progress while the call runs.
    registry.register(
        spec("test_tool_with_progress", OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (input, context, emitter) -> {
              for (int progress : new int[] {0, 50, 100}) {
                emitter.emit(Map.of("progress", progress, "total", 100));
                Thread.sleep(50);
              }
            }));
    // Adds or removes another operation, so clients listening for tool-list changes hear one.
    registry.register(
        spec("test_trigger_tool_change", OperationType.MUTATION).build(),
        Handler.blocking(
            (input, context) -> {
              if (registry.unregister("conformance." + TOGGLED)) {
                return "removed " + TOGGLED;
              }
              registry.register(
                  spec(TOGGLED, OperationType.QUERY).build(),
                  Handler.blocking((in, ctx) -> "toggled"));
              return "added " + TOGGLED;
            }));
    // A parameter mirrored into an Mcp-Param-Region header (2026-07-28, x-mcp-header).
    registry.register(
        spec("test_custom_header", OperationType.QUERY)
            .inputSchema(
                """
                {"type": "object",
                 "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
                 "required": ["region"]}
                """)
            .build(),
        Handler.blocking((input, context) -> "region " + input.path("region").asString("")));
    registry.register(
        spec("json_schema_2020_12_tool", OperationType.QUERY)
            .description("Tool with JSON Schema 2020-12 features")
            .inputSchema(
                """
                {"$schema": "https://json-schema.org/draft/2020-12/schema",
                 "type": "object",
                 "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                   "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
                 "properties": {"name": {"type": "string"},
                   "address": {"$ref": "#/$defs/address"},
                   "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                   "phone": {"type": "string"}, "email": {"type": "string"}},
                 "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                 "if": {"properties": {"contactMethod": {"const": "phone"}},
                   "required": ["contactMethod"]},
                 "then": {"required": ["phone"]},
                 "else": {"required": ["email"]},
                 "additionalProperties": false}
                """)
            .build(),
        Handler.blocking((input, context) -> input));
    taskFixtures(registry);
    return registry;
  }

  /** The tools the tasks extension's scenarios call. */
  private static void taskFixtures(OperationRegistry registry) {
    registry.register(
        spec("greet", OperationType.QUERY)
            .inputSchema(
                "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
                    + "\"required\":[\"name\"]}")
            .build(),
        Handler.blocking(
            (input, context) ->
                Envelopes.mcpEnvelope(
                    JSON.createArrayNode(),
                    false,
                    List.of(
                        McpContentBlock.text("Hello, " + input.path("name").asString() + "!")))));
    // Sleeps the seconds asked for, a little at a time, so a cancel ends it at once.
    registry.register(
        spec("slow_compute", OperationType.MUTATION)
            .inputSchema(
                "{\"type\":\"object\",\"properties\":{\"seconds\":{\"type\":\"integer\","
                    + "\"minimum\":0},\"label\":{\"type\":\"string\"}},"
                    + "\"required\":[\"seconds\"]}")
            .build(),
        Handler.blocking(
            (input, context) -> {
              long until = System.nanoTime() + input.path("seconds").asLong(0) * 1_000_000_000L;
              while (System.nanoTime() < until) {
                context.throwIfDone();
                Thread.sleep(20);
              }
              return "computed " + input.path("label").asString("");
            }));
    registry.register(
        spec("failing_job", OperationType.MUTATION).build(),
        Handler.blocking(
            (input, context) -> {
              Thread.sleep(300);
              throw new IllegalStateException("failing_job failed, as it always does");
            }));
    // A JSON-RPC error rather than a tool error: the task fails instead of completing.
    registry.register(
        spec("protocol_error_job", OperationType.MUTATION).build(),
        Handler.blocking(
            (input, context) -> {
              Thread.sleep(100);
              throw CallError.of(
                  ErrorCode.PROTOCOL_ERROR, "protocol_error_job breaks the protocol");
            }));
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
}
