package dev.alkdev.operations.schema.internal.cast;

import dev.alkdev.operations.schema.internal.cast.Plan.ConstProperty;
import dev.alkdev.operations.schema.internal.cast.Plan.PatternPlan;
import dev.alkdev.operations.schema.internal.cast.Plan.PropertyDefault;
import dev.alkdev.operations.schema.internal.cast.Plan.Union;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * One cast of one value: walks the value and its {@link Plan}s together and builds the result. Not
 * thread-safe (it holds the step budget and the unions in progress); {@link Caster} makes one per
 * call.
 *
 * <p>A subtree that needs no change comes back as the very same node, so casting a value that
 * already fits copies nothing. The input is never modified: changed objects and arrays are new
 * nodes that share the unchanged children.
 *
 * <p>Where several schemas apply to one value at once ({@code $ref} beside other keywords, {@code
 * allOf}, the chosen {@code anyOf} branch, {@code then}/{@code else}, {@code dependentSchemas}),
 * they are cast against together as "conjuncts": an object keeps the union of the properties they
 * declare, and each property is cast against all of the schemas that apply to it, together.
 */
final class CastRun {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** How a property or an item is treated. */
  private enum Verdict {
    /** Left out of the result. */
    DROP,
    /** Kept as it is. */
    KEEP,
    /** Kept, cast against the applicable schemas. */
    CAST,
    /** For items: this one and all after it are left out (a {@code false} item schema). */
    TRUNCATE
  }

  private final int maxDepth;
  private final Budget budget;
  private Checker checker;

  /** The unions being chosen, as (value, schema) pairs: re-entering one is a cycle. */
  private List<JsonNode> unionValues;

  private List<Plan> unionHolders;

  /** The schema defaults being filled, outermost first (see {@link #fillDefault}). */
  private List<JsonNode> fillingDefaults;

  CastRun(int maxDepth, long steps) {
    this.maxDepth = maxDepth;
    this.budget = new Budget(steps);
  }

  /** {@code value} cast against {@code plan}. */
  JsonNode cast(JsonNode value, Plan plan, int depth) {
    if (plan.castsNothing || depth > maxDepth) {
      return value;
    }
    if (!plan.dynamic) {
      return castShape(
          value,
          plan.statics,
          List.of(),
          plan.staticTypes,
          plan.staticConst,
          plan.staticEnum,
          depth);
    }
    if (plan.unionOnly) {
      Plan holder = plan.statics.get(0);
      Union union = holder.anyOf != null ? holder.anyOf : holder.oneOf;
      return choose(value, holder, union, depth, true).result();
    }
    Conjuncts conjuncts = new Conjuncts();
    collect(value, plan, conjuncts, depth);
    return castConjuncts(value, conjuncts, depth);
  }

  /** {@code value} cast against several schemas that all apply to it. */
  private JsonNode castAll(JsonNode value, List<Plan> plans, int depth) {
    if (plans.size() == 1) {
      return cast(value, plans.get(0), depth);
    }
    if (depth > maxDepth) {
      return value;
    }
    Conjuncts conjuncts = new Conjuncts();
    for (int i = 0; i < plans.size(); i++) {
      collect(value, plans.get(i), conjuncts, depth);
    }
    return castConjuncts(value, conjuncts, depth);
  }

  private JsonNode castConjuncts(JsonNode value, Conjuncts conjuncts, int depth) {
    int types = JsonTypes.ANY;
    JsonNode constValue = null;
    JsonNode[] enumValues = null;
    for (Plan plan : conjuncts.shape) {
      types &= plan.types;
      if (constValue == null) {
        constValue = plan.constValue;
      }
      if (enumValues == null) {
        enumValues = plan.enumValues;
      }
    }
    return castShape(value, conjuncts.shape, conjuncts.hints, types, constValue, enumValues, depth);
  }

  // ---- which schemas apply --------------------------------------------------------------

