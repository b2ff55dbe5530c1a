package dev.alkdev.operations.schema;

/**
 * A schema document could not be compiled: malformed JSON, too large, too deep, or not a valid
 * schema. Raised when a schema is defined, never while validating or casting a value.
 */
public final class SchemaException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public SchemaException(String message) {
    super(message);
  }

  public SchemaException(String message, Throwable cause) {
    super(message, cause);
  }
}
