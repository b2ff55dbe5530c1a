package dev.alkdev.operations.cli.internal;

import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;

/**
 * What the command talks to: its streams, environment and home directory, and whether a person is
 * watching (colour and the progress line only then). Tests pass their own; {@link #system()} is the
 * real one.
 *
 * @param interactive stdout is a terminal
 * @param signals whether to install the Ctrl-C hook (only for a real process)
 */
public record Terminal(
    PrintWriter out,
    PrintWriter err,
    InputStream in,
    Map<String, String> env,
    Path home,
    boolean interactive,
    boolean signals) {

  public static Terminal system() {
    return new Terminal(
        new PrintWriter(System.out, true),
        new PrintWriter(System.err, true),
        System.in,
        System.getenv(),
        Path.of(System.getProperty("user.home")),
        isTerminal(),
        true);
  }

  /** Colour is for people: on a terminal, unless NO_COLOR is set (https://no-color.org). */
  public boolean colourByDefault() {
    String noColor = env.get("NO_COLOR");
    return interactive && (noColor == null || noColor.isEmpty());
  }

  /** Columns to fit tables in: $COLUMNS (the ./ops launcher exports it), else 100; 0 = no limit. */
  public int width() {
    if (!interactive) {
      return 0;
    }
    try {
      return Math.max(40, Integer.parseInt(env.getOrDefault("COLUMNS", "100").trim()));
    } catch (NumberFormatException e) {
      return 100;
    }
  }

  private static boolean isTerminal() {
    java.io.Console console = System.console();
    if (console == null) {
      return false;
    }
    // From JDK 22 System.console() exists even when redirected; isTerminal() tells the truth.
    try {
      return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException e) {
      return true;
    }
  }
}