  /** The schemas that apply at once to {@code value} (see the class comment). */
  private static final class Conjuncts {
    final List<Plan> shape = new ArrayList<>(4);

    /**
     * Schemas the value is known to match ({@code if} when it holds): their properties count as
     * declared, but they do not make a free-form object strict.
     */
    List<Plan> hints = List.of();

    boolean addShape(Plan plan) {
      for (int i = 0; i < shape.size(); i++) {
        if (shape.get(i) == plan) {
          return false;
        }
      }
      shape.add(plan);
      return true;
    }

    void addHints(List<Plan> plans) {
      if (hints.isEmpty()) {
        hints = new ArrayList<>(plans.size());
      }
      for (Plan plan : plans) {
        if (!hints.contains(plan)) {
          hints.add(plan);
        }
      }
    }
  }

  private void collect(JsonNode value, Plan plan, Conjuncts conjuncts, int depth) {
    if (depth > maxDepth) {
      return;
    }
    for (Plan local : plan.statics) {
      if (conjuncts.addShape(local) && local.ownDynamic) {
        expand(value, local, conjuncts, depth);
      }
    }
  }

  /** Adds what the value-dependent keywords of {@code local} contribute for this value. */
  private void expand(JsonNode value, Plan local, Conjuncts conjuncts, int depth) {
    for (Union union : new Union[] {local.anyOf, local.oneOf}) {
      if (union != null) {
        Plan branch = choose(value, local, union, depth + 1, false).branch();
        if (branch != null) {
          collect(value, branch, conjuncts, depth + 1);
        }
      }
    }
    if (local.ifPlan != null) {
      if (checker().valid(value, local.ifPlan, depth + 1)) {
        conjuncts.addHints(local.ifPlan.statics);
        if (local.thenPlan != null) {
          collect(value, local.thenPlan, conjuncts, depth + 1);
        }
      } else if (local.elsePlan != null) {
        collect(value, local.elsePlan, conjuncts, depth + 1);
      }
    }
    if (local.dependentSchemas != null && value.isObject()) {
      for (Map.Entry<String, Plan> entry : local.dependentSchemas.entrySet()) {
        if (value.has(entry.getKey())) {
          collect(value, entry.getValue(), conjuncts, depth + 1);
        }
      }
    }
  }

  // ---- anyOf / oneOf ----------------------------------------------------------------------

  /** The branch chosen for a value, and the value cast against that branch alone. */
  private record Choice(Plan branch, JsonNode result) {}

