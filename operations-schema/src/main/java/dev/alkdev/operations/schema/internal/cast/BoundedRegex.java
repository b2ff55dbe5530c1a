package dev.alkdev.operations.schema.internal.cast;

import dev.alkdev.operations.schema.internal.BoundedPattern;
import java.time.Duration;

/**
 * A {@code pattern} or {@code patternProperties} regular expression for casting: the same {@link
 * BoundedPattern} validation uses (ECMA-262 semantics, bounded in stack, charged to the cast's
 * {@code RegexBudget}), answering {@link Match#UNKNOWN} where validation would stop or refuse, so
 * the caller keeps the value as it was.
 */
final class BoundedRegex {
  enum Match {
    YES,
    NO,
    UNKNOWN
  }

  private final BoundedPattern pattern;

  private BoundedRegex(BoundedPattern pattern) {
    this.pattern = pattern;
  }

  static BoundedRegex compile(String regex, Duration loneMatchLimit) {
    BoundedPattern pattern;
    try {
      pattern = BoundedPattern.compile(regex, loneMatchLimit);
    } catch (IllegalArgumentException e) {
      pattern = null; // the validator reports it; casting leaves matching values alone
    }
    return new BoundedRegex(pattern);
  }

  /** Whether the pattern matches anywhere in {@code input} (JSON Schema regexes are unanchored). */
  Match find(String input) {
    if (pattern == null) {
      return Match.UNKNOWN;
    }
    try {
      return pattern.find(input) ? Match.YES : Match.NO;
    } catch (BoundedPattern.RegexLimitException e) {
      return Match.UNKNOWN;
    }
  }
}
