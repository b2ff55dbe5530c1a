package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.transport.nats.NatsServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code ops keygen}, {@code ops serve --sign-key} and {@code ops --trust-key}: two nodes serve the
 * demo on a real nats-server, one signed and one not; a caller that trusts the key sees both, which
 * is verified, and routes every call to the signed one.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TrustedNodesCommandsTest {
  private static final int CALLS = 10;

  @TempDir static Path keys;
  private static NatsServer nats;
  private static CliRun.Background signed;
  private static CliRun.Background unsigned;

  @BeforeAll
  static void serve() throws Exception {
    nats = NatsServer.start();
    CliRun keygen = CliRun.run("keygen", "billing", "--out", keys.toString());
    assertThat(keygen.code()).as(keygen.err()).isZero();
    signed =
        CliRun.Background.start(
            "serve",
            "--nats",
            nats.url(),
            "--node-id",
            "signed",
            "--sign-key",
            keys.resolve("billing.key").toString());
    signed.awaitErr("ready;");
    unsigned = CliRun.Background.start("serve", "--nats", nats.url(), "--node-id", "unsigned");
    unsigned.awaitErr("ready;");
  }

  @AfterAll
  static void stop() throws Exception {
    for (CliRun.Background node : new CliRun.Background[] {signed, unsigned}) {
      if (node != null) {
        node.stop().close();
        node.exit().get(20, TimeUnit.SECONDS);
      }
    }
    if (nats != null) {
      nats.close();
    }
  }

  @Test
  void keygenWritesAPrivateKeyOnlyItsOwnerReadsAndRefusesToOverwrite() throws Exception {
    assertThat(Files.getPosixFilePermissions(keys.resolve("billing.key")))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(Files.readString(keys.resolve("billing.pub"))).startsWith("-----BEGIN PUBLIC KEY");
    CliRun badName = CliRun.run("keygen", "bad name", "--out", keys.toString());
    assertThat(badName.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(badName.err()).contains("keygen bad name: A key id is 1 to 64");
    assertThat(keys.resolve("bad name.key")).doesNotExist();
    CliRun again = CliRun.run("keygen", "billing", "--out", keys.toString());
    assertThat(again.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(again.err()).contains("billing.key exists already");
  }

  @Test
  void aCallerTrustingTheKeySeesBothNodesAndCallsOnlyTheSignedOne() throws Exception {
    String trust = "billing=" + keys.resolve("billing.pub");
    CliRun list = CliRun.run("--no-demo", "--nats", nats.url(), "--trust-key", trust, "list");
    assertThat(list.code()).as(list.err()).isZero();
    assertThat(list.out())
        .contains("SERVED BY")
        .contains("2 nodes: billing (verified), unidentified");

    for (int i = 0; i < CALLS; i++) {
      CliRun call =
          CliRun.run(
              "--no-demo",
              "--nats",
              nats.url(),
              "--trust-key",
              trust,
              "call",
              "demo.echo",
              "--input",
              "{\"message\":\"m" + i + "\"}");
      assertThat(call.code()).as(call.err()).isZero();
    }
    CliRun stats =
        CliRun.run("--no-demo", "--nats", nats.url(), "--trust-key", trust, "stats", "--json");
    assertThat(stats.code()).as(stats.err()).isZero();
    JsonNode nodes = JsonMapper.shared().readTree(stats.out());
    assertThat(echoCalls(nodes, "signed")).isEqualTo(CALLS);
    assertThat(echoCalls(nodes, "unsigned")).isZero();

    CliRun table = CliRun.run("--no-demo", "--nats", nats.url(), "--trust-key", trust, "stats");
    assertThat(table.out()).contains("signed as billing (verified)");
  }

  @Test
  void aBadKeyFileIsAUsageErrorNamingTheFlag() {
    CliRun run =
        CliRun.run(
            "--no-demo",
            "--nats",
            nats.url(),
            "--trust-key",
            "billing=" + keys.resolve("billing.key"),
            "list");
    assertThat(run.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("--trust-key billing=").contains("PUBLIC KEY");
  }

  private static long echoCalls(JsonNode nodes, String nodeId) {
    for (JsonNode node : nodes) {
      if (node.get("nodeId").asString().equals(nodeId)) {
        for (JsonNode op : node.get("operations")) {
          if (op.get("id").asString().equals("demo.echo")) {
            return op.get("calls").asLong();
          }
        }
        return 0;
      }
    }
    throw new AssertionError(nodeId + " did not answer: " + nodes);
  }
}
