package dev.alkdev.operations.schema.internal;

import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaError;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;

/**
 * A schema made on first use by a supplier, at most once. Compiling is the costly part of
 * registering an operation (networknt loads its meta-schemas on the first compile, victools its
 * generator on the first derivation); a program that only lists operations, or calls one of a
 * thousand, should not pay it for all of them. A supplier that fails is not asked again: every use
 * rethrows its failure, so a broken schema fails every call the same way.
 */
public final class DeferredSchema implements Schema {
  private final Object lock = new Object();
  private Supplier<? extends Schema> supplier;
  private volatile Schema made;
  private volatile RuntimeException failure;

  public DeferredSchema(Supplier<? extends Schema> supplier) {
    this.supplier = Objects.requireNonNull(supplier, "supplier");
  }

  /** The schema, made now if this is its first use. */
  public Schema made() {
    Schema result = made;
    if (result != null) {
      return result;
    }
    synchronized (lock) {
      if (made == null && failure == null) {
        try {
          made =
              Objects.requireNonNull(
                  supplier.get(), "the deferred schema's supplier returned null");
        } catch (RuntimeException e) {
          failure = e;
        }
        // Whatever the supplier held (a document, a type) is not needed any more.
        supplier = null;
      }
      if (failure != null) {
        throw failure;
      }
      return made;
    }
  }

  /** Whether the schema has been made (for tests and diagnostics). */
  public boolean isMade() {
    return made != null;
  }

  @Override
  public JsonNode json() {
    return made().json();
  }

  @Override
  public boolean isUnknown() {
    return made().isUnknown();
  }

  @Override
  public List<SchemaError> validate(JsonNode value) {
    return made().validate(value);
  }

  @Override
  public boolean isValid(JsonNode value) {
    return made().isValid(value);
  }

  @Override
  public JsonNode cast(JsonNode value) {
    return made().cast(value);
  }

  /** Equal to what the supplier makes, and to another deferred schema that makes an equal one. */
  @Override
  public boolean equals(Object o) {
    if (o == this) {
      return true;
    }
    if (o instanceof DeferredSchema other) {
      return made().equals(other.made());
    }
    return o instanceof Schema && made().equals(o);
  }

  @Override
  public int hashCode() {
    return made().hashCode();
  }

  @Override
  public String toString() {
    Schema result = made;
    return result != null ? result.toString() : "Schema(deferred, not made yet)";
  }
}
