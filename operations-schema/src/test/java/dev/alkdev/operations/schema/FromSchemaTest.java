package dev.alkdev.operations.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.alkdev.operations.schema.FromSchema.Dialect;
import dev.alkdev.operations.schema.internal.Json;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class FromSchemaTest {
  private ListAppender<ILoggingEvent> warnings;
  private Logger logger;

  @BeforeEach
  void captureWarnings() {
    logger = (Logger) LoggerFactory.getLogger(FromSchema.class);
    warnings = new ListAppender<>();
    warnings.start();
    logger.addAppender(warnings);
  }

  @AfterEach
  void releaseWarnings() {
    logger.detachAppender(warnings);
  }

  private List<String> warnings() {
    return warnings.list.stream()
        .filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  static JsonNode json(String text) {
    return Json.mapper().readTree(text);
  }

  static Schema convert(String schema) {
    return FromSchema.convert(json(schema));
  }

  static Schema convert30(String schema) {
    return FromSchema.convert(json(schema), Dialect.OPENAPI_3_0, SchemaOptions.defaults());
  }

  static JsonNode normalize30(String schema) {
    return FromSchema.normalize(json(schema), Dialect.OPENAPI_3_0);
  }

  static boolean valid(Schema schema, String value) {
    return schema.isValid(json(value));
  }

  /** The seeds' conversion table, row by row: each construct keeps its meaning. */
  @Nested
  class ConversionTable {
    @Test
    void allOfRequiresEveryBranch() {
      Schema schema =
          convert(
              """
              {"allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}]}
              """);
      assertThat(schema.isUnknown()).isFalse();
      assertThat(valid(schema, "{\"a\": \"x\", \"b\": 1}")).isTrue();
      assertThat(valid(schema, "{\"a\": \"x\"}")).isFalse();
      assertThat(valid(schema, "{\"a\": 1, \"b\": 1}")).isFalse();
    }

    @Test
    void anyOfAcceptsAnyBranch() {
      Schema schema = convert("{\"anyOf\": [{\"type\": \"string\"}, {\"type\": \"integer\"}]}");
      assertThat(valid(schema, "\"x\"")).isTrue();
      assertThat(valid(schema, "3")).isTrue();
      assertThat(valid(schema, "3.5")).isFalse();
    }

    @Test
    void oneOfAcceptsExactlyOneBranch() {
      Schema schema =
          convert(
              "{\"oneOf\": [{\"type\": \"integer\"}, {\"type\": \"number\", \"minimum\": 10}]}");
      assertThat(valid(schema, "3")).isTrue();
      assertThat(valid(schema, "10.5")).isTrue();
      assertThat(valid(schema, "12")).isFalse(); // matches both
      assertThat(valid(schema, "\"x\"")).isFalse();
    }

    @Test
    void enumIsAUnionOfLiterals() {
      Schema schema = convert("{\"enum\": [\"red\", 2, null, {\"k\": true}]}");
      assertThat(valid(schema, "\"red\"")).isTrue();
      assertThat(valid(schema, "2")).isTrue();
      assertThat(valid(schema, "null")).isTrue();
      assertThat(valid(schema, "{\"k\": true}")).isTrue();
      assertThat(valid(schema, "\"blue\"")).isFalse();
    }

    @Test
    void objectWithRequiredAndOptionalProperties() {
      Schema schema =
          convert(
              """
              {"type": "object",
               "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
               "required": ["name"]}
              """);
      assertThat(valid(schema, "{\"name\": \"a\"}")).isTrue();
      assertThat(valid(schema, "{\"name\": \"a\", \"age\": 3}")).isTrue();
      assertThat(schema.validate(json("{\"age\": 3}")))
          .extracting(SchemaError::keyword)
          .containsExactly("required");
      assertThat(schema.validate(json("{\"name\": \"a\", \"age\": \"3\"}")))
          .extracting(SchemaError::instancePath)
          .containsExactly("/age");
    }

    @Test
    void tupleFromArrayFormItems() {
      String draft07Style =
          """
          {"type": "array", "items": [{"type": "string"}, {"type": "integer"}],
           "additionalItems": false}
          """;
      JsonNode normalized = FromSchema.normalize(json(draft07Style), Dialect.JSON_SCHEMA);
      assertThat(normalized.get("prefixItems").size()).isEqualTo(2);
      assertThat(normalized.get("items").asBoolean()).isFalse();
      assertThat(normalized.has("additionalItems")).isFalse();

      Schema schema = FromSchema.convert(json(draft07Style));
      assertThat(valid(schema, "[\"a\", 1]")).isTrue();
      assertThat(valid(schema, "[\"a\"]")).isTrue();
      assertThat(valid(schema, "[1, \"a\"]")).isFalse();
      assertThat(valid(schema, "[\"a\", 1, 2]")).isFalse();

      Schema modern = convert("{\"prefixItems\": [{\"type\": \"string\"}], \"items\": false}");
      assertThat(valid(modern, "[\"a\"]")).isTrue();
      assertThat(valid(modern, "[\"a\", \"b\"]")).isFalse();
      assertThat(warnings()).isEmpty();
    }

    @Test
    void arrayWithItemsSchema() {
      Schema schema = convert("{\"type\": \"array\", \"items\": {\"type\": \"integer\"}}");
      assertThat(valid(schema, "[1, 2, 3]")).isTrue();
      assertThat(valid(schema, "[]")).isTrue();
      assertThat(schema.validate(json("[1, \"2\"]")))
          .extracting(SchemaError::instancePath)
          .containsExactly("/1");
    }

    @Test
    void constIsALiteral() {
      Schema schema = convert("{\"const\": {\"kind\": \"circle\"}}");
      assertThat(valid(schema, "{\"kind\": \"circle\"}")).isTrue();
      assertThat(valid(schema, "{\"kind\": \"square\"}")).isFalse();
    }

    @Test
    void refWithinTheDocument() {
      Schema schema =
          convert(
              """
              {"type": "object",
               "properties": {"home": {"$ref": "#/$defs/address"},
                              "work": {"$ref": "#/definitions/address"}},
               "$defs": {"address": {"type": "object", "required": ["city"]}},
               "definitions": {"address": {"type": "object", "required": ["city"]}}}
              """);
      assertThat(valid(schema, "{\"home\": {\"city\": \"x\"}, \"work\": {\"city\": \"y\"}}"))
          .isTrue();
      assertThat(schema.validate(json("{\"home\": {}, \"work\": {}}")))
          .extracting(SchemaError::instancePath)
          .containsExactlyInAnyOrder("/home", "/work");
      assertThat(warnings()).isEmpty();
    }

    @Test
    void scalarTypes() {
      assertThat(valid(convert("{\"type\": \"string\"}"), "\"x\"")).isTrue();
      assertThat(valid(convert("{\"type\": \"string\"}"), "1")).isFalse();
      assertThat(valid(convert("{\"type\": \"number\"}"), "1.5")).isTrue();
      assertThat(valid(convert("{\"type\": \"number\"}"), "\"1.5\"")).isFalse();
      assertThat(valid(convert("{\"type\": \"integer\"}"), "2")).isTrue();
      assertThat(valid(convert("{\"type\": \"integer\"}"), "2.5")).isFalse();
      assertThat(valid(convert("{\"type\": \"boolean\"}"), "false")).isTrue();
      assertThat(valid(convert("{\"type\": \"boolean\"}"), "0")).isFalse();
      assertThat(valid(convert("{\"type\": \"null\"}"), "null")).isTrue();
      assertThat(valid(convert("{\"type\": \"null\"}"), "0")).isFalse();
    }

    @Test
    void unrecognizedConstructsAreKeptAndConstrainNothing() {
      Schema schema = convert("{\"x-widget\": \"slider\", \"madeUpKeyword\": {\"a\": 1}}");
      assertThat(schema.isUnknown()).isFalse();
      assertThat(schema.json().get("x-widget").asString()).isEqualTo("slider");
      assertThat(valid(schema, "42")).isTrue();
      assertThat(valid(schema, "{\"any\": [\"thing\"]}")).isTrue();
      assertThat(warnings()).isEmpty();

      Schema empty = convert("{}");
      assertThat(valid(empty, "null")).isTrue();
      assertThat(FromSchema.convert(json("true")).isValid(json("1"))).isTrue();
      assertThat(FromSchema.convert(json("false")).isValid(json("1"))).isFalse();
    }
  }

  /** OpenAPI 3.0's Schema Object, rule by rule. */
  @Nested
  class OpenApi30 {
    @Test
    void documentBecomesDraft202012() {
      JsonNode normalized = normalize30("{\"type\": \"string\"}");
      assertThat(normalized.get("$schema").asString())
          .isEqualTo("https://json-schema.org/draft/2020-12/schema");
    }

    @Test
    void nullableAddsNullToType() {
      JsonNode normalized = normalize30("{\"type\": \"string\", \"nullable\": true}");
      assertThat(normalized.get("type")).isEqualTo(json("[\"string\", \"null\"]"));
      assertThat(normalized.has("nullable")).isFalse();

      Schema schema = convert30("{\"type\": \"string\", \"nullable\": true}");
      assertThat(valid(schema, "null")).isTrue();
      assertThat(valid(schema, "\"x\"")).isTrue();
      assertThat(valid(schema, "1")).isFalse();
    }

    @Test
    void nullableFalseIsDropped() {
      JsonNode normalized = normalize30("{\"type\": \"string\", \"nullable\": false}");
      assertThat(normalized.has("nullable")).isFalse();
      assertThat(valid(convert30("{\"type\": \"string\", \"nullable\": false}"), "null")).isFalse();
    }

    @Test
    void nullableAddsNullToEnum() {
      String schema = "{\"type\": \"string\", \"enum\": [\"a\", \"b\"], \"nullable\": true}";
      assertThat(normalize30(schema).get("enum")).isEqualTo(json("[\"a\", \"b\", null]"));
      assertThat(valid(convert30(schema), "null")).isTrue();
      assertThat(valid(convert30(schema), "\"c\"")).isFalse();
    }

    @Test
    void nullableNextToRefWrapsInAnyOf() {
      String schema =
          """
          {"type": "object",
           "properties": {"owner": {"$ref": "#/$defs/Person", "nullable": true,
                                    "description": "who owns it"}},
           "$defs": {"Person": {"type": "object", "required": ["name"]}}}
          """;
      JsonNode owner = normalize30(schema).at("/properties/owner");
      assertThat(owner.get("description").asString()).isEqualTo("who owns it");
      assertThat(owner.at("/anyOf/0/$ref").asString()).isEqualTo("#/$defs/Person");
      assertThat(owner.at("/anyOf/1")).isEqualTo(json("{\"type\": \"null\"}"));

      Schema converted = convert30(schema);
      assertThat(valid(converted, "{\"owner\": null}")).isTrue();
      assertThat(valid(converted, "{\"owner\": {\"name\": \"a\"}}")).isTrue();
      assertThat(valid(converted, "{\"owner\": {}}")).isFalse();
    }

    @Test
    void nullableNextToAllOfWrapsInAnyOf() {
      String schema =
          """
          {"nullable": true, "allOf": [{"type": "object", "required": ["id"]}]}
          """;
      JsonNode normalized = normalize30(schema);
      assertThat(normalized.get("$schema").asString()).contains("2020-12");
      assertThat(normalized.at("/anyOf/0/allOf/0/required/0").asString()).isEqualTo("id");

      Schema converted = convert30(schema);
      assertThat(valid(converted, "null")).isTrue();
      assertThat(valid(converted, "{\"id\": 1}")).isTrue();
      assertThat(valid(converted, "{}")).isFalse();
    }

    @Test
    void booleanExclusiveBoundsBecomeNumbers() {
      String schema =
          """
          {"type": "number", "minimum": 0, "exclusiveMinimum": true,
           "maximum": 10, "exclusiveMaximum": false}
          """;
      JsonNode normalized = normalize30(schema);
      assertThat(normalized.get("exclusiveMinimum").asInt()).isEqualTo(0);
      assertThat(normalized.has("minimum")).isFalse();
      assertThat(normalized.get("maximum").asInt()).isEqualTo(10);
      assertThat(normalized.has("exclusiveMaximum")).isFalse();

      Schema converted = convert30(schema);
      assertThat(valid(converted, "0")).isFalse();
      assertThat(valid(converted, "0.001")).isTrue();
      assertThat(valid(converted, "10")).isTrue();
      assertThat(valid(converted, "10.5")).isFalse();
    }

    @Test
    void exampleBecomesExamples() {
      JsonNode normalized = normalize30("{\"type\": \"string\", \"example\": \"doggie\"}");
      assertThat(normalized.get("examples")).isEqualTo(json("[\"doggie\"]"));
      assertThat(normalized.has("example")).isFalse();
    }

    @Test
    void openApiOnlyKeywords() {
      JsonNode normalized =
          normalize30(
              """
              {"type": "object",
               "xml": {"name": "pet"},
               "externalDocs": {"url": "https://example.com"},
               "discriminator": {"propertyName": "kind"},
               "x-internal": true,
               "properties": {
                 "id": {"type": "integer", "readOnly": true},
                 "password": {"type": "string", "writeOnly": true, "format": "password"},
                 "nullable": {"type": "string"}}}
              """);
      assertThat(normalized.has("xml")).isFalse();
      assertThat(normalized.has("externalDocs")).isFalse();
      assertThat(normalized.at("/discriminator/propertyName").asString()).isEqualTo("kind");
      assertThat(normalized.get("x-internal").asBoolean()).isTrue();
      assertThat(normalized.at("/properties/id/readOnly").asBoolean()).isTrue();
      assertThat(normalized.at("/properties/password/writeOnly").asBoolean()).isTrue();
      // A property that happens to be called "nullable" is a name, not the keyword.
      assertThat(normalized.at("/properties/nullable/type").asString()).isEqualTo("string");
    }

    @Test
    void rulesApplyAtEveryDepth() {
      JsonNode normalized =
          normalize30(
              """
              {"type": "array",
               "items": {"type": "object",
                         "properties": {"tags": {"type": "array", "nullable": true,
                                                 "items": {"type": "string", "nullable": true,
                                                           "example": "t"}}}}}
              """);
      assertThat(normalized.at("/items/properties/tags/type"))
          .isEqualTo(json("[\"array\", \"null\"]"));
      assertThat(normalized.at("/items/properties/tags/items/type"))
          .isEqualTo(json("[\"string\", \"null\"]"));
      assertThat(normalized.at("/items/properties/tags/items/examples/0").asString())
          .isEqualTo("t");
    }

    @Test
    void componentReferencesDoNotCrash() {
      String schema = "{\"$ref\": \"#/components/schemas/Pet\", \"nullable\": true}";
      JsonNode normalized = normalize30(schema);
      assertThat(normalized.at("/anyOf/0/$ref").asString()).isEqualTo("#/components/schemas/Pet");

      Schema converted = convert30(schema);
      assertThat(valid(converted, "{\"anything\": 1}")).isTrue();
      assertThat(valid(converted, "null")).isTrue();
      assertThat(warnings()).anyMatch(w -> w.contains("#/components/schemas/Pet"));
    }

    @Test
    void theArgumentIsNotChanged() {
      JsonNode original = json("{\"type\": \"string\", \"nullable\": true, \"example\": \"x\"}");
      JsonNode copy = original.deepCopy();
      FromSchema.normalize(original, Dialect.OPENAPI_3_0);
      FromSchema.convert(original, Dialect.OPENAPI_3_0, SchemaOptions.defaults());
      assertThat(original).isEqualTo(copy);
    }

    @Test
    void petstorePet() {
      String pet =
          """
          {
            "type": "object",
            "required": ["name", "photoUrls"],
            "properties": {
              "id": {"type": "integer", "format": "int64", "example": 10},
              "name": {"type": "string", "example": "doggie"},
              "category": {
                "type": "object",
                "nullable": true,
                "properties": {
                  "id": {"type": "integer", "format": "int64"},
                  "name": {"type": "string"}
                },
                "xml": {"name": "category"}
              },
              "photoUrls": {
                "type": "array",
                "xml": {"wrapped": true},
                "items": {"type": "string", "xml": {"name": "photoUrl"}}
              },
              "tags": {
                "type": "array",
                "items": {
                  "type": "object",
                  "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}
                }
              },
              "status": {
                "type": "string",
                "description": "pet status in the store",
                "enum": ["available", "pending", "sold"],
                "nullable": true
              },
              "weight": {"type": "number", "minimum": 0, "exclusiveMinimum": true}
            },
            "xml": {"name": "pet"}
          }
          """;
      Schema schema = convert30(pet);
      assertThat(schema.isUnknown()).isFalse();
      assertThat(warnings()).isEmpty();
      assertThat(
              schema.validate(
                  json(
                      """
                      {"id": 10, "name": "doggie", "category": null,
                       "photoUrls": ["https://example.com/1.png"],
                       "tags": [{"id": 1, "name": "good"}], "status": null, "weight": 3.5}
                      """)))
          .isEmpty();
      assertThat(
              schema.validate(
                  json(
                      """
                      {"name": "doggie", "photoUrls": "one", "status": "lost", "weight": 0}
                      """)))
          .extracting(SchemaError::instancePath)
          .containsExactlyInAnyOrder("/photoUrls", "/status", "/weight");
    }
  }

  @Nested
  class OpenApi31AndOlderDrafts {
    @Test
    void openApi31DialectIsDraft202012() {
      JsonNode normalized =
          FromSchema.normalize(
              json(
                  """
                  {"$schema": "https://spec.openapis.org/oas/3.1/dialect/base",
                   "type": ["string", "null"], "example": "x", "xml": {"name": "n"}}
                  """),
              Dialect.OPENAPI_3_1);
      assertThat(normalized.get("$schema").asString())
          .isEqualTo("https://json-schema.org/draft/2020-12/schema");
      assertThat(normalized.get("examples")).isEqualTo(json("[\"x\"]"));
      assertThat(normalized.has("xml")).isFalse();

      Schema schema =
          FromSchema.convert(
              json("{\"type\": [\"string\", \"null\"], \"exclusiveMinimum\": 3}"),
              Dialect.OPENAPI_3_1,
              SchemaOptions.defaults());
      assertThat(valid(schema, "null")).isTrue();
      assertThat(valid(schema, "1")).isFalse();
    }

    @Test
    void draft07StaysDraft07() {
      String schema =
          """
          {"$schema": "http://json-schema.org/draft-07/schema#",
           "type": "object",
           "properties": {"point": {"$ref": "#/definitions/pair"}},
           "definitions": {"pair": {"type": "array", "items": [{"type": "number"}, {"type": "number"}],
                                    "additionalItems": false}},
           "dependencies": {"a": ["b"]}}
          """;
      JsonNode normalized = FromSchema.normalize(json(schema), Dialect.JSON_SCHEMA);
      assertThat(normalized.get("$schema").asString())
          .isEqualTo("http://json-schema.org/draft-07/schema#");
      assertThat(normalized.at("/definitions/pair/items").isArray()).isTrue();
      assertThat(normalized.has("dependencies")).isTrue();

      Schema converted = FromSchema.convert(json(schema));
      assertThat(valid(converted, "{\"point\": [1, 2]}")).isTrue();
      assertThat(valid(converted, "{\"point\": [1, 2, 3]}")).isFalse();
      assertThat(valid(converted, "{\"point\": [1, \"2\"]}")).isFalse();
      assertThat(valid(converted, "{\"a\": 1}")).isFalse();
      assertThat(valid(converted, "{\"a\": 1, \"b\": 2}")).isTrue();
      assertThat(warnings()).isEmpty();
    }

    @Test
    void dependenciesWithout$schemaBecomeDependentKeywords() {
      JsonNode normalized =
          FromSchema.normalize(
              json("{\"dependencies\": {\"a\": [\"b\"], \"c\": {\"required\": [\"d\"]}}}"),
              Dialect.JSON_SCHEMA);
      assertThat(normalized.at("/dependentRequired/a/0").asString()).isEqualTo("b");
      assertThat(normalized.at("/dependentSchemas/c/required/0").asString()).isEqualTo("d");

      Schema schema = FromSchema.convert(normalized);
      assertThat(valid(schema, "{\"a\": 1}")).isFalse();
      assertThat(valid(schema, "{\"c\": 1}")).isFalse();
      assertThat(valid(schema, "{\"c\": 1, \"d\": 2}")).isTrue();
    }

    @Test
    void draft04BooleanBoundsAreKept() {
      String schema =
          """
          {"$schema": "http://json-schema.org/draft-04/schema#",
           "type": "number", "minimum": 5, "exclusiveMinimum": true}
          """;
      assertThat(
              FromSchema.normalize(json(schema), Dialect.JSON_SCHEMA)
                  .get("exclusiveMinimum")
                  .isBoolean())
          .isTrue();
      Schema converted = FromSchema.convert(json(schema));
      assertThat(valid(converted, "5")).isFalse();
      assertThat(valid(converted, "6")).isTrue();
    }

    @Test
    void draft07BooleanBoundsWithout$schemaAreConverted() {
      Schema schema = convert("{\"minimum\": 5, \"exclusiveMinimum\": true}");
      assertThat(valid(schema, "5")).isFalse();
      assertThat(valid(schema, "5.5")).isTrue();
      assertThat(warnings()).isEmpty();
    }

    @Test
    void mcpToolInputSchema() {
      // What zod-to-json-schema emits for an MCP tool, as MCP servers send it.
      String inputSchema =
          """
          {
            "type": "object",
            "properties": {
              "path": {"type": "string", "description": "File to read", "minLength": 1},
              "encoding": {"type": "string", "enum": ["utf-8", "base64"], "default": "utf-8"},
              "range": {
                "type": "object",
                "properties": {
                  "start": {"type": "integer", "minimum": 0},
                  "end": {"type": "integer", "exclusiveMinimum": 0}
                },
                "required": ["start"],
                "additionalProperties": false
              },
              "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5}
            },
            "required": ["path"],
            "additionalProperties": false,
            "$schema": "http://json-schema.org/draft-07/schema#"
          }
          """;
      Schema schema = convert(inputSchema);
      assertThat(schema.isUnknown()).isFalse();
      assertThat(warnings()).isEmpty();
      assertThat(schema.json().get("$schema").asString()).contains("draft-07");
      assertThat(
              schema.validate(
                  json(
                      """
                      {"path": "/tmp/a.txt", "encoding": "base64",
                       "range": {"start": 0, "end": 10}, "tags": ["x"]}
                      """)))
          .isEmpty();
      assertThat(
              schema.validate(
                  json(
                      """
                      {"path": "", "encoding": "latin1", "range": {"end": 0, "step": 1},
                       "extra": true}
                      """)))
          .extracting(SchemaError::instancePath)
          .contains("/path", "/encoding", "/range")
          .hasSizeGreaterThanOrEqualTo(5);
    }
  }

  /** Every failure kind still gives a usable schema, logged with where it was degraded. */
  @Nested
  class Leniency {
    @Test
    void unresolvableRefBecomesAnyValue() {
      Schema schema =
          convert(
              """
              {"type": "object", "required": ["a"],
               "properties": {"a": {"$ref": "#/definitions/Missing"}, "b": {"type": "integer"}}}
              """);
      assertThat(schema.isUnknown()).isFalse();
      assertThat(valid(schema, "{\"a\": \"anything\", \"b\": 1}")).isTrue();
      assertThat(valid(schema, "{\"a\": 1, \"b\": \"x\"}")).isFalse();
      assertThat(valid(schema, "{}")).isFalse();
      assertThat(warnings())
          .anyMatch(w -> w.contains("#/properties/a") && w.contains("#/definitions/Missing"));
    }

    @Test
    void refToAnotherDocumentBecomesAnyValueUnlessMapped() {
      Schema schema =
          convert("{\"properties\": {\"a\": {\"$ref\": \"https://example.com/other.json\"}}}");
      assertThat(valid(schema, "{\"a\": [1]}")).isTrue();
      assertThat(warnings()).anyMatch(w -> w.contains("points outside the document"));
    }

    @Test
    void invalidRegexIsDropped() {
      Schema schema =
          convert(
              """
              {"type": "object",
               "properties": {"code": {"type": "string", "pattern": "[unclosed"}},
               "patternProperties": {"(bad": {"type": "integer"}, "^n_": {"type": "number"}}}
              """);
      assertThat(valid(schema, "{\"code\": \"anything\"}")).isTrue();
      assertThat(valid(schema, "{\"code\": 5}")).isFalse(); // the type still holds
      assertThat(valid(schema, "{\"n_1\": \"x\"}")).isFalse(); // the valid pattern still holds
      assertThat(warnings())
          .anyMatch(w -> w.contains("#/properties/code/pattern"))
          .anyMatch(w -> w.contains("#/patternProperties/(bad"));
    }

    @Test
    void unknownMetaSchemaIsRemoved() {
      Schema schema =
          convert("{\"$schema\": \"https://example.com/my-meta\", \"type\": \"string\"}");
      assertThat(valid(schema, "\"x\"")).isTrue();
      assertThat(valid(schema, "1")).isFalse();
      assertThat(warnings()).anyMatch(w -> w.contains("unknown $schema"));
    }

    @Test
    void wrongTypedKeywordsAreDropped() {
      Schema schema =
          convert(
              """
              {"type": "object", "properties": {
                 "n": {"type": "number", "minimum": "abc", "maximum": 10},
                 "s": {"type": "string", "maxLength": -1, "minLength": 1.5},
                 "m": {"type": "number", "multipleOf": 0},
                 "u": {"type": "array", "uniqueItems": "yes"}}}
              """);
      assertThat(valid(schema, "{\"n\": -5, \"s\": \"\", \"m\": 0.3, \"u\": [1, 1]}")).isTrue();
      assertThat(valid(schema, "{\"n\": 11}")).isFalse(); // maximum kept
      assertThat(warnings())
          .anyMatch(w -> w.contains("#/properties/n/minimum"))
          .anyMatch(w -> w.contains("#/properties/s/maxLength"))
          .anyMatch(w -> w.contains("#/properties/s/minLength"))
          .anyMatch(w -> w.contains("#/properties/m/multipleOf"))
          .anyMatch(w -> w.contains("#/properties/u/uniqueItems"));
    }

    @Test
    void keywordsThatWouldRejectEverythingAreDropped() {
      // networknt compiles these, and then rejects every value (or treats "no" as false).
      Schema schema =
          convert(
              """
              {"type": "object", "additionalProperties": "no", "required": ["a", 1],
               "properties": {"a": {"type": "file"}, "b": {"enum": 5},
                              "c": {"type": ["string", "bogus"]}}}
              """);
      assertThat(valid(schema, "{\"a\": \"upload\", \"b\": 7, \"c\": \"x\", \"extra\": 1}"))
          .isTrue();
      assertThat(valid(schema, "{\"a\": 1, \"c\": 2}")).isFalse(); // "string" still holds for c
      assertThat(valid(schema, "{}")).isFalse(); // "a" is still required
      assertThat(warnings())
          .anyMatch(w -> w.contains("#/additionalProperties"))
          .anyMatch(w -> w.contains("#/required/1"))
          .anyMatch(w -> w.contains("#/properties/a/type"))
          .anyMatch(w -> w.contains("#/properties/b/enum"))
          .anyMatch(w -> w.contains("#/properties/c/type"));
    }

    @Test
    void nonSchemaSubschemasAreWidened() {
      Schema schema =
          convert(
              """
              {"type": "object",
               "properties": {"a": "string", "b": {"type": "integer"}},
               "items": 7, "not": [], "allOf": [{"required": ["b"]}, 3],
               "anyOf": [{"type": "object"}, "x"], "prefixItems": [{"type": "string"}, 1]}
              """);
      assertThat(schema.isUnknown()).isFalse();
      assertThat(valid(schema, "{\"a\": [1], \"b\": 2}")).isTrue();
      assertThat(valid(schema, "{\"b\": \"2\"}")).isFalse();
      assertThat(valid(schema, "{\"a\": 1}")).isFalse(); // allOf's valid member still holds
      assertThat(warnings())
          .anyMatch(w -> w.contains("#/properties/a"))
          .anyMatch(w -> w.contains("#/items"))
          .anyMatch(w -> w.contains("#/not"))
          .anyMatch(w -> w.contains("#/allOf/1"))
          .anyMatch(w -> w.contains("#/anyOf"))
          .anyMatch(w -> w.contains("#/prefixItems/1"));
    }

    @Test
    void nonObjectDocumentsAreUnknown() {
      for (String notASchema : List.of("\"string\"", "5", "null", "[{\"type\": \"string\"}]")) {
        Schema schema = FromSchema.convert(json(notASchema));
        assertThat(schema.isUnknown()).as(notASchema).isTrue();
        assertThat(schema.isValid(json("{\"a\": 1}"))).isTrue();
      }
      assertThat(FromSchema.convert(Json.mapper().missingNode()).isUnknown()).isTrue();
      assertThat(warnings()).hasSize(5).allMatch(w -> w.contains("Schema.unknown()"));
      assertThatThrownBy(() -> FromSchema.normalize(json("5"), Dialect.JSON_SCHEMA))
          .isInstanceOf(SchemaException.class)
          .hasMessageContaining("object or a boolean");
    }

    @Test
    void unresolvableDynamicRefIsDropped() {
      // networknt resolves $dynamicRef lazily and would throw while validating.
      Schema schema =
          convert("{\"type\": \"object\", \"properties\": {\"a\": {\"$dynamicRef\": \"#nope\"}}}");
      assertThat(valid(schema, "{\"a\": 1}")).isTrue();
      assertThat(warnings()).anyMatch(w -> w.contains("#/properties/a/$dynamicRef"));
    }

    @Test
    void whatOnlyTheCompilerRefusesIsDegradedAndRetried() {
      // The reference names an embedded resource, so the sanitizer lets it through; only the
      // compiler finds that the pointer inside it leads nowhere.
      Schema schema =
          convert(
              """
              {"$id": "http://a.example/root.json", "type": "object",
               "properties": {"p": {"$ref": "other.json#/nope"}, "q": {"type": "integer"}},
               "$defs": {"b": {"$id": "other.json", "type": "string"}}}
              """);
      assertThat(schema.isUnknown()).isFalse();
      assertThat(schema.json().at("/properties/p")).isEqualTo(json("{}"));
      assertThat(valid(schema, "{\"p\": 1, \"q\": 2}")).isTrue();
      assertThat(valid(schema, "{\"q\": \"x\"}")).isFalse();
      assertThat(warnings())
          .anyMatch(w -> w.contains("#/properties/p") && w.contains("other.json"));
    }

    @Test
    void aDocumentTheCompilerCannotLoadLeavesUnknown() {
      SchemaOptions mapped =
          SchemaOptions.builder()
              .mapPrefix("http://localhost:1234/", "file:/nonexistent-folder-for-tests/")
              .build();
      Schema schema =
          FromSchema.convert(
              json("{\"properties\": {\"p\": {\"$ref\": \"http://localhost:1234/x.json\"}}}"),
              Dialect.JSON_SCHEMA,
              mapped);
      assertThat(schema.isUnknown()).isTrue();
      assertThat(warnings()).anyMatch(w -> w.contains("does not compile"));
    }

    @Test
    void theRootItselfCanBeDegraded() {
      Schema schema =
          convert("{\"$ref\": \"#/nowhere\", \"$defs\": {\"a\": {\"type\": \"string\"}}}");
      assertThat(valid(schema, "1")).isTrue();
      assertThat(schema.json().has("$defs")).isTrue();
    }
  }

  /** Hostile documents are refused or degraded within the limits, never a crash. */
  @Nested
  class Hostile {
    @Test
    void deeplyNestedDocumentIsUnknown() {
      ObjectNode root = Json.nodes().objectNode();
      ObjectNode current = root;
      for (int i = 0; i < 20_000; i++) {
        current = current.putObject("properties").putObject("a");
      }
      Schema schema = FromSchema.convert(root);
      assertThat(schema.isUnknown()).isTrue();
      assertThat(warnings()).anyMatch(w -> w.contains("maxNestingDepth"));
    }

    @Test
    void documentOverTheSizeLimitIsUnknown() {
      ObjectNode properties = Json.nodes().objectNode();
      for (int i = 0; i < 2_000; i++) {
        properties
            .putObject("property" + i)
            .put("type", "string")
            .put("description", "x".repeat(50));
      }
      ObjectNode root = Json.nodes().objectNode();
      root.set("properties", properties);
      SchemaOptions small =
          SchemaOptions.builder()
              .limits(SchemaLimits.defaults().withMaxDocumentChars(50_000))
              .build();
      assertThat(FromSchema.convert(root, Dialect.JSON_SCHEMA, small).isUnknown()).isTrue();
      assertThat(warnings()).anyMatch(w -> w.contains("maxDocumentChars"));
      assertThat(FromSchema.convert(root).isUnknown()).isFalse();
    }

    @Test
    void refCycleCompilesAndValidationIsBounded() {
      Schema schema =
          convert("{\"$ref\": \"#/$defs/a\", \"$defs\": {\"a\": {\"$ref\": \"#/$defs/a\"}}}");
      assertThat(schema.validate(json("1")))
          .extracting(SchemaError::keyword)
          .containsExactly("limit");
    }

    @Test
    void catastrophicPatternIsStoppedByTheRegexBudget() {
      SchemaOptions fast =
          SchemaOptions.builder()
              .limits(SchemaLimits.defaults().withMaxRegexTime(Duration.ofMillis(50)))
              .build();
      Schema schema =
          FromSchema.convert(
              json("{\"type\": \"string\", \"pattern\": \"^(a+)+$\"}"), Dialect.JSON_SCHEMA, fast);
      List<SchemaError> errors = schema.validate(json("\"" + "a".repeat(40) + "!\""));
      assertThat(errors).isNotEmpty();
    }

    @Test
    void manyDegradationsAreLoggedWithASummary() {
      ObjectNode properties = Json.nodes().objectNode();
      for (int i = 0; i < 500; i++) {
        properties.putObject("p" + i).put("pattern", "[");
      }
      ObjectNode root = Json.nodes().objectNode();
      root.set("properties", properties);
      Schema schema = FromSchema.convert(root);
      assertThat(schema.isValid(json("{\"p1\": \"x\"}"))).isTrue();
      assertThat(warnings()).hasSizeLessThanOrEqualTo(101).last().asString().contains("400 more");
    }
  }

  @Test
  void aKeywordThatBreaksTheMetaSchemaLosesOnlyItselfNotTheWholeSchema() {
    // OpenAPI writers put "examples" as an object (OpenAPI's own Example map); draft 2020-12 wants
    // an array. Before, the whole output schema became "accept anything".
    Schema schema =
        convert30(
            """
            {"type": "object", "required": ["kind"],
             "examples": {"a": {"kind": "a"}},
             "properties": {"kind": {"type": "string", "examples": {"b": "x"}}}}
            """);
    assertThat(schema.isUnknown()).isFalse();
    assertThat(valid(schema, "{\"kind\": \"a\"}")).isTrue();
    assertThat(valid(schema, "{\"kind\": 5}")).isFalse();
    assertThat(valid(schema, "{}")).isFalse();
    assertThat(schema.json().has("examples")).isFalse();
    assertThat(warnings()).anyMatch(w -> w.contains("/examples") && w.contains("removed"));
  }
}
