package dev.alkdev.operations.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.schema.internal.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.core.JsonPointer;
import tools.jackson.databind.JsonNode;

/** How validation reports errors, and how compilation refuses bad schemas. */
class SchemaValidationTest {

  private static JsonNode json(String text) {
    return Json.mapper().readTree(text);
  }

  @Nested
  class ErrorReporting {
    private final Schema schema =
        Schema.fromJson(
            """
            {"type": "object",
             "required": ["id"],
             "properties": {
               "id": {"type": "integer"},
               "a": {"type": "array", "items": {
                 "type": "object", "properties": {"b": {"type": "string", "minLength": 2}}}},
               "a/b": {"type": "string"},
               "c~d": {"type": "string"},
               "~/": {"type": "boolean"}
             }}""");

    @Test
    void rootErrorHasTheEmptyPointer() {
      List<SchemaError> errors = schema.validate(json("[1]"));

      assertThat(errors).extracting(SchemaError::instancePath).containsExactly("");
      assertThat(errors.get(0).keyword()).isEqualTo("type");
      assertThat(errors.get(0).message()).contains("array").contains("object");
    }

    @Test
    void nestedErrorsArePointersIntoTheValue() {
      JsonNode value =
          json("{\"id\": \"x\", \"a\": [{\"b\": \"ok\"}, {\"b\": 7}, {\"b\": \"z\"}]}");

      List<SchemaError> errors = schema.validate(value);

      assertThat(errors)
          .extracting(SchemaError::instancePath, SchemaError::keyword)
          .containsExactlyInAnyOrder(
              org.assertj.core.groups.Tuple.tuple("/id", "type"),
              org.assertj.core.groups.Tuple.tuple("/a/1/b", "type"),
              org.assertj.core.groups.Tuple.tuple("/a/2/b", "minLength"));
      assertEveryPointerResolves(value, errors);
    }

    @Test
    void keysWithSlashAndTildeAreEscapedPerRfc6901() {
      JsonNode value = json("{\"id\": 1, \"a/b\": 1, \"c~d\": 2, \"~/\": 3}");

      List<SchemaError> errors = schema.validate(value);

      assertThat(errors)
          .extracting(SchemaError::instancePath)
          .containsExactlyInAnyOrder("/a~1b", "/c~0d", "/~0~1");
      assertEveryPointerResolves(value, errors);
    }

    @Test
    void requiredErrorPointsAtTheObjectAndNamesTheProperty() {
      List<SchemaError> errors = schema.validate(json("{}"));

      assertThat(errors).hasSize(1);
      assertThat(errors.get(0).instancePath()).isEmpty();
      assertThat(errors.get(0).keyword()).isEqualTo("required");
      assertThat(errors.get(0).message()).contains("'id'");
    }

    @Test
    void messagesAreForPeopleWithoutPathPrefixes() {
      JsonNode value = json("{\"id\": \"x\", \"a\": [{\"b\": 7}], \"a/b\": 1}");

      for (SchemaError error : schema.validate(value)) {
        assertThat(error.message()).isNotBlank().doesNotStartWith("$").doesNotStartWith(":");
        assertThat(error.message()).doesNotContain("$.").doesNotContain(error.instancePath());
        assertThat(error.toString()).isEqualTo(error.instancePath() + ": " + error.message());
      }
    }

