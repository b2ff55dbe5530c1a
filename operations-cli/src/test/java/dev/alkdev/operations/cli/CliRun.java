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
}
