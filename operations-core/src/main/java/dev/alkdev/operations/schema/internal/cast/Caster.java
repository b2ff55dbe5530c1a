package dev.alkdev.operations.schema.internal.cast;

import dev.alkdev.operations.schema.SchemaLimits;
import tools.jackson.databind.JsonNode;

/**
 * The seeds' {@code Value.Cast}: a cast plan compiled once from a schema document and applied to
 * many values. STUB: returns values unchanged until the cast engine lands.
 */
public final class Caster {
  private Caster() {}

  /** Compiles the cast plan of a schema document (the root of its own {@code $ref}s). */
  public static Caster compile(JsonNode document, SchemaLimits limits) {
    return new Caster();
  }

  /** Casts {@code value}; never modifies it and never throws on data. */
  public JsonNode cast(JsonNode value) {
    return value;
  }
}
