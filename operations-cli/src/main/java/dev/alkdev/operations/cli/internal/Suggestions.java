package dev.alkdev.operations.cli.internal;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** "Did you mean" for a mistyped operation id: the closest known ids by edit distance. */
public final class Suggestions {
  private Suggestions() {}

  public static List<String> closest(String wanted, Collection<String> known, int limit) {
    String w = wanted.toLowerCase(Locale.ROOT);
    int threshold = Math.max(2, w.length() / 3);
    return known.stream()
        .map(id -> new Scored(id, score(w, id.toLowerCase(Locale.ROOT))))
        .filter(s -> s.score <= threshold)
        .sorted(Comparator.comparingInt(Scored::score).thenComparing(Scored::id))
        .limit(limit)
        .map(Scored::id)
        .toList();
  }

  private record Scored(String id, int score) {}

  /** Edit distance, with a bonus for the part after the dot (people forget the namespace). */
  private static int score(String wanted, String id) {
    int full = distance(wanted, id);
    int dot = id.indexOf('.');
    if (dot >= 0 && !wanted.contains(".")) {
      full = Math.min(full, distance(wanted, id.substring(dot + 1)));
    }
    return full;
  }

  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        current[j] =
            Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
