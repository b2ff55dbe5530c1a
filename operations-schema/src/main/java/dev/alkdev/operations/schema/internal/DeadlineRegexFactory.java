package dev.alkdev.operations.schema.internal;

import com.networknt.schema.SchemaContext;
import com.networknt.schema.regex.RegularExpression;
import com.networknt.schema.regex.RegularExpressionFactory;
import java.time.Duration;

/**
 * networknt's hook for regular expressions, answered with {@link BoundedPattern}: ECMA-262 patterns
 * on the JDK engine, every match bounded in time and stack.
 */
final class DeadlineRegexFactory implements RegularExpressionFactory {
  private final Duration timeout;

  DeadlineRegexFactory(Duration timeout) {
    this.timeout = timeout;
  }

  @Override
  public RegularExpression getRegularExpression(String regex) {
    BoundedPattern pattern = BoundedPattern.compile(regex, timeout);
    return pattern::find;
  }

  @Override
  public RegularExpression getRegularExpression(String regex, SchemaContext context) {
    return getRegularExpression(regex);
  }
}
