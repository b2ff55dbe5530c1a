package dev.alkdev.operations.schema.internal;

import dev.alkdev.operations.schema.Schema;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/** The schema {@code {}}: every value matches and nothing is cast. */
public final class UnknownSchema implements Schema {
  public static final UnknownSchema INSTANCE = new UnknownSchema();

  private static final JsonNode DOCUMENT = JsonNodeFactory.instance.objectNode();

  private UnknownSchema() {}

  @Override
  public JsonNode json() {
    return DOCUMENT;
  }

  @Override
  public boolean isUnknown() {
    return true;
  }

  @Override
  public List<dev.alkdev.operations.schema.SchemaError> validate(JsonNode value) {
    return List.of();
  }

  @Override
  public boolean isValid(JsonNode value) {
    return true;
  }

  @Override
  public JsonNode cast(JsonNode value) {
    return value;
  }

  @Override
  public String toString() {
    return "Schema.unknown()";
  }
}
