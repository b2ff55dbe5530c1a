package dev.alkdev.operations.scan;

import java.util.Objects;

/**
 * Something a scan skipped, and why.
 *
 * @param source the file (with {@code #index} for one entry of an array) or provider class
 * @param reason what was wrong, for a person
 */
public record ScanProblem(String source, String reason) {
  public ScanProblem {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(reason, "reason");
  }

  @Override
  public String toString() {
    return source + ": " + reason;
  }
}
