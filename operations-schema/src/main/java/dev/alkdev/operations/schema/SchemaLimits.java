package dev.alkdev.operations.schema;

import java.time.Duration;
import java.util.Objects;

/**
 * Guards against hostile schemas and values. Schemas arrive from third-party MCP servers and
 * OpenAPI documents, so every limit is on by default; raise one only for sources you trust.
 *
 * @param maxDocumentChars largest schema document accepted, in characters of JSON text
 * @param maxNestingDepth deepest nesting of arrays and objects accepted when parsing a schema
 *     document or a value from text
 * @param maxEvaluationDepth deepest nesting of schema evaluation (value depth and {@code $ref}
 *     chains); deeper values fail validation with keyword {@code "limit"} instead of exhausting the
 *     stack
 * @param maxEvaluationSteps most keyword evaluations for one value; a schema whose {@code
 *     anyOf}/{@code $ref} combinations explode fails validation with keyword {@code "limit"}
 * @param maxRegexTime how long the regular expressions ({@code pattern}, {@code patternProperties})
 *     of one {@link Schema#validate} call may run together, all patterns and all strings of the
 *     value; when it is spent validation stops with keyword {@code "limit"}. Each {@link
 *     Schema#cast} call has a budget of its own; when it is spent the cast leaves what it has not
 *     matched as it was
 * @param maxErrors most errors collected for one value; the rest are summarised in one more
 */
public record SchemaLimits(
    int maxDocumentChars,
    int maxNestingDepth,
    int maxEvaluationDepth,
    long maxEvaluationSteps,
    Duration maxRegexTime,
    int maxErrors) {

  private static final SchemaLimits DEFAULTS =
      new SchemaLimits(4 * 1024 * 1024, 500, 512, 1_000_000, Duration.ofMillis(250), 100);

  public SchemaLimits {
    positive(maxDocumentChars, "maxDocumentChars");
    positive(maxNestingDepth, "maxNestingDepth");
    positive(maxEvaluationDepth, "maxEvaluationDepth");
    positive(maxErrors, "maxErrors");
    if (maxEvaluationSteps <= 0) {
      throw new IllegalArgumentException(
          "maxEvaluationSteps must be positive, was " + maxEvaluationSteps);
    }
    Objects.requireNonNull(maxRegexTime, "maxRegexTime");
    if (maxRegexTime.isNegative() || maxRegexTime.isZero()) {
      throw new IllegalArgumentException("maxRegexTime must be positive, was " + maxRegexTime);
    }
  }

  /**
   * The defaults: 4 Mi characters, nesting 500, evaluation depth 512, a million evaluation steps,
   * 250 ms of regular expressions a value, 100 errors.
   */
  public static SchemaLimits defaults() {
    return DEFAULTS;
  }

  public SchemaLimits withMaxDocumentChars(int value) {
    return new SchemaLimits(
        value, maxNestingDepth, maxEvaluationDepth, maxEvaluationSteps, maxRegexTime, maxErrors);
  }

  public SchemaLimits withMaxNestingDepth(int value) {
    return new SchemaLimits(
        maxDocumentChars, value, maxEvaluationDepth, maxEvaluationSteps, maxRegexTime, maxErrors);
  }

  public SchemaLimits withMaxEvaluationDepth(int value) {
    return new SchemaLimits(
        maxDocumentChars, maxNestingDepth, value, maxEvaluationSteps, maxRegexTime, maxErrors);
  }

  public SchemaLimits withMaxEvaluationSteps(long value) {
    return new SchemaLimits(
        maxDocumentChars, maxNestingDepth, maxEvaluationDepth, value, maxRegexTime, maxErrors);
  }

  public SchemaLimits withMaxRegexTime(Duration value) {
    return new SchemaLimits(
        maxDocumentChars,
        maxNestingDepth,
        maxEvaluationDepth,
        maxEvaluationSteps,
        value,
        maxErrors);
  }

  public SchemaLimits withMaxErrors(int value) {
    return new SchemaLimits(
        maxDocumentChars,
        maxNestingDepth,
        maxEvaluationDepth,
        maxEvaluationSteps,
        maxRegexTime,
        value);
  }

  private static void positive(int value, String name) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
  }
}
