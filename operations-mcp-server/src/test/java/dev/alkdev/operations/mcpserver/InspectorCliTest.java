package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.testing.NodePackages;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/** The MCP Inspector's CLI lists and calls our tools over streamable HTTP and over stdio. */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class InspectorCliTest {
  static final String INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";
  static Optional<String> notReady;

  @BeforeAll
  static void install() throws Exception {
    notReady = NodePackages.ensure(INSPECTOR);
  }

  /**
   * In each of its eras: legacy (2025, initialize and a session), modern (2026-07-28) and auto
   * (probes, finds 2026-07-28). A modern result carries the server's identity in _meta, which tells
   * the eras apart.
   */
  @ParameterizedTest
  @ValueSource(strings = {"legacy", "auto", "modern"})
  void overStreamableHttp(String era) throws Exception {
    assumeTrue(notReady.isEmpty(), () -> "MCP Inspector not installed: " + notReady.orElse(""));
    try (OperationRegistry registry = Fixtures.general();
        OperationServer pipeline = OperationServer.create(registry);
        McpServer server = McpServer.builder(pipeline).build();
        McpHttpEndpoint http = server.startHttp(0)) {
      String url = http.uri().toString();
      JsonNode tools =
          inspector(url, "--transport", "http", "--protocol-era", era, "--method", "tools/list");
      assertThat(tools.toString()).contains("math.add").contains("feed.numbers");
      JsonNode sum =
          inspector(
              url,
              "--transport",
              "http",
              "--protocol-era",
              era,
              "--method",
              "tools/call",
              "--tool-name",
              "math.add",
              "--tool-arg",
              "a=2",
              "b=40");
      assertThat(sum.at("/structuredContent/sum").asDouble()).isEqualTo(42.0);
      boolean modern = !era.equals("legacy");
      assertThat(sum.path("_meta").has("io.modelcontextprotocol/serverInfo"))
          .as(sum.toString())
          .isEqualTo(modern);
    }
  }

  @Test
  void overStdio() throws Exception {
    assumeTrue(notReady.isEmpty(), () -> "MCP Inspector not installed: " + notReady.orElse(""));
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    String classpath = System.getProperty("java.class.path");
    JsonNode sum =
        inspector(
            java,
            "-cp",
            classpath,
            StdioServerMain.class.getName(),
            "--method",
            "tools/call",
            "--tool-name",
            "math.add",
            "--tool-arg",
            "a=1",
            "b=2");
    assertThat(sum.at("/structuredContent/sum").asDouble()).isEqualTo(3.0);
  }

  private static JsonNode inspector(String... args) throws Exception {
    Path catalog = Files.createTempFile("inspector-catalog", ".json");
    Files.delete(catalog);
    Path out = Files.createTempFile("inspector", ".out");
    try {
      List<String> command = new ArrayList<>();
      command.add(NodePackages.node().toString());
      command.add(NodePackages.bin("mcp-inspector").toString());
      command.add("--cli");
      command.addAll(List.of(args));
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectErrorStream(false).redirectOutput(out.toFile());
      builder.redirectError(ProcessBuilder.Redirect.DISCARD);
      builder.environment().put("MCP_CATALOG_PATH", catalog.toString());
      Process process = builder.start();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        throw new AssertionError("the inspector took over 2 minutes");
      }
      String text = Files.readString(out, StandardCharsets.UTF_8);
      assertThat(process.exitValue()).as(text).isZero();
      return Fixtures.json(text);
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(catalog);
    }
  }
}
