package dev.alkdev.operations.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.mcp.internal.McpSourceFactory;
import dev.alkdev.operations.source.OperationSource;
import dev.alkdev.operations.source.SourceEntry;
import dev.alkdev.operations.source.SourceFactory;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class McpSourceFactoryTest {
  private static final JsonMapper JSON = JsonMapper.shared();
  private final SourceFactory factory = new McpSourceFactory();

  private static JsonNode json(String text) {
    return JSON.readTree(text);
  }

  @Test
  void foundByServiceLoaderAndSaysNotMineToOtherKinds() {
    assertThat(ServiceLoader.load(SourceFactory.class).stream())
        .anyMatch(provider -> provider.type() == McpSourceFactory.class);
    assertThat(factory.create(SourceEntry.of("openapi", "pets", json("{\"command\":\"x\"}"))))
        .isEmpty();
  }

  @Test
  void anHttpServerEntryLoadsItsToolsWithAuthFromTheEnvironment() throws Exception {
    try (HttpTestServer server = new HttpTestServer();
        OperationRegistry registry = OperationRegistry.create()) {
      SourceEntry entry =
          SourceEntry.of(
                  "mcp",
                  "srv",
                  json(
                      "{\"type\": \"http\", \"url\": \""
                          + server.url()
                          + "\", \"auth\": {\"bearer\": {\"tokenEnv\": \"SRV_TOKEN\"}},"
                          + " \"autoApprove\": []}"))
              .withEnvironment(Map.of("SRV_TOKEN", "t"));
      try (OperationSource source = factory.create(entry).orElseThrow()) {
        assertThat(source.kind()).isEqualTo("MCP");
        source.load(registry).get(30, TimeUnit.SECONDS);
        assertThat(registry.list("srv")).extracting(OperationSpec::id).contains("srv.echo");
      }
    }
  }

  @Test
  void wrongEntriesAreRefusedWhenTheSourceIsMade() {
    assertThatThrownBy(
            () ->
                factory.create(
                    SourceEntry.of(
                        "mcp", "legacy", json("{\"type\":\"sse\",\"url\":\"http://h\"}"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mcpServers.legacy.type");
    assertThatThrownBy(
            () ->
                factory.create(
                    SourceEntry.of(
                        "mcp",
                        "files",
                        json("{\"command\":\"x\",\"auth\":{\"bearer\":{\"tokenEnv\":\"T\"}}}"))))
        .hasMessageContaining("mcpServers.files.auth applies to servers over HTTP");
    assertThatThrownBy(
            () ->
                factory.create(
                    SourceEntry.of(
                        "mcp",
                        "remote",
                        json(
                            "{\"url\":\"http://h/mcp\",\"auth\":{\"bearer\":{\"tokenEnv\":\"T\"}}}"))))
        .hasMessageContaining("environment variable T is not set; source remote");
  }
}
