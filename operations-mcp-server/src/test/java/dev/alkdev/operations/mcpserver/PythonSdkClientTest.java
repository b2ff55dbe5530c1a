package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.testing.PythonPackages;
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
 * The official Python SDK's client ({@code mcp} 2.3.0, in a virtual environment) against our
 * server: in its auto mode (which probes and finds 2026-07-28), pinned to 2026-07-28, and in its
 * 2025 mode; a call with progress in each.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PythonSdkClientTest {
  static final String CLIENT = "mcp==2.3.0";
  static Optional<String> notReady;
  static Path script;

  @BeforeAll
  static void install() throws Exception {
    notReady = PythonPackages.ensure(CLIENT);
    if (notReady.isEmpty()) {
      script = PythonPackages.dir().resolve("sdk_client.py");
      try (InputStream in =
          PythonSdkClientTest.class.getResourceAsStream("/python/sdk_client.py")) {
        Files.write(script, in.readAllBytes());
      }
    }
  }

  @ParameterizedTest
  @CsvSource({"2025, 2025-11-25", "auto, 2026-07-28", "2026, 2026-07-28"})
  void theClientListsAndCallsWithProgress(String mode, String version) throws Exception {
    assumeTrue(notReady.isEmpty(), () -> "Python SDK not installed: " + notReady.orElse(""));
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
                List.of(
                    PythonPackages.python().toString(), script.toString(), url, mode, tool, args))
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the Python client did not end within 60 s");
    }
    String line = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return Fixtures.json(line.strip());
  }
}
