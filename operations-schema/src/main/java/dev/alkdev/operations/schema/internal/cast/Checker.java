package dev.alkdev.operations.schema.internal.cast;

import dev.alkdev.operations.schema.internal.cast.Plan.PatternPlan;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.StringNode;

/**
 * An approximate validator over {@link Plan}s, used only to steer casting: which {@code anyOf}
 * branch a value fits, whether {@code if} holds, whether a cast result is valid. It knows the
 * keywords that decide those questions (types, const, enum, required, properties, items, bounds,
 * lengths, patterns, combinators) and ignores annotations such as {@code format}. The schema's real
 * validator still has the last word on the cast result.
 *
 * <p>It errs towards "does not match" when it cannot tell: past the depth limit, past the step
 * budget, or when a regular expression ran out of time.
 */
final class Checker {
  private final Budget budget;
  private final int maxDepth;

  Checker(Budget budget, int maxDepth) {
    this.budget = budget;
    this.maxDepth = maxDepth;
  }

  boolean valid(JsonNode value, Plan plan, int depth) {
    if (plan.alwaysTrue) {
      return true;
    }
    if (plan.alwaysFalse || depth > maxDepth || !budget.spend()) {
      return false;
    }
    for (Plan ref : plan.refs) {
      if (!valid(value, ref, depth + 1)) {
        return false;
      }
    }
    if (plan.hasType && (plan.types & JsonTypes.of(value)) == 0) {
      return false;
    }
    if (plan.constValue != null && !JsonEquality.equal(value, plan.constValue, maxDepth)) {
      return false;
    }
    if (plan.enumValues != null && !inEnum(value, plan.enumValues)) {
      return false;
    }
    for (Plan branch : plan.allOf) {
      if (!valid(value, branch, depth + 1)) {
        return false;
      }
    }
    if (plan.anyOf != null && !anyValid(value, plan.anyOf.branches(), depth)) {
      return false;
    }
    if (plan.oneOf != null && !oneValid(value, plan.oneOf.branches(), depth)) {
      return false;
    }
    if (plan.not != null && valid(value, plan.not, depth + 1)) {
      return false;
    }
    if (plan.ifPlan != null) {
      Plan next = valid(value, plan.ifPlan, depth + 1) ? plan.thenPlan : plan.elsePlan;
      if (next != null && !valid(value, next, depth + 1)) {
        return false;
      }
    }
    if (value.isObject()) {
      return validObject(value, plan, depth);
    }
    if (value.isArray()) {
      return validArray(value, plan, depth);
    }
    if (value.isString()) {
      return validString(value.stringValue(), plan);
    }
    if (value.isNumber()) {
      return validNumber(value, plan);
    }
    return true;
  }

  private boolean inEnum(JsonNode value, JsonNode[] members) {
    for (JsonNode member : members) {
      if (JsonEquality.equal(value, member, maxDepth)) {
        return true;
      }
    }
    return false;
  }

  private boolean anyValid(JsonNode value, Plan[] branches, int depth) {
    for (Plan branch : branches) {
      if (valid(value, branch, depth + 1)) {
        return true;
      }
    }
    return false;
  }

  private boolean oneValid(JsonNode value, Plan[] branches, int depth) {
    int matches = 0;
    for (Plan branch : branches) {
      if (valid(value, branch, depth + 1) && ++matches > 1) {
        return false;
      }
    }
    return matches == 1;
  }

