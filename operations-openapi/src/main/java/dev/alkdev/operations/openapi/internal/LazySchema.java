package dev.alkdev.operations.openapi.internal;

import dev.alkdev.operations.schema.FromSchema;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaError;
import dev.alkdev.operations.schema.SchemaOptions;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * A schema compiled on first use. A large document (GitHub's REST description: 1,200 operations)
 * would otherwise spend most of its import compiling schemas of operations that are never called;
 * the compiled result is the same {@code FromSchema.convert} gives, built at most once.
 */
final class LazySchema implements Schema {
  private final JsonNode source;
  private final FromSchema.Dialect dialect;
  private volatile Schema compiled;

  LazySchema(JsonNode source, FromSchema.Dialect dialect) {
    this.source = source;
    this.dialect = dialect;
  }

  Schema compiled() {
    Schema result = compiled;
    if (result == null) {
      synchronized (this) {
        result = compiled;
        if (result == null) {
          result = FromSchema.convert(source, dialect, SchemaOptions.defaults());
          compiled = result;
        }
      }
    }
    return result;
  }

  @Override
  public JsonNode json() {
    return compiled().json();
  }

  @Override
  public boolean isUnknown() {
    return compiled().isUnknown();
  }

  @Override
  public List<SchemaError> validate(JsonNode value) {
    return compiled().validate(value);
  }

  @Override
  public JsonNode cast(JsonNode value) {
    return compiled().cast(value);
  }

  @Override
  public boolean equals(Object o) {
    if (o instanceof LazySchema other) {
      return compiled().equals(other.compiled());
    }
    return o instanceof Schema && compiled().equals(o);
  }

  @Override
  public int hashCode() {
    return compiled().hashCode();
  }

  @Override
  public String toString() {
    return compiled().toString();
  }
}
