package dev.alkdev.operations.schema.internal.importing;

import java.util.ArrayList;
import java.util.List;

/** The degradations of one import. Keeps the first few; a hostile document may cause thousands. */
final class Notes {
  static final int KEPT = 100;

  private final List<Degradation> kept = new ArrayList<>();
  private int count;

  void add(String pointer, String reason) {
    count++;
    if (kept.size() < KEPT) {
      kept.add(new Degradation(pointer, reason));
    }
  }

  List<Degradation> kept() {
    return kept;
  }

  int count() {
    return count;
  }
}
