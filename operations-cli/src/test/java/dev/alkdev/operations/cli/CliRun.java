package dev.alkdev.operations.cli;

import dev.alkdev.operations.cli.internal.Terminal;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/** Runs {@code ops} in this JVM with captured streams, a given environment and stdin. */
record CliRun(int code, String out, String err) {

  static CliRun run(String... args) {
    return run(Map.of(), "", args);
  }

  static CliRun run(Map<String, String> env, String stdin, String... args) {
    // A home without ~/.config/ops/config.yaml, so the machine's own config stays out.
    return run(env, stdin, Path.of("target/no-home"), args);
  }

  static CliRun run(Map<String, String> env, String stdin, Path home, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Terminal terminal =
        new Terminal(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
            env,
            home,
            false,
            false);
    int code = Ops.run(terminal, args);
    return new CliRun(code, out.toString(), err.toString());
  }

  /**
   * {@code ops} running on a thread of this JVM, its output readable while it runs; closing its
   * input stops an {@code ops serve} (see ServeCommand), the way a signal does in a process.
   */
  record Background(
      java.util.concurrent.CompletableFuture<Integer> exit,
      StringWriter out,
      StringWriter err,
      java.io.PipedOutputStream stop) {
    static Background start(String... args) throws java.io.IOException {
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      java.io.PipedOutputStream stop = new java.io.PipedOutputStream();
      Terminal terminal =
          new Terminal(
              new PrintWriter(out, true),
              new PrintWriter(err, true),
              new java.io.PipedInputStream(stop),
              Map.of(),
              Path.of("target/no-home"),
              false,
              false);
      java.util.concurrent.CompletableFuture<Integer> exit =
          new java.util.concurrent.CompletableFuture<>();
      Thread thread = new Thread(() -> exit.complete(Ops.run(terminal, args)), "test-ops");
      thread.setDaemon(true);
      thread.start();
      return new Background(exit, out, err, stop);
    }

    void awaitErr(String text) throws InterruptedException {
      await(err, text);
    }

    void awaitOut(String text) throws InterruptedException {
      await(out, text);
    }

    private void await(StringWriter stream, String text) throws InterruptedException {
      long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
      while (!stream.toString().contains(text)) {
        if (exit.isDone() || System.nanoTime() > until) {
          throw new AssertionError(
              "ops did not print \"" + text + "\"; out: " + out + "\nerr: " + err);
        }
        Thread.sleep(20);
      }
    }
  }
}
