package dev.alkdev.operations.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.envelope.McpContentBlock;
import dev.alkdev.operations.envelope.McpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.io.File;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/** The real stdio path: the SDK's stdio server as a child JVM, and process hygiene. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class McpClientStdioTest {

  static String java() {
    return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
  }

  static String serverCommandLine() {
    return java()
        + " -Xshare:auto -XX:TieredStopAtLevel=1 -cp "
        + System.getProperty("java.class.path")
        + " "
        + McpTestServerMain.class.getName();
  }

  /** A shell that starts a grandchild (sleep) and then becomes the server JVM. */
  static McpClientConfig.Stdio serverWithGrandchild() {
    return McpClientConfig.stdio("sh")
        .args("-c", "sleep 300 & exec " + serverCommandLine())
        .initializeTimeout(Duration.ofSeconds(30))
        .requestTimeout(Duration.ofSeconds(20))
        .build();
  }

  @Test
  void callsToolsOverStdio() throws Exception {
    try (McpClientWrapper client = McpClients.createMcpClient("stdio", serverWithGrandchild());
        OperationRegistry registry = OperationRegistry.create()) {
      client.registerInto(registry);
      ResponseEnvelope<JsonNode> echo =
          registry.execute("stdio.echo", Map.of("text", "over stdio")).get(20, TimeUnit.SECONDS);
      assertThat(((McpResponseMeta) echo.meta()).content())
          .containsExactly(McpContentBlock.text("echo: over stdio"));
      ResponseEnvelope<JsonNode> sum =
          registry.execute("stdio.add", Map.of("a", 1, "b", 41)).get(20, TimeUnit.SECONDS);
      assertThat(sum.data().get("sum").asDouble()).isEqualTo(42.0);

      OperationContext context = OperationContext.builder().timeout(Duration.ofMillis(300)).build();
      assertThatThrownBy(
              () -> registry.execute("stdio.slow", Map.of(), context).get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOfSatisfying(
              CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED));
      // The connection still works after a cancelled call.
      assertThat(registry.execute("stdio.echo", Map.of("text", "again")).get(20, TimeUnit.SECONDS))
          .isNotNull();
    }
  }

  @Test
  void openCloseFiveTimesLeavesNoProcesses() throws Exception {
    for (int i = 0; i < 5; i++) {
      McpClientWrapper client = McpClients.createMcpClient("hygiene", serverWithGrandchild());
      assertThat(client.operations()).isNotEmpty();
      client.close();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (ProcessHandle.current().descendants().anyMatch(ProcessHandle::isAlive)
        && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    List<String> left =
        ProcessHandle.current()
            .descendants()
            .filter(ProcessHandle::isAlive)
            .map(p -> p.pid() + " " + p.info().commandLine().orElse("?"))
            .toList();
    assertThat(left).as("descendant processes after close").isEmpty();
  }

  @Test
  void junkOnStdoutFailsWithinInitializeTimeout() {
    McpClientConfig.Stdio config =
        McpClientConfig.stdio("sh")
            .args("-c", "while true; do echo 'not json-rpc'; sleep 0.1; done")
            .initializeTimeout(Duration.ofSeconds(2))
            .build();
    long start = System.nanoTime();
    assertThatThrownBy(() -> McpClients.createMcpClient("junk", config))
        .isInstanceOfSatisfying(
            CallError.class,
            e -> {
              assertThat(e.code())
                  .as(e.toString() + " cause " + e.getCause())
                  .isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
              assertThat(e.getMessage()).contains("junk").contains("initialize");
            });
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(8));
  }

  @Test
  void silentServerFailsWithinInitializeTimeout() {
    McpClientConfig.Stdio config =
        McpClientConfig.stdio("sleep").args("60").initializeTimeout(Duration.ofSeconds(1)).build();
    assertThatThrownBy(() -> McpClients.createMcpClient("silent", config))
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED));
  }

  @Test
  void exitingServerIsUnavailable() {
    McpClientConfig.Stdio config =
        McpClientConfig.stdio("sh")
            .args("-c", "exit 3")
            .initializeTimeout(Duration.ofSeconds(5))
            .build();
    assertThatThrownBy(() -> McpClients.createMcpClient("exits", config))
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
  }

  @Test
  void missingCommandIsUnavailable() {
    McpClientConfig.Stdio config =
        McpClientConfig.stdio(new File("/nonexistent/mcp-server").getPath()).build();
    assertThatThrownBy(() -> McpClients.createMcpClient("missing", config))
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
  }
}
