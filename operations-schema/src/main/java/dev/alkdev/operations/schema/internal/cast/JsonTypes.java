package dev.alkdev.operations.schema.internal.cast;

import java.math.BigDecimal;
import tools.jackson.databind.JsonNode;

/**
 * JSON Schema's seven types as bits, so that a {@code type} keyword, the intersection of several,
 * and the type of a value are each one {@code int}.
 *
 * <p>A number whose value is integral ({@code 1}, {@code 1.0}) is an {@link #INTEGER}; any other
 * number is a {@link #NUMBER}. The schema type {@code "number"} therefore allows both bits, and
 * {@code "integer"} only the first, which is exactly JSON Schema's rule that {@code 1.0} is an
 * integer.
 *
 * <p>Public for the schema engine's other internal package ({@code SimpleCheck}); the package is
 * not exported.
 */
public final class JsonTypes {
  public static final int NULL = 1;
  public static final int BOOLEAN = 1 << 1;
  public static final int OBJECT = 1 << 2;
  public static final int ARRAY = 1 << 3;
  public static final int NUMBER = 1 << 4;
  public static final int STRING = 1 << 5;
  public static final int INTEGER = 1 << 6;
  public static final int ANY = NULL | BOOLEAN | OBJECT | ARRAY | NUMBER | STRING | INTEGER;

  /**
   * The order in which a primitive of the wrong type is tried against the allowed types: the
   * narrower numeric type first, string last because every primitive but null converts to it.
   */
  static final int[] CONVERSION_ORDER = {INTEGER, NUMBER, BOOLEAN, NULL, STRING};

  private JsonTypes() {}

  /** The bits a schema {@code type} name allows; 0 for a name that is not a JSON Schema type. */
  public static int ofName(String name) {
    switch (name) {
      case "null":
        return NULL;
      case "boolean":
        return BOOLEAN;
      case "object":
        return OBJECT;
      case "array":
        return ARRAY;
      case "number":
        return NUMBER | INTEGER;
      case "string":
        return STRING;
      case "integer":
        return INTEGER;
      default:
        return 0;
    }
  }

  /**
   * The type bit of a value, or 0 for what JSON has no type for (a missing node, a POJO node, a
   * non-finite double): such values are never cast.
   */
  public static int of(JsonNode value) {
    switch (value.getNodeType()) {
      case NULL:
        return NULL;
      case BOOLEAN:
        return BOOLEAN;
      case OBJECT:
        return OBJECT;
      case ARRAY:
        return ARRAY;
      case STRING:
        return STRING;
      case NUMBER:
        return numberBit(value);
      default:
        return 0;
    }
  }

  private static int numberBit(JsonNode number) {
    if (number.isIntegralNumber()) {
      return INTEGER;
    }
    if (number.isBigDecimal()) {
      BigDecimal decimal = number.decimalValue();
      return decimal.signum() == 0 || decimal.stripTrailingZeros().scale() <= 0 ? INTEGER : NUMBER;
    }
    double d = number.doubleValue();
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      return 0;
    }
    return d == Math.rint(d) ? INTEGER : NUMBER;
  }
}
