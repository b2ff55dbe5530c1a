package dev.alkdev.operations.schema.internal.cast;

import java.util.Iterator;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * JSON Schema's equality ({@code const}, {@code enum}, {@code uniqueItems}): numbers compare by
 * value, so {@code 1} equals {@code 1.0}, which Jackson's {@code equals} does not do.
 */
final class JsonEquality {
  private JsonEquality() {}

  /**
   * Whether {@code a} and {@code b} are the same JSON value. Nesting deeper than {@code depthLeft}
   * counts as different, so comparing two hostile, equally deep values cannot exhaust the stack.
   */
  static boolean equal(JsonNode a, JsonNode b, int depthLeft) {
    if (a == b) {
      return true;
    }
    if (a.isNumber() && b.isNumber()) {
      return numbersEqual(a, b);
    }
    if (a.getNodeType() != b.getNodeType()) {
      return false;
    }
    if (a.isObject()) {
      if (a.size() != b.size() || depthLeft <= 0) {
        return false;
      }
      for (Map.Entry<String, JsonNode> entry : a.properties()) {
        JsonNode other = b.get(entry.getKey());
        if (other == null || !equal(entry.getValue(), other, depthLeft - 1)) {
          return false;
        }
      }
      return true;
    }
    if (a.isArray()) {
      if (a.size() != b.size() || depthLeft <= 0) {
        return false;
      }
      Iterator<JsonNode> others = b.values().iterator();
      for (JsonNode item : a.values()) {
        if (!equal(item, others.next(), depthLeft - 1)) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }

  private static boolean numbersEqual(JsonNode a, JsonNode b) {
    if (a.isIntegralNumber()
        && b.isIntegralNumber()
        && a.canConvertToLong()
        && b.canConvertToLong()) {
      return a.longValue() == b.longValue();
    }
    if ((a.isDouble() || a.isFloat() || a.isInt() || a.isLong())
        && (b.isDouble() || b.isFloat() || b.isInt() || b.isLong())) {
      double x = a.doubleValue();
      double y = b.doubleValue();
      if (Double.isNaN(x) || Double.isNaN(y) || Double.isInfinite(x) || Double.isInfinite(y)) {
        return x == y;
      }
      if (Math.abs(x) < 9.0e15 && Math.abs(y) < 9.0e15) {
        return x == y; // both exact in a double
      }
    }
    try {
      return a.decimalValue().compareTo(b.decimalValue()) == 0;
    } catch (NumberFormatException e) {
      return false; // a non-finite double against a decimal
    }
  }
}
