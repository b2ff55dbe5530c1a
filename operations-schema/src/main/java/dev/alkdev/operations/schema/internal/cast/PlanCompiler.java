package dev.alkdev.operations.schema.internal.cast;

import dev.alkdev.operations.schema.SchemaLimits;
import dev.alkdev.operations.schema.internal.RegexBudget;
import dev.alkdev.operations.schema.internal.cast.Plan.ConstProperty;
import dev.alkdev.operations.schema.internal.cast.Plan.PatternPlan;
import dev.alkdev.operations.schema.internal.cast.Plan.PropertyDefault;
import dev.alkdev.operations.schema.internal.cast.Plan.Union;
import java.math.BigDecimal;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * Compiles a schema document into a graph of {@link Plan}s. Every schema node becomes one plan,
 * created when first reached and filled from a work queue, so {@code $ref} cycles become cycles in
 * the graph and neither a cycle nor a long {@code $ref} chain recurses at compile time.
 */
final class PlanCompiler {
  /**
   * Most plans one plan applies together ({@code $ref} and {@code allOf}, transitively). Bounds
   * memory on hostile documents; real schemas stay far below it.
   */
  private static final int MAX_STATICS = 128;

  /** Longest {@code $ref} chain followed to find a property's default. */
  private static final int MAX_DEFAULT_HOPS = 64;

  private final SchemaIndex index;
  private final SchemaLimits limits;
  private final Map<JsonNode, Plan> plans = new IdentityHashMap<>();

  /**
   * Plans created since the last {@link #derive()}. A compiler shared by many roots (one document's
   * operations, D69) derives each plan once: a plan reaches only plans that were complete before it
   * or are created with it, so the older ones need nothing recomputed.
   */
  private final List<Plan> fresh = new ArrayList<>();

  private final Deque<Pending> pending = new ArrayDeque<>();

  /** Work that needs every plan linked first (discriminator mappings compare {@code $ref}s). */
  private final List<Runnable> afterLinking = new ArrayList<>();

  private record Pending(Plan plan, JsonNode node, URI base) {}

  private PlanCompiler(JsonNode document, SchemaLimits limits) {
    this.index = SchemaIndex.of(document);
    this.limits = limits;
  }

  /** Whether any plan compiled here matches a regular expression. */
  private boolean usesRegex;

  /** The plan of a document's root, and whether any plan it reaches matches a regex. */
  record Compiled(Plan root, boolean usesRegex) {}

  /** The plan of the document's root, with every plan it reaches compiled. */
  static Compiled compile(JsonNode document, SchemaLimits limits) {
    PlanCompiler compiler = new PlanCompiler(document, limits);
    return compiler.compileNode(document);
  }

  /** A compiler whose plans are kept and shared by every node of {@code document} compiled. */
  static PlanCompiler shared(JsonNode document, SchemaLimits limits) {
    return new PlanCompiler(document, limits);
  }

  /**
   * The plan of {@code node}, a schema inside this compiler's document (with the document's base),
   * reusing every plan compiled before. Not thread-safe: callers serialise.
   */
  Compiled compileNode(JsonNode node) {
    Plan root = planFor(node, index.rootBase());
    while (!pending.isEmpty() || !afterLinking.isEmpty()) {
      while (!pending.isEmpty()) {
        Pending next = pending.poll();
        fill(next.plan(), next.node(), next.base());
      }
      List<Runnable> linked = new ArrayList<>(afterLinking);
      afterLinking.clear();
      linked.forEach(Runnable::run); // may reach (and queue) plans not compiled yet
    }
    derive();
    fresh.clear();
    // For a shared compiler the flag covers every plan compiled so far: a caster may open a regex
    // budget it does not need, never the other way round.
    return new Compiled(root, usesRegex);
  }

  private Plan planFor(JsonNode node, URI base) {
    if (node == null) {
      return Plan.TRUE;
    }
    if (node.isBoolean()) {
      return node.booleanValue() ? Plan.TRUE : Plan.FALSE;
    }
    if (!node.isObject() || node.isEmpty()) {
      return Plan.TRUE; // {} matches everything; a non-schema here was refused by validation
    }
    Plan plan = plans.get(node);
    if (plan == null) {
      plan = new Plan();
      plans.put(node, plan);
      fresh.add(plan);
      pending.add(new Pending(plan, node, base));
    }
    return plan;
  }

