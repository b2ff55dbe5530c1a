package dev.alkdev.operations.examples;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationHandler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.McpContentBlock;
import dev.alkdev.operations.envelope.McpResourceContent;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.mcpserver.McpAsk;
import dev.alkdev.operations.mcpserver.McpHttpEndpoint;
import dev.alkdev.operations.mcpserver.McpLogLevel;
import dev.alkdev.operations.mcpserver.McpNotifications;
import dev.alkdev.operations.mcpserver.McpServer;
import dev.alkdev.operations.mcpserver.McpTaskMode;
import dev.alkdev.operations.serving.OperationServer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

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
      case "slow_compute", "protocol_error_job", "confirm_delete", "multi_input" ->
          McpTaskMode.OPTIONAL;
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
    askingFixtures(registry);
    return registry;
  }

  /**
   * Tools whose handlers ask the client ({@link McpAsk}): in a 2025 session the requests go to the
   * client on the call's stream; in 2026-07-28 the call answers with an InputRequiredResult and
   * goes on when the client sends it again with the answers.
   */
  private static void askingFixtures(OperationRegistry registry) {
    asking(
        registry,
        "test_sampling",
        (input, context) -> {
          JsonNode answer =
              await(
                  McpAsk.createMessage(
                      context, "sample", sampling(input.path("prompt").asString("Hello"), 100)));
          return text("LLM response: " + answer.at("/content/text").asString(""));
        });
    asking(
        registry,
        "test_elicitation",
        (input, context) -> {
          JsonNode answer =
              await(
                  McpAsk.elicit(
                      context,
                      "info",
                      input.path("message").asString("Please provide your information"),
                      JSON.readTree(
                          """
                          {"type": "object",
                           "properties": {
                             "username": {"type": "string", "description": "User's response"},
                             "email": {"type": "string", "description": "User's email address"}},
                           "required": ["username", "email"]}
                          """)));
          return text(
              "User response: action="
                  + answer.path("action").asString()
                  + ", content="
                  + answer.path("content"));
        });
    asking(
        registry,
        "test_elicitation_sep1034_defaults",
        (input, context) -> {
          JsonNode answer =
              await(
                  McpAsk.elicit(
                      context,
                      "defaults",
                      "Confirm or change these values",
                      JSON.readTree(
                          """
                          {"type": "object",
                           "properties": {
                             "name": {"type": "string", "default": "John Doe"},
                             "age": {"type": "integer", "default": 30},
                             "score": {"type": "number", "default": 95.5},
                             "status": {"type": "string", "enum": ["active", "inactive", "pending"],
                                        "default": "active"},
                             "verified": {"type": "boolean", "default": true}},
                           "required": []}
                          """)));
          return text(
              "Elicitation completed: action="
                  + answer.path("action").asString()
                  + ", content="
                  + answer.path("content"));
        });
    asking(
        registry,
        "test_elicitation_sep1330_enums",
        (input, context) -> {
          JsonNode answer =
              await(
                  McpAsk.elicit(
                      context,
                      "enums",
                      "Pick your options",
                      JSON.readTree(
                          """
                          {"type": "object",
                           "properties": {
                             "untitledSingle": {"type": "string",
                               "enum": ["option1", "option2", "option3"]},
                             "titledSingle": {"type": "string", "oneOf": [
                               {"const": "value1", "title": "First Option"},
                               {"const": "value2", "title": "Second Option"},
                               {"const": "value3", "title": "Third Option"}]},
                             "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                               "enumNames": ["Option One", "Option Two", "Option Three"]},
                             "untitledMulti": {"type": "array", "minItems": 1, "maxItems": 3,
                               "items": {"type": "string",
                                 "enum": ["option1", "option2", "option3"]}},
                             "titledMulti": {"type": "array", "minItems": 1, "maxItems": 3,
                               "items": {"anyOf": [
                                 {"const": "value1", "title": "First Choice"},
                                 {"const": "value2", "title": "Second Choice"},
                                 {"const": "value3", "title": "Third Choice"}]}}},
                           "required": []}
                          """)));
          return text(
              "Elicitation completed: action="
                  + answer.path("action").asString()
                  + ", content="
                  + answer.path("content"));
        });
    asking(
        registry,
        "test_input_required_result_elicitation",
        (input, context) ->
            text("Hello, " + askName(context, "user_name", "What is your name?") + "!"));
    asking(
        registry,
        "test_input_required_result_sampling",
        (input, context) ->
            text(
                await(
                        McpAsk.createMessage(
                            context,
                            "capital_question",
                            sampling("What is the capital of France?", 100)))
                    .at("/content/text")
                    .asString("")));
    asking(
        registry,
        "test_input_required_result_list_roots",
        (input, context) ->
            text(
                "Found "
                    + await(McpAsk.listRoots(context, "client_roots")).path("roots").size()
                    + " root(s)"));
    asking(
        registry,
        "test_input_required_result_request_state",
        (input, context) -> {
          confirm(context, "confirm");
          return text("state-ok");
        });
    asking(
        registry,
        "test_input_required_result_tampered_state",
        (input, context) -> {
          confirm(context, "confirm");
          return text("confirmed");
        });
    // Three questions at once: they go out in one round.
    asking(
        registry,
        "test_input_required_result_multiple_inputs",
        (input, context) -> {
          CompletableFuture<JsonNode> name =
              McpAsk.elicit(context, "user_name", "What is your name?", nameSchema());
          CompletableFuture<JsonNode> greeting =
              McpAsk.createMessage(context, "greeting", sampling("Generate a greeting", 50));
          CompletableFuture<JsonNode> roots = McpAsk.listRoots(context, "client_roots");
          return text(
              await(greeting).at("/content/text").asString("")
                  + " "
                  + await(name).at("/content/name").asString("")
                  + " ("
                  + await(roots).path("roots").size()
                  + " root(s))");
        });
    // Two rounds, one after the other.
    asking(
        registry,
        "test_input_required_result_multi_round",
        (input, context) -> {
          String name = askName(context, "step1", "Step 1: What is your name?");
          JsonNode color =
              await(
                  McpAsk.elicit(
                      context,
                      "step2",
                      "Step 2: What is your favorite color?",
                      JSON.readTree(
                          "{\"type\":\"object\",\"properties\":{\"color\":{\"type\":\"string\"}},"
                              + "\"required\":[\"color\"]}")));
          return text(name + " likes " + color.at("/content/color").asString(""));
        });
    // Asks only what the client can answer.
    asking(
        registry,
        "test_input_required_result_capabilities",
        (input, context) -> {
          if (McpAsk.canAsk(context, "elicitation/create")) {
            return text("Hello, " + askName(context, "user_name", "What is your name?") + "!");
          }
          return text(
              await(McpAsk.createMessage(context, "sample_input", sampling("Sample request", 50)))
                  .at("/content/text")
                  .asString(""));
        });
    // As tasks, these ask while the task runs: the task waits in input_required until tasks/update.
    asking(
        registry,
        "confirm_delete",
        (input, context) -> {
          String file = input.path("filename").asString("the file");
          JsonNode answer =
              await(
                  McpAsk.elicit(
                      context,
                      "confirm",
                      "Delete " + file + "?",
                      JSON.readTree(
                          "{\"type\":\"object\",\"properties\":{\"confirm\":{\"type\":\"boolean\"}},"
                              + "\"required\":[\"confirm\"]}")));
          return text(
              (answer.at("/content/confirm").asBoolean(false) ? "Deleted " : "Kept ") + file);
        });
    asking(
        registry,
        "multi_input",
        (input, context) -> {
          JsonNode schema =
              JSON.readTree(
                  "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
                      + "\"confirm\":{\"type\":\"boolean\"}},\"required\":[\"name\"]}");
          CompletableFuture<JsonNode> first =
              McpAsk.elicit(context, "first", "First name?", schema);
          CompletableFuture<JsonNode> second =
              McpAsk.elicit(context, "second", "Second name?", schema);
          return text(
              await(first).at("/content/name").asString("")
                  + " and "
                  + await(second).at("/content/name").asString(""));
        });
    // Cannot work without sampling: a client that does not declare it is refused (-32021).
    asking(
        registry,
        "test_missing_capability",
        (input, context) ->
            text(
                await(McpAsk.createMessage(context, "needs_sampling", sampling("Summarize", 50)))
                    .at("/content/text")
                    .asString("")));
  }

  private static void asking(OperationRegistry registry, String name, OperationHandler handler) {
    registry.register(spec(name, OperationType.MUTATION).build(), Handler.blocking(handler));
  }

  private static String askName(OperationContext context, String key, String question)
      throws Exception {
    return await(McpAsk.elicit(context, key, question, nameSchema()))
        .at("/content/name")
        .asString("");
  }

  private static void confirm(OperationContext context, String key) throws Exception {
    await(
        McpAsk.elicit(
            context,
            key,
            "Please confirm",
            JSON.readTree(
                "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}},"
                    + "\"required\":[\"ok\"]}")));
  }

  private static JsonNode nameSchema() {
    return JSON.readTree(
        "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
            + "\"required\":[\"name\"]}");
  }

  private static ObjectNode sampling(String prompt, int maxTokens) {
    ObjectNode params = JSON.createObjectNode();
    ObjectNode message = params.putArray("messages").addObject();
    message.put("role", "user");
    message.putObject("content").put("type", "text").put("text", prompt);
    params.put("maxTokens", maxTokens);
    return params;
  }

  /** The client's answer, waited for as long as a client may take; its failure as it is. */
  private static JsonNode await(CompletableFuture<JsonNode> answer) throws Exception {
    try {
      return answer.get(2, TimeUnit.MINUTES);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  private static ResponseEnvelope<JsonNode> text(String text) {
    return Envelopes.mcpEnvelope(
        JSON.createArrayNode(), false, List.of(McpContentBlock.text(text)));
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
