package dev.alkdev.operations.cli;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.cli.config.ConfigException;
import dev.alkdev.operations.cli.internal.Failure;
import dev.alkdev.operations.cli.internal.JsonInput;
import dev.alkdev.operations.cli.internal.OpsCommand;
import dev.alkdev.operations.cli.internal.Output;
import dev.alkdev.operations.cli.internal.SourceSet;
import dev.alkdev.operations.cli.internal.Terminal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * The {@code ops} command: list, describe, call and stream operations from the demo, OpenAPI
 * documents and MCP servers. {@code ./ops --help} at the repository root runs it; see the module's
 * README for the commands, the configuration file and the exit codes ({@link ExitCodes}).
 */
public final class Ops {
  private Ops() {}

  public static void main(String[] args) {
    configureLogging(args);
    int code = run(Terminal.system(), args);
    System.out.flush();
    System.err.flush();
    System.exit(code);
  }

  /** Runs {@code ops args} in this JVM against the real terminal; returns the exit code. */
  public static int run(String... args) {
    configureLogging(args);
    return run(Terminal.system(), args);
  }

  /**
   * Runs {@code ops args} against {@code terminal} (tests pass one that captures the streams).
   * Never throws: every failure is printed and turned into an exit code.
   */
  static int run(Terminal terminal, String... args) {
    boolean colour = terminal.colourByDefault() && !Arrays.asList(args).contains("--no-color");
    Output output = new Output(terminal, colour);
    CommandLine commandLine = new CommandLine(new OpsCommand(terminal));
    commandLine
        // "--input @file.json" is ours: picocli must not expand it as an argument file.
        .setExpandAtFiles(false)
        .setOut(terminal.out())
        .setErr(terminal.err())
        .setColorScheme(
            CommandLine.Help.defaultColorScheme(
                colour ? CommandLine.Help.Ansi.ON : CommandLine.Help.Ansi.OFF))
        .setExecutionExceptionHandler((e, cl, parsed) -> handle(e, output, args))
        .setParameterExceptionHandler(
            (e, args2) -> {
              List<String> hints = new ArrayList<>(usageHints(e));
              hints.add(
                  "run `"
                      + e.getCommandLine().getCommandSpec().qualifiedName()
                      + " --help` for the options and examples");
              output.error(e.getMessage(), hints.toArray(String[]::new));
              return ExitCodes.USAGE;
            });
    int code = commandLine.execute(args);
    terminal.out().flush();
    terminal.err().flush();
    return code;
  }

  /** The options that belong before the command name, not after it. */
  private static final List<String> BEFORE_THE_COMMAND = List.of("--nats", "--redis", "--ws");

  /**
   * What a usage error most likely meant: the commands or options closest to an unknown word
   * ({@code ops cal}: call), or a remote's flag given after the command instead of before it.
   */
  static List<String> usageHints(CommandLine.ParameterException e) {
    if (!(e instanceof CommandLine.UnmatchedArgumentException unmatched)) {
      return List.of();
    }
    for (String word : unmatched.getUnmatched()) {
      String flag = word.contains("=") ? word.substring(0, word.indexOf('=')) : word;
      if (BEFORE_THE_COMMAND.contains(flag) && e.getCommandLine().getParent() != null) {
        return List.of(
            flag
                + " goes before the command: ops "
                + flag
                + " URL "
                + e.getCommandLine().getCommandName()
                + " ...");
      }
    }
    List<String> suggestions = unmatched.getSuggestions();
    if (suggestions.isEmpty()) {
      return List.of();
    }
    return List.of(
        "did you mean "
            + String.join(" or ", suggestions.subList(0, Math.min(3, suggestions.size())))
            + "?");
  }

  private static int handle(Exception e, Output output, String[] args) {
    boolean json = Arrays.asList(args).contains("--json");
    if (e instanceof CallError error) {
      output.callError(error, json);
      return ExitCodes.of(error.code());
    }
    if (e instanceof Failure failure) {
      String code =
          failure.exitCode() == ExitCodes.OPERATION_NOT_FOUND ? "OPERATION_NOT_FOUND" : "USAGE";
      return report(output, json, failure.exitCode(), code, failure.getMessage(), failure.hints());
    }
    if (e instanceof JsonInput.BadInput bad) {
      return report(
          output,
          json,
          ExitCodes.INVALID_INPUT,
          "INVALID_INPUT",
          bad.getMessage(),
          List.of("check the JSON given to --input; run `ops describe ID` for its schema"));
    }
    if (e instanceof ConfigException config) {
      return report(
          output,
          json,
          ExitCodes.CONFIG,
          "CONFIG",
          config.getMessage(),
          List.of("fix the configuration (see `ops --help`), then run again"));
    }
    if (e instanceof SourceSet.SourceFailure failure) {
      if (json) {
        output.jsonError("SOURCE_FAILED", failure.getMessage(), List.of());
      } else {
        for (String line : failure.getMessage().split("\n")) {
          output.error(line);
        }
      }
      return ExitCodes.SOURCE_FAILED;
    }
    LoggerFactory.getLogger(Ops.class).debug("unexpected failure", e);
    output.error(
        "ops failed unexpectedly: " + e,
        "run again with --verbose for details, and report it if it persists");
    return ExitCodes.SOFTWARE;
  }

  private static int report(
      Output output, boolean json, int exitCode, String code, String message, List<String> hints) {
    if (json) {
      output.jsonError(code, message, hints);
    } else {
      output.error(message, hints.toArray(String[]::new));
    }
    return exitCode;
  }

  /**
   * Quiet by default: warnings only, on stderr, so stdout carries nothing but results; {@code
   * --verbose} for debug. Set before any logger exists (slf4j-simple reads them once).
   */
  private static void configureLogging(String[] args) {
    boolean verbose = Arrays.stream(args).anyMatch(a -> a.equals("-v") || a.equals("--verbose"));
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", verbose ? "debug" : "warn");
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
    System.setProperty("org.slf4j.simpleLogger.showThreadName", "false");
    System.setProperty("org.slf4j.simpleLogger.showShortLogName", "true");
    // The MCP SDK logs a failed connect as a warning with its stack trace; ops says the cause
    // itself, in one line.
    System.setProperty(
        "org.slf4j.simpleLogger.log.io.modelcontextprotocol", verbose ? "debug" : "error");
  }
}
