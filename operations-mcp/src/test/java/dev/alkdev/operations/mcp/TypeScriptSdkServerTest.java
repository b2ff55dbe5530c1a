package dev.alkdev.operations.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.Progress;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.testing.NodePackages;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * Our client against a server that speaks only MCP 2026-07-28, built on the official TypeScript
 * SDK's v2 server package ({@code @modelcontextprotocol/server} 2.4.0, Node 22): the probe finds
 * the modern era with no fallback, and listing, structured results, progress and cancellation by
 * closing the request work; a client told to speak only 2025 fails with the server's reason.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TypeScriptSdkServerTest {
  static Optional<String> notReady;
  static Process server;
  static String url;
  static final StringBuffer serverErr = new StringBuffer();

  @BeforeAll
  static void start() throws Exception {
    notReady =
        NodePackages.ensure(
            "@modelcontextprotocol/server@2.4.0", "@modelcontextprotocol/node@2.1.2");
    if (notReady.isPresent()) {
      return;
    }
    // Beside the packages, so Node resolves the imports from the cache's node_modules.
    Path script = NodePackages.dir().resolve("ts-sdk-server.mjs");
    try (InputStream in =
        TypeScriptSdkServerTest.class.getResourceAsStream("/node/ts-sdk-server.mjs")) {
      Files.write(script, in.readAllBytes());
    }
    server = new ProcessBuilder(NodePackages.node().toString(), script.toString(), "0").start();
    Thread errors =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(server.getErrorStream(), StandardCharsets.UTF_8))) {
                lines.lines().forEach(line -> serverErr.append(line).append('\n'));
              } catch (java.io.IOException e) {
                // the server ended
              }
            });
    errors.setDaemon(true);
    errors.start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    assertThat(line).as("the server's first line").startsWith("listening ");
    url = "http://127.0.0.1:" + line.substring("listening ".length()).strip() + "/mcp";
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.destroy();
      if (!server.waitFor(10, TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
    }
  }

  private static McpClientWrapper connect(McpClientConfig.Era era) {
    return McpClients.createMcpClient(
        "ts",
        McpClientConfig.streamableHttp(url)
            .era(era)
            .initializeTimeout(Duration.ofSeconds(20))
            .requestTimeout(Duration.ofSeconds(20))
            .build(),
        McpClientOptions.defaults());
  }

  @Test
  void theProbeFindsTheModernEraAndCallsWork() throws Exception {
    assumeTrue(notReady.isEmpty(), () -> "TypeScript SDK not installed: " + notReady.orElse(""));
    try (McpClientWrapper client = connect(McpClientConfig.Era.AUTO);
        OperationRegistry registry = OperationRegistry.create()) {
      assertThat(client.protocolVersion()).isEqualTo("2026-07-28");
      client.registerInto(registry);
      assertThat(registry.getSpec("ts.echo")).isPresent();
      ResponseEnvelope<JsonNode> sum =
          registry.execute("ts.add", Map.of("a", 2, "b", 3.5)).get(20, TimeUnit.SECONDS);
      assertThat(sum.data().get("sum").asDouble()).isEqualTo(5.5);

      List<Progress> progress = new CopyOnWriteArrayList<>();
      OperationContext withProgress =
          OperationContext.builder()
              .attribute(Progress.LISTENER, (Consumer<Progress>) progress::add)
              .build();
      registry.execute("ts.slow", Map.of("ms", 350), withProgress).get(20, TimeUnit.SECONDS);
      assertThat(progress).isNotEmpty();

      // A deadline closes the request, which is the revision's cancellation.
      OperationContext short_ = OperationContext.builder().timeout(Duration.ofMillis(300)).build();
      assertThatThrownBy(
              () ->
                  registry.execute("ts.slow", Map.of("ms", 5000), short_).get(20, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOfSatisfying(
              CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED));
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!serverErr.toString().contains("slow: cancelled") && System.nanoTime() < end) {
        Thread.sleep(20);
      }
      assertThat(serverErr.toString()).contains("slow: cancelled");
    }
  }

  @Test
  void aClientThatSpeaksOnly2025IsToldWhy() {
    assumeTrue(notReady.isEmpty(), () -> "TypeScript SDK not installed: " + notReady.orElse(""));
    assertThatThrownBy(() -> connect(McpClientConfig.Era.LEGACY).close())
        .isInstanceOf(CallError.class)
        .hasMessageContaining("2026-07-28");
  }
}