  /**
   * Picks the branch of a union that fits {@code value} best and casts against it. Branches are
   * ranked by, in order: discriminator match (OpenAPI {@code discriminator}, or a property whose
   * schema is a {@code const}), how many of the branch's declared properties the value has
   * (matching ones count double), whether the value already matches, and whether its type fits as
   * is, after a lossless conversion, or not at all. Then the first branch, in rank order, whose
   * cast result matches it wins; if none does, the top-ranked one.
   *
   * <p>Trying branches costs casts, and each try re-enters the unions nested below; so once the
   * step budget is spent, the top-ranked branch is taken untried, and not even cast unless {@code
   * needResult} (the caller casts against it together with other schemas anyway). That keeps nested
   * unions linear instead of exponential.
   */
  private Choice choose(JsonNode value, Plan holder, Union union, int depth, boolean needResult) {
    if (depth > maxDepth || inProgress(value, holder)) {
      return new Choice(null, value); // a union that contains itself without consuming the value
    }
    unionValues.add(value);
    unionHolders.add(holder);
    try {
      Plan[] branches = union.branches();
      int holders = 0;
      Plan holderBranch = null;
      int valueType = JsonTypes.of(value);
      for (Plan branch : branches) {
        if ((branch.staticTypes & valueType) != 0
            || (!value.isContainer() && Conversions.convertible(value, branch.staticTypes))) {
          holders++;
          holderBranch = branch;
        }
      }
      if (holders <= 1) {
        // Only one branch can hold a value of this type (the common nullable union), or none
        // can and every branch leaves the value as it is.
        Plan only = holders == 1 ? holderBranch : branches[0];
        JsonNode result = holders == 0 ? value : needResult ? cast(value, only, depth + 1) : null;
        return new Choice(only, result);
      }
      if (!value.isContainer() && !budget.exhausted()) {
        // A primitive that a branch accepts as it is stays as it is; which such branch does not
        // matter.
        for (Plan branch : branches) {
          if (checker().valid(value, branch, depth + 1)) {
            return new Choice(branch, value);
          }
        }
      }
      int[] typeFit = new int[branches.length];
      int[] order = rank(value, union, depth, typeFit);
      Plan best = branches[order[0]];
      if (budget.exhausted()) {
        return new Choice(best, needResult ? cast(value, best, depth + 1) : null);
      }
      JsonNode bestResult = cast(value, best, depth + 1);
      if (budget.exhausted() || checker().valid(bestResult, best, depth + 1)) {
        return new Choice(best, bestResult);
      }
      for (int k = 1; k < order.length && !budget.exhausted(); k++) {
        Plan branch = branches[order[k]];
        if (typeFit[order[k]] == 0 && branch.staticTypes != JsonTypes.ANY) {
          continue; // no cast can give the value a type this branch allows
        }
        JsonNode result = cast(value, branch, depth + 1);
        if (checker().valid(result, branch, depth + 1)) {
          return new Choice(branch, result);
        }
      }
      return new Choice(best, bestResult);
    } finally {
      unionValues.remove(unionValues.size() - 1);
      unionHolders.remove(unionHolders.size() - 1);
    }
  }

  private boolean inProgress(JsonNode value, Plan holder) {
    if (unionValues == null) {
      unionValues = new ArrayList<>();
      unionHolders = new ArrayList<>();
      return false;
    }
    for (int i = 0; i < unionValues.size(); i++) {
      if (unionValues.get(i) == value && unionHolders.get(i) == holder) {
        return true;
      }
    }
    return false;
  }

  /** Branch indexes, best first; fills {@code typeFit} (2 as is, 1 converted, 0 never). */
  private int[] rank(JsonNode value, Union union, int depth, int[] typeFit) {
    Plan[] branches = union.branches();
    int n = branches.length;
    int[] discriminator = new int[n];
    boolean[] matches = new boolean[n];
    int[] fit = new int[n];
    int valueType = JsonTypes.of(value);
    for (int i = 0; i < n; i++) {
      Plan branch = branches[i];
      discriminator[i] = discriminatorScore(value, union, i, branch);
      matches[i] = checker().valid(value, branch, depth + 1);
      fit[i] = propertyFit(value, branch, depth);
      typeFit[i] =
          (branch.staticTypes & valueType) != 0
              ? 2
              : Conversions.convertible(value, branch.staticTypes) ? 1 : 0;
    }
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    // insertion sort: stable, so ties keep the schema's order; unions are small
    for (int i = 1; i < n; i++) {
      int current = order[i];
      int j = i - 1;
      while (j >= 0 && better(current, order[j], discriminator, matches, fit, typeFit)) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = current;
    }
    return order;
  }

  private static boolean better(
      int a, int b, int[] discriminator, boolean[] matches, int[] fit, int[] typeFit) {
    if (discriminator[a] != discriminator[b]) {
      return discriminator[a] > discriminator[b];
    }
    if (fit[a] != fit[b]) {
      return fit[a] > fit[b];
    }
    if (matches[a] != matches[b]) {
      return matches[a];
    }
    return typeFit[a] > typeFit[b];
  }

