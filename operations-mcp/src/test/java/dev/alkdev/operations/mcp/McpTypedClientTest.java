package dev.alkdev.operations.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.annotation.Namespace;
import dev.alkdev.operations.annotation.Operation;
import dev.alkdev.operations.envelope.McpContentBlock;
import dev.alkdev.operations.envelope.McpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.typed.TypedClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * An MCP server's tools through a Java interface (docs/typed-clients.md), against the reference
 * server {@code @modelcontextprotocol/server-everything}: a tool with an output schema returns a
 * record, one without returns its envelope with the content blocks, and an interface that does not
 * fit the tools' schemas is refused when the client is built.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class McpTypedClientTest {
  // snippet: mcp-tools
  public record Echo(String message) {}

  public record Location(String location) {}

  public record Weather(double temperature, String conditions, double humidity) {}

  @Namespace("everything")
  public interface Everything {
    @Operation(name = "echo") // no output schema: the envelope, with the content blocks
    ResponseEnvelope<JsonNode> echo(Echo input);

    @Operation(name = "get-structured-content") // an output schema: a record
    Weather weather(Location input);
  }

  // end-snippet

  public record Sloppy(int temperature) {}

  @Namespace("everything")
  public interface Wrong {
    @Operation(name = "get-structured-content")
    Sloppy weather(Echo input);
  }

  @Test
  void toolsAreCalledThroughTheInterface() throws Exception {
    assumeTrue(McpReferenceServerTest.onPath("npx"), "npx is not on the PATH");
    McpClientConfig config =
        McpClientConfig.stdio("npx")
            .args("-y", McpReferenceServerTest.PACKAGE)
            .initializeTimeout(Duration.ofSeconds(90))
            .requestTimeout(Duration.ofSeconds(30))
            .build();
    try (McpClientWrapper client = McpClients.createMcpClient("everything", config);
        OperationRegistry registry = OperationRegistry.create()) {
      client.registerInto(registry);
      // snippet: mcp-call
      Everything everything = TypedClient.create(Everything.class, registry);
      Weather weather = everything.weather(new Location("Chicago"));
      ResponseEnvelope<JsonNode> echoed = everything.echo(new Echo("hello"));
      McpResponseMeta meta = (McpResponseMeta) echoed.meta(); // content, structuredContent, _meta
      // end-snippet
      assertThat(weather.conditions()).isNotBlank();
      assertThat(((McpContentBlock.Text) meta.content().get(0)).text()).contains("hello");

      assertThatThrownBy(() -> TypedClient.create(Wrong.class, registry))
          .hasMessageContaining("input: the spec requires property 'location'")
          .hasMessageContaining("output.temperature: the spec says number, the type is int");
    }
  }
}
