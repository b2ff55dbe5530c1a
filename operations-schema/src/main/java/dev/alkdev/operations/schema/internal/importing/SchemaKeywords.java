package dev.alkdev.operations.schema.internal.importing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Where JSON Schema keeps subschemas, across drafts 04 to 2020-12 and OpenAPI. Walkers descend only
 * through these, so a property that happens to be called {@code nullable} or a {@code default}
 * value that looks like a schema is never rewritten.
 */
final class SchemaKeywords {
  /** Keywords whose value is one schema. */
  static final Set<String> SINGLE =
      Set.of(
          "additionalProperties",
          "additionalItems",
          "contains",
          "propertyNames",
          "not",
          "if",
          "then",
          "else",
          "unevaluatedItems",
          "unevaluatedProperties",
          "contentSchema");

  /** Keywords whose value is a non-empty array of schemas. */
  static final Set<String> ARRAY = Set.of("allOf", "anyOf", "oneOf", "prefixItems");

  /** Keywords whose value is an object whose every member is a schema. */
  static final Set<String> MAP =
      Set.of("properties", "patternProperties", "$defs", "definitions", "dependentSchemas");

  /** Annotations kept when a subschema is degraded or wrapped: they still help a reader. */
  static final Set<String> DESCRIPTIVE = Set.of("title", "description");

  /** Annotations that describe the value as a whole; {@code nullable} wrapping lifts them out. */
  static final Set<String> OUTER_ANNOTATIONS =
      Set.of("title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly");

  /** The {@code type} names JSON Schema knows. */
  static final Set<String> TYPES =
      Set.of("null", "boolean", "object", "array", "number", "string", "integer");

  private SchemaKeywords() {}

  /** Visits one subschema and returns what should stand in its place. */
  @FunctionalInterface
  interface SubschemaRewriter {
    JsonNode rewrite(JsonNode subschema, String pointer);
  }

  /**
   * Passes every direct subschema of {@code schema} (objects and booleans in subschema positions)
   * to {@code rewriter} and stores what it returns. Values of the wrong shape are left alone: the
   * sanitizer deals with them.
   */
  static void rewriteSubschemas(ObjectNode schema, String pointer, SubschemaRewriter rewriter) {
    List<Map.Entry<String, JsonNode>> members = new ArrayList<>(schema.properties());
    for (Map.Entry<String, JsonNode> member : members) {
      String keyword = member.getKey();
      JsonNode value = member.getValue();
      String at = pointer + "/" + escape(keyword);
      if (SINGLE.contains(keyword) || (keyword.equals("items") && !value.isArray())) {
        if (isSchema(value)) {
          schema.set(keyword, rewriter.rewrite(value, at));
        }
      } else if (ARRAY.contains(keyword) || keyword.equals("items")) {
        if (value.isArray()) {
          ArrayNode array = (ArrayNode) value;
          for (int i = 0; i < array.size(); i++) {
            if (isSchema(array.get(i))) {
              array.set(i, rewriter.rewrite(array.get(i), at + "/" + i));
            }
          }
        }
      } else if (MAP.contains(keyword) || keyword.equals("dependencies")) {
        if (value.isObject()) {
          ObjectNode map = (ObjectNode) value;
          for (Map.Entry<String, JsonNode> entry : new ArrayList<>(map.properties())) {
            if (isSchema(entry.getValue())) {
              map.set(
                  entry.getKey(),
                  rewriter.rewrite(entry.getValue(), at + "/" + escape(entry.getKey())));
            }
          }
        }
      }
    }
  }

  static boolean isSchema(JsonNode node) {
    return node.isObject() || node.isBoolean();
  }

  /** One JSON Pointer reference token (RFC 6901). */
  static String escape(String token) {
    return token.replace("~", "~0").replace("/", "~1");
  }
}
