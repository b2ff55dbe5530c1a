package dev.alkdev.operations.schema.internal.cast;

import dev.alkdev.operations.schema.SchemaLimits;
import dev.alkdev.operations.schema.internal.RegexBudget;
import java.time.Duration;
import tools.jackson.databind.JsonNode;

/**
 * The seeds' {@code Value.Cast}: a cast plan compiled once from a schema document and applied to
 * many values, from any number of threads. The rules are in {@code docs/schema-cast.md}; in short:
 * keep what matches, fill defaults, drop undeclared properties, convert primitives only where
 * nothing is lost, pick the best {@code anyOf}/{@code oneOf} branch.
 *
 * <p>Guards: value nesting plus {@code $ref}/union hops deeper than {@link
 * SchemaLimits#maxEvaluationDepth()} are returned unchanged; checking values against branches stops
 * after {@link SchemaLimits#maxEvaluationSteps()} steps (casting then follows the best ranked
 * branch without trying others); the regular expressions of one cast share one time budget, {@link
 * SchemaLimits#maxRegexTime()} (once it is spent, what needs a match is left as it was).
 */
public final class Caster {
  private final Plan root;
  private final int maxDepth;
  private final long maxSteps;
  private final Duration maxRegexTime;
  private final boolean usesRegex;

  private Caster(PlanCompiler.Compiled compiled, SchemaLimits limits) {
    this.root = compiled.root();
    this.usesRegex = compiled.usesRegex();
    this.maxDepth = limits.maxEvaluationDepth();
    this.maxSteps = limits.maxEvaluationSteps();
    this.maxRegexTime = limits.maxRegexTime();
  }

  /** Compiles the cast plan of a schema document (the root of its own {@code $ref}s). */
  public static Caster compile(JsonNode document, SchemaLimits limits) {
    return new Caster(PlanCompiler.compile(document, limits), limits);
  }

  /**
   * Compiles cast plans of many schemas inside one document, sharing the plans of what they have in
   * common (the components of an OpenAPI document, D69). Not thread-safe: callers serialise.
   */
  public static final class Shared {
    private final PlanCompiler compiler;
    private final SchemaLimits limits;
    private final JsonNode document;

    /** A shared compiler for schemas inside {@code document}. */
    public Shared(JsonNode document, SchemaLimits limits) {
      this.compiler = PlanCompiler.shared(document, limits);
      this.limits = limits;
      this.document = document;
    }

    /** The document the plans are compiled from. */
    public JsonNode document() {
      return document;
    }

    /** The caster of {@code node}, a schema inside the document. */
    public Caster compile(JsonNode node) {
      return new Caster(compiler.compileNode(node), limits);
    }
  }

  /** Casts {@code value}; never modifies it and never throws on data. */
  @SuppressWarnings("try") // the budget is reached by the matches, through a thread-local
  public JsonNode cast(JsonNode value) {
    if (root.castsNothing) {
      return value;
    }
    if (!usesRegex) {
      // No pattern to time: no budget to open (a thread-local look-up per cast, for every item
      // of a stream).
      return castUnbudgeted(value);
    }
    try (RegexBudget regexBudget = RegexBudget.open(maxRegexTime)) {
      return new CastRun(maxDepth, maxSteps).cast(value, root, 0);
    } catch (StackOverflowError e) {
      // Only on a thread with a very small stack or a raised depth limit: keep the value, and
      // let validation report it.
      return value;
    }
  }

  private JsonNode castUnbudgeted(JsonNode value) {
    try {
      return new CastRun(maxDepth, maxSteps).cast(value, root, 0);
    } catch (StackOverflowError e) {
      return value;
    }
  }
}
