package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar as a user runs it: {@code java -jar ops.jar}, in a subprocess. Runs in the
 * integration-test phase (failsafe), after package; skipped if the jar is not there.
 */
@Timeout(60)
class OpsJarIT {
  private static Path jar;

  record Result(int code, String out, String err) {}

  @BeforeAll
  static void findJar() {
    jar = Path.of(System.getProperty("ops.jar", "target/ops.jar"));
    assumeTrue(Files.isRegularFile(jar), "no " + jar + "; run mvn package first");
  }

  private static ProcessBuilder java(String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(jar.toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    // Keep the machine's own configuration out of the test.
    builder.environment().remove("OPS_CONFIG");
    builder.environment().put("HOME", jar.getParent().toAbsolutePath().toString());
    return builder;
  }

  private static Result run(String... args) throws Exception {
    Process process =
        java(args)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    byte[] out;
    byte[] err;
    try {
      out = process.getInputStream().readAllBytes();
      err = process.getErrorStream().readAllBytes();
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      process.destroyForcibly();
    }
    return new Result(
        process.exitValue(),
        new String(out, StandardCharsets.UTF_8),
        new String(err, StandardCharsets.UTF_8));
  }

  @Test
  void listPrintsTheDemoAndNothingElse() throws Exception {
    Result result = run("list");
    assertThat(result.code()).isZero();
    assertThat(result.out())
        .contains("demo.echo")
        .contains("demo.createNote")
        .contains("demo.clock");
    // No log lines, no colour codes: stdout is not a terminal here.
    assertThat(result.err()).isEmpty();
    assertThat(result.out()).doesNotContain("\u001b[");
  }

  @Test
  void callAndExitCodes() throws Exception {
    Result echo = run("call", "demo.echo", "--input", "{\"message\":\"hi\"}", "--json");
    assertThat(echo.code()).isZero();
    assertThat(echo.out().trim()).isEqualTo("{\"message\":\"hi\"}");
    assertThat(run("call", "demo.nope").code()).isEqualTo(ExitCodes.OPERATION_NOT_FOUND);
    assertThat(run("call", "demo.echo", "--input", "{").code()).isEqualTo(ExitCodes.INVALID_INPUT);
    assertThat(run("call", "--bogus").code()).isEqualTo(ExitCodes.USAGE);
    Result version = run("--version");
    assertThat(version.out()).startsWith("ops 0.");
  }

  /**
   * The check: on a plain OpenAPI document, {@code ops generate java} writes sources that
   * {@code javac} compiles against the ops jar and nothing else.
   */
  @Test
  void generatedSourcesCompileAgainstTheJarAlone(@TempDir Path dir) throws Exception {
    Path doc = dir.resolve("pets.yaml");
    try (var in = OpsJarIT.class.getResourceAsStream("/generate/pets.yaml")) {
      Files.write(doc, in.readAllBytes());
    }
    Path sources = dir.resolve("src");
    Result generated =
        run(
            "--no-demo",
            "--openapi",
            "pets=" + doc,
            "generate",
            "java",
            "--out",
            sources.toString(),
            "--package",
            "com.example.pets");
    assertThat(generated.code()).as(generated.err()).isZero();
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "javac").toString());
    command.addAll(List.of("-d", dir.resolve("classes").toString(), "-cp", jar.toString()));
    try (var files = Files.walk(sources)) {
      files.filter(f -> f.toString().endsWith(".java")).forEach(f -> command.add(f.toString()));
    }
    Process javac = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(javac.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(javac.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(javac.exitValue()).as(output).isZero();
    assertThat(dir.resolve("classes/com/example/pets/Pets.class")).exists();
  }

  @Test
  void terminatingASubscriptionCancelsItCleanly(@TempDir Path dir) throws Exception {
    // To a file: destroy() closes the pipes, and what the hook writes must still be readable.
    Path errFile = dir.resolve("err.txt");
    Process process =
        java("subscribe", "demo.clock", "--input", "{\"ticks\":1000,\"intervalMs\":50}")
            .redirectError(errFile.toFile())
            .start();
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(out.readLine()).contains("\"tick\":1");
      assertThat(out.readLine()).contains("\"tick\":2");
      // SIGTERM runs the same shutdown hook as Ctrl-C (SIGINT).
      process.destroy();
      assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
    } finally {
      process.destroyForcibly();
    }
    String err = Files.readString(errFile);
    assertThat(err)
        .containsPattern("stopped \\(signal\\) after [2-9]\\d* items")
        .contains("subscription was cancelled");
  }

