package dev.alkdev.operations.protocol;

import dev.alkdev.operations.OperationSpec;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which operation ids a permission covers: one id ({@code billing.charge}), a namespace at any
 * depth ({@code billing.*} covers {@code billing.charge} and {@code billing.cards.add}), or every
 * operation ({@code *}). The one form serving permissions, trusted node keys and the broker
 * configurations {@code ops} prints share, so that a pattern means the same everywhere.
 *
 * @param pattern the pattern as written
 */
public record OperationPattern(String pattern) {
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*");

  public OperationPattern {
    Objects.requireNonNull(pattern, "pattern");
    if (!pattern.equals("*")) {
      String id = pattern.endsWith(".*") ? pattern.substring(0, pattern.length() - 2) : pattern;
      if (!ID.matcher(id).matches()) {
        throw new IllegalArgumentException(
            "'"
                + pattern
                + "' is not an operation pattern: expected an operation id (billing.charge),"
                + " a namespace followed by .* (billing.*) or * for every operation");
      }
    }
  }

  /** The pattern {@code pattern}; see the class for the forms accepted. */
  public static OperationPattern of(String pattern) {
    return new OperationPattern(pattern);
  }

  /**
   * The operations a broker permission grants ({@code NatsPermissions}, {@code RedisAcl}), as
   * patterns, each once, in order. At least one is needed, and an id pattern must be an operation
   * id: {@code billing} alone would match nothing (most likely {@code billing.*} was meant), so it
   * is refused rather than silently granting nothing.
   *
   * @throws IllegalArgumentException saying what is wrong and what is expected
   */
  public static List<OperationPattern> granted(List<String> operations) {
    Objects.requireNonNull(operations, "operations");
    if (operations.isEmpty()) {
      throw new IllegalArgumentException(
          "No operations given: name at least one (an id such as billing.charge, a namespace such"
              + " as billing.*, or * for every operation), or use observer() for a user that"
              + " neither calls nor serves");
    }
    Set<OperationPattern> out = new LinkedHashSet<>();
    for (String operation : operations) {
      Objects.requireNonNull(operation, "an operation in operations");
      OperationPattern pattern = of(operation);
      if (!pattern.isAll() && !pattern.isNamespace() && !OperationSpec.isValidId(operation)) {
        String why;
        try {
          OperationSpec.splitId(operation);
          why = "";
        } catch (IllegalArgumentException e) {
          why = " (" + e.getMessage() + ")";
        }
        throw new IllegalArgumentException(
            "'"
                + operation
                + "' is not an operation id"
                + why
                + ": expected an operation id (billing.charge), a namespace followed by .*"
                + " (billing.*) or * for every operation");
      }
      out.add(pattern);
    }
    return List.copyOf(out);
  }

  /** Every operation. */
  public static OperationPattern all() {
    return new OperationPattern("*");
  }

  /** Whether this is {@code *}. */
  public boolean isAll() {
    return pattern.equals("*");
  }

  /** Whether this covers a namespace ({@code billing.*}) rather than one id. */
  public boolean isNamespace() {
    return pattern.endsWith(".*") && !isAll();
  }

  /**
   * The id this pattern names, or the namespace it covers without its {@code .*}; empty for {@code
   * *}.
   */
  public String prefix() {
    if (isAll()) {
      return "";
    }
    return isNamespace() ? pattern.substring(0, pattern.length() - 2) : pattern;
  }

  /** Whether {@code operationId} is covered. */
  public boolean matches(String operationId) {
    if (isAll()) {
      return true;
    }
    if (isNamespace()) {
      String namespace = prefix();
      return operationId.length() > namespace.length() + 1
          && operationId.startsWith(namespace)
          && operationId.charAt(namespace.length()) == '.';
    }
    return pattern.equals(operationId);
  }

  @Override
  public String toString() {
    return pattern;
  }
}