  private Plan ref(String reference, URI base) {
    SchemaIndex.Target target = index.resolve(reference, base);
    // A reference out of the document (or a broken one) casts nothing and checks as "matches".
    return target == null ? Plan.TRUE : planFor(target.node(), target.base());
  }

  private void fill(Plan plan, JsonNode node, URI parentBase) {
    URI base = index.baseOf(node, parentBase);
    if (node.has("default")) {
      // kept even where draft-07 ignores the keywords beside $ref: it is only an annotation,
      // and a default that does not validate is never used
      plan.defaultValue = node.get("default");
    }
    if (index.ignoresSiblingsOf(node)) {
      JsonNode reference = node.get("$ref");
      plan.refs =
          reference.isString() ? new Plan[] {ref(reference.stringValue(), base)} : Plan.NONE;
      return;
    }
    types(plan, node.get("type"));
    if (node.has("const")) {
      plan.constValue = node.get("const");
    }
    JsonNode enumNode = node.get("enum");
    if (enumNode != null && enumNode.isArray()) {
      plan.enumValues = enumNode.values().toArray(new JsonNode[0]);
    }
    List<Plan> refs = new ArrayList<>(1);
    for (String keyword : List.of("$ref", "$dynamicRef")) {
      JsonNode reference = node.get(keyword);
      if (reference != null && reference.isString()) {
        refs.add(ref(reference.stringValue(), base));
      }
    }
    JsonNode recursive = node.get("$recursiveRef");
    if (recursive != null && recursive.isString()) {
      refs.add(ref(recursive.stringValue(), base));
    }
    plan.refs = refs.toArray(Plan.NONE);
    plan.allOf = schemaArray(node.get("allOf"), base);
    plan.anyOf = union(node, "anyOf", base);
    plan.oneOf = union(node, "oneOf", base);
    plan.not = schema(node.get("not"), base);
    plan.ifPlan = schema(node.get("if"), base);
    if (plan.ifPlan != null) {
      plan.thenPlan = schema(node.get("then"), base);
      plan.elsePlan = schema(node.get("else"), base);
    }
    objectKeywords(plan, node, base);
    arrayKeywords(plan, node, base);
    plan.minLength = count(node.get("minLength"), 0);
    plan.maxLength = count(node.get("maxLength"), Long.MAX_VALUE);
    JsonNode pattern = node.get("pattern");
    if (pattern != null && pattern.isString()) {
      usesRegex = true;
      plan.pattern = BoundedRegex.compile(pattern.stringValue(), limits.maxRegexTime());
    }
    plan.minimum = decimal(node.get("minimum"));
    plan.maximum = decimal(node.get("maximum"));
    plan.exclusiveMinimum = decimal(node.get("exclusiveMinimum"));
    plan.exclusiveMaximum = decimal(node.get("exclusiveMaximum"));
    plan.multipleOf = decimal(node.get("multipleOf"));
    if (plan.multipleOf != null && plan.multipleOf.signum() <= 0) {
      plan.multipleOf = null;
    }
  }

  private static void types(Plan plan, JsonNode type) {
    if (type == null) {
      return;
    }
    int bits = 0;
    if (type.isString()) {
      bits = JsonTypes.ofName(type.stringValue());
    } else if (type.isArray()) {
      for (JsonNode name : type.values()) {
        if (name.isString()) {
          bits |= JsonTypes.ofName(name.stringValue());
        }
      }
    } else {
      return;
    }
    plan.hasType = true;
    plan.types = bits;
  }

