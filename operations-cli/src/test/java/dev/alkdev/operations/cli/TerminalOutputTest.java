package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.cli.internal.Terminal;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a person at a terminal sees: colour unless told otherwise, tables cut to the width. */
class TerminalOutputTest {

  private static CliRun atTerminal(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Terminal terminal =
        new Terminal(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            new ByteArrayInputStream(new byte[0]),
            env,
            Path.of("target/no-home"),
            true,
            false);
    return new CliRun(Ops.run(terminal, args), out.toString(), err.toString());
  }

  @Test
  void colourOnATerminalUnlessNoColor() {
    assertThat(atTerminal(Map.of(), "list").out()).contains("\u001b[1mID");
    assertThat(atTerminal(Map.of("NO_COLOR", "1"), "list").out()).doesNotContain("\u001b[");
    assertThat(atTerminal(Map.of(), "list", "--no-color").out()).doesNotContain("\u001b[");
    assertThat(atTerminal(Map.of(), "call", "demo.nope").err()).contains("\u001b[31merror:");
    // Not a terminal: never colour (CliRun.run passes interactive = false).
    assertThat(CliRun.run("list").out()).doesNotContain("\u001b[");
  }

  @Test
  void tablesFitTheWidth() {
    CliRun run = atTerminal(Map.of("COLUMNS", "60", "NO_COLOR", "1"), "list");
    assertThat(run.out().lines()).allMatch(line -> line.length() <= 60);
    assertThat(run.out()).contains("…");
    // Piped: the whole description, whatever COLUMNS says.
    assertThat(CliRun.run(Map.of("COLUMNS", "60"), "", "list").out()).doesNotContain("…");
  }
}
