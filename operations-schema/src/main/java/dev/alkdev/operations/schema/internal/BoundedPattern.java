package dev.alkdev.operations.schema.internal;

import java.time.Duration;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A JSON Schema regular expression (ECMA-262, translated by {@link EcmaRegexTranslator}) whose
 * matches are bounded in time and stack. Validation and cast share it, so both read a pattern the
 * same way and neither can be made to hang.
 *
 * <p>No regex engine networknt offers bounds running time ({@code ^(a+){1,50}$} on 30 characters
 * runs for minutes on the JDK engine, {@code ^(((a+)+)+)+$} for seconds on only 16), so each match
 * reads its input through a {@link CharSequence} that charges the time it takes to the {@link
 * RegexBudget} of the validation or cast it belongs to. Backtracking re-reads characters, so a
 * runaway match is stopped within about the budget, and so are many slow matches together. The
 * check runs for inputs of every length: nested quantifiers make even a 16-character input take
 * seconds. The JDK matcher also recurses once per repetition of some loops, so a long input can
 * exhaust the stack; that is stopped and reported the same way.
 */
public final class BoundedPattern {
  private final String source;
  private final Pattern pattern;
  private final long loneMatchNanos;

  private BoundedPattern(String source, Pattern pattern, long loneMatchNanos) {
    this.source = source;
    this.pattern = pattern;
    this.loneMatchNanos = loneMatchNanos;
  }

  /**
   * Compiles an ECMA-262 pattern. {@code loneMatchLimit} bounds a match made while no {@link
   * RegexBudget} is open on the thread (the schema's own limit, so such a match is never
   * unbounded).
   *
   * @throws IllegalArgumentException if it is not a valid pattern, or uses a construct the Java
   *     engine cannot express; the message quotes the pattern and says what is wrong
   */
  public static BoundedPattern compile(String ecmaRegex, Duration loneMatchLimit) {
    String java;
    try {
      java = EcmaRegexTranslator.toJava(ecmaRegex);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "invalid regular expression " + quote(ecmaRegex) + ": " + e.getMessage(), e);
    }
    try {
      return new BoundedPattern(ecmaRegex, Pattern.compile(java), loneMatchLimit.toNanos());
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException(
          "regular expression "
              + quote(ecmaRegex)
              + " is not supported by the Java regex engine: "
              + e.getDescription(),
          e);
    }
  }

  /** The pattern as written in the schema. */
  public String source() {
    return source;
  }

  /**
   * Whether the pattern matches anywhere in {@code value} (JSON Schema patterns are unanchored),
   * charged to the thread's open {@link RegexBudget}.
   *
   * @throws RegexLimitException if the budget is spent (before or during this match) or the match
   *     runs out of stack
   */
  public boolean find(String value) {
    RegexBudget budget = RegexBudget.currentOr(loneMatchNanos);
    if (budget.spent()) {
      budget.trip();
      throw spent(budget, value);
    }
    RegexBudget.Metered input = budget.meter(value);
    try {
      return pattern.matcher(input).find();
    } catch (RegexBudget.Spent e) {
      budget.trip();
      throw spent(budget, value);
    } catch (StackOverflowError e) {
      // The matcher's recursion is its own; unwinding it leaves nothing half-done.
      throw new RegexLimitException(
          "pattern "
              + quote(source)
              + " needs more stack than available on a "
              + value.length()
              + "-character string; validation stopped");
    } finally {
      budget.settle(input);
    }
  }

  private RegexLimitException spent(RegexBudget budget, String value) {
    return new RegexLimitException(
        RegexBudget.spentMessage(budget.limit())
            + " at pattern "
            + quote(source)
            + " on a "
            + value.length()
            + "-character string");
  }

  static String quote(String regex) {
    return "'" + (regex.length() > 80 ? regex.substring(0, 80) + "..." : regex) + "'";
  }

  /** A match was stopped: its budget was spent or it ran out of stack. */
  public static final class RegexLimitException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RegexLimitException(String message) {
      super(message, null, false, false);
    }
  }
}
