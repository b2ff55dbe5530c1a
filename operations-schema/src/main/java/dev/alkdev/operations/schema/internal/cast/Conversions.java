package dev.alkdev.operations.schema.internal.cast;

import java.math.BigDecimal;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.BigIntegerNode;
import tools.jackson.databind.node.BooleanNode;
import tools.jackson.databind.node.DecimalNode;
import tools.jackson.databind.node.DoubleNode;
import tools.jackson.databind.node.IntNode;
import tools.jackson.databind.node.LongNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.StringNode;

/**
 * Lossless conversions between JSON primitives. A conversion exists only when the result, written
 * back the other way, gives the same value: {@code "42"} and {@code 42}, {@code "true"} and {@code
 * true}, {@code "null"} and {@code null}. Anything else (1 to true, "4.5" to an integer, " 42" with
 * a space) has no conversion, and the caller keeps the original value.
 */
final class Conversions {
  /**
   * Numbers written with more digits before the point, or a larger decimal exponent, than this are
   * not parsed from strings: {@code "1e999999999"} would otherwise become a number no consumer can
   * use, and an exact integer of that size would take gigabytes.
   */
  static final int MAX_EXPONENT = 400;

  /** Longer strings are never numbers worth parsing (and bound the parse cost). */
  private static final int MAX_NUMBER_CHARS = 1_000;

  private Conversions() {}

  /**
   * {@code value} converted to the JSON type {@code target} (one {@link JsonTypes} bit), or {@code
   * null} when no lossless conversion exists. A value already of that type is returned as is.
   */
  static JsonNode convert(JsonNode value, int target) {
    int from = JsonTypes.of(value);
    if (from == target) {
      return value;
    }
    switch (target) {
      case JsonTypes.INTEGER:
        if (from == JsonTypes.STRING) {
          return parseNumber(value.stringValue(), true);
        }
        return null; // a fractional number is never an integer; 1.0 is already INTEGER
      case JsonTypes.NUMBER:
        if (from == JsonTypes.INTEGER) {
          return value; // an integer is a number
        }
        return from == JsonTypes.STRING ? parseNumber(value.stringValue(), false) : null;
      case JsonTypes.BOOLEAN:
        if (from == JsonTypes.STRING) {
          String text = value.stringValue();
          if ("true".equals(text)) {
            return BooleanNode.TRUE;
          }
          if ("false".equals(text)) {
            return BooleanNode.FALSE;
          }
        }
        return null;
      case JsonTypes.NULL:
        return from == JsonTypes.STRING && "null".equals(value.stringValue())
            ? NullNode.getInstance()
            : null;
      case JsonTypes.STRING:
        if (from == JsonTypes.BOOLEAN) {
          return StringNode.valueOf(value.booleanValue() ? "true" : "false");
        }
        if (from == JsonTypes.INTEGER || from == JsonTypes.NUMBER) {
          return StringNode.valueOf(numberText(value));
        }
        return null;
      default:
        return null;
    }
  }

