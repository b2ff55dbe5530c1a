package dev.alkdev.operations.internal;

import dev.alkdev.operations.AccessControl;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaException;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The JSON form of a spec, as spec files and the wire carry it. */
public final class SpecJson {
  private SpecJson() {}

  public static ObjectNode toJson(OperationSpec spec) {
    ObjectNode json = Json.nodes().objectNode();
    json.put("id", spec.id());
    json.put("namespace", spec.namespace());
    json.put("name", spec.name());
    json.put("version", spec.version());
    json.put("type", spec.type().name());
    json.put("description", spec.description());
    json.set("inputSchema", spec.inputSchema().json());
    json.set("outputSchema", spec.outputSchema().json());
    ArrayNode scopes = json.putObject("accessControl").putArray("requiredScopes");
    spec.accessControl().requiredScopes().stream().sorted().forEach(scopes::add);
    return json;
  }

  /**
   * Reads a spec; unknown fields are ignored ({@code handler}, say, in files shared with the
   * TypeScript original).
   *
   * @throws IllegalArgumentException naming the field that is missing or wrong
   */
  public static OperationSpec fromJson(JsonNode json) {
    if (json == null || !json.isObject()) {
      throw new IllegalArgumentException("a spec must be a JSON object");
    }
    String namespace = text(json, "namespace", null);
    String name = text(json, "name", null);
    if (json.has("id") && !json.get("id").asString("").equals(namespace + "." + name)) {
      throw new IllegalArgumentException(
          "\"id\" is " + json.get("id") + " but namespace and name make " + namespace + "." + name);
    }
    OperationSpec.Builder builder =
        OperationSpec.builder(namespace, name)
            .version(text(json, "version", "1.0.0"))
            .description(text(json, "description", ""))
            .type(type(json))
            .inputSchema(schema(json, "inputSchema"))
            .outputSchema(schema(json, "outputSchema"));
    JsonNode access = json.get("accessControl");
    if (access != null && !access.isNull()) {
      JsonNode scopes = access.get("requiredScopes");
      if (!access.isObject() || (scopes != null && !scopes.isArray())) {
        throw new IllegalArgumentException(
            "\"accessControl\" must be {\"requiredScopes\": [\"scope\", ...]}");
      }
      Set<String> required = new LinkedHashSet<>();
      if (scopes != null) {
        for (JsonNode scope : scopes) {
          if (!scope.isString()) {
            throw new IllegalArgumentException(
                "\"accessControl.requiredScopes\" must hold strings");
          }
          required.add(scope.asString());
        }
      }
      builder.accessControl(new AccessControl(required));
    }
    return builder.build();
  }

  private static String text(JsonNode json, String field, String fallback) {
    JsonNode value = json.get(field);
    if (value == null || value.isNull()) {
      if (fallback == null) {
        throw new IllegalArgumentException("\"" + field + "\" is missing");
      }
      return fallback;
    }
    if (!value.isString()) {
      throw new IllegalArgumentException(
          "\"" + field + "\" must be a string, was " + value.getNodeType());
    }
    return value.asString();
  }

  private static OperationType type(JsonNode json) {
    String type = text(json, "type", "QUERY");
    try {
      return OperationType.valueOf(type.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "\"type\" must be QUERY, MUTATION or SUBSCRIPTION, was \"" + type + "\"");
    }
  }

  private static Schema schema(JsonNode json, String field) {
    JsonNode value = json.get(field);
    if (value == null || value.isNull()) {
      return Schema.unknown();
    }
    if (value.isObject() && value.isEmpty()) {
      return Schema.unknown();
    }
    try {
      return Schema.fromJson(value);
    } catch (SchemaException e) {
      throw new IllegalArgumentException("\"" + field + "\": " + e.getMessage(), e);
    }
  }
}
