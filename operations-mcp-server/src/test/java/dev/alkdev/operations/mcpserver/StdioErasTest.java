package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.mcp.McpClientConfig;
import dev.alkdev.operations.mcp.McpClientOptions;
import dev.alkdev.operations.mcp.McpClientWrapper;
import dev.alkdev.operations.mcp.McpClients;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/**
 * Our client and our server over stdio (a child JVM), in each era the client may be told to use:
 * AUTO finds 2026-07-28 with its server/discover probe; LEGACY initializes.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class StdioErasTest {
  @ParameterizedTest
  @EnumSource(McpClientConfig.Era.class)
  void aToolIsCalledOverStdioInEachEra(McpClientConfig.Era era) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    McpClientConfig config =
        McpClientConfig.stdio(java)
            .args("-cp", System.getProperty("java.class.path"), StdioServerMain.class.getName())
            .era(era)
            .initializeTimeout(Duration.ofSeconds(30))
            .requestTimeout(Duration.ofSeconds(20))
            .build();
    try (McpClientWrapper client =
            McpClients.createMcpClient("child", config, McpClientOptions.defaults());
        OperationRegistry registry = OperationRegistry.create()) {
      assertThat(client.protocolVersion())
          .isEqualTo(era == McpClientConfig.Era.LEGACY ? "2025-11-25" : "2026-07-28");
      client.registerInto(registry);
      ResponseEnvelope<JsonNode> sum =
          registry.execute("child.math.add", Map.of("a", 2, "b", 3)).get(20, TimeUnit.SECONDS);
      assertThat(sum.data().get("sum").asDouble()).isEqualTo(5.0);
    }
  }
}
