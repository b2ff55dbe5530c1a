package dev.alkdev.operations.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.envelope.McpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * What real stdio servers did to the client, with {@link FakeStdioServer}: each ends the call at
 * once with a clear error instead of at its timeout.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class McpStdioFaultsTest {

  private static McpClientConfig.Stdio fake(String... args) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> all =
        new java.util.ArrayList<>(
            List.of(
                "-Xshare:auto",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                FakeStdioServer.class.getName()));
    all.addAll(List.of(args));
    return McpClientConfig.stdio(java)
        .args(all)
        .initializeTimeout(Duration.ofSeconds(30))
        .requestTimeout(Duration.ofSeconds(30))
        .build();
  }

  private static CallError failure(CompletableFuture<?> call) throws Exception {
    try {
      call.get(20, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return (CallError) e.getCause();
    }
    throw new AssertionError("the call succeeded");
  }

  @Test
  void aServerThatExitsMidCallEndsItAtOnceWithUnavailableEvenIfAChildHoldsItsStdout()
      throws Exception {
    try (McpClientWrapper client = McpClients.createMcpClient("exits", fake("exit"));
        OperationRegistry registry = OperationRegistry.create()) {
      client.registerInto(registry);
      long started = System.nanoTime();
      CallError error = failure(registry.execute("exits.t", Map.of()));
      assertThat(error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
      assertThat(error.getMessage()).contains("exited").contains("exit code 3");
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }
  }

  @Test
  void aTwentyMegabyteAnswerFailsItsCallAtOnceWithResourceExhausted() throws Exception {
    try (McpClientWrapper client = McpClients.createMcpClient("huge", fake("huge"));
        OperationRegistry registry = OperationRegistry.create()) {
      client.registerInto(registry);
      long started = System.nanoTime();
      CallError error = failure(registry.execute("huge.t", Map.of()));
      assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      assertThat(error.getMessage()).contains("over 16777216 characters");
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
    }
  }

  @Test
  void aToolListNestedOneThousandDeepFailsTheLoadWithAClearError() {
    long started = System.nanoTime();
    assertThatThrownBy(() -> McpClients.createMcpClient("deep", fake("deep")))
        .isInstanceOfSatisfying(
            CallError.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);
              assertThat(e.getMessage()).containsIgnoringCase("nesting depth");
            });
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
  }

  @Test
  void aResultWithoutContentIsAProtocolErrorNotAnEmptySuccess() throws Exception {
    try (McpClientWrapper client = McpClients.createMcpClient("nc", fake("nocontent"));
        OperationRegistry registry = OperationRegistry.create()) {
      client.registerInto(registry);
      CallError error = failure(registry.execute("nc.t", Map.of()));
      assertThat(error.code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);
      assertThat(error.getMessage()).contains("no content array").contains("hello");
    }
  }

  @Test
  void anErrorResultIsNotCheckedAgainstTheOutputSchema() throws Exception {
    try (McpClientWrapper client = McpClients.createMcpClient("ie", fake("iserror"));
        OperationRegistry registry = OperationRegistry.create()) {
      client.registerInto(registry);
      ResponseEnvelope<JsonNode> result =
          registry.execute("ie.t", Map.of()).get(20, TimeUnit.SECONDS);
      assertThat(((McpResponseMeta) result.meta()).isError()).isTrue();
      // The data stays the error's content blocks, not cast to the output schema's object.
      assertThat(result.data().isArray()).isTrue();
    }
  }

  @Test
  void theCancelSentAtADeadlineSaysItWasTheDeadline(@TempDir Path dir) throws Exception {
    Path reasons = dir.resolve("reasons.txt");
    try (McpClientWrapper client =
            McpClients.createMcpClient("slow", fake("silent", reasons.toString()));
        OperationRegistry registry = OperationRegistry.create()) {
      client.registerInto(registry);
      CallError late =
          failure(
              registry.execute(
                  "slow.t",
                  Map.of(),
                  OperationContext.builder().timeout(Duration.ofMillis(300)).build()));
      assertThat(late.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
      OperationContext cancelled = OperationContext.builder().build();
      CompletableFuture<ResponseEnvelope<JsonNode>> call =
          registry.execute("slow.t", Map.of(), cancelled);
      Thread.sleep(200);
      cancelled.cancellation().cancel(CallError.of(ErrorCode.CANCELLED, "the user pressed Ctrl-C"));
      assertThat(failure(call).code()).isEqualTo(ErrorCode.CANCELLED);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while ((!Files.exists(reasons) || Files.readAllLines(reasons).size() < 2)
          && System.nanoTime() < until) {
        Thread.sleep(20);
      }
      assertThat(Files.readAllLines(reasons))
          .containsExactly("deadline exceeded", "the user pressed Ctrl-C");
    }
  }

  @Test
  void closingWhileItConnectsKillsAServerThatIgnoresSigterm() throws Exception {
    java.util.concurrent.atomic.AtomicReference<McpClientWrapper> started =
        new java.util.concurrent.atomic.AtomicReference<>();
    McpClientConfig.Stdio config =
        McpClientConfig.stdio("sh")
            .args("-c", "trap '' TERM; (trap '' TERM; sleep 300) & sleep 300")
            .initializeTimeout(Duration.ofSeconds(30))
            .build();
    CompletableFuture<Object> connecting =
        CompletableFuture.supplyAsync(
            () ->
                dev.alkdev.operations.mcp.internal.DefaultMcpClientWrapper.connect(
                    "stubborn", config, McpClientOptions.defaults(), started::set));
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (started.get() == null && System.nanoTime() < until) {
      Thread.sleep(10);
    }
    Thread.sleep(500); // the shell and its children are up
    List<ProcessHandle> before = ProcessHandle.current().descendants().toList();
    assertThat(before).isNotEmpty();
    started.get().close();
    assertThatThrownBy(() -> connecting.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(CallError.class);
    assertThat(before.stream().filter(ProcessHandle::isAlive).toList())
        .as("processes left after close")
        .isEmpty();
  }
}
