package dev.alkdev.operations.schema.internal;

import java.time.Duration;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A JSON Schema regular expression (ECMA-262, translated by {@link EcmaRegexTranslator}) whose
 * every match is bounded in time and stack. Validation and cast share it, so both read a pattern
 * the same way and neither can be made to hang.
 *
 * <p>No regex engine networknt offers bounds running time ({@code ^(a+){1,50}$} on 30 characters
 * runs for minutes on the JDK engine, {@code ^(((a+)+)+)+$} for seconds on only 16), so each match
 * reads its input through a {@link CharSequence} that checks a deadline every 256 characters read.
 * Backtracking re-reads characters, so a runaway match trips the check within about the timeout.
 * The check runs for inputs of every length: nested quantifiers make even a 16-character input take
 * seconds. The JDK matcher also recurses once per repetition of some loops, so a long input can
 * exhaust the stack; that is stopped and reported the same way.
 */
public final class BoundedPattern {
  private final String source;
  private final Pattern pattern;
  private final long timeoutNanos;

  private BoundedPattern(String source, Pattern pattern, long timeoutNanos) {
    this.source = source;
    this.pattern = pattern;
    this.timeoutNanos = timeoutNanos;
  }

  /**
   * Compiles an ECMA-262 pattern.
   *
   * @throws IllegalArgumentException if it is not a valid pattern, or uses a construct the Java
   *     engine cannot express; the message quotes the pattern and says what is wrong
   */
  public static BoundedPattern compile(String ecmaRegex, Duration timeout) {
    String java;
    try {
      java = EcmaRegexTranslator.toJava(ecmaRegex);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "invalid regular expression " + quote(ecmaRegex) + ": " + e.getMessage(), e);
    }
    try {
      return new BoundedPattern(ecmaRegex, Pattern.compile(java), timeout.toNanos());
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
   * Whether the pattern matches anywhere in {@code value} (JSON Schema patterns are unanchored).
   *
   * @throws RegexLimitException if the match runs past the timeout or out of stack
   */
  public boolean find(String value) {
    DeadlineCharSequence input = new DeadlineCharSequence(value, System.nanoTime() + timeoutNanos);
    try {
      return pattern.matcher(input).find();
    } catch (DeadlinePassed e) {
      throw new RegexLimitException(
          "pattern "
              + quote(source)
              + " ran longer than "
              + Duration.ofNanos(timeoutNanos).toMillis()
              + " ms on a "
              + value.length()
              + "-character string (SchemaLimits.regexTimeout); validation stopped");
    } catch (StackOverflowError e) {
      // The matcher's recursion is its own; unwinding it leaves nothing half-done.
      throw new RegexLimitException(
          "pattern "
              + quote(source)
              + " needs more stack than available on a "
              + value.length()
              + "-character string; validation stopped");
    }
  }

  static String quote(String regex) {
    return "'" + (regex.length() > 80 ? regex.substring(0, 80) + "..." : regex) + "'";
  }

  /** A string whose reads check a deadline; only the matcher sees it. */
  private static final class DeadlineCharSequence implements CharSequence {
    private final String value;
    private final long deadlineNanos;
    private int reads;

    DeadlineCharSequence(String value, long deadlineNanos) {
      this.value = value;
      this.deadlineNanos = deadlineNanos;
    }

    @Override
    public char charAt(int index) {
      if ((++reads & 0xFF) == 0 && System.nanoTime() - deadlineNanos > 0) {
        throw new DeadlinePassed();
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

  /** Thrown out of the matcher when the deadline passed; cheap, it carries no stack trace. */
  private static final class DeadlinePassed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DeadlinePassed() {
      super(null, null, false, false);
    }
  }

  /** A match ran past its deadline or out of stack. */
  public static final class RegexLimitException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RegexLimitException(String message) {
      super(message, null, false, false);
    }
  }
}
