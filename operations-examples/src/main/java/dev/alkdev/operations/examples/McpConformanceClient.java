package dev.alkdev.operations.examples;

import dev.alkdev.operations.AsyncOperationHandler;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationDefinition;
import dev.alkdev.operations.mcp.McpAuthorizationPrompt;
import dev.alkdev.operations.mcp.McpClientConfig;
import dev.alkdev.operations.mcp.McpClientOptions;
import dev.alkdev.operations.mcp.McpClientWrapper;
import dev.alkdev.operations.mcp.McpClients;
import dev.alkdev.operations.mcp.McpInputRequest;
import dev.alkdev.operations.mcp.McpOAuth;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The client side of the MCP conformance suite ({@code @modelcontextprotocol/conformance}): the
 * suite runs {@code conformance client --command "java ... McpConformanceClient"}, appending the
 * server URL, and names the scenario in {@code MCP_CONFORMANCE_SCENARIO}. This connects with the
 * operations MCP client as any program would (era found by probing, tools listed) and then does
 * what the scenario asks: calls its tools, answering the server's questions with an input handler
 * that accepts what it is asked with the schema's defaults.
 */
public final class McpConformanceClient {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private McpConformanceClient() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println("usage: McpConformanceClient SERVER_URL");
      System.exit(2);
    }
    String url = args[args.length - 1];
    String scenario = Optional.ofNullable(System.getenv("MCP_CONFORMANCE_SCENARIO")).orElse("");
    JsonNode context =
        JSON.readTree(Optional.ofNullable(System.getenv("MCP_CONFORMANCE_CONTEXT")).orElse("{}"));
    int failures = run(url, scenario, context);
    System.exit(failures == 0 ? 0 : 1);
  }

  /** Runs one scenario against {@code url}; returns how many of its calls failed. */
  static int run(String url, String scenario, JsonNode context) throws Exception {
    McpClientOptions options =
        McpClientOptions.builder().inputHandler(McpConformanceClient::answer).build();
    McpClientConfig.StreamableHttp.Builder config =
        McpClientConfig.streamableHttp(url)
            // The suite starts every scenario's client at once: JVMs starting together are slow.
            .initializeTimeout(Duration.ofSeconds(25))
            .requestTimeout(Duration.ofSeconds(20));
    if (scenario.startsWith("auth/")) {
      config.oauth(oauth(scenario, context));
    }
    int failures = 0;
    try (McpClientWrapper client =
        McpClients.createMcpClient("conformance", config.build(), options)) {
      for (Call call : calls(scenario, context, client)) {
        failures += call(client, call) ? 0 : 1;
      }
    }
    return failures;
  }

  /**
   * OAuth as an application would configure it, authorizing headless (the suite's authorization
   * servers approve at once): a pre-registered client or the client credentials grant when the
   * scenario's context gives credentials, and a client ID metadata document URL for servers that
   * accept one (the suite never fetches it).
   */
  static McpOAuth oauth(String scenario, JsonNode context) {
    String clientId = context.path("client_id").asString("");
    String secret = context.path("client_secret").asString("");
    McpOAuth.Builder oauth =
        scenario.startsWith("auth/client-credentials")
            ? McpOAuth.clientCredentials(clientId, secret)
            : McpOAuth.builder();
    if (!clientId.isEmpty() && !scenario.startsWith("auth/client-credentials")) {
      if (secret.isEmpty()) {
        oauth.clientId(clientId);
      } else {
        oauth.clientId(clientId, secret);
      }
    }
    return oauth
        .clientName("operations-java conformance client")
        .clientMetadataUrl("https://conformance-test.local/client-metadata.json")
        .prompt(McpAuthorizationPrompt.headless())
        .authorizationTimeout(Duration.ofSeconds(20))
        .build();
  }

  /** A tool to call and its arguments, as the scenario wants them (not validated here). */
  record Call(String tool, JsonNode arguments) {}

  static List<Call> calls(String scenario, JsonNode context, McpClientWrapper client) {
    ObjectNode none = JSON.createObjectNode();
    return switch (scenario) {
      case "tools_call" -> List.of(new Call("add_numbers", JSON.readTree("{\"a\":2,\"b\":3}")));
      case "sse-retry" -> List.of(new Call("test_reconnection", none));
      case "elicitation-sep1034-client-defaults" ->
          List.of(new Call("test_client_elicitation_defaults", none));
      case "http-custom-headers" ->
          context
              .path("toolCalls")
              .valueStream()
              .map(call -> new Call(call.path("name").asString(), call.path("arguments")))
              .toList();
      case "http-invalid-tool-headers" ->
          // Only what survived the client's checks of x-mcp-header is listed, so only it is called.
          client.operations().stream()
              .map(op -> new Call(toolName(client, op), JSON.readTree("{\"region\":\"us-west1\"}")))
              .toList();
      case "json-schema-2020-12-preservation" -> {
        ObjectNode echo = JSON.createObjectNode();
        echo.set("schema", spec(client, "json_schema_2020_12_tool").spec().inputSchema().json());
        yield List.of(new Call("json_schema_echo", echo));
      }
      case "sep-2322-client-request-state", "http-standard-headers" ->
          client.operations().stream().map(op -> new Call(toolName(client, op), none)).toList();
      default ->
          scenario.startsWith("auth/")
              // Some authorization scenarios refuse only a call (a step-up to a write scope).
              ? client.operations().stream()
                  .map(op -> new Call(toolName(client, op), none))
                  .toList()
              : List.of(); // connecting and listing the tools is all the scenario looks at
    };
  }

  private static boolean call(McpClientWrapper client, Call call) {
    // The handler directly: the suite sends arguments the tool's schema refuses (a null, say) to
    // see what goes on the wire, so the registry's validation is not in the way here.
    AsyncOperationHandler handler =
        (AsyncOperationHandler) spec(client, call.tool()).handler().function();
    try {
      Object result =
          handler
              .handle(call.arguments(), OperationContext.create())
              .toCompletableFuture()
              .get(20, TimeUnit.SECONDS);
      System.out.println(call.tool() + " -> " + result);
      return true;
    } catch (Exception e) {
      System.out.println(call.tool() + " failed: " + e.getMessage());
      return false;
    }
  }

  private static OperationDefinition spec(McpClientWrapper client, String tool) {
    String operation =
        client.renamedTools().entrySet().stream()
            .filter(entry -> entry.getValue().equals(tool))
            .map(Map.Entry::getKey)
            .findFirst()
            .orElse(tool);
    return client.operations().stream()
        .filter(op -> op.spec().name().equals(operation))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("the server lists no tool " + tool));
  }

  private static String toolName(McpClientWrapper client, OperationDefinition op) {
    return client.renamedTools().getOrDefault(op.spec().name(), op.spec().name());
  }

  /**
   * Accepts what the server asks: an elicitation with each field's default (or a value of its
   * type), a sampling request with a fixed text, a roots request with none.
   */
  static CompletableFuture<JsonNode> answer(McpInputRequest request) {
    ObjectNode result = JSON.createObjectNode();
    switch (request.method()) {
      case "elicitation/create" -> {
        result.put("action", "accept");
        ObjectNode content = result.putObject("content");
        for (Map.Entry<String, JsonNode> field :
            request.params().path("requestedSchema").path("properties").properties()) {
          JsonNode schema = field.getValue();
          if (schema.has("default")) {
            content.set(field.getKey(), schema.get("default"));
            continue;
          }
          switch (schema.path("type").asString("string")) {
            case "boolean" -> content.put(field.getKey(), true);
            case "integer", "number" -> content.put(field.getKey(), 1);
            default ->
                content.put(
                    field.getKey(),
                    schema.path("enum").isArray() && !schema.path("enum").isEmpty()
                        ? schema.path("enum").get(0).asString()
                        : "conformance");
          }
        }
      }
      case "sampling/createMessage" -> {
        result.put("role", "assistant");
        result.putObject("content").put("type", "text").put("text", "An answer from the client");
        result.put("model", "conformance-client");
        result.put("stopReason", "endTurn");
      }
      case "roots/list" -> result.putArray("roots");
      default -> {
        return CompletableFuture.failedFuture(
            new IllegalArgumentException("cannot answer " + request.method()));
      }
    }
    return CompletableFuture.completedFuture(result);
  }
}
