package example.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.mcp.McpClientConfig;
import dev.alkdev.operations.mcp.McpClientWrapper;
import dev.alkdev.operations.mcp.McpClients;
import dev.alkdev.operations.spring.boot.OperationsServing;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The shop as it runs: the imported Pets API calls the application's own controller; the gateway
 * and the MCP server serve every operation; Actuator reports them; the assistant's model calls them
 * as tools.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.DEFINED_PORT)
class ShopApplicationTest {
  private static final int PORT = freePort();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @DynamicPropertySource
  static void ports(DynamicPropertyRegistry properties) {
    properties.add("server.port", () -> PORT);
    properties.add("operations.openapi.pets.baseUrl", () -> "http://127.0.0.1:" + PORT);
    properties.add("operations.http.port", () -> 0);
    properties.add("operations.mcp.port", () -> 0);
  }

  @TestConfiguration
  static class Model {
    @Bean
    ScriptedChatModel chatModel() {
      return new ScriptedChatModel();
    }
  }

  @Autowired OperationRegistry registry;
  @Autowired OperationsServing serving;
  @Autowired Assistant assistant;
  @Autowired ScriptedChatModel model;

  @Test
  void theRegistryHoldsTheAnnotatedAndImportedOperations() throws Exception {
    assertThat(registry.list())
        .extracting(OperationSpec::id)
        .contains("orders.place", "orders.refund", "pets.listPets");
    assertThat(
            registry
                .execute("pets.listPets", Map.of("limit", 1))
                .get(10, TimeUnit.SECONDS)
                .data()
                .toString())
        .isEqualTo("[{\"id\":1,\"name\":\"Rex\"}]");
  }

  @Test
  void theGatewayAndTheMcpServerServeThem() throws Exception {
    HttpResponse<String> placed =
        HTTP.send(
            HttpRequest.newBuilder(serving.httpUri().orElseThrow().resolve("/ops/orders.place"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"bone\",\"quantity\":2}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(placed.statusCode()).isEqualTo(200);
    assertThat(placed.body()).contains("\"item\":\"bone\"");

    try (McpClientWrapper client =
            McpClients.createMcpClient(
                "shop",
                McpClientConfig.streamableHttp(serving.mcpUri().orElseThrow().toString())
                    .requestTimeout(Duration.ofSeconds(20))
                    .build());
        OperationRegistry back = OperationRegistry.create()) {
      client.registerInto(back);
      assertThat(
              back.execute("shop.pets.listPets", Map.of()).get(20, TimeUnit.SECONDS).toString())
          .contains("Tom");
    }
  }

  @Test
  void actuatorShowsHealthAndOperations() throws Exception {
    URI base = URI.create("http://127.0.0.1:" + PORT);
    String health = get(base.resolve("/actuator/health"));
    assertThat(health).contains("\"operations\":{").contains("\"status\":\"UP\"");
    assertThat(get(base.resolve("/actuator/operations"))).contains("orders.place", "pets.listPets");
  }

  @Test
  void theModelCallsTheOperationsAsTools() {
    model.script("orders_place", "{\"item\":\"ball\",\"quantity\":3}");
    String answer = assistant.ask("Order three balls");
    assertThat(answer).contains("\"item\":\"ball\"").contains("\"quantity\":3");
    // Without the admin scope the model is not offered the refund.
    assertThat(model.offered())
        .contains("orders_place", "pets_listPets")
        .doesNotContain("orders_refund");
  }

  @Test
  void invalidArgumentsComeBackToTheModelAsText() {
    model.script("orders_place", "{\"item\":\"ball\",\"quantity\":\"many\"}");
    String answer = assistant.ask("Order many balls");
    assertThat(answer).contains("INVALID_INPUT").contains("/quantity");
    assertThat(model.shown().get(model.shown().size() - 1)).startsWith("error INVALID_INPUT");
  }

  private static String get(URI uri) throws Exception {
    return HTTP.send(
            HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
