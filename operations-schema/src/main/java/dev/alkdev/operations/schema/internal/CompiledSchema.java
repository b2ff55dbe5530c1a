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

  /** networknt's shortcut for simple documents, or null; see {@link SimpleCheck}. */
  private final SimpleCheck simple;

  /**
   * For a schema inside a shared document (D69): its self-contained JSON, made on request and not
   * kept; null for a schema compiled from its own document.
   */
  private final java.util.function.Supplier<JsonNode> sharedJson;

  CompiledSchema(
      JsonNode document,
      com.networknt.schema.Schema validator,
      SchemaLimits limits,
      boolean formatAssertions,
      JsonNode castDocument,
      SimpleCheck simple) {
    this(
        document,
        validator,
        limits,
        formatAssertions,
        Caster.compile(castDocument, limits),
        simple,
        null);
  }

  CompiledSchema(
      JsonNode document,
      com.networknt.schema.Schema validator,
      SchemaLimits limits,
      boolean formatAssertions,
      Caster caster,
      SimpleCheck simple,
      java.util.function.Supplier<JsonNode> sharedJson) {
    this.document = document;
    this.simple = simple;
    this.validator = validator;
    this.limits = limits;
    this.formatAssertions = formatAssertions;
    this.collectAll = executionConfig(limits, formatAssertions, false);
    this.failFast = executionConfig(limits, formatAssertions, true);
    this.caster = caster;
    this.sharedJson = sharedJson;
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
    return sharedJson != null ? sharedJson.get() : document.deepCopy();
  }

  @Override
  public boolean isUnknown() {
    return false;
  }

  @Override
  public List<SchemaError> validate(JsonNode value) {
    Objects.requireNonNull(value, "value");
    SchemaError tooDeep = depthError(value);
    if (tooDeep != null) {
      return List.of(tooDeep);
    }
    if (simple != null && simple.accepts(value)) {
      return List.of();
    }
    List<Error> errors;
    try (RegexBudget budget = RegexBudget.open(limits.maxRegexTime())) {
      try {
        errors = validator.validate(value, context -> context.setExecutionConfig(collectAll));
      } catch (RuntimeException | StackOverflowError e) {
        return List.of(limitError(e));
      }
      if (budget.tripped()) {
        // A keyword caught the stopped match and carried on; its answer is not to be trusted.
        return List.of(budgetError(budget));
      }
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
      result.add(describe(error));
    }
    return List.copyOf(result);
  }

  @Override
  public boolean isValid(JsonNode value) {
    Objects.requireNonNull(value, "value");
    if (depthError(value) != null) {
      return false;
    }
    if (simple != null && simple.accepts(value)) {
      return true;
    }
    try (RegexBudget budget = RegexBudget.open(limits.maxRegexTime())) {
      return validator.validate(value, context -> context.setExecutionConfig(failFast)).isEmpty()
          && !budget.tripped();
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

  /**
   * A value nested deeper than the evaluation depth is refused whatever the schema: networknt stops
   * only where the schema descends (so {@code {}} would accept it), and what handles the value next
   * (equality for {@code enum} and {@code uniqueItems}, casting, serialising, the handler) may
   * recurse through it. The check recurses at most to the limit and stops there.
   */
  private SchemaError depthError(JsonNode value) {
    if (!Json.deeperThan(value, limits.maxEvaluationDepth())) {
      return null;
    }
    return new SchemaError(
        "",
        "limit",
        "value is nested deeper than "
            + limits.maxEvaluationDepth()
            + " levels (SchemaLimits.maxEvaluationDepth); validation stopped");
  }

  private static SchemaError budgetError(RegexBudget budget) {
    return new SchemaError("", "limit", RegexBudget.spentMessage(budget.limit()));
  }

  /** Turns a tripped guard into an error; anything else is a bug and is rethrown. */
  private SchemaError limitError(Throwable e) {
    if (e instanceof ValidationLimitExceededException limit) {
      String path = limit.getInstanceLocation() == null ? "" : pointer(limit.getInstanceLocation());
      String message =
          limit.getLimitKind() == ValidationLimitExceededException.LimitKind.EVALUATION_DEPTH
              ? "value and $ref chain are nested deeper than "
                  + limits.maxEvaluationDepth()
                  + " levels of evaluation (SchemaLimits.maxEvaluationDepth); validation stopped"
              : "validating the value takes more than "
                  + limits.maxEvaluationSteps()
                  + " evaluation steps (SchemaLimits.maxEvaluationSteps); validation stopped";
      return new SchemaError(path, "limit", message);
    }
    if (e instanceof BoundedPattern.RegexLimitException) {
      return new SchemaError("", "limit", e.getMessage());
    }
    if (e instanceof StackOverflowError) {
      return new SchemaError(
          "",
          "limit",
          "validation needed more stack than there is (a very long or deeply nested value);"
              + " validation stopped");
    }
    if (e instanceof RuntimeException runtime) {
      throw runtime;
    }
    throw (java.lang.Error) e;
  }

  /** Longest message kept; {@code enum} and {@code not} quote schema parts that may be huge. */
  private static final int MAX_MESSAGE_CHARS = 1_000;

  /** networknt's error as ours: JSON Pointer, keyword, and a message without the location. */
  static SchemaError describe(Error error) {
    String path = pointer(error.getInstanceLocation());
    String keyword = error.getKeyword() == null ? "schema" : error.getKeyword();
    String message = error.getMessage();
    // networknt may prefix the message with the location; ours carries it separately.
    if (message != null && !path.isEmpty() && message.startsWith(path + ": ")) {
      message = message.substring(path.length() + 2);
    } else if (message != null && message.startsWith("$: ")) {
      message = message.substring(3);
    } else if (message != null && message.startsWith(": ")) {
      message = message.substring(2);
    }
    if ("false".equals(keyword)) {
      // networknt says "schema for 'null' is false" at the root, naming a property that is not
      // there.
      message = "no value is allowed here (the schema is false)";
    }
    if (message == null) {
      message = keyword + " failed";
    } else if (message.length() > MAX_MESSAGE_CHARS) {
      message = message.substring(0, MAX_MESSAGE_CHARS) + "... (truncated)";
    }
    return new SchemaError(path, keyword, message);
  }

  private static String pointer(com.networknt.schema.path.NodePath path) {
    String text = path.toString();
    // networknt writes the root as "" (JSON Pointer) or "$"; normalise to RFC 6901.
    return "$".equals(text) ? "" : text;
  }

  /** Equal when compiled from equal documents with the same limits and format assertion. */
  @Override
  public boolean equals(Object o) {
    if (sharedJson != null || (o instanceof CompiledSchema c && c.sharedJson != null)) {
      // Its $refs point into a shared document: equal text may mean different schemas.
      return this == o;
    }
    return o instanceof CompiledSchema other
        && formatAssertions == other.formatAssertions
        && limits.equals(other.limits)
        && document.equals(other.document);
  }

  @Override
  public int hashCode() {
    if (sharedJson != null) {
      return System.identityHashCode(this);
    }
    return document.hashCode() * 31 + limits.hashCode();
  }

  @Override
  public String toString() {
    return "Schema" + (sharedJson != null ? sharedJson.get() : document);
  }
}
