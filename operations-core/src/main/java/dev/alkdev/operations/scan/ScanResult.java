package dev.alkdev.operations.scan;

import java.util.List;

/**
 * What a scan found, and what it skipped. A bad entry never aborts a scan: it is reported here.
 *
 * @param found what was found, in a stable order
 * @param problems every entry that was skipped, with the reason
 */
public record ScanResult<T>(List<T> found, List<ScanProblem> problems) {
  public ScanResult {
    found = List.copyOf(found);
    problems = List.copyOf(problems);
  }
}
