package dev.alkdev.operations.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.alkdev.operations.schema.internal.Json;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The cast rules of docs/schema-cast.md, one named case each in {@code cast-cases.json} (schema,
 * input, expected output, whether the output validates, and optionally whether casting the output
 * again changes it), plus the guards: input never modified, unchanged values not copied, thread
 * safety, recursion, hostile depth, ref cycles.
 */
class CastTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  static Stream<Arguments> cases() throws IOException {
    try (InputStream in = CastTest.class.getResourceAsStream("/cast-cases.json")) {
      JsonNode table = Json.mapper().readTree(in);
      List<Arguments> cases = new ArrayList<>();
      for (JsonNode entry : table.values()) {
        cases.add(Arguments.of(entry.get("name").stringValue(), entry));
      }
      return cases.stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void castsAsTheTableSays(String name, JsonNode entry) {
    Schema schema = Schema.fromJson(entry.get("schema"));
    JsonNode input = entry.get("input");
    JsonNode untouched = input.deepCopy();
    JsonNode expected = entry.get("expected");

    JsonNode result = schema.cast(input);

    // toString compares number representations and property order too
    assertThat(result.toString()).as("cast result").isEqualTo(expected.toString());
    assertThat(result).isEqualTo(expected);
    assertThat(input).as("input after cast").isEqualTo(untouched);
    if (expected.equals(input)) {
      assertThat(result).as("an unchanged value is returned, not copied").isSameAs(input);
    }
    assertThat(schema.validate(result))
        .as("validation errors of the result")
        .matches(
            errors -> errors.isEmpty() == entry.get("valid").booleanValue(),
            entry.get("valid").booleanValue() ? "no errors" : "some errors");
    // A recursive default is filled once per cast: each cast of the result fills one level more.
    if (!entry.has("idempotent") || entry.get("idempotent").booleanValue()) {
      assertThat(schema.cast(result).toString()).as("casting twice").isEqualTo(result.toString());
    }
  }

  @Test
  void theTableCoversEveryRule() throws IOException {
    assertThat(cases().count()).isGreaterThanOrEqualTo(70);
  }

  @Test
  void unknownSchemaCastsNothing() {
    JsonNode value = json("{\"a\": \"1\"}");
    assertThat(Schema.unknown().cast(value)).isSameAs(value);
  }

  @Test
  void keepsPrecisionAPrimitiveDoubleCannotHold() {
    Schema schema = Schema.fromJson("{\"type\": \"number\"}");
    JsonNode result = schema.cast(NODES.stringNode("3.141592653589793238462643383279"));
    assertThat(result.isBigDecimal()).isTrue();
    assertThat(result.decimalValue().toPlainString()).isEqualTo("3.141592653589793238462643383279");
    assertThat(schema.isValid(result)).isTrue();
  }

  @Test
  void neverModifiesANestedInputAndSharesUnchangedParts() {
    Schema schema =
        Schema.fromJson(
            """
            {"type": "object",
             "properties": {
               "keep": {"type": "object", "properties": {"x": {"type": "integer"}}},
               "fix": {"type": "array", "items": {"type": "integer"}},
               "fill": {"type": "object", "default": {"d": [1, 2]}}}}""");
    JsonNode input = json("{\"keep\": {\"x\": 1}, \"fix\": [1, \"2\"], \"drop\": {\"y\": 1}}");
    JsonNode before = input.deepCopy();

    JsonNode result = schema.cast(input);

    assertThat(input).isEqualTo(before);
    assertThat(result)
        .isEqualTo(json("{\"keep\": {\"x\": 1}, \"fix\": [1, 2], \"fill\": {\"d\": [1, 2]}}"));
    assertThat(result.get("keep")).isSameAs(input.get("keep"));
    // the default is a copy: changing the result does not change the schema
    ((ArrayNode) result.get("fill").get("d")).add(3);
    assertThat(schema.cast(json("{}")).get("fill")).isEqualTo(json("{\"d\": [1, 2]}"));
  }

  @Test
  void oneSchemaCastsFromManyThreadsAtOnce() throws Exception {
    Schema schema =
        Schema.fromJson(
            """
            {"$defs": {"node": {"type": "object",
               "properties": {"id": {"type": "integer"}, "tag": {"type": "string", "default": "t"},
                 "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                 "v": {"anyOf": [{"type": "null"}, {"type": "boolean"}, {"type": "integer"}]}}}},
             "$ref": "#/$defs/node"}""");
    List<JsonNode> inputs = new ArrayList<>();
    List<JsonNode> expected = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      JsonNode input =
          json(
              "{\"id\": \""
                  + i
                  + "\", \"x\": 1, \"v\": \""
                  + (i % 2 == 0 ? "true" : String.valueOf(i))
                  + "\", \"kids\": [{\"id\": "
                  + i
                  + ", \"v\": \"null\"}]}");
      inputs.add(input);
      expected.add(schema.cast(input));
    }
    assertThat(expected.get(2))
        .isEqualTo(
            json(
                "{\"id\": 2, \"v\": true, \"kids\": [{\"id\": 2, \"v\": null, \"tag\": \"t\"}],"
                    + " \"tag\": \"t\"}"));
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Callable<Boolean>> tasks = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        tasks.add(
            () -> {
              for (int round = 0; round < 200; round++) {
                for (int i = 0; i < inputs.size(); i++) {
                  if (!schema.cast(inputs.get(i)).equals(expected.get(i))) {
                    return false;
                  }
                }
              }
              return true;
            });
      }
      for (Future<Boolean> outcome : pool.invokeAll(tasks)) {
        assertThat(outcome.get()).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void castsARecursiveValueAllTheWayDown() {
    Schema schema =
        Schema.fromJson(
            """
            {"type": "object",
             "properties": {"n": {"type": "integer"}, "next": {"$ref": "#"}}}""");
    ObjectNode input = NODES.objectNode();
    ObjectNode cursor = input;
    for (int i = 0; i < 200; i++) {
      cursor.put("n", String.valueOf(i));
      cursor.put("junk", i);
      cursor = cursor.putObject("next");
    }
    JsonNode result = schema.cast(input);
    JsonNode level = result;
    for (int i = 0; i < 200; i++) {
      assertThat(level.get("n").isInt()).as("level %d", i).isTrue();
      assertThat(level.get("n").intValue()).isEqualTo(i);
      assertThat(level.has("junk")).isFalse();
      level = level.get("next");
    }
    assertThat(schema.validate(result)).isEmpty();
  }

  @Test
  void hostileDepthIsReturnedUnchangedPastTheLimit() {
    Schema arrays =
        Schema.fromJson(
            "{\"$defs\": {\"n\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/$defs/n\"}}},"
                + " \"$ref\": \"#/$defs/n\"}");
    Schema objects =
        Schema.fromJson("{\"type\": \"object\", \"properties\": {\"a\": {\"$ref\": \"#\"}}}");
    JsonNode deepArray = deepArray(10_000);
    JsonNode deepObject = deepObject(10_000);

    assertThat(arrays.cast(deepArray)).isSameAs(deepArray);
    assertThat(objects.cast(deepObject)).isSameAs(deepObject);
    assertThat(arrays.validate(deepArray)).extracting(SchemaError::keyword).contains("limit");
  }

  @Test
  void hostileDepthOnASmallStackDoesNotThrow() throws Exception {
    Schema objects =
        Schema.fromJson(
            "{\"type\": \"object\", \"properties\": {\"a\": {\"$ref\": \"#\"}, \"b\": {\"type\":"
                + " \"integer\"}}}");
    ObjectNode input = deepObject(5_000);
    input.put("b", "1"); // forces a copy at the top, so a failure deep down would surface
    AtomicReference<Object> outcome = new AtomicReference<>();
    Thread thread =
        new Thread(
            null,
            () -> {
              try {
                outcome.set(objects.cast(input));
              } catch (Throwable e) {
                outcome.set(e);
              }
            },
            "small-stack",
            128 * 1024);
    thread.start();
    thread.join();
    assertThat(outcome.get()).isInstanceOf(JsonNode.class);
  }

  @Test
  void refCyclesWithoutProgressEnd() {
    assertTimeoutPreemptively(
        Duration.ofSeconds(20),
        () -> {
          Schema pingPong =
              Schema.fromJson(
                  "{\"$defs\": {\"a\": {\"$ref\": \"#/$defs/b\"}, \"b\": {\"$ref\":"
                      + " \"#/$defs/a\"}}, \"$ref\": \"#/$defs/a\"}");
          JsonNode value = json("{\"x\": \"1\"}");
          assertThat(pingPong.cast(value)).isSameAs(value);

          Schema selfUnion =
              Schema.fromJson("{\"anyOf\": [{\"$ref\": \"#\"}, {\"type\": \"integer\"}]}");
          assertThat(selfUnion.cast(json("\"5\""))).isEqualTo(json("5"));

          Schema allOfSelf =
              Schema.fromJson(
                  "{\"allOf\": [{\"$ref\": \"#\"}], \"properties\": {\"a\": {\"type\":"
                      + " \"integer\"}}}");
          assertThat(allOfSelf.cast(json("{\"a\": \"1\", \"b\": 2}")))
              .isEqualTo(json("{\"a\": 1}"));
        });
  }

  @Test
  void nestedUnionsDoNotExplode() {
    // 30 levels of anyOf whose branches both recurse and both fail (required "q" or "r"): trying
    // every branch at every level would take 2^30 casts; the step budget stops the trials.
    Schema schema = Schema.fromJson(nestedUnions(30));
    ObjectNode value = deepObject(30);
    JsonNode result = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> schema.cast(value));
    assertThat(result).isEqualTo(value);
    assertThat(schema.isValid(result)).isFalse();
  }