  private int discriminatorScore(JsonNode value, Union union, int index, Plan branch) {
    int score = 0;
    if (value.isObject()) {
      if (union.discriminatorProperty() != null) {
        JsonNode tag = value.get(union.discriminatorProperty());
        if (tag != null && tag.isString()) {
          Integer mapped = union.mapping().get(tag.stringValue());
          if (mapped != null) {
            score += mapped == index ? 4 : -4;
          }
        }
      }
      for (ConstProperty property : branch.constProperties) {
        JsonNode actual = value.get(property.name());
        if (actual != null) {
          score += memberScore(actual, property.value());
        }
      }
    } else if (!value.isArray()) {
      if (branch.staticConst != null) {
        score += memberScore(value, branch.staticConst);
      } else if (branch.staticEnum != null) {
        int best = -2;
        for (JsonNode member : branch.staticEnum) {
          best = Math.max(best, memberScore(value, member));
        }
        score += best;
      }
    }
    return score;
  }

  private int memberScore(JsonNode value, JsonNode member) {
    if (JsonEquality.equal(value, member, maxDepth)) {
      return 2;
    }
    return Conversions.toMember(value, member) != null ? 1 : -2;
  }

  private int propertyFit(JsonNode value, Plan branch, int depth) {
    if (!value.isObject()) {
      return 0;
    }
    int fit = 0;
    for (Plan local : branch.statics) {
      if (local.properties == null) {
        continue;
      }
      for (Map.Entry<String, Plan> property : local.properties.entrySet()) {
        JsonNode actual = value.get(property.getKey());
        if (actual != null) {
          fit += checker().valid(actual, property.getValue(), depth + 2) ? 2 : 1;
        }
      }
    }
    return fit;
  }

  // ---- the value itself -------------------------------------------------------------------

  private JsonNode castShape(
      JsonNode value,
      List<Plan> shape,
      List<Plan> hints,
      int types,
      JsonNode constValue,
      JsonNode[] enumValues,
      int depth) {
    if (constValue != null || enumValues != null) {
      return castToMember(value, constValue, enumValues);
    }
    if (value.isObject()) {
      return (types & JsonTypes.OBJECT) != 0 ? castObject(value, shape, hints, depth) : value;
    }
    if (value.isArray()) {
      return (types & JsonTypes.ARRAY) != 0 ? castArray(value, shape, depth) : value;
    }
    return castScalar(value, types);
  }

  /**
   * {@code const}/{@code enum}: the value if it is a member, the member it converts to, else it.
   */
  private JsonNode castToMember(JsonNode value, JsonNode constValue, JsonNode[] enumValues) {
    if (constValue != null) {
      if (JsonEquality.equal(value, constValue, maxDepth)) {
        return value;
      }
      JsonNode member = Conversions.toMember(value, constValue);
      return member != null ? member : value;
    }
    for (JsonNode member : enumValues) {
      if (JsonEquality.equal(value, member, maxDepth)) {
        return value;
      }
    }
    for (JsonNode member : enumValues) {
      JsonNode converted = Conversions.toMember(value, member);
      if (converted != null) {
        return converted;
      }
    }
    return value;
  }

  private static JsonNode castScalar(JsonNode value, int types) {
    int type = JsonTypes.of(value);
    if (type == 0) {
      return value;
    }
    if ((types & type) != 0) {
      if (type == JsonTypes.INTEGER
          && (types & JsonTypes.NUMBER) == 0
          && !value.isIntegralNumber()) {
        return Conversions.asIntegerNode(value); // 1.0 where only integers are allowed: 1
      }
      return value;
    }
    for (int target : JsonTypes.CONVERSION_ORDER) {
      if (Conversions.tries(types, target)) {
        JsonNode converted = Conversions.convert(value, target);
        if (converted != null) {
          return converted;
        }
      }
    }
    return value;
  }

  // ---- objects ---------------------------------------------------------------------------

