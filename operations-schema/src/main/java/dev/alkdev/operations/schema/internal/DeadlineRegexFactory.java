package dev.alkdev.operations.schema.internal;

import com.networknt.schema.SchemaContext;
import com.networknt.schema.regex.RegularExpression;
import com.networknt.schema.regex.RegularExpressionFactory;
import java.time.Duration;

/**
 * networknt's hook for regular expressions, answered with {@link BoundedPattern}: ECMA-262 patterns
 * on the JDK engine, every match bounded in stack and charged to the {@link RegexBudget} open on
 * the thread ({@code loneMatchLimit} bounds a match made while none is).
 */
final class DeadlineRegexFactory implements RegularExpressionFactory {
  private final Duration loneMatchLimit;

  DeadlineRegexFactory(Duration loneMatchLimit) {
    this.loneMatchLimit = loneMatchLimit;
  }

  @Override
  public RegularExpression getRegularExpression(String regex) {
    BoundedPattern pattern = BoundedPattern.compile(regex, loneMatchLimit);
    return pattern::find;
  }

  @Override
  public RegularExpression getRegularExpression(String regex, SchemaContext context) {
    return getRegularExpression(regex);
  }
}
