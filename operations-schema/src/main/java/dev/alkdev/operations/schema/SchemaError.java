package dev.alkdev.operations.schema;

import java.util.Objects;

/**
 * One reason a value does not match a schema.
 *
 * @param instancePath JSON Pointer (RFC 6901) to the offending part of the value; {@code ""} is the
 *     value itself
 * @param keyword the schema keyword that failed ({@code "type"}, {@code "required"}, ...), or
 *     {@code "limit"} when a configured guard stopped evaluation
 * @param message what is wrong, written for a person
 */
public record SchemaError(String instancePath, String keyword, String message) {
  public SchemaError {
    Objects.requireNonNull(instancePath, "instancePath");
    Objects.requireNonNull(keyword, "keyword");
    Objects.requireNonNull(message, "message");
  }

  @Override
  public String toString() {
    return (instancePath.isEmpty() ? "(root)" : instancePath) + ": " + message;
  }
}