  private boolean validObject(JsonNode object, Plan plan, int depth) {
    long size = object.size();
    if (size < plan.minProperties || size > plan.maxProperties) {
      return false;
    }
    if (plan.required != null) {
      for (String name : plan.required) {
        if (!object.has(name)) {
          return false;
        }
      }
    }
    if (plan.dependentRequired != null) {
      for (Map.Entry<String, String[]> entry : plan.dependentRequired.entrySet()) {
        if (object.has(entry.getKey())) {
          for (String name : entry.getValue()) {
            if (!object.has(name)) {
              return false;
            }
          }
        }
      }
    }
    if (plan.dependentSchemas != null) {
      for (Map.Entry<String, Plan> entry : plan.dependentSchemas.entrySet()) {
        if (object.has(entry.getKey()) && !valid(object, entry.getValue(), depth + 1)) {
          return false;
        }
      }
    }
    if (!plan.objectKeywords && plan.propertyNames == null) {
      return true;
    }
    for (Map.Entry<String, JsonNode> entry : object.properties()) {
      String name = entry.getKey();
      JsonNode child = entry.getValue();
      if (plan.propertyNames != null
          && !valid(StringNode.valueOf(name), plan.propertyNames, depth + 1)) {
        return false;
      }
      boolean declared = false;
      if (plan.properties != null) {
        Plan property = plan.properties.get(name);
        if (property != null) {
          declared = true;
          if (!valid(child, property, depth + 1)) {
            return false;
          }
        }
      }
      if (plan.patternProperties != null) {
        for (PatternPlan pattern : plan.patternProperties) {
          BoundedRegex.Match match = pattern.regex().find(name);
          if (match == BoundedRegex.Match.UNKNOWN) {
            return false;
          }
          if (match == BoundedRegex.Match.YES) {
            declared = true;
            if (!valid(child, pattern.plan(), depth + 1)) {
              return false;
            }
          }
        }
      }
      if (declared) {
        continue;
      }
      if (plan.additionalProperties != null) {
        if (!valid(child, plan.additionalProperties, depth + 1)) {
          return false;
        }
      } else if (plan.unevaluatedProperties != null
          && !evaluatedElsewhere(plan, name)
          && !valid(child, plan.unevaluatedProperties, depth + 1)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether a subschema applied in place ({@code $ref}, {@code allOf}, any branch) names the
   * property: an approximation of "evaluated" that never rejects a property a branch declares.
   */
  private static boolean evaluatedElsewhere(Plan plan, String name) {
    List<Plan> places = new ArrayList<>(plan.statics);
    for (Plan local : plan.statics) {
      addStatics(places, local.anyOf == null ? null : local.anyOf.branches());
      addStatics(places, local.oneOf == null ? null : local.oneOf.branches());
      addStatics(places, new Plan[] {local.ifPlan, local.thenPlan, local.elsePlan});
      if (local.dependentSchemas != null) {
        addStatics(places, local.dependentSchemas.values().toArray(Plan.NONE));
      }
    }
    for (Plan place : places) {
      if (place != plan && names(place, name)) {
        return true;
      }
    }
    return false;
  }

  private static void addStatics(List<Plan> places, Plan[] plans) {
    if (plans != null) {
      for (Plan plan : plans) {
        if (plan != null) {
          places.addAll(plan.statics);
        }
      }
    }
  }

  private static boolean names(Plan plan, String name) {
    if (plan.additionalProperties != null
        || (plan.properties != null && plan.properties.containsKey(name))) {
      return true;
    }
    if (plan.patternProperties != null) {
      for (PatternPlan pattern : plan.patternProperties) {
        if (pattern.regex().find(name) != BoundedRegex.Match.NO) {
          return true;
        }
      }
    }
    return false;
  }

  private boolean validArray(JsonNode array, Plan plan, int depth) {
    int size = array.size();
    if (size < plan.minItems || size > plan.maxItems) {
      return false;
    }
    int prefix = plan.prefixItems == null ? 0 : plan.prefixItems.length;
    for (int i = 0; i < size; i++) {
      JsonNode item = array.get(i);
      Plan itemPlan =
          i < prefix
              ? plan.prefixItems[i]
              : plan.items != null
                  ? plan.items
                  : (plan.unevaluatedItems != null && !itemsElsewhere(plan))
                      ? plan.unevaluatedItems
                      : null;
      if (itemPlan != null && !valid(item, itemPlan, depth + 1)) {
        return false;
      }
    }
    if (plan.contains != null) {
      long matches = 0;
      for (JsonNode item : array.values()) {
        if (valid(item, plan.contains, depth + 1)) {
          matches++;
        }
      }
      if (matches < plan.minContains || matches > plan.maxContains) {
        return false;
      }
    }
    if (plan.uniqueItems) {
      for (int i = 0; i < size; i++) {
        if (!budget.spend(size - i)) {
          return false;
        }
        for (int j = i + 1; j < size; j++) {
          if (JsonEquality.equal(array.get(i), array.get(j), maxDepth - depth)) {
            return false;
          }
        }
      }
    }
    return true;
  }

  private static boolean itemsElsewhere(Plan plan) {
    for (Plan local : plan.statics) {
      if (local != plan && (local.items != null || local.prefixItems != null)) {
        return true;
      }
    }
    return false;
  }

  private static boolean validString(String text, Plan plan) {
    if (plan.minLength > 0 || plan.maxLength != Long.MAX_VALUE) {
      // Lengths count code points; a string of n chars has between n/2 and n of them.
      if (text.length() < plan.minLength || text.length() / 2 > plan.maxLength) {
        return false;
      }
      long length = text.codePointCount(0, text.length());
      if (length < plan.minLength || length > plan.maxLength) {
        return false;
      }
    }
    return plan.pattern == null || plan.pattern.find(text) == BoundedRegex.Match.YES;
  }

  private static boolean validNumber(JsonNode number, Plan plan) {
    if (plan.minimum == null
        && plan.maximum == null
        && plan.exclusiveMinimum == null
        && plan.exclusiveMaximum == null
        && plan.multipleOf == null) {
      return true;
    }
    BigDecimal value;
    try {
      value = number.decimalValue();
    } catch (NumberFormatException e) {
      return false; // NaN or infinite: no bound holds
    }
    if (plan.minimum != null && value.compareTo(plan.minimum) < 0) {
      return false;
    }
    if (plan.maximum != null && value.compareTo(plan.maximum) > 0) {
      return false;
    }
    if (plan.exclusiveMinimum != null && value.compareTo(plan.exclusiveMinimum) <= 0) {
      return false;
    }
    if (plan.exclusiveMaximum != null && value.compareTo(plan.exclusiveMaximum) >= 0) {
      return false;
    }
    if (plan.multipleOf != null) {
      long digits = Math.abs((long) value.precision() - value.scale());
      long divisorScale = Math.abs((long) plan.multipleOf.scale());
      if (digits + divisorScale > 1_000) {
        return true; // too costly to decide exactly; the validator will
      }
      return value.remainder(plan.multipleOf).signum() == 0;
    }
    return true;
  }
}
