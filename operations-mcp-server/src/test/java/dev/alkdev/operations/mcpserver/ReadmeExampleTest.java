package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.serving.OperationServer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The module README's first example, compiled and run (on a free port instead of 8080). */
class ReadmeExampleTest {
  @Test
  void firstExample() throws Exception {
    try (OperationRegistry registry = OperationRegistry.create()) {
      registry.register(
          OperationSpec.builder("math", "add")
              .type(OperationType.QUERY)
              .description("Adds two numbers")
              .inputSchema(
                  "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},"
                      + "\"b\":{\"type\":\"number\"}},\"required\":[\"a\",\"b\"]}")
              .build(),
          Handler.blocking(
              (input, ctx) ->
                  Map.of("sum", input.get("a").asDouble() + input.get("b").asDouble())));

      OperationServer pipeline = OperationServer.create(registry);
      try (McpServer mcp = McpServer.builder(pipeline).build();
          McpHttpEndpoint http = mcp.startHttp(0)) {
        // An MCP client now lists the tool math.add and calls it.
        TestClient client = TestClient.open(http);
        assertThat(
                client
                    .call("math.add", "{\"a\":1,\"b\":2}")
                    .at("/result/structuredContent/sum")
                    .asDouble())
            .isEqualTo(3.0);
      } finally {
        pipeline.close();
      }
    }
  }
}
