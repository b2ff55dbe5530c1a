package dev.alkdev.operations.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.mcp.McpClientConfig;
import dev.alkdev.operations.mcp.McpClientWrapper;
import dev.alkdev.operations.mcp.McpClients;
import dev.alkdev.operations.metrics.OperationObservationConvention;
import dev.alkdev.operations.spring.boot.app.TestApplication;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The starter in a real Boot application on a random port: annotated beans, a provider and an
 * imported OpenAPI document in one registry, called over HTTP (the gateway) and MCP, seen by
 * Actuator, metrics and observations.
 */
@SpringBootTest(
    classes = TestApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "operations.http.enabled=true",
      "operations.mcp.enabled=true",
      "management.endpoints.web.exposure.include=health,operations",
      "management.endpoint.health.show-details=always"
    })
class StarterApplicationTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final PetsBackend PETS = startPets();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Autowired OperationRegistry registry;
  @Autowired OperationsServing serving;
  @Autowired TestApplication.Greeter greeter;
  @Autowired TestApplication.CountingInterceptor counting;
  @Autowired MeterRegistry meters;
  @Autowired TestApplication.GreeterClient greeterClient;
  @LocalServerPort int port;

  private static PetsBackend startPets() {
    try {
      return PetsBackend.start();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @DynamicPropertySource
  static void pets(DynamicPropertyRegistry properties) {
    properties.add("operations.openapi.pets.location", () -> "classpath:pets.yaml");
    properties.add("operations.openapi.pets.baseUrl", PETS::baseUrl);
  }

  @AfterAll
  static void stopPets() {
    PETS.close();
  }

  @Test
  void theRegistryHoldsAnnotatedProvidedAndImportedOperations() {
    assertThat(registry.list())
        .extracting(OperationSpec::id)
        .contains("greeter.hello", "greeter.secret", "clock.now", "pets.listPets");
  }

  @Test
  void typedClientsAreInjectableBeans() {
    int before = greeter.calls.get();
    assertThat(greeterClient.hello(new TestApplication.Hello("Typed")).text())
        .isEqualTo("Hello, Typed!");
    assertThat(greeter.calls.get()).isEqualTo(before + 1);
  }

  @Test
  void importedOperationsCallTheirApi() throws Exception {
    ResponseEnvelope<JsonNode> pets =
        registry.execute("pets.listPets", Map.of("limit", 2)).get(10, TimeUnit.SECONDS);
    assertThat(pets.data().get(1).get("name").asString()).isEqualTo("Tom");
    assertThat(PETS.requests.get()).isPositive();
  }

  @Test
  void theGatewayServesOverHttpOnItsOwnPort() throws Exception {
    URI base = serving.httpUri().orElseThrow();
    assertThat(base.getPort()).isNotEqualTo(port);
    int before = greeter.calls.get();
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(base.resolve("/ops/greeter.hello"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"Ada\"}"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).contains("Hello, Ada!");
    assertThat(greeter.calls.get()).isEqualTo(before + 1);

    HttpResponse<String> invalid =
        HTTP.send(
            HttpRequest.newBuilder(base.resolve("/ops/greeter.hello"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":42}"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(invalid.statusCode()).isEqualTo(400);
    assertThat(invalid.body()).contains("INVALID_INPUT");
    assertThat(greeter.calls.get()).isEqualTo(before + 1);

    HttpResponse<String> secret =
        HTTP.send(
            HttpRequest.newBuilder(base.resolve("/ops/greeter.secret"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"Eve\"}"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(secret.statusCode()).isIn(401, 403);
  }

  @Test
  void theMcpServerOffersTheOperationsAsTools() throws Exception {
    URI endpoint = serving.mcpUri().orElseThrow();
    try (McpClientWrapper client =
            McpClients.createMcpClient(
                "app",
                McpClientConfig.streamableHttp(endpoint.toString())
                    .requestTimeout(Duration.ofSeconds(20))
                    .build());
        OperationRegistry back = OperationRegistry.create()) {
      client.registerInto(back);
      assertThat(back.list()).extracting(OperationSpec::id).contains("app.pets.listPets");
      ResponseEnvelope<JsonNode> greeted =
          back.execute("app.greeter.hello", Map.of("name", "Grace")).get(20, TimeUnit.SECONDS);
      assertThat(greeted.data().toString()).contains("Hello, Grace!");
    }
  }

  @Test
  void interceptorBeansMetricsAndObservationsSeeEveryCall() throws Exception {
    int before = counting.calls.get();
    registry.execute("clock.now", Map.of()).get(10, TimeUnit.SECONDS);
    assertThat(counting.calls.get()).isEqualTo(before + 1);
    assertThat(meters.find("operations.calls").tag("operation", "clock.now").timer())
        .isNotNull()
        .satisfies(timer -> assertThat(timer.count()).isPositive());
    // Boot's DefaultMeterObservationHandler turns each observation into a timer of its name.
    assertThat(
            meters
                .find(OperationObservationConvention.NAME)
                .tag("operation", "clock.now")
                .tag("outcome", "ok")
                .tag("origin", "in_process")
                .timer())
        .isNotNull();
    assertThat(meters.find("operations.serving.capacity").gauges()).isNotEmpty();
  }

  @Test
  void actuatorReportsHealthAndTheOperations() throws Exception {
    URI management = URI.create("http://127.0.0.1:" + port);
    HttpResponse<String> health =
        HTTP.send(
            HttpRequest.newBuilder(management.resolve("/actuator/health")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    JsonNode body = JSON.readTree(health.body());
    assertThat(body.path("components").path("operations").path("status").asString())
        .isEqualTo("UP");
    assertThat(body.path("components").path("operations").path("details").path("listeners"))
        .extracting(JsonNode::toString)
        .asString()
        .contains("http", "mcp");

    registry.execute("greeter.hello", Map.of("name", "Stats")).get(10, TimeUnit.SECONDS);
    HttpResponse<String> operations =
        HTTP.send(
            HttpRequest.newBuilder(management.resolve("/actuator/operations")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(operations.statusCode()).isEqualTo(200);
    JsonNode list = JSON.readTree(operations.body());
    assertThat(list.path("count").asInt()).isGreaterThanOrEqualTo(4);
    assertThat(list.path("operations").toString()).contains("pets.listPets", "greeter.hello");

    HttpResponse<String> one =
        HTTP.send(
            HttpRequest.newBuilder(management.resolve("/actuator/operations/greeter.hello"))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(one.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(one.body()).path("spec").path("description").asString())
        .isEqualTo("Greets someone by name");

    HttpResponse<String> missing =
        HTTP.send(
            HttpRequest.newBuilder(management.resolve("/actuator/operations/no.such"))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(missing.statusCode()).isEqualTo(404);
  }
}