  private void objectKeywords(Plan plan, JsonNode node, URI base) {
    JsonNode properties = node.get("properties");
    if (properties != null && properties.isObject()) {
      Map<String, Plan> map = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> entry : properties.properties()) {
        map.put(entry.getKey(), planFor(entry.getValue(), base));
      }
      plan.properties = map;
    }
    JsonNode patterns = node.get("patternProperties");
    if (patterns != null && patterns.isObject()) {
      usesRegex = true;
      List<PatternPlan> list = new ArrayList<>();
      for (Map.Entry<String, JsonNode> entry : patterns.properties()) {
        list.add(
            new PatternPlan(
                BoundedRegex.compile(entry.getKey(), limits.maxRegexTime()),
                planFor(entry.getValue(), base)));
      }
      plan.patternProperties = list.toArray(new PatternPlan[0]);
    }
    plan.additionalProperties = schema(node.get("additionalProperties"), base);
    plan.unevaluatedProperties = schema(node.get("unevaluatedProperties"), base);
    plan.propertyNames = schema(node.get("propertyNames"), base);
    plan.required = strings(node.get("required"));
    plan.minProperties = count(node.get("minProperties"), 0);
    plan.maxProperties = count(node.get("maxProperties"), Long.MAX_VALUE);
    Map<String, String[]> dependentRequired = new HashMap<>();
    Map<String, Plan> dependentSchemas = new LinkedHashMap<>();
    for (String keyword : List.of("dependencies", "dependentRequired", "dependentSchemas")) {
      JsonNode dependencies = node.get(keyword);
      if (dependencies == null || !dependencies.isObject()) {
        continue;
      }
      for (Map.Entry<String, JsonNode> entry : dependencies.properties()) {
        JsonNode value = entry.getValue();
        if (value.isArray() && !"dependentSchemas".equals(keyword)) {
          dependentRequired.put(entry.getKey(), strings(value));
        } else if ((value.isObject() || value.isBoolean())
            && !"dependentRequired".equals(keyword)) {
          dependentSchemas.put(entry.getKey(), planFor(value, base));
        }
      }
    }
    plan.dependentRequired = dependentRequired.isEmpty() ? null : dependentRequired;
    plan.dependentSchemas = dependentSchemas.isEmpty() ? null : dependentSchemas;
  }

  private void arrayKeywords(Plan plan, JsonNode node, URI base) {
    JsonNode prefixItems = node.get("prefixItems");
    JsonNode items = node.get("items");
    if (prefixItems != null && prefixItems.isArray()) {
      plan.prefixItems = schemaArray(prefixItems, base);
      plan.items = schema(items, base);
    } else if (items != null && items.isArray()) {
      // draft-07 tuple form: items by position, additionalItems after them
      plan.prefixItems = schemaArray(items, base);
      plan.items = schema(node.get("additionalItems"), base);
    } else {
      plan.items = schema(items, base);
    }
    plan.unevaluatedItems = schema(node.get("unevaluatedItems"), base);
    plan.contains = schema(node.get("contains"), base);
    plan.minContains = count(node.get("minContains"), 1);
    plan.maxContains = count(node.get("maxContains"), Long.MAX_VALUE);
    plan.minItems = count(node.get("minItems"), 0);
    plan.maxItems = count(node.get("maxItems"), Long.MAX_VALUE);
    JsonNode unique = node.get("uniqueItems");
    plan.uniqueItems = unique != null && unique.isBoolean() && unique.booleanValue();
  }

  private Union union(JsonNode node, String keyword, URI base) {
    JsonNode branches = node.get(keyword);
    if (branches == null || !branches.isArray() || branches.isEmpty()) {
      return null;
    }
    Plan[] plans = schemaArray(branches, base);
    String property = null;
    Map<String, Integer> mapping = Map.of();
    JsonNode discriminator = node.get("discriminator");
    if (discriminator != null
        && discriminator.isObject()
        && discriminator.get("propertyName") != null
        && discriminator.get("propertyName").isString()) {
      property = discriminator.get("propertyName").stringValue();
      Map<String, Integer> filled = new HashMap<>();
      afterLinking.add(
          () ->
              filled.putAll(
                  discriminatorMapping(discriminator.get("mapping"), branches, plans, base)));
      mapping = Collections.unmodifiableMap(filled);
    }
    return new Union(plans, property, mapping);
  }

  /**
   * OpenAPI's discriminator: explicit {@code mapping} entries (a {@code $ref} or a schema name),
   * then each branch's implicit name, the last segment of its {@code $ref}.
   */
  private Map<String, Integer> discriminatorMapping(
      JsonNode mapping, JsonNode branches, Plan[] plans, URI base) {
    Map<String, Integer> byName = new HashMap<>();
    for (int i = 0; i < plans.length; i++) {
      JsonNode reference = branches.get(i).isObject() ? branches.get(i).get("$ref") : null;
      if (reference != null && reference.isString()) {
        byName.putIfAbsent(lastSegment(reference.stringValue()), i);
      }
    }
    Map<String, Integer> result = new HashMap<>(byName);
    if (mapping != null && mapping.isObject()) {
      for (Map.Entry<String, JsonNode> entry : mapping.properties()) {
        if (!entry.getValue().isString()) {
          continue;
        }
        String target = entry.getValue().stringValue();
        Integer branch = null;
        if (target.indexOf('/') < 0 && target.indexOf('#') < 0) {
          branch = byName.get(target);
        } else {
          Plan plan = ref(target, base);
          for (int i = 0; i < plans.length && branch == null; i++) {
            if (plans[i] == plan || List.of(plans[i].refs).contains(plan)) {
              branch = i;
            }
          }
        }
        if (branch != null) {
          result.put(entry.getKey(), branch);
        }
      }
    }
    return result;
  }

  private static String lastSegment(String reference) {
    String segment = reference.substring(reference.lastIndexOf('/') + 1);
    return SchemaIndex.percentDecode(segment).replace("~1", "/").replace("~0", "~");
  }

  private Plan schema(JsonNode node, URI base) {
    return node == null ? null : planFor(node, base);
  }

  private Plan[] schemaArray(JsonNode node, URI base) {
    if (node == null || !node.isArray()) {
      return Plan.NONE;
    }
    Plan[] result = new Plan[node.size()];
    int i = 0;
    for (JsonNode child : node.values()) {
      result[i++] = planFor(child, base);
    }
    return result;
  }

  private static String[] strings(JsonNode node) {
    if (node == null || !node.isArray()) {
      return null;
    }
    List<String> result = new ArrayList<>();
    for (JsonNode item : node.values()) {
      if (item.isString()) {
        result.add(item.stringValue());
      }
    }
    return result.toArray(new String[0]);
  }

  private static long count(JsonNode node, long absent) {
    if (node == null || !node.isNumber()) {
      return absent;
    }
    BigDecimal value = node.decimalValue();
    if (value.signum() < 0) {
      return 0;
    }
    return value.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) >= 0
        ? Long.MAX_VALUE
        : value.longValue();
  }

  private static BigDecimal decimal(JsonNode node) {
    if (node == null || !node.isNumber()) {
      return null;
    }
    try {
      return node.decimalValue();
    } catch (NumberFormatException e) {
      return null; // a non-finite double
    }
  }

  // ---- derived fields -------------------------------------------------------------------

  private void derive() {
    for (Plan plan : fresh) {
      plan.ownDynamic =
          plan.anyOf != null
              || plan.oneOf != null
              || plan.ifPlan != null
              || plan.dependentSchemas != null;
      plan.declaresShape =
          (plan.properties != null && !plan.properties.isEmpty())
              || (plan.patternProperties != null && plan.patternProperties.length > 0);
      plan.objectKeywords =
          plan.properties != null
              || plan.patternProperties != null
              || plan.additionalProperties != null
              || plan.unevaluatedProperties != null;
      plan.arrayKeywords =
          plan.prefixItems != null || plan.items != null || plan.unevaluatedItems != null;
      plan.effectiveDefault = effectiveDefault(plan);
    }
    for (Plan plan : fresh) {
      plan.statics = statics(plan);
    }
    propertyDefaults(plan -> plan.effectiveDefault);
    for (Plan plan : fresh) {
      boolean dynamic = false;
      int types = JsonTypes.ANY;
      List<ConstProperty> constProperties = new ArrayList<>();
      for (Plan local : plan.statics) {
        dynamic |= local.ownDynamic;
        types &= local.types;
        if (plan.staticConst == null) {
          plan.staticConst = local.constValue;
        }
        if (plan.staticEnum == null) {
          plan.staticEnum = local.enumValues;
        }
        if (local.properties != null) {
          local.properties.forEach(
              (name, property) -> {
                JsonNode only = onlyValue(property);
                if (only != null) {
                  constProperties.add(new ConstProperty(name, only));
                }
              });
        }
      }
      plan.dynamic = dynamic;
      plan.staticTypes = types;
      plan.castsNothing = plan.statics.isEmpty();
      plan.constProperties = constProperties.toArray(new ConstProperty[0]);
      plan.unionOnly = plan.statics.size() == 1 && isUnionOnly(plan.statics.get(0));
    }
    for (Plan plan : fresh) {
      plan.usableDefault = plan.effectiveDefault == null ? null : usableDefault(plan);
    }
    propertyDefaults(plan -> plan.usableDefault);
  }

  private void propertyDefaults(Function<Plan, JsonNode> defaultOf) {
    for (Plan plan : fresh) {
      List<PropertyDefault> defaults = new ArrayList<>();
      if (plan.properties != null) {
        plan.properties.forEach(
            (name, property) -> {
              JsonNode value = defaultOf.apply(property);
              if (value != null) {
                defaults.add(new PropertyDefault(name, value));
              }
            });
      }
      plan.propertyDefaults = defaults.toArray(new PropertyDefault[0]);
    }
  }

  /**
   * The plan's default if, once cast, it matches the plan; else null. A schema whose default does
   * not match its own type (it happens) would otherwise turn a valid value invalid.
   */
  @SuppressWarnings("try") // the budget is reached by the matches, through a thread-local
  private JsonNode usableDefault(Plan plan) {
    try (RegexBudget regexBudget = RegexBudget.open(limits.maxRegexTime())) {
      JsonNode cast =
          new CastRun(limits.maxEvaluationDepth(), limits.maxEvaluationSteps())
              .cast(plan.effectiveDefault.deepCopy(), plan, 0);
      Checker checker =
          new Checker(new Budget(limits.maxEvaluationSteps()), limits.maxEvaluationDepth());
      return checker.valid(cast, plan, 0) ? plan.effectiveDefault : null;
    } catch (StackOverflowError e) {
      return null;
    }
  }

  /** Whether a plan shapes values itself (as opposed to only pointing at other schemas). */
  private static boolean shapes(Plan plan) {
    return plan.hasType
        || plan.constValue != null
        || plan.enumValues != null
        || plan.objectKeywords
        || plan.arrayKeywords
        || plan.ownDynamic;
  }

  private static boolean isUnionOnly(Plan plan) {
    return (plan.anyOf == null) != (plan.oneOf == null)
        && plan.ifPlan == null
        && plan.dependentSchemas == null
        && !plan.hasType
        && plan.constValue == null
        && plan.enumValues == null
        && !plan.objectKeywords
        && !plan.arrayKeywords;
  }

  /** The one value a property's schema allows ({@code const}, one-entry {@code enum}), or null. */
  private static JsonNode onlyValue(Plan property) {
    for (Plan local : property.statics) {
      if (local.constValue != null) {
        return local.constValue;
      }
      if (local.enumValues != null && local.enumValues.length == 1) {
        return local.enumValues[0];
      }
    }
    return null;
  }

  /**
   * The plans that shape values among this one and those it reaches through {@code $ref} and {@code
   * allOf}; breadth-first, so a cycle ends where it repeats.
   */
  private static List<Plan> statics(Plan plan) {
    List<Plan> result = new ArrayList<>();
    Set<Plan> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Deque<Plan> queue = new ArrayDeque<>();
    queue.add(plan);
    while (!queue.isEmpty() && result.size() < MAX_STATICS) {
      Plan next = queue.poll();
      if (next.alwaysTrue || next.alwaysFalse || !seen.add(next)) {
        continue;
      }
      if (shapes(next)) {
        result.add(next); // a bare {"$ref": ...} or allOf holder adds nothing of its own
      }
      Collections.addAll(queue, next.refs);
      Collections.addAll(queue, next.allOf);
    }
    return List.copyOf(result);
  }

  private static JsonNode effectiveDefault(Plan plan) {
    Plan current = plan;
    for (int hops = 0; hops < MAX_DEFAULT_HOPS; hops++) {
      if (current.defaultValue != null) {
        return current.defaultValue;
      }
      if (current.refs.length == 0) {
        return null;
      }
      current = current.refs[0];
    }
    return null;
  }
}
