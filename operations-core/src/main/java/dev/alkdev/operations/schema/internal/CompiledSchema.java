package dev.alkdev.operations.schema.internal;

import com.networknt.schema.Error;
import com.networknt.schema.ExecutionConfig;
import com.networknt.schema.ValidationLimitExceededException;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaError;
import dev.alkdev.operations.schema.SchemaLimits;
import dev.alkdev.operations.schema.internal.cast.Caster;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;

/** A schema compiled by networknt, guarded by {@link SchemaLimits}, with a compiled cast plan. */
final class CompiledSchema implements Schema {
  private final JsonNode document;
  private final com.networknt.schema.Schema validator;
  private final SchemaLimits limits;
  private final ExecutionConfig collectAll;
  private final ExecutionConfig failFast;
  private final Caster caster;
  private final boolean formatAssertions;

  CompiledSchema(
      JsonNode document,
      com.networknt.schema.Schema validator,
      SchemaLimits limits,
      boolean formatAssertions) {
    this.document = document;
    this.validator = validator;
    this.limits = limits;
    this.formatAssertions = formatAssertions;
    this.collectAll = executionConfig(limits, formatAssertions, false);
    this.failFast = executionConfig(limits, formatAssertions, true);
    this.caster = Caster.compile(document, limits);
  }

  private static ExecutionConfig executionConfig(
      SchemaLimits limits, boolean formatAssertions, boolean failFast) {
    return ExecutionConfig.builder()
        .maxEvaluationDepth(limits.maxEvaluationDepth())
        .maxEvaluationSteps(limits.maxEvaluationSteps())
        .formatAssertionsEnabled(formatAssertions ? Boolean.TRUE : null)
        .annotationCollectionEnabled(false)
        .failFast(failFast)
        .build();
  }

  @Override
  public JsonNode json() {
    return document.deepCopy();
  }

  @Override
  public boolean isUnknown() {
    return false;
  }

  @Override
  public List<SchemaError> validate(JsonNode value) {
    Objects.requireNonNull(value, "value");
    List<Error> errors;
    try {
      errors = validator.validate(value, context -> context.setExecutionConfig(collectAll));
    } catch (RuntimeException | StackOverflowError e) {
      return List.of(limitError(e));
    }
    if (errors.isEmpty()) {
      return List.of();
    }
    int max = limits.maxErrors();
    List<SchemaError> result = new ArrayList<>(Math.min(errors.size(), max + 1));
    for (Error error : errors) {
      if (result.size() == max) {
        result.add(
            new SchemaError(
                "",
                "limit",
                (errors.size() - max)
                    + " more errors not listed (SchemaLimits.maxErrors is "
                    + max
                    + ")"));
        break;
      }
      result.add(toSchemaError(error));
    }
    return List.copyOf(result);
  }

  @Override
  public boolean isValid(JsonNode value) {
    Objects.requireNonNull(value, "value");
    try {
      return validator.validate(value, context -> context.setExecutionConfig(failFast)).isEmpty();
    } catch (com.networknt.schema.FailFastAssertionException e) {
      return false;
    } catch (RuntimeException | StackOverflowError e) {
      limitError(e); // rethrows what is not a guard
      return false;
    }
  }

  @Override
  public JsonNode cast(JsonNode value) {
    Objects.requireNonNull(value, "value");
    return caster.cast(value);
  }

  /** Turns a tripped guard into an error; anything else is a bug and is rethrown. */
  private SchemaError limitError(Throwable e) {
    if (e instanceof ValidationLimitExceededException limit) {
      String path = limit.getInstanceLocation() == null ? "" : pointer(limit.getInstanceLocation());
      String what =
          limit.getLimitKind() == ValidationLimitExceededException.LimitKind.EVALUATION_DEPTH
              ? "nested deeper than "
                  + limits.maxEvaluationDepth()
                  + " levels of evaluation (SchemaLimits.maxEvaluationDepth)"
              : "needs more than "
                  + limits.maxEvaluationSteps()
                  + " evaluation steps (SchemaLimits.maxEvaluationSteps)";
      return new SchemaError(path, "limit", "value is " + what + "; validation stopped");
    }
    if (e instanceof DeadlineRegexFactory.RegexTimeoutException) {
      return new SchemaError("", "limit", e.getMessage());
    }
    if (e instanceof StackOverflowError) {
      return new SchemaError(
          "", "limit", "value or schema is nested too deeply to validate; validation stopped");
    }
    if (e instanceof RuntimeException runtime) {
      throw runtime;
    }
    throw (java.lang.Error) e;
  }

  private static SchemaError toSchemaError(Error error) {
    String path = pointer(error.getInstanceLocation());
    String keyword = error.getKeyword() == null ? "schema" : error.getKeyword();
    String message = error.getMessage();
    // networknt prefixes the message with the location; ours carries it separately.
    if (message != null && message.startsWith(path + ": ")) {
      message = message.substring(path.length() + 2);
    } else if (message != null && path.isEmpty() && message.startsWith(": ")) {
      message = message.substring(2);
    }
    return new SchemaError(path, keyword, message == null ? keyword + " failed" : message);
  }

  private static String pointer(com.networknt.schema.path.NodePath path) {
    String text = path.toString();
    // networknt writes the root as "" (JSON Pointer) or "$"; normalise to RFC 6901.
    return "$".equals(text) ? "" : text;
  }

  /** Equal when compiled from equal documents with the same limits and format assertion. */
  @Override
  public boolean equals(Object o) {
    return o instanceof CompiledSchema other
        && formatAssertions == other.formatAssertions
        && limits.equals(other.limits)
        && document.equals(other.document);
  }

  @Override
  public int hashCode() {
    return document.hashCode() * 31 + limits.hashCode();
  }

  @Override
  public String toString() {
    return "Schema" + document;
  }
}
