package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.testing.NodePackages;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

/**
 * The official TypeScript SDK's v2 client ({@code @modelcontextprotocol/client} 2.4.0, Node 22)
 * against our server: in its default 2025 mode, in its auto mode (which probes and finds
 * 2026-07-28) and pinned to 2026-07-28; a call with progress in each.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TypeScriptSdkClientTest {
  static final String CLIENT = "@modelcontextprotocol/client@2.4.0";
  static Optional<String> notReady;
  static Path script;

  @BeforeAll
  static void install() throws Exception {
    notReady = NodePackages.ensure(CLIENT);
    if (notReady.isEmpty()) {
      // Beside the packages, so Node resolves the import from the cache's node_modules.
      script = NodePackages.dir().resolve("ts-sdk-client.mjs");
      try (InputStream in =
          TypeScriptSdkClientTest.class.getResourceAsStream("/node/ts-sdk-client.mjs")) {
        Files.write(script, in.readAllBytes());
      }
    }
  }

  @ParameterizedTest
  @CsvSource({"legacy, 2025-11-25", "auto, 2026-07-28", "2026, 2026-07-28"})
  void theClientListsAndCallsWithProgress(String mode, String version) throws Exception {
    assumeTrue(notReady.isEmpty(), () -> "TypeScript SDK not installed: " + notReady.orElse(""));
    try (OperationRegistry registry = Fixtures.general();
        OperationServer pipeline = OperationServer.create(registry);
        McpServer server = McpServer.builder(pipeline).build();
        McpHttpEndpoint http = server.startHttp(0)) {
      JsonNode out = run(http.uri().toString(), mode, "feed.numbers", "{\"count\":3}");
      assertThat(out.has("error")).as(out.toString()).isFalse();
      assertThat(out.get("protocolVersion").asString()).isEqualTo(version);
      assertThat(out.get("tools").toString()).contains("math.add").contains("feed.numbers");
      assertThat(out.at("/result/structuredContent/items").size()).isEqualTo(3);
      // Each item came as it was produced, before the result.
      assertThat(out.get("progress").size()).isEqualTo(3);
      assertThat(out.at("/progress/2/message").asString()).isEqualTo("{\"n\":3}");

      JsonNode sum = run(http.uri().toString(), mode, "math.add", "{\"a\":2,\"b\":3}");
      assertThat(sum.at("/result/structuredContent/sum").asDouble())
          .as(sum.toString())
          .isEqualTo(5.0);
    }
  }

  private static JsonNode run(String url, String mode, String tool, String args) throws Exception {
    Process process =
        new ProcessBuilder(
                List.of(NodePackages.node().toString(), script.toString(), url, mode, tool, args))
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the TypeScript client did not end within 60 s");
    }
    String line = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return Fixtures.json(line.strip());
  }
}
