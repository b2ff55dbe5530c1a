package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.alkdev.operations.testing.NodePackages;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ops login} against the MCP conformance suite's authorization scenarios, run as a user
 * would run ops: {@code ops --mcp-url conf=URL login conf} with {@code OPS_OAUTH_HEADLESS=1} (the
 * suite's authorization server approves at once). The suite checks the whole flow (metadata
 * discovery, registration, PKCE, resource indicators); this checks what ops keeps.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class OpsLoginTest {
  static Optional<String> notReady;

  @TempDir Path dir;

  @BeforeAll
  static void install() throws InterruptedException {
    notReady = NodePackages.ensure("@modelcontextprotocol/conformance@0.2.0-alpha.12");
  }

  private Path opsScript() throws Exception {
    Path script = dir.resolve("ops-login.sh");
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    // The suite appends the server's URL as the last argument.
    Files.writeString(
        script,
        "#!/bin/bash\nexport XDG_CONFIG_HOME='"
            + dir.resolve("config")
            + "' OPS_OAUTH_HEADLESS=1\nexec '"
            + java
            + "' -XX:TieredStopAtLevel=1 -cp '"
            + System.getProperty("java.class.path")
            + "' "
            + Ops.class.getName()
            + " --no-demo --mcp-url \"conf=${@: -1}\" login conf\n");
    script.toFile().setExecutable(true);
    return script;
  }

  private String suite(String scenario, Path out) throws Exception {
    Path log = dir.resolve("suite.log");
    Process process =
        new ProcessBuilder(
                NodePackages.node().toString(),
                NodePackages.bin("conformance").toString(),
                "client",
                "--command",
                opsScript().toString(),
                "--scenario",
                scenario,
                "-o",
                out.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isZero();
    return output;
  }

  /** What ops printed in the scenario (the suite keeps the client's stderr). */
  private static String stderr(Path out) throws Exception {
    try (Stream<Path> files = Files.walk(out)) {
      List<Path> found = files.filter(f -> f.endsWith("stderr.txt")).toList();
      assertThat(found).hasSize(1);
      return Files.readString(found.get(0), StandardCharsets.UTF_8);
    }
  }

  @Test
  void loginAuthorizesAndKeepsTheTokensPrivate() throws Exception {
    assumeTrue(notReady.isEmpty(), () -> "conformance suite not installed: " + notReady.orElse(""));
    Path out = dir.resolve("out");
    String output = suite("auth/metadata-default", out);
    assertThat(output).contains("OVERALL: PASSED");
    assertThat(stderr(out)).contains("conf: authorized (1 tools)");
    Path tokens = dir.resolve("config/ops/mcp-tokens.json");
    assertThat(Files.getPosixFilePermissions(tokens))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    String kept = Files.readString(tokens, StandardCharsets.UTF_8);
    assertThat(kept).contains("/mcp\"").contains("\"accessToken\"").contains("\"issuer\"");
    // Tokens are never printed.
    assertThat(output + stderr(out)).doesNotContain("test-token-");
  }

  @Test
  void aResponseFromTheWrongIssuerIsRefused() throws Exception {
    assumeTrue(notReady.isEmpty(), () -> "conformance suite not installed: " + notReady.orElse(""));
    Path out = dir.resolve("out");
    String output = suite("auth/iss-wrong-issuer", out);
    assertThat(output).contains("OVERALL: PASSED");
    assertThat(stderr(out))
        .contains("comes from issuer https://evil.example.com")
        .contains("it is not used");
    assertThat(dir.resolve("config/ops/mcp-tokens.json")).doesNotExist();
  }
}