  /** {@code $defs/l<i>}: anyOf two objects that require "q" or "r" and nest l<i-1> under "a". */
  static String nestedUnions(int levels) {
    StringBuilder defs = new StringBuilder("\"l0\": {\"type\": \"object\"}");
    for (int i = 1; i <= levels; i++) {
      String inner = "{\"$ref\": \"#/$defs/l" + (i - 1) + "\"}";
      defs.append(", \"l")
          .append(i)
          .append("\": {\"anyOf\": [")
          .append("{\"type\": \"object\", \"required\": [\"q\"], \"properties\": {\"a\": ")
          .append(inner)
          .append("}}, {\"type\": \"object\", \"required\": [\"r\"], \"properties\": {\"a\": ")
          .append(inner)
          .append("}}]}");
    }
    return "{\"$defs\": {" + defs + "}, \"$ref\": \"#/$defs/l" + levels + "\"}";
  }

  @Test
  void valuesUnderAReferenceToAnotherDocumentAreKept() {
    // the validator knows the 2020-12 meta-schema; the cast plan covers this document only
    Schema schema =
        Schema.fromJson(
            "{\"properties\": {\"s\": {\"$ref\": \"https://json-schema.org/draft/2020-12/schema\"},"
                + " \"b\": {\"type\": \"integer\"}}}");
    JsonNode result = schema.cast(json("{\"s\": {\"type\": 5, \"x\": 1}, \"b\": \"2\", \"c\": 3}"));
    assertThat(result).isEqualTo(json("{\"s\": {\"type\": 5, \"x\": 1}, \"b\": 2}"));
    assertThat(schema.validate(result))
        .isNotEmpty()
        .allMatch(e -> e.instancePath().startsWith("/s"));
  }

