package dev.alkdev.operations.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.alkdev.operations.AsyncOperationHandler;
import dev.alkdev.operations.CallError;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.McpContentBlock;
import dev.alkdev.operations.envelope.McpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Against the reference server {@code @modelcontextprotocol/server-everything} run with npx, pinned
 * (scripts/install-mcp-reference.sh warms the npm cache). Skipped only when npx is missing.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class McpReferenceServerTest {
  static final String VERSION = "2026.8.31";
  static final String PACKAGE = "@modelcontextprotocol/server-everything@" + VERSION;

  @BeforeAll
  static void needsNpx() {
    assumeTrue(
        onPath("npx"),
        "npx is not on the PATH: skipping the MCP reference server tests"
            + " (install Node.js, then run scripts/install-mcp-reference.sh)");
  }

  static boolean onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (new File(dir, program).canExecute()) {
        return true;
      }
    }
    return false;
  }

  @Test
  void stdio() throws Exception {
    McpClientConfig config =
        McpClientConfig.stdio("npx")
            .args("-y", PACKAGE)
            .initializeTimeout(Duration.ofSeconds(90))
            .requestTimeout(Duration.ofSeconds(30))
            .build();
    try (McpClientWrapper client = McpClients.createMcpClient("everything", config)) {
      exercise(client);
    }
  }

  @Test
  void streamableHttp() throws Exception {
    int port = freePort();
    ProcessBuilder builder = new ProcessBuilder("npx", "-y", PACKAGE, "streamableHttp");
    builder.environment().put("PORT", Integer.toString(port));
    builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
    Process server = builder.start();
    try {
      awaitPort(port, Duration.ofSeconds(90));
      McpClientConfig config =
          McpClientConfig.streamableHttp("http://127.0.0.1:" + port + "/mcp")
              .initializeTimeout(Duration.ofSeconds(30))
              .requestTimeout(Duration.ofSeconds(30))
              .build();
      try (McpClientWrapper client = McpClients.createMcpClient("everything", config)) {
        exercise(client);
      }
    } finally {
      dev.alkdev.operations.mcp.internal.ProcessTrees.kill(
          server.toHandle(), Duration.ofSeconds(2));
    }
  }

  private static void exercise(McpClientWrapper client) throws Exception {
    try (OperationRegistry registry = OperationRegistry.create()) {
      client.registerInto(registry);
      assertThat(client.operations()).hasSizeGreaterThanOrEqualTo(10);
      assertThat(registry.getSpec("everything.echo").get().type()).isEqualTo(OperationType.QUERY);
      assertThat(
              registry
                  .getSpec("everything.get-structured-content")
                  .get()
                  .outputSchema()
                  .isUnknown())
          .isFalse();

      ResponseEnvelope<JsonNode> echo =
          registry.execute("everything.echo", Map.of("message", "hello")).get(30, TimeUnit.SECONDS);
      List<McpContentBlock> content = ((McpResponseMeta) echo.meta()).content();
      assertThat(content.get(0)).isInstanceOf(McpContentBlock.Text.class);
      assertThat(((McpContentBlock.Text) content.get(0)).text()).contains("hello");

      ResponseEnvelope<JsonNode> structured =
          registry
              .execute("everything.get-structured-content", Map.of("location", "Chicago"))
              .get(30, TimeUnit.SECONDS);
      assertThat(((McpResponseMeta) structured.meta()).structuredContent()).isPresent();
      assertThat(structured.data().isObject()).isTrue();

      // A tool that runs only as a task (2025-11-25's experimental tasks, execution.taskSupport
      // "required"; the server adds it after initialization and says its list changed): asked for
      // as a task, polled with tasks/get, its result fetched with tasks/result (about 4 s).
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
      while (registry.getSpec("everything.simulate-research-query").isEmpty()
          && System.nanoTime() < until) {
        Thread.sleep(50);
      }
      ResponseEnvelope<JsonNode> report =
          registry
              .execute("everything.simulate-research-query", Map.of("topic", "MCP tasks"))
              .get(60, TimeUnit.SECONDS);
      McpResponseMeta reportMeta = (McpResponseMeta) report.meta();
      assertThat(reportMeta.isError()).as(reportMeta.toString()).isFalse();
      assertThat(((McpContentBlock.Text) reportMeta.content().get(0)).text())
          .contains("Research Report")
          .contains("MCP tasks");

      // An error: the handler called directly (past the registry's input check) with bad input.
      AsyncOperationHandler echoHandler =
          (AsyncOperationHandler) registry.getHandler("everything.echo").get().function();
      try {
        Object result =
            echoHandler
                .handle(
                    JsonMapper.shared().readTree("{\"message\": 42}"), OperationContext.create())
                .toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
        assertThat(((McpResponseMeta) ((ResponseEnvelope<?>) result).meta()).isError()).isTrue();
      } catch (ExecutionException e) {
        assertThat(e.getCause()).isInstanceOf(CallError.class);
      }
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  static void awaitPort(int port, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
        return;
      } catch (IOException e) {
        Thread.sleep(200);
      }
    }
    throw new AssertionError("reference server did not listen on " + port + " in " + timeout);
  }
}
