package dev.alkdev.operations.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

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
    assertThat(PropertySources.tree(environment, "operations.mcp-servers").toString())
        .isEqualTo(
            "{\"files\":{\"command\":\"npx\",\"args\":[\"-y\",\"server\"]},"
                + "\"remote\":{\"headers\":{\"Authorization\":\"Bearer ${TOKEN}\"}}}");
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
}