  @Test
  void partsDeeperThanTheEvaluationDepthAreKept() {
    SchemaOptions options =
        SchemaOptions.builder().limits(SchemaLimits.defaults().withMaxEvaluationDepth(2)).build();
    Schema schema =
        Schema.fromJson(
            "{\"properties\": {\"n\": {\"type\": \"integer\"}, \"next\": {\"$ref\": \"#\"}}}",
            options);
    JsonNode input =
        json("{\"n\": \"0\", \"next\": {\"n\": \"1\", \"next\": {\"n\": \"2\", \"x\": 0}}}");
    // depth 0 is the value, 2 the innermost object (still cast), 3 its members (kept as they are)
    assertThat(schema.cast(input))
        .isEqualTo(json("{\"n\": 0, \"next\": {\"n\": 1, \"next\": {\"n\": \"2\"}}}"));
  }

  @Test
  void catastrophicPatternDoesNotHang() {
    Schema schema =
        Schema.fromJson(
            "{\"properties\": {\"id\": {}}, \"patternProperties\": {\"^(a+){1,50}$\":"
                + " {\"type\": \"integer\"}}}");
    String hostile = "a".repeat(40) + "!";
    JsonNode input = json("{\"id\": 1, \"" + hostile + "\": \"5\"}");
    JsonNode result = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> schema.cast(input));
    // the match could not be decided in time, so the property is kept untouched
    assertThat(result).isEqualTo(input);
  }

  private static JsonNode json(String text) {
    return Json.mapper().readTree(text);
  }

  private static JsonNode deepArray(int depth) {
    ArrayNode root = NODES.arrayNode();
    ArrayNode cursor = root;
    for (int i = 0; i < depth; i++) {
      cursor = cursor.addArray();
    }
    return root;
  }

  private static ObjectNode deepObject(int depth) {
    ObjectNode root = NODES.objectNode();
    ObjectNode cursor = root;
    for (int i = 0; i < depth; i++) {
      cursor = cursor.putObject("a");
    }
    return root;
  }

  @Test
  void aDraft7DefaultDialectIgnoresKeywordsBesideRefAsValidationDoes() {
    String document =
        "{\"properties\": {\"a\": {\"$ref\": \"#/definitions/n\", \"type\": \"string\"}},"
            + " \"definitions\": {\"n\": {\"type\": \"integer\"}}}";
    JsonNode value = Json.mapper().readTree("{\"a\": \"5\"}");
    Schema draft7 =
        Schema.fromJson(
            document, SchemaOptions.builder().defaultDialect(SchemaDialect.DRAFT_07).build());
    JsonNode cast = draft7.cast(value);
    assertThat(cast).isEqualTo(Json.mapper().readTree("{\"a\": 5}"));
    assertThat(draft7.validate(cast)).isEmpty();
  }
}