  private JsonNode castObject(JsonNode object, List<Plan> shape, List<Plan> hints, int depth) {
    boolean single = shape.size() == 1 && hints.isEmpty();
    boolean relevant = false;
    boolean freeForm = true;
    for (int i = 0; i < shape.size(); i++) {
      relevant |= shape.get(i).objectKeywords;
      freeForm &= !shape.get(i).declaresShape;
    }
    for (int i = 0; i < hints.size(); i++) {
      relevant |= hints.get(i).objectKeywords;
    }
    if (!relevant) {
      return object;
    }
    Plan only = single ? shape.get(0) : null;
    ObjectNode out = null;
    List<Plan> applicable = null;
    int index = 0;
    for (Map.Entry<String, JsonNode> entry : object.properties()) {
      String name = entry.getKey();
      JsonNode child = entry.getValue();
      JsonNode result;
      if (only != null && only.patternProperties == null) {
        Plan property = only.properties == null ? null : only.properties.get(name);
        if (property == null) {
          result = castUndeclared(child, only, freeForm, depth);
        } else {
          result = property.alwaysFalse ? null : cast(child, property, depth + 1);
        }
      } else {
        if (applicable == null) {
          applicable = new ArrayList<>(4);
        } else {
          applicable.clear();
        }
        Verdict verdict = propertyVerdict(name, shape, hints, freeForm, applicable);
        result =
            verdict == Verdict.DROP
                ? null
                : verdict == Verdict.KEEP ? child : castAll(child, applicable, depth + 1);
      }
      if (result != child && out == null) {
        out = copyProperties(object, index);
      }
      if (out != null && result != null) {
        out.set(name, result);
      }
      index++;
    }
    for (int s = 0; s < shape.size(); s++) {
      for (PropertyDefault missing : shape.get(s).propertyDefaults) {
        String name = missing.name();
        if (object.has(name) || (out != null && out.has(name))) {
          continue;
        }
        if (applicable == null) {
          applicable = new ArrayList<>(4);
        } else {
          applicable.clear();
        }
        if (propertyVerdict(name, shape, hints, freeForm, applicable) == Verdict.DROP) {
          continue;
        }
        JsonNode filled = fillDefault(missing.value(), applicable, depth + 1);
        if (filled == null) {
          continue;
        }
        if (out == null) {
          out = copyProperties(object, index);
        }
        out.set(name, filled);
      }
    }
    return out == null ? object : out;
  }

  /** A property the one schema does not name: {@code additionalProperties} decides. */
  private JsonNode castUndeclared(JsonNode child, Plan plan, boolean freeForm, int depth) {
    Plan rest =
        plan.additionalProperties != null ? plan.additionalProperties : plan.unevaluatedProperties;
    if (rest == null) {
      return freeForm ? child : null;
    }
    if (rest.alwaysFalse) {
      return null;
    }
    return rest.alwaysTrue ? child : cast(child, rest, depth + 1);
  }

