package dev.alkdev.operations.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.serving.OperationServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The console in a real Chromium (Debian's {@code chromium}), driven by {@code playwright-core}
 * from the npm registry: the steps are in {@code src/test/browser/console.test.mjs}; screenshots
 * are kept in {@code target/browser-screenshots}. playwright-core is installed on first use into
 * {@code ~/.cache/ops-browser} (or {@code -Dops.playwright.dir}); without chromium or node the test
 * is skipped and says what to install ({@code scripts/install-deps.sh} installs both).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ConsoleBrowserTest {
  static final String PLAYWRIGHT_VERSION = "1.65.1";

  @Test
  void theConsoleWorksInARealBrowser() throws Exception {
    Path chromium = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
    Assumptions.assumeTrue(
        Files.isExecutable(chromium),
        "no Chromium at " + chromium + ": install Debian's chromium (scripts/install-deps.sh)");
    Assumptions.assumeTrue(onPath("node") && onPath("npm"), "node and npm are needed");
    Path playwright = playwrightCoreDir();

    Fixtures fixtures = new Fixtures();
    try (OperationServer server = OperationServer.create(fixtures.registry);
        HttpGateway gateway =
            HttpGateway.builder(server)
                .authenticator(
                    Authenticator.bearerTokens(Map.of("admin-token", Identity.of("root", "admin"))))
                .title("Console test")
                .start()) {
      Path shots = Path.of("target/browser-screenshots").toAbsolutePath();
      Path log = Files.createTempFile("console-test", ".log");
      Process node =
          new ProcessBuilder(
                  "node",
                  Path.of("src/test/browser/console.test.mjs").toAbsolutePath().toString(),
                  gateway.uri().toString(),
                  shots.toString(),
                  playwright.toString())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      boolean ended = node.waitFor(180, TimeUnit.SECONDS);
      if (!ended) {
        node.descendants().forEach(ProcessHandle::destroyForcibly);
        node.destroyForcibly();
      }
      String output = Files.readString(log, StandardCharsets.UTF_8);
      Files.deleteIfExists(log);
      assertThat(ended).as("the browser test did not end: %s", output).isTrue();
      assertThat(node.exitValue()).as(output).isZero();
      assertThat(output).contains("ALL PASSED").contains("ok a subscription streams live");
      // Stopping the stream in the browser cancelled the handler on the server.
      assertThat(fixtures.ticksCancelled.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(shots.resolve("05-stream-live.png")).exists();
    } finally {
      fixtures.registry.close();
    }
  }

  /** playwright-core in a cache directory, installed from the npm registry when missing. */
  private static Path playwrightCoreDir() throws IOException, InterruptedException {
    Path dir =
        Path.of(
            System.getProperty(
                "ops.playwright.dir", System.getProperty("user.home") + "/.cache/ops-browser"));
    Path installed = dir.resolve("node_modules/playwright-core/package.json");
    if (Files.exists(installed)
        && Files.readString(installed).contains("\"version\": \"" + PLAYWRIGHT_VERSION + "\"")) {
      return dir;
    }
    Files.createDirectories(dir);
    Process npm =
        new ProcessBuilder(
                List.of(
                    "npm",
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--prefix",
                    dir.toString(),
                    "playwright-core@" + PLAYWRIGHT_VERSION))
            .redirectErrorStream(true)
            .start();
    String out = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    boolean done = npm.waitFor(180, TimeUnit.SECONDS);
    Assumptions.assumeTrue(
        done && npm.exitValue() == 0 && Files.exists(installed),
        "could not install playwright-core from the npm registry: " + out);
    return dir;
  }

  private static boolean onPath(String command) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }
}
