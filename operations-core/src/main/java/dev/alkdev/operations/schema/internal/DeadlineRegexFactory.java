package dev.alkdev.operations.schema.internal;

import com.networknt.schema.SchemaContext;
import com.networknt.schema.regex.RegularExpression;
import com.networknt.schema.regex.RegularExpressionFactory;
import java.time.Duration;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * JDK regular expressions with a time bound. No regex engine networknt offers bounds running time
 * ({@code ^(a+)+$} on 31 characters runs for many seconds), so each match reads its input through a
 * {@link CharSequence} that checks a deadline every few hundred characters read; backtracking
 * re-reads characters, so a runaway match trips the check quickly.
 */
final class DeadlineRegexFactory implements RegularExpressionFactory {
  private final long timeoutNanos;

  DeadlineRegexFactory(Duration timeout) {
    this.timeoutNanos = timeout.toNanos();
  }

  @Override
  public RegularExpression getRegularExpression(String regex) {
    Pattern pattern;
    try {
      pattern = Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException(
          "invalid regular expression " + quote(regex) + ": " + e.getDescription(), e);
    }
    return value -> find(pattern, value);
  }

  @Override
  public RegularExpression getRegularExpression(String regex, SchemaContext context) {
    return getRegularExpression(regex);
  }

  private boolean find(Pattern pattern, String value) {
    // Short inputs cannot backtrack for long; skip the wrapper's cost for them.
    if (value.length() <= 16) {
      return pattern.matcher(value).find();
    }
    DeadlineCharSequence input = new DeadlineCharSequence(value, System.nanoTime() + timeoutNanos);
    try {
      return pattern.matcher(input).find();
    } catch (RegexTimeoutException e) {
      throw new RegexTimeoutException(pattern.pattern(), value.length(), timeoutNanos);
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
        throw new RegexTimeoutException("", value.length(), 0);
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

  /** A match ran past its deadline; validation stops and reports it. */
  static final class RegexTimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RegexTimeoutException(String regex, int inputLength, long timeoutNanos) {
      super(
          "pattern "
              + quote(regex)
              + " ran longer than "
              + Duration.ofNanos(timeoutNanos).toMillis()
              + " ms on a "
              + inputLength
              + "-character string; validation stopped",
          null,
          false,
          false);
    }
  }
}