  /**
   * What happens to property {@code name} under several schemas, filling {@code applicable} with
   * the schemas its value is cast against. It is dropped when one schema forbids it ({@code
   * additionalProperties: false} without naming it), kept when one names it or explicitly allows
   * extras, and otherwise dropped unless no schema names any property (a free-form object).
   */
  private static Verdict propertyVerdict(
      String name, List<Plan> shape, List<Plan> hints, boolean freeForm, List<Plan> applicable) {
    boolean declared = false;
    boolean allowed = false;
    boolean unknown = false;
    for (int i = 0; i < shape.size(); i++) {
      Plan plan = shape.get(i);
      if (!plan.objectKeywords) {
        continue;
      }
      boolean named = false;
      if (plan.properties != null) {
        Plan property = plan.properties.get(name);
        if (property != null) {
          if (property.alwaysFalse) {
            return Verdict.DROP; // the property may not exist at all
          }
          named = true;
          applicable.add(property);
        }
      }
      if (plan.patternProperties != null) {
        for (PatternPlan pattern : plan.patternProperties) {
          BoundedRegex.Match match = pattern.regex().find(name);
          if (match == BoundedRegex.Match.YES) {
            if (pattern.plan().alwaysFalse) {
              return Verdict.DROP;
            }
            named = true;
            applicable.add(pattern.plan());
          } else if (match == BoundedRegex.Match.UNKNOWN) {
            named = true;
            unknown = true;
          }
        }
      }
      if (named) {
        declared = true;
      } else if (plan.additionalProperties != null) {
        if (plan.additionalProperties.alwaysFalse) {
          return Verdict.DROP;
        }
        allowed = true;
        if (!plan.additionalProperties.alwaysTrue) {
          applicable.add(plan.additionalProperties);
        }
      }
    }
    for (int i = 0; i < hints.size(); i++) {
      Plan hint = hints.get(i);
      Plan property = hint.properties == null ? null : hint.properties.get(name);
      if (property != null) {
        declared = true;
        applicable.add(property);
      }
    }
    if (unknown) {
      return Verdict.KEEP; // a pattern that could not be evaluated: leave the value alone
    }
    if (!declared && !allowed) {
      // unevaluatedProperties: one that takes the property (true or a schema, typically in a
      // chosen branch) evaluates it for all the others, so it outranks one that is false.
      boolean evaluated = false;
      boolean forbidden = false;
      for (int i = 0; i < shape.size(); i++) {
        Plan rest = shape.get(i).unevaluatedProperties;
        if (rest == null) {
          continue;
        }
        if (rest.alwaysFalse) {
          forbidden = true;
        } else {
          evaluated = true;
          if (!rest.alwaysTrue) {
            applicable.add(rest);
          }
        }
      }
      if (evaluated) {
        return applicable.isEmpty() ? Verdict.KEEP : Verdict.CAST;
      }
      return forbidden || !freeForm ? Verdict.DROP : Verdict.KEEP;
    }
    return applicable.isEmpty() ? Verdict.KEEP : Verdict.CAST;
  }

  private static ObjectNode copyProperties(JsonNode object, int count) {
    ObjectNode copy = NODES.objectNode();
    Iterator<Map.Entry<String, JsonNode>> entries = object.properties().iterator();
    for (int i = 0; i < count; i++) {
      Map.Entry<String, JsonNode> entry = entries.next();
      copy.set(entry.getKey(), entry.getValue());
    }
    return copy;
  }

  // ---- arrays ----------------------------------------------------------------------------

  private JsonNode castArray(JsonNode array, List<Plan> shape, int depth) {
    int longestPrefix = 0;
    boolean relevant = false;
    for (int i = 0; i < shape.size(); i++) {
      Plan plan = shape.get(i);
      relevant |= plan.arrayKeywords;
      if (plan.prefixItems != null) {
        longestPrefix = Math.max(longestPrefix, plan.prefixItems.length);
      }
    }
    if (!relevant) {
      return array;
    }
    int size = array.size();
    ArrayNode out = null;
    List<Plan> applicable = new ArrayList<>(2);
    boolean truncated = false;
    for (int i = 0; i < size; i++) {
      JsonNode item = array.get(i);
      applicable.clear();
      Verdict verdict = itemVerdict(i, item, shape, applicable, depth);
      if (verdict == Verdict.TRUNCATE || verdict == Verdict.DROP) {
        if (out == null) {
          out = copyItems(array, i);
        }
        if (verdict == Verdict.DROP) {
          continue;
        }
        truncated = true; // an item schema of false: no item may stand here or after
        break;
      }
      JsonNode result = verdict == Verdict.KEEP ? item : castAll(item, applicable, depth + 1);
      if (result != item && out == null) {
        out = copyItems(array, i);
      }
      if (out != null) {
        out.add(result);
      }
    }
    if (!truncated) {
      // missing tuple positions get their defaults, up to the first that has none
      for (int i = size; i < longestPrefix; i++) {
        applicable.clear();
        JsonNode fallback = null;
        for (int s = 0; s < shape.size(); s++) {
          Plan[] prefix = shape.get(s).prefixItems;
          if (prefix != null && i < prefix.length) {
            applicable.add(prefix[i]);
            if (fallback == null) {
              fallback = prefix[i].usableDefault;
            }
          }
        }
        JsonNode filled = fallback == null ? null : fillDefault(fallback, applicable, depth + 1);
        if (filled == null) {
          break;
        }
        if (out == null) {
          out = copyItems(array, size);
        }
        out.add(filled);
      }
    }
    return out == null ? array : out;
  }