    @Test
    void falseSchemaSaysNothingIsAllowed() {
      Schema noB = Schema.fromJson("{\"properties\": {\"b\": false}}");

      List<SchemaError> errors = noB.validate(json("{\"b\": 1}"));

      assertThat(errors)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.instancePath()).isEqualTo("/b");
                assertThat(e.message()).contains("no value is allowed");
              });
      assertThat(Schema.fromJson("false").validate(json("1")))
          .singleElement()
          .satisfies(e -> assertThat(e.instancePath()).isEmpty());
    }

    @Test
    void hugeSchemaPartsQuotedInMessagesAreTruncated() {
      StringBuilder values = new StringBuilder();
      for (int i = 0; i < 5_000; i++) {
        values.append(i == 0 ? "" : ",").append('"').append("value-").append(i).append('"');
      }
      Schema bigEnum = Schema.fromJson("{\"enum\": [" + values + "]}");

      List<SchemaError> errors = bigEnum.validate(json("\"other\""));

      assertThat(errors)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.keyword()).isEqualTo("enum");
                assertThat(e.message()).hasSizeLessThan(1_100).endsWith("(truncated)");
              });
    }

    private void assertEveryPointerResolves(JsonNode value, List<SchemaError> errors) {
      assertThat(errors).isNotEmpty();
      for (SchemaError error : errors) {
        assertThat(value.at(JsonPointer.compile(error.instancePath())).isMissingNode())
            .as("pointer %s resolves in %s", error.instancePath(), value)
            .isFalse();
      }
    }
  }

  @Nested
  class Outcomes {
    private final Schema schema =
        Schema.fromJson(
            """
            {"type": "object", "properties": {
               "n": {"type": "integer", "minimum": 0},
               "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
               "kind": {"enum": ["a", "b"]}},
             "additionalProperties": false}""");

    @ParameterizedTest
    @ValueSource(
        strings = {
          "{}",
          "{\"n\": 1}",
          "{\"n\": -1}",
          "{\"n\": 1.5}",
          "{\"tags\": [\"a\", \"a\"]}",
          "{\"tags\": [\"a\", \"b\"], \"kind\": \"b\"}",
          "{\"kind\": \"c\"}",
          "{\"other\": 1}",
          "[]",
          "null",
          "\"x\""
        })
    void isValidAgreesWithValidate(String text) {
      JsonNode value = json(text);

      assertThat(schema.isValid(value)).isEqualTo(schema.validate(value).isEmpty());
    }

    @Test
    void maxErrorsTruncatesAndSaysHowManyWereLeftOut() {
      Schema strings =
          Schema.fromJson(
              "{\"items\": {\"type\": \"string\"}}",
              SchemaOptions.builder().limits(SchemaLimits.defaults().withMaxErrors(3)).build());

      List<SchemaError> errors = strings.validate(json("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"));

      assertThat(errors).hasSize(4);
      assertThat(errors.subList(0, 3))
          .extracting(SchemaError::instancePath)
          .containsExactly("/0", "/1", "/2");
      assertThat(errors.get(3).keyword()).isEqualTo("limit");
      assertThat(errors.get(3).message()).contains("7 more").contains("SchemaLimits.maxErrors");
    }
  }

  @Nested
  class Formats {
    private final JsonNode notAnEmail = json("\"not an e-mail\"");

    @Test
    void draft2020FormatIsAnAnnotationByDefault() {
      assertThat(Schema.fromJson("{\"format\": \"email\"}").validate(notAnEmail)).isEmpty();
    }

    @Test
    void formatAssertionsOptionMakesDraft2020AssertFormat() {
      Schema schema =
          Schema.fromJson(
              "{\"format\": \"email\"}", SchemaOptions.builder().formatAssertions(true).build());

      assertThat(schema.validate(notAnEmail))
          .singleElement()
          .satisfies(e -> assertThat(e.keyword()).isEqualTo("format"));
      assertThat(schema.validate(json("\"someone@example.com\""))).isEmpty();
    }

    @Test
    void draft07AssertsFormatByDefault() {
      Schema declared =
          Schema.fromJson(
              "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"format\": \"email\"}");
      Schema byDefault =
          Schema.fromJson(
              "{\"format\": \"email\"}",
              SchemaOptions.builder().defaultDialect(SchemaDialect.DRAFT_07).build());

      assertThat(declared.validate(notAnEmail)).extracting(SchemaError::keyword).contains("format");
      assertThat(byDefault.validate(notAnEmail))
          .extracting(SchemaError::keyword)
          .contains("format");
    }

    @Test
    void unknownFormatsAreAnnotations() {
      Schema schema =
          Schema.fromJson(
              "{\"format\": \"x-custom\"}", SchemaOptions.builder().formatAssertions(true).build());

      assertThat(schema.validate(json("\"anything\""))).isEmpty();
    }
  }

  @Nested
  class References {
    @Test
    void defsAreResolved() {
      Schema schema =
          Schema.fromJson(
              """
              {"$defs": {"id": {"type": "integer"}},
               "properties": {"id": {"$ref": "#/$defs/id"}}}""");

      assertThat(schema.validate(json("{\"id\": 1}"))).isEmpty();
      assertThat(schema.validate(json("{\"id\": \"1\"}")))
          .extracting(SchemaError::instancePath)
          .containsExactly("/id");
    }

    @Test
    void draft07DefinitionsAreResolved() {
      Schema schema =
          Schema.fromJson(
              """
              {"$schema": "http://json-schema.org/draft-07/schema#",
               "definitions": {"id": {"type": "integer"}},
               "properties": {"id": {"$ref": "#/definitions/id"}}}""");

      assertThat(schema.validate(json("{\"id\": 1}"))).isEmpty();
      assertThat(schema.validate(json("{\"id\": true}"))).hasSize(1);
    }

    @Test
    void recursiveSchemaValidatesATree() {
      Schema tree =
          Schema.fromJson(
              """
              {"$defs": {"node": {"type": "object", "required": ["value"],
                 "properties": {"value": {"type": "integer"},
                   "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
               "$ref": "#/$defs/node"}""");

      assertThat(
              tree.validate(
                  json(
                      "{\"value\": 1, \"children\": [{\"value\": 2, \"children\": [{\"value\":"
                          + " 3}]}]}")))
          .isEmpty();
      assertThat(
              tree.validate(
                  json("{\"value\": 1, \"children\": [{\"value\": 2, \"children\": [{}]}]}")))
          .extracting(SchemaError::instancePath, SchemaError::keyword)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("/children/0/children/0", "required"));
    }

    @Test
    void refCyclesCompile() {
      assertThatCode(() -> Schema.fromJson("{\"$ref\": \"#\"}")).doesNotThrowAnyException();
      assertThatCode(
              () ->
                  Schema.fromJson(
                      """
                      {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
                       "$ref": "#/$defs/a"}"""))
          .doesNotThrowAnyException();
    }

    @Test
    void unresolvableRefFailsCompilation() {
      assertThatThrownBy(() -> Schema.fromJson("{\"$ref\": \"#/$defs/missing\"}"))
          .isInstanceOf(SchemaException.class)
          .hasMessageContaining("/$defs/missing");
    }
  }

  @Test
  void oneSchemaValidatesFromEightThreadsAtOnce() throws Exception {
    Schema schema =
        Schema.fromJson(
            """
            {"type": "object", "required": ["n"], "properties": {
               "n": {"type": "integer", "multipleOf": 3},
               "name": {"type": "string", "pattern": "^[a-z]+$"},
               "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}}}""");
    List<JsonNode> values = new ArrayList<>();
    List<List<SchemaError>> expected = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      JsonNode value =
          json(
              "{\"n\": "
                  + i
                  + ", \"name\": \""
                  + (i % 4 == 0 ? "Bad" : "good")
                  + "\", \"tags\": [\"a\", \""
                  + (i % 5 == 0 ? "a" : "b")
                  + "\"]}");
      values.add(value);
      expected.add(schema.validate(value));
    }
    assertThat(expected).anyMatch(List::isEmpty).anyMatch(errors -> errors.size() >= 2);

    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> results = new ArrayList<>();
      for (int thread = 0; thread < 8; thread++) {
        int offset = thread;
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  int checked = 0;
                  for (int round = 0; round < 50; round++) {
                    for (int i = 0; i < values.size(); i++) {
                      int k = (i + offset * 7) % values.size();
                      assertThat(schema.validate(values.get(k))).isEqualTo(expected.get(k));
                      assertThat(schema.isValid(values.get(k)))
                          .isEqualTo(expected.get(k).isEmpty());
                      checked++;
                    }
                  }
                  return checked;
                }));
      }
      start.countDown();
      for (Future<Integer> result : results) {
        assertThat(result.get(60, TimeUnit.SECONDS)).isEqualTo(50 * values.size());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Nested
  class CompileErrors {
    @ParameterizedTest
    @ValueSource(
        strings = {"{", "{\"type\": }", "{\"type\": \"string\",}", "not json", "{'a': 1}", "{} {}"})
    void malformedJsonText(String text) {
      assertThatThrownBy(() -> Schema.fromJson(text))
          .isInstanceOf(SchemaException.class)
          .hasMessageStartingWith("Schema document is not valid JSON");
    }

    @ParameterizedTest
    @ValueSource(strings = {"[]", "3", "\"string\"", "null"})
    void nonObjectSchema(String text) {
      assertThatThrownBy(() -> Schema.fromJson(text))
          .isInstanceOf(SchemaException.class)
          .hasMessageContaining("must be a JSON object or a boolean");
    }

    @Test
    void booleanSchemasCompile() {
      assertThat(Schema.fromJson("true").validate(json("[1]"))).isEmpty();
      assertThat(Schema.fromJson("false").isValid(json("1"))).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"(", "[a-", "a{2,1}", "(?i)abc", "(?P<n>a)", "\\a", "a**", "a++"})
    void invalidRegexInPattern(String regex) {
      String schema = "{\"properties\": {\"code\": {\"pattern\": " + quote(regex) + "}}}";

      assertThatThrownBy(() -> Schema.fromJson(schema))
          .isInstanceOf(SchemaException.class)
          .hasMessageContaining("regular expression '" + regex + "'");
    }

    @Test
    void invalidRegexInPatternPropertiesKey() {
      assertThatThrownBy(() -> Schema.fromJson("{\"patternProperties\": {\"[\": {}}}"))
          .isInstanceOf(SchemaException.class)
          .hasMessageContaining("invalid regular expression '['");
    }

    @ParameterizedTest
    @ValueSource(
        strings = {
          "{\"type\": 5}|/type",
          "{\"type\": \"strin\"}|/type",
          "{\"properties\": 5}|/properties",
          "{\"properties\": {\"a\": 5}}|/properties/a",
          "{\"required\": \"a\"}|/required",
          "{\"required\": [1]}|/required/0",
          "{\"maxLength\": \"x\"}|/maxLength",
          "{\"maxLength\": -1}|/maxLength",
          "{\"minimum\": \"abc\"}|/minimum",
          "{\"pattern\": 5}|/pattern",
          "{\"items\": 5}|/items",
          "{\"enum\": 3}|/enum",
          "{\"allOf\": {}}|/allOf",
          "{\"anyOf\": []}|/anyOf",
          "{\"multipleOf\": 0}|/multipleOf",
          "{\"$ref\": 5}|/$ref",
          "{\"properties\": {\"a\": {\"items\": {\"type\": 1}}}}|/properties/a/items/type",
          "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"definitions\": 3}"
              + "|/definitions"
        })
    void keywordOfTheWrongTypeNamesThePlace(String testCase) {
      String schema = testCase.substring(0, testCase.lastIndexOf('|'));
      String place = testCase.substring(testCase.lastIndexOf('|') + 1);

      assertThatThrownBy(() -> Schema.fromJson(schema))
          .isInstanceOf(SchemaException.class)
          .hasMessageStartingWith("Invalid schema")
          .hasMessageContaining("at " + place + ":");
    }

    @Test
    void unknownKeywordsAreAllowed() {
      Schema schema = Schema.fromJson("{\"x-internal\": {\"any\": 1}, \"type\": \"string\"}");

      assertThat(schema.validate(json("\"s\""))).isEmpty();
      assertThat(schema.validate(json("1"))).hasSize(1);
    }

    private String quote(String text) {
      return Json.mapper().writeValueAsString(text);
    }
  }
}
