package dev.alkdev.operations.schema.internal;

import java.lang.reflect.Type;
import tools.jackson.databind.JsonNode;

/** Derives JSON Schema documents from Java types. STUB until the generator lands. */
public final class JavaTypeSchemas {
  private JavaTypeSchemas() {}

  public static JsonNode generate(Type type) {
    throw new UnsupportedOperationException("not yet implemented: schema of " + type);
  }
}