  /** Starts {@code ops serve --nats URL}; returns once it said it is ready. */
  private static Process serve(String natsUrl, Path errFile) throws Exception {
    Process process =
        java("serve", "--nats", natsUrl, "--heartbeat", "300ms", "--drain-timeout", "5s")
            .redirectError(errFile.toFile())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    // Until it is returned, the process is ours to stop: a failed wait must not leave it running
    // (it would reconnect to a dead server for ever).
    try {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!Files.readString(errFile).contains("ready;")) {
        assertThat(process.isAlive())
            .as("ops serve exited: %s", Files.readString(errFile))
            .isTrue();
        assertThat(System.nanoTime()).as("ops serve did not get ready").isLessThan(until);
        Thread.sleep(20);
      }
      // A node process just started answers its first discovery query slowly (a cold JVM on a
      // loaded machine can take longer than a one-shot caller's quiet period): wait until a
      // caller sees it, as its heartbeats guarantee within one interval.
      long seen = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      CliRun list;
      while (!(list = CliRun.run("--no-demo", "--nats", natsUrl, "list"))
          .out()
          .contains("demo.echo")) {
        CliRun last = list;
        assertThat(System.nanoTime())
            .as(
                () ->
                    "no caller saw ops serve's node; the last list exited "
                        + last.code()
                        + ", out: "
                        + last.out()
                        + ", err: "
                        + last.err()
                        + "; ops serve's log: "
                        + readQuietly(errFile)
                        + "; its threads: "
                        + threadDump(process))
            .isLessThan(seen);
        Thread.sleep(100);
      }
      return process;
    } catch (Throwable failure) {
      process.destroyForcibly();
      throw failure;
    }
  }

  /** The threads of {@code process} (a JVM), for a failure's message; never throws. */
  private static String threadDump(Process process) {
    try {
      Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
      Process dump =
          new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "Thread.print")
              .redirectErrorStream(true)
              .start();
      byte[] out = dump.getInputStream().readAllBytes();
      dump.waitFor(10, TimeUnit.SECONDS);
      dump.destroyForcibly();
      return new String(out, StandardCharsets.UTF_8);
    } catch (Exception e) {
      return "(no thread dump: " + e + ")";
    }
  }

  private static String readQuietly(Path file) {
    try {
      return Files.readString(file);
    } catch (java.io.IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  @Test
  void serveHttpAnswersAndSigtermLetsARunningStreamFinish(@TempDir Path dir) throws Exception {
    Path outFile = dir.resolve("serve-out.txt");
    Path errFile = dir.resolve("serve-err.txt");
    Process process =
        java("serve", "--http", "0", "--drain-timeout", "10s")
            .redirectError(errFile.toFile())
            .redirectOutput(outFile.toFile())
            .start();
    try {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!Files.readString(errFile).contains("ready;")) {
        assertThat(process.isAlive())
            .as("ops serve exited: %s", Files.readString(errFile))
            .isTrue();
        assertThat(System.nanoTime()).as("ops serve did not get ready").isLessThan(until);
        Thread.sleep(20);
      }
      java.util.regex.Matcher url =
          java.util.regex.Pattern.compile("(http://127\\.0\\.0\\.1:\\d+/)")
              .matcher(Files.readString(outFile));
      assertThat(url.find()).as(Files.readString(outFile)).isTrue();
      java.net.URI base = java.net.URI.create(url.group(1));
      java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
      var echo =
          client.send(
              java.net.http.HttpRequest.newBuilder(base.resolve("/ops/demo.echo?message=jar"))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(echo.statusCode()).isEqualTo(200);
      assertThat(echo.body()).contains("\"message\":\"jar\"");
      // A stream of 4 ticks 300 ms apart is running when SIGTERM comes: it finishes whole.
      var stream =
          client.sendAsync(
              java.net.http.HttpRequest.newBuilder(
                      base.resolve("/ops/demo.clock?ticks=4&intervalMs=300"))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
      Thread.sleep(400);
      process.destroy();
      String body = stream.get(20, TimeUnit.SECONDS).body();
      assertThat(body).contains("id: 4").contains("event: call.completed");
      assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
      assertThat(process.exitValue()).isEqualTo(143);
      assertThat(Files.readString(errFile)).contains("stopping (signal)").contains("stopped");
    } finally {
      process.destroyForcibly();
    }
  }

  @Test
  void sigtermDrainsServeAndItsNodeLeaves(@TempDir Path dir) throws Exception {
    try (var nats = dev.alkdev.operations.transport.nats.NatsServer.start()) {
      Path errFile = dir.resolve("serve-err.txt");
      Process process = serve(nats.url(), errFile);
      try {
        CliRun call =
            CliRun.run(
                "--no-demo",
                "--nats",
                nats.url(),
                "call",
                "demo.echo",
                "--input",
                "{\"message\":\"x\"}",
                "--json");
        assertThat(call.code()).as(call.err()).isZero();
        // A stream in flight when SIGTERM arrives is cancelled once the drain timeout is over,
        // and its caller hears UNAVAILABLE; the process exits as a SIGTERMed one does.
        CliRun.Background subscribe =
            CliRun.Background.start(
                "--no-demo",
                "--nats",
                nats.url(),
                "subscribe",
                "demo.clock",
                "--input",
                "{\"ticks\":100000,\"intervalMs\":50}");
        subscribe.awaitOut("\"tick\":3");
        long terminated = System.nanoTime();
        process.destroy(); // SIGTERM
        assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
        long tookMs = (System.nanoTime() - terminated) / 1_000_000;
        assertThat(process.exitValue()).isEqualTo(143);
        assertThat(tookMs).as("drain took").isBetween(4_000L, 12_000L);
        assertThat(Files.readString(errFile))
            .contains("stopping (signal)")
            .containsPattern("stopped after \\d+ ms");
        assertThat(subscribe.exit().get(20, TimeUnit.SECONDS))
            .as(subscribe.err().toString())
            .isEqualTo(ExitCodes.UNAVAILABLE);
        // Gone from the catalog: nothing serves demo.echo any more.
        CliRun after = CliRun.run("--no-demo", "--nats", nats.url(), "call", "demo.echo");
        assertThat(after.code()).isEqualTo(ExitCodes.NO_RESPONDERS);
      } finally {
        process.destroyForcibly();
      }
    }
  }

  @Test
  void aServeProcessKilledWithSigkillEndsItsCallersStreamWithUnavailable(@TempDir Path dir)
      throws Exception {
    try (var nats = dev.alkdev.operations.transport.nats.NatsServer.start()) {
      Process process = serve(nats.url(), dir.resolve("serve-err.txt"));
      try {
        CliRun.Background subscribe =
            CliRun.Background.start(
                "--no-demo",
                "--nats",
                nats.url(),
                "subscribe",
                "demo.clock",
                "--input",
                "{\"ticks\":100000,\"intervalMs\":50}");
        subscribe.awaitOut("\"tick\":3");
        long killed = System.nanoTime();
        process.destroyForcibly(); // SIGKILL: no bye
        int code = subscribe.exit().get(20, TimeUnit.SECONDS);
        long tookMs = (System.nanoTime() - killed) / 1_000_000;
        assertThat(code).as(subscribe.err().toString()).isEqualTo(ExitCodes.UNAVAILABLE);
        // Three heartbeats (900 ms) of silence and a timer tick; the rest is slack for a loaded
        // machine (about 750 ms on a quiet one, 2.3 s seen at load 16).
        assertThat(tookMs).as("ms from SIGKILL to the caller's exit").isLessThan(3_000L);
        System.out.println("ops serve SIGKILL to caller UNAVAILABLE: " + tookMs + " ms");
      } finally {
        process.destroyForcibly();
      }
    }
  }

  @Test
  void sigtermDuringACallCancelsItOnTheServerAndLeavesNoProcessBehind(@TempDir Path dir)
      throws Exception {
    Path reasons = dir.resolve("reasons.txt");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String server =
        "slow="
            + java
            + " -cp "
            + System.getProperty("java.class.path")
            + " dev.alkdev.operations.mcp.FakeStdioServer silent "
            + reasons;
    Path errFile = dir.resolve("err.txt");
    Process ops =
        java("call", "slow.t", "--mcp-stdio", server, "--timeout", "60s")
            .redirectError(errFile.toFile())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      // The call is in flight once the server has received it (it says so in a file).
      Path called = Path.of(reasons + ".called");
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
      while (!Files.exists(called) && System.nanoTime() < until) {
        assertThat(ops.isAlive()).as("ops exited: %s", Files.readString(errFile)).isTrue();
        Thread.sleep(50);
      }
      assertThat(called).exists();
      List<ProcessHandle> children = ops.descendants().toList();
      assertThat(children).isNotEmpty();
      ops.destroy(); // SIGTERM
      assertThat(ops.waitFor(20, TimeUnit.SECONDS)).isTrue();
      assertThat(Files.readString(errFile))
          .contains("interrupted; the call to slow.t was cancelled");
      assertThat(Files.readString(reasons)).contains("ops was interrupted");
      for (ProcessHandle child : children) {
        child.onExit().get(10, TimeUnit.SECONDS);
      }
      assertThat(children.stream().filter(ProcessHandle::isAlive).toList()).isEmpty();
    } finally {
      ops.destroyForcibly();
    }
  }

  @Test
  void noopBaselineStartsAndPrintsNothing() throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                jar.toString(),
                "dev.alkdev.operations.cli.internal.Noop")
            .redirectErrorStream(true)
            .start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isZero();
    assertThat(out).isEmpty();
  }
}