  /**
   * Which schemas item {@code index} is cast against: TRUNCATE at a {@code false} item schema, DROP
   * for {@code unevaluatedItems: false} when nothing (not even {@code contains}) evaluates the
   * item.
   */
  private Verdict itemVerdict(
      int index, JsonNode item, List<Plan> shape, List<Plan> applicable, int depth) {
    boolean covered = false;
    for (int i = 0; i < shape.size(); i++) {
      Plan plan = shape.get(i);
      if (!plan.arrayKeywords) {
        continue;
      }
      Plan itemPlan = null;
      if (plan.prefixItems != null && index < plan.prefixItems.length) {
        itemPlan = plan.prefixItems[index];
      } else if (plan.items != null) {
        itemPlan = plan.items;
      }
      if (itemPlan != null) {
        covered = true;
        if (itemPlan.alwaysFalse) {
          return Verdict.TRUNCATE;
        }
        if (!itemPlan.alwaysTrue) {
          applicable.add(itemPlan);
        }
      }
    }
    if (covered) {
      return applicable.isEmpty() ? Verdict.KEEP : Verdict.CAST;
    }
    boolean evaluated = false;
    boolean forbidden = false;
    for (int i = 0; i < shape.size(); i++) {
      Plan rest = shape.get(i).unevaluatedItems;
      if (rest == null) {
        continue;
      }
      if (rest.alwaysFalse) {
        forbidden = true;
      } else {
        evaluated = true;
        if (!rest.alwaysTrue) {
          applicable.add(rest);
        }
      }
    }
    if (evaluated) {
      return applicable.isEmpty() ? Verdict.KEEP : Verdict.CAST;
    }
    if (!forbidden) {
      return Verdict.KEEP;
    }
    for (int i = 0; i < shape.size(); i++) {
      Plan contains = shape.get(i).contains;
      if (contains != null && checker().valid(item, contains, depth + 1)) {
        return Verdict.KEEP; // evaluated by contains
      }
    }
    return Verdict.DROP;
  }

  private static ArrayNode copyItems(JsonNode array, int count) {
    ArrayNode copy = NODES.arrayNode(Math.max(count, array.size()));
    for (int i = 0; i < count; i++) {
      copy.add(array.get(i));
    }
    return copy;
  }

  /**
   * A copy of a schema's default, cast against the schemas of its place (which fills its own nested
   * defaults); null when this very default is already being filled further up, as in a recursive
   * schema whose property defaults to an object of the same schema: that default is filled once,
   * not once per level down to the depth limit.
   */
  private JsonNode fillDefault(JsonNode defaultValue, List<Plan> applicable, int depth) {
    if (fillingDefaults == null) {
      fillingDefaults = new ArrayList<>(2);
    }
    for (int i = 0; i < fillingDefaults.size(); i++) {
      if (fillingDefaults.get(i) == defaultValue) {
        return null;
      }
    }
    fillingDefaults.add(defaultValue);
    try {
      JsonNode filled = defaultValue.deepCopy();
      return applicable.isEmpty() ? filled : castAll(filled, applicable, depth);
    } finally {
      fillingDefaults.remove(fillingDefaults.size() - 1);
    }
  }

  private Checker checker() {
    if (checker == null) {
      checker = new Checker(budget, maxDepth);
    }
    return checker;
  }
}
