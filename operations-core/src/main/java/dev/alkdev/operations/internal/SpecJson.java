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
    json.put("idempotent", spec.idempotent());
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
      throw new IllegalArgumentException(
          "a spec must be a JSON object, was "
              + (json == null
                  ? "nothing"
                  : json.getNodeType().toString().toLowerCase(Locale.ROOT)));
    }
    String[] id = id(json);
    OperationSpec.Builder builder =
        OperationSpec.builder(id[0], id[1])
            .version(text(json, "version", "1.0.0"))
            .description(text(json, "description", ""))
            .type(type(json))
            .inputSchema(schema(json, "inputSchema"))
            .outputSchema(schema(json, "outputSchema"))
            .accessControl(accessControl(json.get("accessControl")))
            .idempotent(flag(json, "idempotent"));
    return builder.build();
  }

  /**
   * Namespace and name: from their fields, or split from {@code id} when both are absent. When both
   * are given, an {@code id} must agree with them.
   */
  private static String[] id(JsonNode json) {
    JsonNode id = json.get("id");
    if (id != null && !id.isNull() && !id.isString()) {
      throw new IllegalArgumentException(
          "\"id\" must be a string, was " + id.getNodeType().toString().toLowerCase(Locale.ROOT));
    }
    boolean hasId = id != null && id.isString();
    if (hasId && absent(json, "namespace") && absent(json, "name")) {
      return OperationSpec.splitId(id.asString());
    }
    String namespace = text(json, "namespace", null);
    String name = text(json, "name", null);
    if (hasId && !id.asString().equals(namespace + "." + name)) {
      throw new IllegalArgumentException(
          "\"id\" is \""
              + id.asString()
              + "\" but namespace and name make \""
              + namespace
              + "."
              + name
              + "\"");
    }
    return new String[] {namespace, name};
  }

  private static boolean absent(JsonNode json, String field) {
    JsonNode value = json.get(field);
    return value == null || value.isNull();
  }

  private static AccessControl accessControl(JsonNode access) {
    if (access == null || access.isNull()) {
      return AccessControl.open();
    }
    JsonNode scopes = access.get("requiredScopes");
    if (!access.isObject() || (scopes != null && !scopes.isNull() && !scopes.isArray())) {
      throw new IllegalArgumentException(
          "\"accessControl\" must be {\"requiredScopes\": [\"scope\", ...]}");
    }
    Set<String> required = new LinkedHashSet<>();
    if (scopes != null) {
      for (JsonNode scope : scopes) {
        if (!scope.isString() || scope.asString().isBlank()) {
          throw new IllegalArgumentException(
              "\"accessControl.requiredScopes\" must hold non-blank strings, found " + scope);
        }
        required.add(scope.asString());
      }
    }
    return new AccessControl(required);
  }

  private static boolean flag(JsonNode json, String field) {
    JsonNode value = json.get(field);
    if (value == null || value.isNull()) {
      return false;
    }
    if (!value.isBoolean()) {
      throw new IllegalArgumentException(
          "\""
              + field
              + "\" must be true or false, was "
              + value.getNodeType().toString().toLowerCase(Locale.ROOT));
    }
    return value.booleanValue();
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
          "\""
              + field
              + "\" must be a string, was "
              + value.getNodeType().toString().toLowerCase(Locale.ROOT));
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
