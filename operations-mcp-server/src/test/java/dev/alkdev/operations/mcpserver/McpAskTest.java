package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.mcp.McpClientConfig;
import dev.alkdev.operations.mcp.McpClientOptions;
import dev.alkdev.operations.mcp.McpClientWrapper;
import dev.alkdev.operations.mcp.McpClients;
import dev.alkdev.operations.serving.OperationServer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/**
 * A handler that asks the client ({@link McpAsk}), served by our server and called by our client
 * with an input handler, in each era: 2025 (the request on the call's stream, answered on the
 * session) and 2026-07-28 (an InputRequiredResult, the call sent again with the answer). Refusals:
 * a client without the capability (-32021, HTTP 400), a call not served over MCP.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class McpAskTest {
  private OperationRegistry registry;
  private OperationServer pipeline;
  private McpServer server;
  private McpHttpEndpoint http;

  @BeforeEach
  void start() {
    registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("ask", "name")
            .type(OperationType.MUTATION)
            .description("Asks the user's name, then greets them")
            .build(),
        Handler.blocking(
            (input, context) -> {
              JsonNode answer;
              try {
                answer =
                    McpAsk.elicit(
                            context,
                            "user_name",
                            "What is your name?",
                            Fixtures.json(
                                "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
                                    + "\"required\":[\"name\"]}"))
                        .get(30, TimeUnit.SECONDS);
              } catch (ExecutionException e) {
                throw (Exception) e.getCause();
              }
              return Map.of("greeting", "Hello, " + answer.at("/content/name").asString() + "!");
            }));
    pipeline = OperationServer.create(registry);
    server = McpServer.builder(pipeline).build();
    http = server.startHttp(0);
  }

  @AfterEach
  void stop() {
    http.close();
    server.close();
    pipeline.close();
    registry.close();
  }

  private McpClientWrapper client(McpClientConfig.Era era, boolean withHandler) {
    McpClientOptions.Builder options = McpClientOptions.builder();
    if (withHandler) {
      options.inputHandler(
          request ->
              CompletableFuture.completedFuture(
                  Fixtures.json("{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}")));
    }
    return McpClients.createMcpClient(
        "back",
        McpClientConfig.streamableHttp(http.uri().toString())
            .era(era)
            .requestTimeout(Duration.ofSeconds(20))
            .build(),
        options.build());
  }

  @ParameterizedTest
  @EnumSource(
      value = McpClientConfig.Era.class,
      names = {"LEGACY", "MODERN"})
  void theHandlerAsksAndOurClientAnswers(McpClientConfig.Era era) throws Exception {
    try (McpClientWrapper client = client(era, true);
        OperationRegistry back = OperationRegistry.create()) {
      client.registerInto(back);
      ResponseEnvelope<JsonNode> greeted =
          back.execute("back.ask.name", Map.of()).get(20, TimeUnit.SECONDS);
      assertThat(greeted.data().get("greeting").asString()).isEqualTo("Hello, Ada!");
    }
  }

  @Test
  void aTaskAsksAndOurClientAnswersWithTasksUpdate() throws Exception {
    try (McpServer tasks = McpServer.builder(pipeline).taskMode(McpTaskMode.allOptional()).build();
        McpHttpEndpoint endpoint = tasks.startHttp(0);
        McpClientWrapper client =
            McpClients.createMcpClient(
                "back",
                McpClientConfig.streamableHttp(endpoint.uri().toString())
                    .era(McpClientConfig.Era.MODERN)
                    .requestTimeout(Duration.ofSeconds(20))
                    .build(),
                McpClientOptions.builder()
                    .inputHandler(
                        request ->
                            CompletableFuture.completedFuture(
                                Fixtures.json(
                                    "{\"action\":\"accept\",\"content\":{\"name\":\"Grace\"}}")))
                    .build());
        OperationRegistry back = OperationRegistry.create()) {
      client.registerInto(back);
      ResponseEnvelope<JsonNode> greeted =
          back.execute("back.ask.name", Map.of()).get(20, TimeUnit.SECONDS);
      assertThat(greeted.data().get("greeting").asString()).isEqualTo("Hello, Grace!");
    }
  }

  @Test
  void aClientWithNoOneToAskIsRefusedForTheCapabilityItLacks() throws Exception {
    // Without an input handler the client declares no elicitation, so the server refuses the
    // call (-32021), and the caller hears which capability it lacks.
    try (McpClientWrapper client = client(McpClientConfig.Era.MODERN, false);
        OperationRegistry back = OperationRegistry.create()) {
      client.registerInto(back);
      assertThatThrownBy(() -> back.execute("back.ask.name", Map.of()).get(20, TimeUnit.SECONDS))
          .cause()
          .isInstanceOfSatisfying(
              CallError.class,
              e -> {
                assertThat(e.getMessage()).contains("elicitation capability").contains("-32021");
                assertThat(e.code()).isEqualTo(ErrorCode.EXECUTION_ERROR);
              });
    }
  }

  @Test
  void aClientWithoutTheCapabilityIsRefusedWithItsName() throws Exception {
    RawHttp.Response refused =
        RawHttp.post(
            http.port(),
            Map.of(
                "MCP-Protocol-Version",
                "2026-07-28",
                "Mcp-Method",
                "tools/call",
                "Mcp-Name",
                "ask.name"),
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"ask.name\","
                + "\"arguments\":{},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
                + "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.message().at("/error/code").asInt()).isEqualTo(-32021);
    assertThat(refused.message().at("/error/data/requiredCapabilities").has("elicitation"))
        .isTrue();

    // An altered requestState is refused, and the call it named is not touched.
    RawHttp.Response tampered =
        RawHttp.post(
            http.port(),
            Map.of(
                "MCP-Protocol-Version",
                "2026-07-28",
                "Mcp-Method",
                "tools/call",
                "Mcp-Name",
                "ask.name"),
            "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"ask.name\","
                + "\"arguments\":{},\"requestState\":\"not-ours\",\"inputResponses\":{},"
                + "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}}}");
    assertThat(tampered.message().at("/error/code").asInt()).isEqualTo(-32602);
  }

  @Test
  void aCallNotServedOverMcpHasNoOneToAsk() {
    assertThatThrownBy(() -> registry.execute("ask.name", Map.of()).get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            CallError.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);
              assertThat(e.getMessage()).contains("Not an MCP call");
            });
  }
}
