package dev.alkdev.operations.schema.internal.cast;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A {@code pattern} or {@code patternProperties} regular expression whose matches are bounded in
 * time, like validation's own (JDK regex backtracks exponentially on patterns such as {@code
 * (a+)+$}). A match that runs out of time, overflows the stack, or whose pattern the JDK cannot
 * compile answers {@link Match#UNKNOWN}, and the caller keeps the value as it was.
 */
final class BoundedRegex {
  enum Match {
    YES,
    NO,
    UNKNOWN
  }

  /** Inputs this short cannot backtrack for long; they skip the deadline wrapper. */
  private static final int UNGUARDED_LENGTH = 16;

  private final Pattern pattern;
  private final long timeoutNanos;

  private BoundedRegex(Pattern pattern, long timeoutNanos) {
    this.pattern = pattern;
    this.timeoutNanos = timeoutNanos;
  }

  static BoundedRegex compile(String regex, long timeoutNanos) {
    Pattern pattern;
    try {
      pattern = Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      pattern = null; // the validator reports it; casting leaves matching values alone
    }
    return new BoundedRegex(pattern, timeoutNanos);
  }

  /** Whether the pattern matches anywhere in {@code input} (JSON Schema regexes are unanchored). */
  Match find(String input) {
    if (pattern == null) {
      return Match.UNKNOWN;
    }
    try {
      boolean found =
          input.length() <= UNGUARDED_LENGTH
              ? pattern.matcher(input).find()
              : pattern.matcher(new DeadlineChars(input, System.nanoTime() + timeoutNanos)).find();
      return found ? Match.YES : Match.NO;
    } catch (TimedOut | StackOverflowError e) {
      return Match.UNKNOWN;
    }
  }

  /** A string whose reads check a deadline every 256 characters read; backtracking re-reads. */
  private static final class DeadlineChars implements CharSequence {
    private final String value;
    private final long deadlineNanos;
    private int reads;

    DeadlineChars(String value, long deadlineNanos) {
      this.value = value;
      this.deadlineNanos = deadlineNanos;
    }

    @Override
    public char charAt(int index) {
      if ((++reads & 0xFF) == 0 && System.nanoTime() - deadlineNanos > 0) {
        throw new TimedOut();
      }
      return value.charAt(index);
    }

    @Override
    public int length() {
      return value.length();
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      return value.subSequence(start, end);
    }

    @Override
    public String toString() {
      return value;
    }
  }

  private static final class TimedOut extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TimedOut() {
      super(null, null, false, false);
    }
  }
}
