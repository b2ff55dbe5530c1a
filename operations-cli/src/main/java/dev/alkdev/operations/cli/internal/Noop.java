package dev.alkdev.operations.cli.internal;

/**
 * Does nothing: the baseline of scripts/bench-startup.sh, the cost of starting a JVM on the same
 * jar, so the start-up figure of {@code ops list} can be read as a ratio over it.
 */
public final class Noop {
  private Noop() {}

  public static void main(String[] args) {}
}
