package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.schema.Schema;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * An input made from an operation's input schema for {@code ops describe}'s "try:" line: the
 * required properties with a value each (the schema's {@code const}, first {@code enum} value,
 * {@code default} or first example when it gives one, else a plain value of the type within its
 * bounds). Given only when the schema accepts it, so the line shown is one that works.
 */
final class InputExample {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** How deep nested objects are followed; deeper ones are left empty. */
  private static final int MAX_DEPTH = 6;

  private final JsonNode root;

  private InputExample(JsonNode root) {
    this.root = root;
  }

  /** The example, or empty when none made from the schema is valid against it. */
  static Optional<JsonNode> of(Schema schema) {
    JsonNode example = new InputExample(schema.json()).value(schema.json(), 0);
    if (example == null) {
      example = NODES.objectNode(); // a schema that says nothing of a type: ops's default input
    }
    return schema.isValid(example) ? Optional.of(example) : Optional.empty();
  }

  /** {@code json} as one shell word: single-quoted, a single quote inside written as '\''. */
  static String shellQuoted(String json) {
    return "'" + json.replace("'", "'\\''") + "'";
  }

  private JsonNode value(JsonNode schema, int depth) {
    schema = resolve(schema, depth);
    if (schema == null || !schema.isObject()) {
      return schema != null && schema.isBoolean() && schema.asBoolean() ? NODES.objectNode() : null;
    }
    for (String given : new String[] {"const", "default"}) {
      if (schema.has(given)) {
        return schema.get(given);
      }
    }
    if (schema.path("enum").isArray() && !schema.path("enum").isEmpty()) {
      return schema.path("enum").get(0);
    }
    if (schema.path("examples").isArray() && !schema.path("examples").isEmpty()) {
      return schema.path("examples").get(0);
    }
    for (String choice : new String[] {"oneOf", "anyOf", "allOf"}) {
      if (schema.path(choice).isArray() && !schema.path(choice).isEmpty() && !schema.has("type")) {
        return value(schema.path(choice).get(0), depth + 1);
      }
    }
    String type = type(schema);
    switch (type) {
      case "object":
        return object(schema, depth);
      case "array":
        ArrayNode array = NODES.arrayNode();
        if (schema.path("minItems").asInt(0) > 0) {
          JsonNode item = value(schema.path("items"), depth + 1);
          for (int i = 0; i < schema.path("minItems").asInt(0) && i < 8; i++) {
            array.add(item == null ? NODES.nullNode() : item);
          }
        }
        return array;
      case "string":
        return NODES.stringNode(string(schema));
      case "integer":
        return NODES.numberNode(number(schema).longValue());
      case "number":
        return NODES.numberNode(number(schema));
      case "boolean":
        return NODES.booleanNode(true);
      case "null":
        return NODES.nullNode();
      default:
        return null;
    }
  }

  private ObjectNode object(JsonNode schema, int depth) {
    ObjectNode object = NODES.objectNode();
    if (depth >= MAX_DEPTH) {
      return object;
    }
    for (JsonNode name : schema.path("required")) {
      JsonNode property = schema.path("properties").path(name.asString(""));
      JsonNode value = value(property.isMissingNode() ? NODES.objectNode() : property, depth + 1);
      object.set(name.asString(""), value == null ? NODES.stringNode("text") : value);
    }
    return object;
  }

  private static String type(JsonNode schema) {
    JsonNode type = schema.path("type");
    if (type.isArray()) {
      for (JsonNode t : type) {
        if (!t.asString("").equals("null")) {
          return t.asString("");
        }
      }
    }
    if (type.isString()) {
      return type.asString();
    }
    return schema.has("properties") || schema.has("required") ? "object" : "";
  }

  private static String string(JsonNode schema) {
    String text =
        switch (schema.path("format").asString("")) {
          case "date-time" -> "2026-01-01T12:00:00Z";
          case "date" -> "2026-01-01";
          case "time" -> "12:00:00Z";
          case "email" -> "someone@example.com";
          case "uri", "url", "iri" -> "https://example.com/";
          case "uuid" -> "123e4567-e89b-12d3-a456-426614174000";
          case "ipv4" -> "127.0.0.1";
          case "ipv6" -> "::1";
          case "hostname" -> "example.com";
          default -> "text";
        };
    int min = schema.path("minLength").asInt(0);
    int max = schema.path("maxLength").asInt(Integer.MAX_VALUE);
    if (text.length() < min) {
      text = text + "x".repeat(min - text.length());
    }
    return text.length() > max ? text.substring(0, max) : text;
  }

  private static Double number(JsonNode schema) {
    if (schema.path("minimum").isNumber()) {
      return schema.path("minimum").asDouble();
    }
    if (schema.path("exclusiveMinimum").isNumber()) {
      return Math.floor(schema.path("exclusiveMinimum").asDouble()) + 1;
    }
    if (schema.path("maximum").isNumber() && schema.path("maximum").asDouble() < 1) {
      return schema.path("maximum").asDouble();
    }
    return 1.0;
  }

  /** A local {@code $ref} ({@code #/$defs/...}) followed, within the depth bound. */
  private JsonNode resolve(JsonNode schema, int depth) {
    int hops = 0;
    while (schema != null && schema.isObject() && schema.path("$ref").isString()) {
      String ref = schema.path("$ref").asString();
      if (!ref.startsWith("#") || ++hops > MAX_DEPTH || depth > MAX_DEPTH) {
        return null;
      }
      JsonNode target = root.at(ref.substring(1));
      schema = target.isMissingNode() ? null : target;
    }
    return schema;
  }
}
