package dev.alkdev.operations.codegen;

import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/** What single keywords of a schema say, any draft from 4 to 2020-12 and OpenAPI's dialects. */
final class Schemas {
  /**
   * Keywords that describe a schema without constraining its values (and {@code format}, which JSON
   * Schema makes an annotation too). A schema of only these accepts anything.
   */
  private static final Set<String> ANNOTATIONS =
      Set.of(
          "title",
          "description",
          "$comment",
          "default",
          "examples",
          "example",
          "deprecated",
          "readOnly",
          "writeOnly",
          "$schema",
          "$id",
          "id",
          "$anchor",
          "$dynamicAnchor",
          "$defs",
          "definitions",
          "externalDocs",
          "xml",
          "format",
          "contentMediaType",
          "contentEncoding",
          "nullable",
          "x-nullable",
          "components");

  /** Keywords beside a {@code $ref} that add structure: the two then combine as an allOf. */
  private static final Set<String> STRUCTURAL =
      Set.of(
          "properties",
          "additionalProperties",
          "patternProperties",
          "items",
          "prefixItems",
          "allOf",
          "anyOf",
          "oneOf",
          "enum",
          "const",
          "required");

  /** Keywords that make a schema without {@code type} an object schema. */
  private static final Set<String> OBJECT_KEYWORDS =
      Set.of(
          "properties",
          "additionalProperties",
          "patternProperties",
          "required",
          "minProperties",
          "maxProperties",
          "propertyNames");

  private Schemas() {}

  /** The {@code $ref} of a schema, if it has one. */
  static Optional<String> ref(JsonNode schema) {
    JsonNode ref = schema.isObject() ? schema.get("$ref") : null;
    return ref != null && ref.isString() ? Optional.of(ref.asString()) : Optional.empty();
  }

  /** Whether a schema with a {@code $ref} also has keywords that add structure. */
  static boolean hasStructuralSiblings(JsonNode schema) {
    for (String name : schema.propertyNames()) {
      if (STRUCTURAL.contains(name)) {
        return true;
      }
    }
    return false;
  }

  /** The names in {@code type}, in order; empty when there is no usable {@code type}. */
  static Set<String> types(JsonNode schema) {
    Set<String> out = new LinkedHashSet<>();
    JsonNode type = schema.isObject() ? schema.get("type") : null;
    if (type == null) {
      return out;
    }
    if (type.isString()) {
      out.add(type.asString());
    } else if (type.isArray()) {
      for (JsonNode t : type) {
        if (t.isString()) {
          out.add(t.asString());
        }
      }
    }
    return out;
  }

  /** {@link #types} without "null". */
  static Set<String> nonNullTypes(JsonNode schema) {
    Set<String> out = types(schema);
    out.remove("null");
    return out;
  }

  /**
   * Whether the schema itself admits null: {@code type} lists "null", OpenAPI 3.0's {@code
   * nullable: true} or Swagger's {@code x-nullable: true}, or {@code null} is among its {@code
   * enum} values.
   */
  static boolean nullable(JsonNode schema) {
    if (!schema.isObject()) {
      return false;
    }
    if (types(schema).contains("null")
        || schema.path("nullable").asBoolean(false)
        || schema.path("x-nullable").asBoolean(false)) {
      return true;
    }
    JsonNode values = schema.get("enum");
    if (values != null && values.isArray()) {
      for (JsonNode v : values) {
        if (v.isNull()) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether a schema admits nothing but null ({@code type: null}, {@code const: null}, ...). */
  static boolean onlyNull(JsonNode schema) {
    if (!schema.isObject()) {
      return false;
    }
    Set<String> types = types(schema);
    if (types.size() == 1 && types.contains("null")) {
      return true;
    }
    JsonNode constant = schema.get("const");
    if (constant != null && constant.isNull()) {
      return true;
    }
    JsonNode values = schema.get("enum");
    if (values != null && values.isArray() && !values.isEmpty()) {
      for (JsonNode v : values) {
        if (!v.isNull()) {
          return false;
        }
      }
      return true;
    }
    return false;
  }

  /** Whether a schema accepts any value: {@code true}, {@code {}}, or annotations only. */
  static boolean unconstrained(JsonNode schema) {
    if (schema.isBoolean()) {
      return schema.asBoolean();
    }
    if (!schema.isObject()) {
      return false;
    }
    for (String name : schema.propertyNames()) {
      if (!ANNOTATIONS.contains(name) && !name.startsWith("x-")) {
        return false;
      }
    }
    return true;
  }

  /** Whether a schema is about objects: {@code type} says so, or object keywords without a type. */
  static boolean objectish(JsonNode schema) {
    if (!schema.isObject()) {
      return false;
    }
    Set<String> types = nonNullTypes(schema);
    if (!types.isEmpty()) {
      return types.size() == 1 && types.contains("object");
    }
    for (String name : schema.propertyNames()) {
      if (OBJECT_KEYWORDS.contains(name)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the schema has at least one entry in {@code properties}. */
  static boolean hasProperties(JsonNode schema) {
    JsonNode properties = schema.isObject() ? schema.get("properties") : null;
    return properties != null && properties.isObject() && !properties.isEmpty();
  }

  /** The array under {@code keyword} if it is a non-empty array ({@code allOf}, {@code oneOf}). */
  static Optional<JsonNode> array(JsonNode schema, String keyword) {
    JsonNode value = schema.isObject() ? schema.get(keyword) : null;
    return value != null && value.isArray() && !value.isEmpty()
        ? Optional.of(value)
        : Optional.empty();
  }

  /**
   * The allOf branch that a schema stands for when it is the only branch that constrains anything
   * (the others only describe: {@code allOf: [{$ref: Zone}, {description: "..."}]}, a common way to
   * document a use of a schema) and the schema has no object keywords of its own; else -1. Without
   * any constraining branch, the first.
   */
  static int soleAllOfBranch(JsonNode schema) {
    JsonNode allOf = schema.get("allOf");
    if (hasOwnObjectKeywords(schema)) {
      return -1;
    }
    int sole = -1;
    for (int i = 0; i < allOf.size(); i++) {
      if (!unconstrained(allOf.get(i))) {
        if (sole >= 0) {
          return -1;
        }
        sole = i;
      }
    }
    return Math.max(sole, 0);
  }

  /** Whether the schema says something about the properties of an object by itself. */
  static boolean hasOwnObjectKeywords(JsonNode schema) {
    for (String name : OBJECT_KEYWORDS) {
      if (schema.has(name)) {
        return true;
      }
    }
    return false;
  }

  /** The schema's {@code required} names. */
  static Set<String> required(JsonNode schema) {
    Set<String> out = new LinkedHashSet<>();
    JsonNode required = schema.isObject() ? schema.get("required") : null;
    if (required != null && required.isArray()) {
      for (JsonNode name : required) {
        if (name.isString()) {
          out.add(name.asString());
        }
      }
    }
    return out;
  }

  /** A text keyword ({@code title}, {@code description}, {@code format}), or empty. */
  static String text(JsonNode schema, String keyword) {
    JsonNode value = schema.isObject() ? schema.get(keyword) : null;
    return value != null && value.isString() ? value.asString().strip() : "";
  }
}
