package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.transport.nats.NatsServer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code ops serve --nats URL} in this JVM serving the demo, and {@code ops --no-demo --nats URL
 * list|describe|call|subscribe} finding and calling it through a real nats-server, as another
 * machine would.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RemoteCommandsTest {
  private static NatsServer nats;
  private static CliRun.Background serving;

  @BeforeAll
  static void serve() throws Exception {
    nats = NatsServer.start();
    serving = CliRun.Background.start("serve", "--nats", nats.url(), "--node-id", "cli-test-node");
    serving.awaitErr("ready;");
  }

  @AfterAll
  static void stop() throws Exception {
    if (serving != null) {
      serving.stop().close();
      assertThat(serving.exit().get(20, TimeUnit.SECONDS)).isZero();
      assertThat(serving.err().toString()).contains("stopping (input ended)").contains("stopped");
    }
    if (nats != null) {
      nats.close();
    }
  }

  @Test
  void servePrintsItsListenerAndWhatItServes() {
    String out = serving.out().toString();
    assertThat(out)
        .contains("serving on nats")
        .contains(nats.url())
        .contains("node cli-test-node")
        .contains("3 operations:")
        .contains("demo.echo")
        .contains("demo.clock");
  }

  @Test
  void remoteOperationsAreListedDescribedCalledAndStreamedLikeLocalOnes() {
    CliRun list = CliRun.run("--no-demo", "--nats", nats.url(), "list");
    assertThat(list.code()).as(list.err()).isZero();
    assertThat(list.out()).contains("demo.echo").contains("demo.createNote").contains("demo.clock");

    CliRun describe = CliRun.run("--no-demo", "--nats", nats.url(), "describe", "demo.echo");
    assertThat(describe.code()).as(describe.err()).isZero();
    assertThat(describe.out()).contains("message");

    CliRun call =
        CliRun.run(
            "--no-demo",
            "--nats",
            nats.url(),
            "call",
            "demo.echo",
            "--input",
            "{\"message\":\"over nats\"}",
            "--json");
    assertThat(call.code()).as(call.err()).isZero();
    assertThat(call.out().trim()).isEqualTo("{\"message\":\"over nats\"}");

    CliRun subscribe =
        CliRun.run(
            "--no-demo",
            "--nats",
            nats.url(),
            "subscribe",
            "demo.clock",
            "--input",
            "{\"ticks\":3,\"intervalMs\":20}");
    assertThat(subscribe.code()).as(subscribe.err()).isZero();
    assertThat(subscribe.out().lines()).hasSize(3);
  }

  @Test
  void statsShowsTheNodesCountsAsATableAndAsJson() throws Exception {
    CliRun call =
        CliRun.run(
            "--no-demo",
            "--nats",
            nats.url(),
            "call",
            "demo.echo",
            "--input",
            "{\"message\":\"x\"}");
    assertThat(call.code()).as(call.err()).isZero();
    CliRun refused =
        CliRun.run("--no-demo", "--nats", nats.url(), "call", "demo.echo", "--input", "{}");
    assertThat(refused.code()).isEqualTo(ExitCodes.INVALID_INPUT); // refused before sending

    CliRun table = CliRun.run("--no-demo", "--nats", nats.url(), "stats");
    assertThat(table.code()).as(table.err()).isZero();
    List<String> lines = table.out().lines().toList();
    assertThat(lines.get(0))
        .contains("NODE")
        .contains("OPERATION")
        .contains("CALLS")
        .contains("ERRORS")
        .contains("IN FLIGHT")
        .contains("P50")
        .contains("P99")
        .contains("AVG");
    assertThat(lines)
        .anyMatch(line -> line.startsWith("cli-test-node") && line.contains("demo.echo"));

    CliRun json = CliRun.run("--no-demo", "--nats", nats.url(), "stats", "--json");
    assertThat(json.code()).as(json.err()).isZero();
    JsonNode nodes = JsonMapper.shared().readTree(json.out());
    assertThat(nodes.size()).isEqualTo(1);
    JsonNode node = nodes.get(0);
    assertThat(node.get("nodeId").asString()).isEqualTo("cli-test-node");
    assertThat(node.get("answered").asBoolean()).isTrue();
    assertThat(node.get("transport").asString()).isEqualTo("nats");
    JsonNode echo = null;
    for (JsonNode op : node.get("operations")) {
      if (op.get("id").asString().equals("demo.echo")) {
        echo = op;
      }
    }
    assertThat(echo).as(json.out()).isNotNull();
    assertThat(echo.get("calls").asLong()).isPositive();
    assertThat(echo.get("latencyUs").get("count").asLong()).isPositive();
    assertThat(echo.get("latencyUs").get("p99").asLong())
        .isLessThanOrEqualTo(echo.get("latencyUs").get("max").asLong());
  }

  @Test
  void statsOfANodeThatDoesNotAnswerSaysSoAndExitsUnavailable() {
    CliRun silent =
        CliRun.run(
            "--no-demo", "--nats", nats.url(), "stats", "--node", "nobody", "--timeout", "300ms");
    assertThat(silent.code()).as(silent.err()).isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(silent.out()).contains("nobody").contains("(no answer)");
    assertThat(silent.err()).contains("1 node did not answer within 300ms");
  }

  @Test
  void statsWithoutATransportSaysWhatToAdd() {
    CliRun local = CliRun.run("stats");
    assertThat(local.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(local.err()).contains("ops stats asks serving nodes").contains("--nats URL");
  }

  @Test
  void theRemoteSpecValidatesTheInputBeforeAnythingIsSent() {
    CliRun call =
        CliRun.run(
            "--no-demo", "--nats", nats.url(), "call", "demo.echo", "--input", "{\"nope\":1}");
    assertThat(call.code()).isEqualTo(ExitCodes.INVALID_INPUT);
    assertThat(call.err()).contains("message");
  }

  @Test
  void anOperationNobodyServesExitsWithNoResponders() {
    CliRun call = CliRun.run("--no-demo", "--nats", nats.url(), "call", "demo.nobody");
    assertThat(call.code()).isEqualTo(ExitCodes.NO_RESPONDERS);
    assertThat(call.err()).contains("No node serves demo.nobody").contains("1 node answered");
  }

  @Test
  void anUnreachableServerIsASourceFailureThatSaysWhere() throws Exception {
    int port;
    try (var socket = new java.net.ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    CliRun list =
        CliRun.run(
            "--no-demo", "--load-timeout", "3s", "--nats", "nats://127.0.0.1:" + port, "list");
    assertThat(list.code()).isEqualTo(ExitCodes.SOURCE_FAILED);
    assertThat(list.err()).contains("nats").contains("127.0.0.1:" + port);
  }

  @Test
  void aBadUrlOrNoListenerIsAUsageOrSourceError() {
    CliRun badUrl = CliRun.run("--no-demo", "--nats", "http://x:1", "list");
    assertThat(badUrl.code()).isEqualTo(ExitCodes.SOURCE_FAILED);
    assertThat(badUrl.err()).contains("no nats:// or tls:// scheme");

    CliRun noListener = CliRun.run("serve");
    assertThat(noListener.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(noListener.err()).contains("at least one listener");

    CliRun secretInUrl =
        CliRun.run(
            "--no-demo", "--load-timeout", "2s", "--nats", "nats://u:s3cret@127.0.0.1:1", "list");
    assertThat(secretInUrl.err()).doesNotContain("s3cret");
  }
}
