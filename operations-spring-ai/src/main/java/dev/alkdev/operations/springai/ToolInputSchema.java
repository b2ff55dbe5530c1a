package dev.alkdev.operations.springai;

import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.schema.Schema;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The input schema a model sees for an operation. Model APIs take only object schemas for a tool's
 * parameters, so an operation whose input is anything else (a string, an array, a {@code oneOf}) is
 * offered with its input wrapped in one required property, {@value #PROPERTY}: the model sends
 * {@code {"input": "text"}} and the operation gets {@code "text"}.
 *
 * @param json the schema shown to the model
 * @param wrapped whether the operation's input sits under {@value #PROPERTY}
 */
record ToolInputSchema(ObjectNode json, boolean wrapped) {
  static final String PROPERTY = "input";

  // Keywords whose values are data, not schemas: a "$ref" inside them is not a reference.
  private static final Set<String> DATA_KEYWORDS = Set.of("const", "enum", "default", "examples");

  static ToolInputSchema of(OperationSpec spec) {
    Schema schema = spec.inputSchema();
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    if (schema.isUnknown()) {
      // The operation takes anything; an open object is the part of "anything" a model can send.
      return new ToolInputSchema(nodes.objectNode().put("type", "object"), false);
    }
    JsonNode json = schema.json();
    if (json.isObject()
        && json.path("type").isString()
        && "object".equals(json.path("type").asString())) {
      return new ToolInputSchema((ObjectNode) json.deepCopy(), false);
    }
    JsonNode inner = json.deepCopy();
    ObjectNode wrapper = nodes.objectNode();
    if (inner instanceof ObjectNode object) {
      JsonNode dialect = object.remove("$schema"); // only a resource root may name its dialect
      if (dialect != null) {
        wrapper.set("$schema", dialect);
      }
      // "#/..." pointed at the operation's schema root, which is now /properties/input. A schema
      // with its own $id stays a resource of its own, so its references still resolve.
      if (!object.has("$id")) {
        rebase(object);
      }
    }
    wrapper.put("type", "object");
    wrapper.putObject("properties").set(PROPERTY, inner);
    wrapper.putArray("required").add(PROPERTY);
    wrapper.put("additionalProperties", false);
    return new ToolInputSchema(wrapper, true);
  }

  // Keywords whose values map names to schemas: their keys are names, never keywords.
  private static final Set<String> NAME_MAPS =
      Set.of("properties", "patternProperties", "$defs", "definitions", "dependentSchemas");

  /** Points every root-relative {@code $ref} in a schema at its new place under the wrapper. */
  private static void rebase(JsonNode node) {
    rebase(node, false);
  }

  private static void rebase(JsonNode node, boolean namesMap) {
    if (node instanceof ObjectNode object) {
      for (String key : List.copyOf(object.propertyNames())) {
        JsonNode value = object.get(key);
        if (namesMap) {
          if (!(value.isObject() && value.has("$id"))) {
            rebase(value, false);
          }
        } else if (key.equals("$ref") && value.isString()) {
          String ref = value.asString();
          if (ref.equals("#") || ref.startsWith("#/")) {
            object.put(key, "#/properties/" + PROPERTY + ref.substring(1));
          }
        } else if (!DATA_KEYWORDS.contains(key) && !(value.isObject() && value.has("$id"))) {
          rebase(value, NAME_MAPS.contains(key));
        }
      }
    } else if (node.isArray()) {
      for (JsonNode element : node) {
        rebase(element, false);
      }
    }
  }
}
