package dev.alkdev.operations.schema.internal.importing;

import dev.alkdev.operations.schema.FromSchema;
import dev.alkdev.operations.schema.SchemaDialect;
import dev.alkdev.operations.schema.SchemaException;
import java.util.ArrayList;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Rewrites an imported schema into the draft it will be compiled as: OpenAPI 3.0's {@code
 * nullable}, boolean exclusive bounds and {@code example}; tuple {@code items} and {@code
 * dependencies} of older drafts into their 2020-12 keywords. It changes no meaning it can keep, and
 * reports nothing: what cannot be kept is the sanitizer's job.
 */
public final class SchemaNormalizer {
  /** Kept on the outside when {@code nullable} wraps a schema: they are not constraints. */
  private static final Set<String> LIFTED_WHEN_WRAPPED =
      Set.of("$schema", "$id", "$defs", "definitions", "$comment");

  private final FromSchema.Dialect dialect;
  private final Draft draft;

  private SchemaNormalizer(FromSchema.Dialect dialect, Draft draft) {
    this.dialect = dialect;
    this.draft = draft;
  }

  /**
   * A normalised copy of {@code imported}.
   *
   * @param defaultDialect the draft of a JSON Schema document without {@code $schema}
   * @throws SchemaException when {@code imported} is not a schema at all, or too deeply nested
   */
  public static JsonNode normalize(
      JsonNode imported, FromSchema.Dialect dialect, SchemaDialect defaultDialect) {
    Objects.requireNonNull(imported, "imported");
    Objects.requireNonNull(dialect, "dialect");
    if (imported.isBoolean()) {
      return imported.deepCopy();
    }
    if (!imported.isObject()) {
      throw new SchemaException(
          "A schema must be a JSON object or a boolean, was " + imported.getNodeType());
    }
    ObjectNode root = (ObjectNode) imported.deepCopy();
    Draft draft = Draft.of(defaultDialect);
    JsonNode declared = root.get("$schema");
    Optional<Draft> known =
        declared != null && declared.isString()
            ? Draft.of(declared.stringValue())
            : Optional.empty();
    switch (dialect) {
      case OPENAPI_3_0 -> {
        // A 3.0 Schema Object is its own dialect; what comes out is 2020-12.
        draft = Draft.DRAFT_2020_12;
        root = withSchemaFirst(root, draft);
      }
      case OPENAPI_3_1 -> {
        draft = known.orElse(Draft.DRAFT_2020_12);
        if (declared == null || known.isPresent()) {
          root = withSchemaFirst(root, draft);
        }
      }
      case JSON_SCHEMA -> {
        if (known.isPresent()) {
          draft = known.get();
          root.put("$schema", draft.uri());
        }
      }
    }
    try {
      return new SchemaNormalizer(dialect, draft).visit(root, "");
    } catch (StackOverflowError e) {
      throw new SchemaException("Schema is nested too deeply to normalise");
    }
  }

  private static ObjectNode withSchemaFirst(ObjectNode root, Draft draft) {
    ObjectNode result = root.objectNode();
    result.put("$schema", draft.uri());
    root.remove("$schema");
    result.setAll(root);
    return result;
  }

  /** Children first, so a wrapper made for {@code nullable} is never visited again. */
  private JsonNode visit(JsonNode node, String pointer) {
    if (!node.isObject()) {
      return node;
    }
    ObjectNode schema = (ObjectNode) node;
    SchemaKeywords.rewriteSubschemas(schema, pointer, this::visit);
    if (dialect != FromSchema.Dialect.JSON_SCHEMA) {
      openApiAnnotations(schema);
    }
    if (!draft.hasBooleanExclusiveBounds()) {
      numericExclusiveBound(schema, "exclusiveMinimum", "minimum");
      numericExclusiveBound(schema, "exclusiveMaximum", "maximum");
    }
    if (!draft.hasArrayItems()) {
      tupleItems(schema);
    }
    if (draft.hasDependentKeywords()) {
      splitDependencies(schema);
    }
    if (dialect == FromSchema.Dialect.OPENAPI_3_0) {
      return nullable(schema);
    }
    return schema;
  }

