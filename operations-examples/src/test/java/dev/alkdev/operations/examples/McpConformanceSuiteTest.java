package dev.alkdev.operations.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.mcpserver.McpHttpEndpoint;
import dev.alkdev.operations.mcpserver.McpServer;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.testing.NodePackages;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The official MCP conformance suite, once per requirement set: 2025-11-25 (initialize and
 * sessions) and 2026-07-28 (no handshake, metadata per request). The server side runs against
 * {@link McpConformanceServer}, both eras served by its one endpoint; the client side runs {@link
 * McpConformanceClient} against the suite's own servers. The expected-failures file of each set
 * names the scenarios and checks that do not apply or are not built, with why; the suite exits 0
 * only when every other scenario passes and every listed one still fails.
 */
class McpConformanceSuiteTest {
  static final String SUITE = "@modelcontextprotocol/conformance@0.2.0-alpha.12";
  static Optional<String> notReady;

  @BeforeAll
  static void install() throws InterruptedException {
    notReady = NodePackages.ensure(SUITE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"2025-11-25", "2026-07-28"})
  void everyApplicableScenarioPasses(String requirements) throws Exception {
    assumeTrue(notReady.isEmpty(), () -> "conformance suite not installed: " + notReady.orElse(""));
    try (OperationRegistry registry = McpConformanceServer.registry();
        OperationServer pipeline = OperationServer.create(registry);
        McpServer server = McpConformanceServer.server(pipeline);
        McpHttpEndpoint http = server.startHttp(0)) {
      String url = "http://localhost:" + http.port() + "/mcp";
      passesAgainstTheBaseline(requirements, "mcp-conformance-", "server", "--url", url);
    }
  }

  /**
   * The tasks extension's scenarios, which the requirement sets run but do not score: each run on
   * its own against {@link McpConformanceServer}. Every check passes except input rounds before a
   * task is created; the suite marks the status-notification scenario skipped.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "tasks-lifecycle",
        "tasks-capability-negotiation",
        "tasks-wire-fields",
        "tasks-request-state-removal",
        "tasks-request-headers",
        "tasks-dispatch-and-envelope",
        "tasks-required-task-error",
        "tasks-mrtr-input",
        "tasks-mrtr-composition"
      })
  void theTasksExtensionScenariosPass(String scenario) throws Exception {
    assumeTrue(notReady.isEmpty(), () -> "conformance suite not installed: " + notReady.orElse(""));
    // Input rounds before a task is created: a call becomes a task when it starts, so a tool
    // cannot first ask in the request and then continue as a task.
    Set<String> notBuilt = Set.of("sep-2663-mrtr-synchronous-before-task-creation");
    try (OperationRegistry registry = McpConformanceServer.registry();
        OperationServer pipeline = OperationServer.create(registry);
        McpServer server = McpConformanceServer.server(pipeline);
        McpHttpEndpoint http = server.startHttp(0)) {
      Path out = Files.createTempDirectory("conformance-tasks");
      Result result =
          run(
              List.of(
                  "server",
                  "--url",
                  "http://localhost:" + http.port() + "/mcp",
                  "--scenario",
                  scenario,
                  "-o",
                  out.toString()));
      List<String> failed = new ArrayList<>();
      try (var files = Files.walk(out)) {
        for (Path checks : files.filter(f -> f.endsWith("checks.json")).toList()) {
          for (JsonNode check : JsonMapper.shared().readTree(Files.readString(checks))) {
            String status = check.path("status").asString();
            if ((status.equals("FAILURE") || status.equals("WARNING"))
                && !notBuilt.contains(check.path("id").asString())) {
              failed.add(
                  check.path("id").asString() + ": " + check.path("errorMessage").asString());
            }
          }
        }
      }
      assertThat(failed).as(result.output).isEmpty();
      assertThat(result.output).contains("Passed:");
    }
  }

  /**
   * The client side: the suite runs {@link McpConformanceClient} once per scenario, against servers
   * of its own, in both eras; the runs are served in this JVM ({@link InProcessConformanceClients}
   * says why).
   */
  @ParameterizedTest
  @ValueSource(strings = {"2025-11-25", "2026-07-28"})
  void everyApplicableClientScenarioPasses(String requirements) throws Exception {
    assumeTrue(notReady.isEmpty(), () -> "conformance suite not installed: " + notReady.orElse(""));
    try (InProcessConformanceClients clients = InProcessConformanceClients.start()) {
      passesAgainstTheBaseline(
          requirements,
          "mcp-conformance-client-",
          "client",
          "--command",
          clients.script().toString());
    }
  }

  /**
   * Runs one side of the suite with a requirement set and its expected-failures file, keeps the
   * output for reading in {@code target/REPORT-PREFIX<requirements>.txt} (which scenario passed,
   * failed, or failed as expected), and asserts the baseline held.
   */
  private void passesAgainstTheBaseline(String requirements, String reportPrefix, String... side)
      throws Exception {
    Path expected = Files.createTempFile("expected-failures", ".yml");
    try (InputStream in =
        getClass().getResourceAsStream("/mcp-conformance-" + requirements + ".yml")) {
      Files.write(expected, in.readAllBytes());
      List<String> args = new ArrayList<>(List.of(side));
      args.addAll(
          List.of("--requirements", requirements, "--expected-failures", expected.toString()));
      Result result = run(args);
      Files.writeString(Path.of("target", reportPrefix + requirements + ".txt"), result.output);
      assertThat(result.exit).as(result.output).isZero();
      assertThat(result.output).contains("Baseline check passed");
    } finally {
      Files.deleteIfExists(expected);
    }
  }

  record Result(int exit, String output) {}

  static Result run(List<String> args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(NodePackages.node().toString());
    command.add(NodePackages.bin("conformance").toString());
    command.addAll(args);
    Path out = Files.createTempFile("conformance", ".log");
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      if (!process.waitFor(8, TimeUnit.MINUTES)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        return new Result(-1, "timed out: " + Files.readString(out, StandardCharsets.UTF_8));
      }
      return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
    }
  }
}
