package dev.alkdev.operations.schema.internal.cast;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * One schema node compiled for casting and for the approximate check that picks {@code anyOf}
 * branches. {@link PlanCompiler} creates every plan of a document, links them ({@code $ref} cycles
 * become cycles of plans), then fills the derived fields; after that a plan is never changed, so
 * one graph serves any number of threads.
 *
 * <p>Fields are package-private and mutable only so the compiler can link cycles; absent keywords
 * are {@code null} (objects) or the neutral value (numbers).
 */
final class Plan {
  static final Plan[] NONE = new Plan[0];

  /** The schema {@code true} (and {@code {}}): everything matches, nothing is cast. */
  static final Plan TRUE = new Plan();

  /** The schema {@code false}: nothing matches. */
  static final Plan FALSE = new Plan();

  static {
    TRUE.alwaysTrue = true;
    FALSE.alwaysFalse = true;
    for (Plan plan : new Plan[] {TRUE, FALSE}) {
      plan.statics = List.of();
      plan.castsNothing = true;
      plan.propertyDefaults = new PropertyDefault[0];
      plan.constProperties = new ConstProperty[0];
    }
  }

  /** A {@code patternProperties} entry. */
  record PatternPlan(BoundedRegex regex, Plan plan) {}

  /** A declared property whose schema has a {@code default}. */
  record PropertyDefault(String name, JsonNode value) {}

  /** A declared property whose schema allows exactly one value: a discriminator candidate. */
  record ConstProperty(String name, JsonNode value) {}

  /**
   * An {@code anyOf} or {@code oneOf}, with the OpenAPI {@code discriminator} of its schema when it
   * has one: discriminator value to branch index.
   */
  record Union(Plan[] branches, String discriminatorProperty, Map<String, Integer> mapping) {}

  // ---- what the schema says -------------------------------------------------------------

  boolean alwaysTrue;
  boolean alwaysFalse;
  boolean hasType;
  int types = JsonTypes.ANY;
  JsonNode constValue;
  JsonNode[] enumValues;
  JsonNode defaultValue;

  /** {@code $ref}, {@code $dynamicRef} (resolved statically) and {@code $recursiveRef}. */
  Plan[] refs = NONE;

  Plan[] allOf = NONE;
  Union anyOf;
  Union oneOf;
  Plan not;
  Plan ifPlan;
  Plan thenPlan;
  Plan elsePlan;

  Map<String, Plan> properties;
  PatternPlan[] patternProperties;
  Plan additionalProperties;
  Plan unevaluatedProperties;
  Plan propertyNames;
  String[] required;
  Map<String, String[]> dependentRequired;
  Map<String, Plan> dependentSchemas;
  long minProperties;
  long maxProperties = Long.MAX_VALUE;

  Plan[] prefixItems;
  Plan items;
  Plan unevaluatedItems;
  Plan contains;
  long minContains = 1;
  long maxContains = Long.MAX_VALUE;
  long minItems;
  long maxItems = Long.MAX_VALUE;
  boolean uniqueItems;

  long minLength;
  long maxLength = Long.MAX_VALUE;
  BoundedRegex pattern;

  BigDecimal minimum;
  BigDecimal maximum;
  BigDecimal exclusiveMinimum;
  BigDecimal exclusiveMaximum;
  BigDecimal multipleOf;

  // ---- derived by PlanCompiler once every plan is linked ----------------------------------

  /**
   * This plan and every plan it always applies with: its {@code $ref}s and {@code allOf} branches,
   * transitively, without repeats, keeping only those with keywords of their own that shape a value
   * (not {@code true}, not a bare {@code {"$ref": ...}}). Casting against this plan casts against
   * all of them at once; empty means casting changes nothing.
   */
  List<Plan> statics;

  /** Whether this plan itself has keywords whose effect depends on the value (unions, if, ...). */
  boolean ownDynamic;

  /** Whether any of {@link #statics} is {@link #ownDynamic}. */
  boolean dynamic;

  /** The intersection of the types of {@link #statics}. */
  int staticTypes = JsonTypes.ANY;

  /** The first {@code const} among {@link #statics}, or null. */
  JsonNode staticConst;

  /** The first {@code enum} among {@link #statics}, or null. */
  JsonNode[] staticEnum;

  /** Whether casting against this plan returns every value unchanged. */
  boolean castsNothing;

  /**
   * Whether the only plan in {@link #statics} is just an {@code anyOf} or just a {@code oneOf}:
   * casting is then the chosen branch's cast.
   */
  boolean unionOnly;

  /** Whether the plan names properties ({@code properties} or {@code patternProperties}). */
  boolean declaresShape;

  /** Whether the plan has any keyword that shapes an object's properties. */
  boolean objectKeywords;

  /** Whether the plan has any keyword that shapes an array's items. */
  boolean arrayKeywords;

  /** The default of this schema, or of the schema its {@code $ref} chain leads to. */
  JsonNode effectiveDefault;

  /** {@link #effectiveDefault} when it validates against this schema (once cast), else null. */
  JsonNode usableDefault;

  /** This plan's own properties that have a default, in declaration order. */
  PropertyDefault[] propertyDefaults;

  /** Discriminator-like properties across {@link #statics}. */
  ConstProperty[] constProperties;
}