  /** {@code example} becomes {@code examples}; XML and documentation links are dropped. */
  private static void openApiAnnotations(ObjectNode schema) {
    JsonNode example = schema.remove("example");
    if (example != null) {
      JsonNode examples = schema.get("examples");
      if (examples == null) {
        schema.putArray("examples").add(example);
      } else if (examples.isArray()) {
        ((ArrayNode) examples).add(example);
      }
    }
    schema.remove("xml");
    schema.remove("externalDocs");
  }

  /** Draft-04 and OpenAPI 3.0: {@code exclusiveMinimum: true} qualifies {@code minimum}. */
  private static void numericExclusiveBound(ObjectNode schema, String exclusive, String bound) {
    JsonNode flag = schema.get(exclusive);
    if (flag == null || !flag.isBoolean()) {
      return;
    }
    schema.remove(exclusive);
    JsonNode limit = schema.get(bound);
    if (flag.booleanValue() && limit != null && limit.isNumber()) {
      schema.set(exclusive, schema.remove(bound));
    }
  }

  /**
   * Array-form {@code items} is 2020-12's {@code prefixItems}; {@code additionalItems} its items.
   */
  private static void tupleItems(ObjectNode schema) {
    JsonNode items = schema.get("items");
    if (items == null || !items.isArray() || schema.has("prefixItems")) {
      return;
    }
    schema.remove("items");
    schema.set("prefixItems", items);
    JsonNode additional = schema.remove("additionalItems");
    if (additional != null && SchemaKeywords.isSchema(additional)) {
      schema.set("items", additional);
    }
  }

  /**
   * Draft-07 {@code dependencies} is 2019-09's {@code dependentRequired} plus {@code
   * dependentSchemas}.
   */
  private static void splitDependencies(ObjectNode schema) {
    JsonNode dependencies = schema.get("dependencies");
    if (dependencies == null || !dependencies.isObject()) {
      return;
    }
    schema.remove("dependencies");
    for (Map.Entry<String, JsonNode> entry : dependencies.properties()) {
      String keyword = entry.getValue().isArray() ? "dependentRequired" : "dependentSchemas";
      JsonNode existing = schema.get(keyword);
      ObjectNode target =
          existing != null && existing.isObject()
              ? (ObjectNode) existing
              : schema.putObject(keyword);
      if (!target.has(entry.getKey())) {
        target.set(entry.getKey(), entry.getValue());
      }
    }
  }

  /**
   * OpenAPI 3.0's {@code nullable: true}: {@code null} joins {@code type} and {@code enum}. Next to
   * {@code $ref} or a combinator, adding to {@code type} would not help (the referenced or combined
   * schemas still reject null), so the schema becomes {@code anyOf: [schema, {type: null}]}.
   */
  private static JsonNode nullable(ObjectNode schema) {
    JsonNode flag = schema.remove("nullable");
    if (flag == null || !flag.isBoolean() || !flag.booleanValue()) {
      return schema;
    }
    if (schema.has("$ref") || schema.has("allOf") || schema.has("anyOf") || schema.has("oneOf")) {
      return wrapNullable(schema);
    }
    JsonNode type = schema.get("type");
    if (type != null && type.isString() && !type.stringValue().equals("null")) {
      ArrayNode types = schema.arrayNode().add(type.stringValue()).add("null");
      schema.set("type", types);
    } else if (type != null && type.isArray() && !contains(type, "null")) {
      ((ArrayNode) type).add("null");
    }
    JsonNode values = schema.get("enum");
    if (values != null && values.isArray() && !containsNull(values)) {
      ((ArrayNode) values).addNull();
    }
    return schema;
  }

  private static JsonNode wrapNullable(ObjectNode schema) {
    ObjectNode outer = schema.objectNode();
    for (String key : new ArrayList<>(schema.propertyNames())) {
      if (LIFTED_WHEN_WRAPPED.contains(key)
          || SchemaKeywords.OUTER_ANNOTATIONS.contains(key)
          || key.startsWith("x-")) {
        outer.set(key, schema.remove(key));
      }
    }
    ArrayNode anyOf = outer.putArray("anyOf");
    anyOf.add(schema);
    anyOf.addObject().put("type", "null");
    return outer;
  }

  private static boolean contains(JsonNode array, String text) {
    for (JsonNode value : array.values()) {
      if (value.isString() && value.stringValue().equals(text)) {
        return true;
      }
    }
    return false;
  }

  private static boolean containsNull(JsonNode array) {
    for (JsonNode value : array.values()) {
      if (value.isNull()) {
        return true;
      }
    }
    return false;
  }
}
