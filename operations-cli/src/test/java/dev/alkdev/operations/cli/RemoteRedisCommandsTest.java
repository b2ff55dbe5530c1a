package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.transport.redis.RedisServer;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ops serve --redis URL} in this JVM serving the demo, and {@code ops --no-demo --redis URL
 * list|describe|call|subscribe} finding and calling it through a real redis-server (password
 * protected, the password read from the environment), as another machine would.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RemoteRedisCommandsTest {
  private static final String PASSWORD = "cli-s3cret";
  private static RedisServer redis;
  private static CliRun.Background serving;

  @BeforeAll
  static void serve() throws Exception {
    redis = RedisServer.start("--requirepass", PASSWORD);
    serving =
        CliRun.Background.start("serve", "--redis", withPassword(), "--node-id", "cli-redis-node");
    serving.awaitErr("ready;");
  }

  @AfterAll
  static void stop() throws Exception {
    if (serving != null) {
      serving.stop().close();
      assertThat(serving.exit().get(20, TimeUnit.SECONDS)).isZero();
      assertThat(serving.err().toString()).contains("stopped");
    }
    if (redis != null) {
      redis.close();
    }
  }

  private static String withPassword() {
    return "redis://:" + PASSWORD + "@127.0.0.1:" + redis.port();
  }

  private static CliRun ops(String... args) {
    return CliRun.run(Map.of("REDIS_PASSWORD", PASSWORD), "", args);
  }

  @Test
  void servePrintsItsListenerWithoutThePassword() {
    String out = serving.out().toString() + serving.err();
    assertThat(serving.out().toString())
        .contains("serving on redis")
        .contains("node cli-redis-node")
        .contains("demo.echo");
    assertThat(out).doesNotContain(PASSWORD);
  }

  @Test
  void statsShowsTheNodeWithTheCallsItServed() {
    CliRun call =
        ops(
            "--no-demo",
            "--redis",
            redis.url(),
            "call",
            "demo.echo",
            "--input",
            "{\"message\":\"count me\"}");
    assertThat(call.code()).as(call.err()).isZero();
    CliRun stats = ops("--no-demo", "--redis", redis.url(), "stats");
    assertThat(stats.code()).as(stats.err()).isZero();
    assertThat(stats.out().lines())
        .anyMatch(line -> line.startsWith("cli-redis-node") && line.contains("demo.echo"));
  }

  @Test
  void remoteOperationsAreListedDescribedCalledAndStreamedLikeLocalOnes() {
    CliRun list = ops("--no-demo", "--redis", redis.url(), "list");
    assertThat(list.code()).as(list.err()).isZero();
    assertThat(list.out()).contains("demo.echo").contains("demo.createNote").contains("demo.clock");

    CliRun describe = ops("--no-demo", "--redis", redis.url(), "describe", "demo.echo");
    assertThat(describe.code()).as(describe.err()).isZero();
    assertThat(describe.out()).contains("message");

    CliRun call =
        ops(
            "--no-demo",
            "--redis",
            redis.url(),
            "call",
            "demo.echo",
            "--input",
            "{\"message\":\"over redis\"}",
            "--json");
    assertThat(call.code()).as(call.err()).isZero();
    assertThat(call.out().trim()).isEqualTo("{\"message\":\"over redis\"}");

    CliRun subscribe =
        ops(
            "--no-demo",
            "--redis",
            redis.url(),
            "subscribe",
            "demo.clock",
            "--input",
            "{\"ticks\":3,\"intervalMs\":20}");
    assertThat(subscribe.code()).as(subscribe.err()).isZero();
    assertThat(subscribe.out().lines()).hasSize(3);
  }

  @Test
  void anOperationNobodyServesExitsWithNoResponders() {
    CliRun call = ops("--no-demo", "--redis", redis.url(), "call", "demo.nobody");
    assertThat(call.code()).isEqualTo(ExitCodes.NO_RESPONDERS);
    assertThat(call.err()).contains("No node serves demo.nobody");
  }

  @Test
  void aWrongPasswordOrUnreachableServerIsASourceFailureThatSaysWhereNotTheSecret()
      throws Exception {
    CliRun wrong =
        CliRun.run(
            Map.of("REDIS_PASSWORD", "not-it"),
            "",
            "--no-demo",
            "--load-timeout",
            "3s",
            "--redis",
            redis.url(),
            "list");
    assertThat(wrong.code()).isEqualTo(ExitCodes.SOURCE_FAILED);
    assertThat(wrong.err()).contains("redis").doesNotContain("not-it");

    int port;
    try (var socket = new java.net.ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    CliRun list =
        CliRun.run(
            "--no-demo", "--load-timeout", "3s", "--redis", "redis://127.0.0.1:" + port, "list");
    assertThat(list.code()).isEqualTo(ExitCodes.SOURCE_FAILED);
    assertThat(list.err()).contains("redis").contains("127.0.0.1:" + port);

    CliRun inUrl =
        CliRun.run(
            "--no-demo",
            "--load-timeout",
            "2s",
            "--redis",
            "redis://:s3cret-in-url@127.0.0.1:" + port,
            "list");
    assertThat(inUrl.err()).doesNotContain("s3cret-in-url");
  }

  @Test
  void aBadUrlIsASourceError() {
    CliRun badUrl = CliRun.run("--no-demo", "--redis", "http://x:1", "list");
    assertThat(badUrl.code()).isEqualTo(ExitCodes.SOURCE_FAILED);
    assertThat(badUrl.err()).contains("redis://");
  }
}