  /** Whether {@code value} converts losslessly to at least one of the {@code types} bits. */
  static boolean convertible(JsonNode value, int types) {
    for (int target : JsonTypes.CONVERSION_ORDER) {
      if (tries(types, target) && convert(value, target) != null) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a value of the wrong type is tried against {@code target} under a schema allowing
   * {@code types}. Where any number is allowed, a numeric string is read as the number it spells
   * ({@code "1e3"} as 1000.0, like a JSON parser), not forced to an integer first.
   */
  static boolean tries(int types, int target) {
    if ((types & target) == 0) {
      return false;
    }
    return target != JsonTypes.INTEGER || (types & JsonTypes.NUMBER) == 0;
  }

  /**
   * {@code member} (a {@code const} or an {@code enum} entry) when {@code value} converts
   * losslessly to it, else {@code null}: {@code "1"} matches the member {@code 1}.
   */
  static JsonNode toMember(JsonNode value, JsonNode member) {
    int memberType = JsonTypes.of(member);
    if (memberType == 0 || memberType == JsonTypes.OBJECT || memberType == JsonTypes.ARRAY) {
      return null;
    }
    JsonNode converted = convert(value, memberType);
    return converted != null && JsonEquality.equal(converted, member, 1) ? member : null;
  }

  /**
   * An integral floating-point number as an integer node ({@code 1.0} to {@code 1}), for a schema
   * that allows integers but not other numbers. Returns the value itself when it cannot be
   * represented exactly.
   */
  static JsonNode asIntegerNode(JsonNode number) {
    if (number.isIntegralNumber()) {
      return number;
    }
    BigDecimal decimal;
    if (number.isBigDecimal()) {
      decimal = number.decimalValue();
    } else {
      double d = number.doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        return number;
      }
      decimal = new BigDecimal(d);
    }
    JsonNode integral = integralNode(decimal);
    return integral == null ? number : integral;
  }

  /**
   * Parses a string that is exactly a JSON number ({@code -12}, {@code 4.5}, {@code 1e3}: no
   * spaces, no {@code +}, no leading zeros, no hex, no {@code NaN}); {@code null} otherwise, or
   * when {@code integerOnly} and the value is not integral. Produces the node Jackson's own parser
   * would: integers as int, long or big-integer nodes, other numbers as doubles when the double
   * holds the exact value and as decimals when it does not.
   */
  static JsonNode parseNumber(String text, boolean integerOnly) {
    if (text.isEmpty() || text.length() > MAX_NUMBER_CHARS || !isJsonNumber(text)) {
      return null;
    }
    BigDecimal decimal;
    try {
      decimal = new BigDecimal(text);
    } catch (NumberFormatException | ArithmeticException e) {
      return null; // an exponent beyond int range
    }
    if (decimal.signum() != 0) {
      long exponent = (long) decimal.precision() - decimal.scale() - 1;
      if (Math.abs(exponent) > MAX_EXPONENT) {
        return null;
      }
    }
    boolean writtenAsInteger =
        text.indexOf('.') < 0 && text.indexOf('e') < 0 && text.indexOf('E') < 0;
    if (integerOnly || writtenAsInteger) {
      return integralNode(decimal);
    }
    double d = decimal.doubleValue();
    if (!Double.isInfinite(d) && new BigDecimal(Double.toString(d)).compareTo(decimal) == 0) {
      return DoubleNode.valueOf(d);
    }
    return DecimalNode.valueOf(decimal);
  }

  /** The integer node for an integral value, or {@code null} when it has a fractional part. */
  private static JsonNode integralNode(BigDecimal decimal) {
    if (decimal.signum() == 0) {
      return IntNode.valueOf(0);
    }
    BigDecimal stripped = decimal.stripTrailingZeros();
    if (stripped.scale() > 0) {
      return null;
    }
    long digits = (long) stripped.precision() - stripped.scale();
    if (digits > MAX_EXPONENT + 1) {
      return null;
    }
    if (digits <= 18) {
      long l = stripped.longValueExact();
      return l == (int) l ? IntNode.valueOf((int) l) : LongNode.valueOf(l);
    }
    return BigIntegerNode.valueOf(stripped.toBigIntegerExact());
  }

  private static boolean isJsonNumber(String s) {
    int n = s.length();
    int i = 0;
    if (s.charAt(i) == '-') {
      i++;
    }
    if (i == n) {
      return false;
    }
    char c = s.charAt(i);
    if (c == '0') {
      i++;
    } else if (c >= '1' && c <= '9') {
      i = digits(s, i);
    } else {
      return false;
    }
    if (i < n && s.charAt(i) == '.') {
      int start = ++i;
      i = digits(s, i);
      if (i == start) {
        return false;
      }
    }
    if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
      i++;
      if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
        i++;
      }
      int start = i;
      i = digits(s, i);
      if (i == start) {
        return false;
      }
    }
    return i == n;
  }

  private static int digits(String s, int i) {
    while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
      i++;
    }
    return i;
  }

  /**
   * A number's shortest exact text: integers in full, {@code 42.0} as {@code "42"}, {@code 4.5} as
   * {@code "4.5"}, very large or small magnitudes in exponent form ({@code "1E+21"}).
   */
  static String numberText(JsonNode number) {
    if (number.isIntegralNumber()) {
      return number.asString();
    }
    BigDecimal decimal;
    if (number.isBigDecimal()) {
      decimal = number.decimalValue();
    } else if (number.isFloat()) {
      decimal = new BigDecimal(Float.toString(number.floatValue()));
    } else {
      decimal = new BigDecimal(Double.toString(number.doubleValue()));
    }
    if (decimal.signum() == 0) {
      return "0";
    }
    decimal = decimal.stripTrailingZeros();
    long exponent = (long) decimal.precision() - decimal.scale() - 1;
    // The range JavaScript prints without an exponent, so texts look like the TypeScript
    // original's.
    return exponent >= -7 && exponent < 21 ? decimal.toPlainString() : decimal.toString();
  }
}
