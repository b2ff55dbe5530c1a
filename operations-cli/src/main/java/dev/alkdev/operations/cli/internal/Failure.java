package dev.alkdev.operations.cli.internal;

import java.util.List;

/** A command that cannot go on: what went wrong, what to do next, and the exit code to use. */
public final class Failure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int exitCode;
  private final List<String> hints;

  public Failure(int exitCode, String message, String... hints) {
    super(message);
    this.exitCode = exitCode;
    this.hints = List.of(hints);
  }

  public int exitCode() {
    return exitCode;
  }

  public List<String> hints() {
    return hints;
  }
}
