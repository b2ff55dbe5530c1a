package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.transport.nats.NatsPermissions;
import dev.alkdev.operations.transport.redis.RedisAcl;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code ops permissions}: prints exactly what the transports' permission builders make (which
 * their own tests run against real brokers), and refuses what it cannot print.
 */
class PermissionsCommandTest {
  private static final Map<String, String> ENV = Map.of("PW", "s3cret");

  @Test
  void aNatsServerUserIsTheBuildersConfigEntry() {
    CliRun run =
        CliRun.run(
            ENV,
            "",
            "permissions",
            "nats",
            "--role",
            "server",
            "--operations",
            "billing.*",
            "--node-id",
            "billing-1",
            "--user",
            "billing",
            "--password-env",
            "PW");
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out().strip())
        .isEqualTo(
            NatsPermissions.server(List.of("billing.*"), Optional.of("billing-1"))
                .toConfig("billing", "s3cret"));
  }

  @Test
  void aRedisUserWithTwoRolesIsTheBuildersAclLine() {
    CliRun run =
        CliRun.run(
            ENV,
            "",
            "permissions",
            "redis",
            "--role",
            "server,caller",
            "--operations",
            "billing.charge,demo.echo",
            "--user",
            "app",
            "--password-env",
            "PW");
    assertThat(run.code()).as(run.err()).isZero();
    List<String> ops = List.of("billing.charge", "demo.echo");
    assertThat(run.out().strip())
        .isEqualTo(
            RedisAcl.caller(ops)
                .and(RedisAcl.server(ops, Optional.empty()))
                .toAclSetuser("app", "s3cret"));
    assertThat(run.out()).doesNotContain("s3cret");
  }

  @Test
  void aPrivateTokenNarrowsTheUsersInboxesToItsOwn() {
    CliRun run =
        CliRun.run(
            ENV,
            "",
            "permissions",
            "nats",
            "--role",
            "caller",
            "--operations",
            "billing.*",
            "--private-token",
            "alice",
            "--user",
            "alice",
            "--password-env",
            "PW");
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out().strip())
        .isEqualTo(
            NatsPermissions.caller(List.of("billing.*"))
                .privateTo("alice")
                .toConfig("alice", "s3cret"))
        .contains("ops.inbox.alice.>")
        .doesNotContain("\"ops.inbox.>\"");
    CliRun bad =
        CliRun.run(
            ENV,
            "",
            "permissions",
            "redis",
            "--role",
            "caller",
            "--private-token",
            "a.b",
            "--user",
            "a",
            "--password-env",
            "PW");
    assertThat(bad.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(bad.err()).contains("A private token is 1 to 64");
  }

  @Test
  void whatCannotBePrintedIsAUsageErrorSayingWhy() {
    CliRun noPassword =
        CliRun.run(
            "permissions", "nats", "--role", "caller", "--user", "a", "--password-env", "NONE");
    assertThat(noPassword.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(noPassword.err()).contains("--password-env NONE: the variable is not set");

    CliRun badRole =
        CliRun.run(
            ENV,
            "",
            "permissions",
            "redis",
            "--role",
            "admin",
            "--user",
            "a",
            "--password-env",
            "PW");
    assertThat(badRole.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(badRole.err()).contains("--role admin: not a role");

    CliRun badPattern =
        CliRun.run(
            ENV,
            "",
            "permissions",
            "nats",
            "--role",
            "caller",
            "--operations",
            "bil*",
            "--user",
            "a",
            "--password-env",
            "PW");
    assertThat(badPattern.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(badPattern.err()).contains("'bil*' is not an operation pattern");

    CliRun badBroker =
        CliRun.run(
            ENV,
            "",
            "permissions",
            "kafka",
            "--role",
            "caller",
            "--user",
            "a",
            "--password-env",
            "PW");
    assertThat(badBroker.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(badBroker.err()).contains("kafka: not a broker ops can configure");
  }
}
