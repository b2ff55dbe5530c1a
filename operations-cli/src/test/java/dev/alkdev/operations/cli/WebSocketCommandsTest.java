package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.transport.websocket.SpokePermissions;
import dev.alkdev.operations.transport.websocket.WebSocketHub;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ops serve --ws 0} in this JVM: a hub serving the demo, called with {@code ops --no-demo
 * --ws URL list|describe|call|subscribe}; and {@code ops serve --connect URL} adding the demo to a
 * hub as a spoke.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class WebSocketCommandsTest {
  private static CliRun.Background serving;
  private static String url;

  @BeforeAll
  static void serve() throws Exception {
    serving = CliRun.Background.start("serve", "--ws", "0", "--node-id", "ws-test-node");
    serving.awaitErr("ready;");
    Matcher m = Pattern.compile("(ws://127\\.0\\.0\\.1:\\d+/ws)").matcher(serving.out().toString());
    assertThat(m.find()).as(serving.out().toString()).isTrue();
    url = m.group(1);
  }

  @AfterAll
  static void stop() throws Exception {
    if (serving != null) {
      serving.stop().close();
      assertThat(serving.exit().get(20, TimeUnit.SECONDS)).isZero();
      assertThat(serving.err().toString()).contains("stopped");
    }
  }

  @Test
  void servePrintsTheHubAndItsNode() {
    assertThat(serving.out().toString())
        .contains("serving on ws")
        .contains("node ws-test-node")
        .contains("demo.echo");
  }

  @Test
  void statsShowsTheHubsNodeWithTheCallsItServed() {
    CliRun call =
        CliRun.run(
            "--no-demo", "--ws", url, "call", "demo.echo", "--input", "{\"message\":\"count me\"}");
    assertThat(call.code()).as(call.err()).isZero();
    CliRun stats = CliRun.run("--no-demo", "--ws", url, "stats");
    assertThat(stats.code()).as(stats.err()).isZero();
    assertThat(stats.out().lines())
        .anyMatch(line -> line.startsWith("ws-test-node") && line.contains("demo.echo"));
  }

  @Test
  void theHubsOperationsAreListedDescribedCalledAndStreamed() {
    CliRun list = CliRun.run("--no-demo", "--ws", url, "list");
    assertThat(list.code()).as(list.err()).isZero();
    assertThat(list.out()).contains("demo.echo").contains("demo.clock");

    CliRun describe = CliRun.run("--no-demo", "--ws", url, "describe", "demo.echo");
    assertThat(describe.code()).as(describe.err()).isZero();
    assertThat(describe.out()).contains("message");

    CliRun call =
        CliRun.run(
            "--no-demo",
            "--ws",
            url,
            "call",
            "demo.echo",
            "--input",
            "{\"message\":\"over a hub\"}",
            "--json");
    assertThat(call.code()).as(call.err()).isZero();
    assertThat(call.out().trim()).isEqualTo("{\"message\":\"over a hub\"}");

    CliRun subscribe =
        CliRun.run(
            "--no-demo",
            "--ws",
            url,
            "subscribe",
            "demo.clock",
            "--input",
            "{\"ticks\":3,\"intervalMs\":20}");
    assertThat(subscribe.code()).as(subscribe.err()).isZero();
    assertThat(subscribe.out().lines()).hasSize(3);
  }

  @Test
  void aSpokeAddsItsOperationsToAHub() throws Exception {
    try (WebSocketHub hub =
        WebSocketHub.builder().permissions(SpokePermissions.allowAll()).start()) {
      CliRun.Background spoke = CliRun.Background.start("serve", "--connect", hub.uri().toString());
      try {
        spoke.awaitErr("ready;");
        CliRun list = CliRun.run("--no-demo", "--ws", hub.uri().toString(), "list");
        assertThat(list.code()).as(list.err()).isZero();
        assertThat(list.out()).contains("demo.echo");
      } finally {
        spoke.stop().close();
        assertThat(spoke.exit().get(20, TimeUnit.SECONDS)).isZero();
      }
    }
  }

  @Test
  void aHubBeyondLoopbackNeedsAToken() {
    CliRun open = CliRun.run(Map.of(), "", "serve", "--ws", "0.0.0.0:0");
    assertThat(open.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(open.err()).contains("needs a token").contains("OPS_WS_TOKEN");
    CliRun bad = CliRun.run("serve", "--ws", "eighty");
    assertThat(bad.code()).isEqualTo(ExitCodes.USAGE);
  }
}
