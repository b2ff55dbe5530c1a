package dev.alkdev.operations.codegen;

import java.util.List;
import java.util.TreeSet;

/** The places where the mapping is not exact, one line each, sorted and without repeats. */
final class Notes {
  private final TreeSet<String> lines = new TreeSet<>();

  void add(String operationId, String path, String text) {
    // One line each: names from schemas may hold line breaks and other control characters.
    String line = operationId + " " + path + ": " + text;
    StringBuilder clean = new StringBuilder(line.length());
    line.codePoints().forEach(cp -> clean.appendCodePoint(Character.isISOControl(cp) ? ' ' : cp));
    lines.add(clean.toString());
  }

  List<String> sorted() {
    return List.copyOf(lines);
  }
}
