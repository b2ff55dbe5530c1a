package dev.alkdev.operations.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.mock.env.MockEnvironment;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The source sections read as written: case kept, lists as lists, placeholders left alone. */
class PropertySourcesTest {

  @Test
  void sectionsAreReadAsWritten() {
    MockEnvironment environment =
        new MockEnvironment()
            .withProperty("operations.mcp-servers.files.command", "npx")
            .withProperty("operations.mcp-servers.files.args[0]", "-y")
            .withProperty("operations.mcp-servers.files.args[1]", "server")
            .withProperty("operations.mcp-servers.remote.headers.Authorization", "Bearer ${TOKEN}")
            .withProperty("operations.openapi.pets.baseUrl", "http://127.0.0.1:1");
    assertThat(PropertySources.tree(environment, "operations.mcp-servers"))
        .isEqualTo(
            JsonMapper.builder()
                .build()
                .readTree(
                    "{\"files\":{\"command\":\"npx\",\"args\":[\"-y\",\"server\"]},"
                        + "\"remote\":{\"headers\":{\"Authorization\":\"Bearer ${TOKEN}\"}}}"));
    assertThat(PropertySources.tree(environment, "operations.openapi").toString())
        .isEqualTo("{\"pets\":{\"baseUrl\":\"http://127.0.0.1:1\"}}");
    assertThat(PropertySources.tree(environment, "operations.sources")).isNull();
  }

  @Test
  void opsMessagesAreTurnedIntoPropertyNames() {
    assertThat(PropertySources.propertyNamed("properties: openapi.pets.location is required"))
        .isEqualTo("operations.openapi.pets.location is required");
    assertThat(PropertySources.propertyNamed("properties: mcpServers.files must be an object"))
        .isEqualTo("operations.mcp-servers.files must be an object");
  }

  @Test
  void classPathLocationsBecomeFilesOrCopies() throws Exception {
    DefaultResourceLoader resources = new DefaultResourceLoader(getClass().getClassLoader());
    assertThat(PropertySources.local("p", "./pets.yaml", resources)).isEqualTo("./pets.yaml");
    assertThat(Path.of(PropertySources.local("p", "classpath:pets.yaml", resources)))
        .isRegularFile()
        .hasFileName("pets.yaml");
    // Inside a jar: copied to a temporary file with the same content.
    Path copy =
        Path.of(
            PropertySources.local(
                "p", "classpath:org/springframework/core/io/Resource.class", resources));
    assertThat(copy).isRegularFile();
    assertThat(Files.size(copy)).isPositive();
    assertThatThrownBy(
            () ->
                PropertySources.local(
                    "operations.openapi.x.location", "classpath:nope.yaml", resources))
        .hasMessage("operations.openapi.x.location: classpath:nope.yaml is not on the class path");
  }

  @Test
  void redisComesFromBootsOwnPropertiesUnlessOneIsGiven() {
    OperationsProperties.Transport redis = new OperationsProperties.Transport();
    assertThat(OperationsTransports.redisUrl(redis, new MockEnvironment()))
        .contains("redis://localhost:6379/0");
    assertThat(
            OperationsTransports.redisUrl(
                redis,
                new MockEnvironment()
                    .withProperty("spring.data.redis.host", "10.0.0.5")
                    .withProperty("spring.data.redis.port", "6380")
                    .withProperty("spring.data.redis.database", "2")
                    .withProperty("spring.data.redis.username", "app")
                    .withProperty("spring.data.redis.password", "p@ss word")))
        .contains("redis://app:p%40ss%20word@10.0.0.5:6380/2");
    assertThat(
            OperationsTransports.redisUrl(
                redis,
                new MockEnvironment().withProperty("spring.data.redis.url", "redis://r:1/3")))
        .contains("redis://r:1/3");
    redis.setUrl("redis://own:7/0");
    assertThat(
            OperationsTransports.redisUrl(
                redis,
                new MockEnvironment().withProperty("spring.data.redis.url", "redis://r:1/3")))
        .contains("redis://own:7/0");
  }

  @Test
  void theConfigurationMetadataDescribesTheProperties() throws Exception {
    try (var in =
        getClass()
            .getClassLoader()
            .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
      assertThat(in).isNotNull();
      JsonNode metadata = JsonMapper.builder().build().readTree(in);
      Map<String, JsonNode> byName = new java.util.HashMap<>();
      metadata.get("properties").forEach(p -> byName.put(p.get("name").asString(), p));
      assertThat(byName)
          .containsKeys(
              "operations.http.port",
              "operations.mcp.enabled",
              "operations.openapi",
              "operations.nats.serve",
              "operations.redis.url",
              "operations.ai.scopes",
              "operations.serving.max-concurrent-calls");
      assertThat(byName.get("operations.load-timeout").path("description").asString()).isNotBlank();
    }
  }

  @Test
  void aListIsTakenWholeFromTheFirstSourceThatHasItAndDisabledIsABoolean() {
    StandardEnvironment environment = new StandardEnvironment();
    environment
        .getPropertySources()
        .addFirst(
            new MapPropertySource(
                "low",
                Map.of(
                    "operations.mcp-servers.files.args[0]", "-y",
                    "operations.mcp-servers.files.args[1]", "old",
                    "operations.mcp-servers.files.args[2]", "stale",
                    "operations.mcp-servers.files.command", "npx")));
    environment
        .getPropertySources()
        .addFirst(
            new MapPropertySource(
                "high",
                Map.of(
                    "operations.mcp-servers.files.args[0]", "new",
                    "operations.mcp-servers.files.disabled", "true")));
    // Compared as JSON: the order of an object's keys follows the sources' maps.
    assertThat(PropertySources.tree(environment, "operations.mcp-servers"))
        .isEqualTo(
            JsonMapper.builder()
                .build()
                .readTree(
                    "{\"files\":{\"args\":[\"new\"],\"disabled\":true,\"command\":\"npx\"}}"));
  }
}
