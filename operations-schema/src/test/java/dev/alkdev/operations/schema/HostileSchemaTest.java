package dev.alkdev.operations.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.alkdev.operations.schema.internal.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Schemas and values built to hurt: every case must end, within a generous bound, in a definite
 * answer, a {@code "limit"} error or a {@link SchemaException}; never a hang, a crash or a fetch.
 * The bounds prove "does not hang", not speed.
 */
class HostileSchemaTest {
  private static final Duration BOUND = Duration.ofSeconds(5);

  private static <T> T bounded(Supplier<T> work) {
    return assertTimeoutPreemptively(BOUND, work::get);
  }

  private static JsonNode json(String text) {
    return Json.mapper().readTree(text);
  }

  private static String quote(String text) {
    return Json.mapper().writeValueAsString(text);
  }

  @Nested
  class CatastrophicPatterns {
    private static final String A30 = "a".repeat(30) + "!";

    /** Patterns that backtrack exponentially (or polynomially of high degree) on A30. */
    @ParameterizedTest
    @ValueSource(
        strings = {"^(a+)+$", "^(a+){1,50}$", "(a|aa)+$", "^(\\w+\\s?)*$", "^(((a+)+)+)+$"})
    void inPatternTheAnswerIsDefiniteOrALimit(String regex) {
      Schema schema = Schema.fromJson("{\"pattern\": " + quote(regex) + "}");

      List<SchemaError> errors = bounded(() -> schema.validate(Json.nodes().stringNode(A30)));

      // None of these patterns matches A30, so the value is invalid either way.
      assertThat(errors).singleElement().satisfies(e -> assertDefiniteOrLimit(e, "pattern"));
      assertThat(bounded(() -> schema.isValid(Json.nodes().stringNode(A30)))).isFalse();
    }

    @ParameterizedTest
    @ValueSource(
        strings = {"^(a+)+$", "^(a+){1,50}$", "(a|aa)+$", "^(\\w+\\s?)*$", "^(((a+)+)+)+$"})
    void inPatternPropertiesKeysTheAnswerIsDefiniteOrALimit(String regex) {
      // A matching key would have to be a string, an unmatched one must not exist at all.
      Schema schema =
          Schema.fromJson(
              "{\"patternProperties\": {"
                  + quote(regex)
                  + ": {\"type\": \"string\"}}, \"additionalProperties\": false}");

      List<SchemaError> errors = bounded(() -> schema.validate(json("{" + quote(A30) + ": 1}")));

      assertThat(errors)
          .singleElement()
          .satisfies(e -> assertDefiniteOrLimit(e, "additionalProperties"));
    }

    @ParameterizedTest
    @ValueSource(
        strings = {"^(a+)+$", "^(a+){1,50}$", "(a|aa)+$", "^(\\w+\\s?)*$", "^(((a+)+)+)+$"})
    void inPropertyNamesTheAnswerIsDefiniteOrALimit(String regex) {
      Schema schema = Schema.fromJson("{\"propertyNames\": {\"pattern\": " + quote(regex) + "}}");

      List<SchemaError> errors = bounded(() -> schema.validate(json("{" + quote(A30) + ": 1}")));

      assertThat(errors).singleElement().satisfies(e -> assertDefiniteOrLimit(e, "propertyNames"));
    }

    @Test
    void theDeadlineTripsOnAPatternTheJdkCannotFinish() {
      // On the JDK engine this match runs for minutes; the guard stops it after regexTimeout.
      Schema schema = Schema.fromJson("{\"pattern\": \"^(a+){1,50}$\"}");

      List<SchemaError> errors = bounded(() -> schema.validate(Json.nodes().stringNode(A30)));

      assertThat(errors)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.keyword()).isEqualTo("limit");
                assertThat(e.message())
                    .contains("'^(a+){1,50}$'")
                    .contains("100 ms")
                    .contains("31-character")
                    .contains("SchemaLimits.regexTimeout");
              });
    }

    @Test
    void theDeadlineGuardsShortInputsToo() {
      // Four nested quantifiers take seconds on 16 characters; no input is too short to guard.
      Schema schema = Schema.fromJson("{\"pattern\": \"^(((a+)+)+)+$\"}");
      JsonNode sixteen = Json.nodes().stringNode("a".repeat(15) + "!");

      List<SchemaError> errors = bounded(() -> schema.validate(sixteen));

      assertThat(errors)
          .singleElement()
          .satisfies(e -> assertThat(e.keyword()).isEqualTo("limit"))
          .satisfies(e -> assertThat(e.message()).contains("16-character"));
    }

    @Test
    void theRegexTimeoutIsConfigurable() {
      SchemaOptions patient =
          SchemaOptions.builder()
              .limits(SchemaLimits.defaults().withRegexTimeout(Duration.ofMillis(20)))
              .build();
      Schema schema = Schema.fromJson("{\"pattern\": \"^(a+){1,50}$\"}", patient);

      List<SchemaError> errors = bounded(() -> schema.validate(Json.nodes().stringNode(A30)));

      assertThat(errors).singleElement().satisfies(e -> assertThat(e.message()).contains("20 ms"));
    }

    @Test
    void aMatchThatWouldExhaustTheStackIsALimit() {
      // The JDK matcher recurses once per repetition of (a|b); 200,000 of them overflow it.
      Schema schema = Schema.fromJson("{\"pattern\": \"^(a|b)*$\"}");
      JsonNode value = Json.nodes().stringNode("ab".repeat(100_000));

      List<SchemaError> errors = bounded(() -> schema.validate(value));

      assertThat(errors)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.keyword()).isEqualTo("limit");
                assertThat(e.message()).contains("'^(a|b)*$'");
              });
    }

    @Test
    void aLongRegexValueUnderFormatRegexCompilesQuickly() {
      // Pattern.compile is quadratic in a leading literal; format "regex" compiles caller data.
      Schema schema =
          Schema.fromJson(
              "{\"format\": \"regex\"}", SchemaOptions.builder().formatAssertions(true).build());

      assertThat(bounded(() -> schema.validate(Json.nodes().stringNode("a".repeat(200_000)))))
          .isEmpty();
    }

    private void assertDefiniteOrLimit(SchemaError error, String definiteKeyword) {
      assertThat(error.keyword()).isIn(definiteKeyword, "limit");
      if (error.keyword().equals("limit")) {
        assertThat(error.message()).contains("SchemaLimits.regexTimeout");
      }
    }
  }

  @Nested
  class DeepValues {
    private static final int DEPTH = 10_000;

    @ParameterizedTest
    @ValueSource(
        strings = {
          "{}",
          "true",
          "{\"type\": \"array\"}",
          "{\"type\": [\"array\", \"object\"]}",
          "{\"uniqueItems\": true}",
          "{\"enum\": [1, [1]]}",
          "{\"$defs\": {\"n\": {\"type\": [\"array\", \"object\", \"integer\"],"
              + " \"items\": {\"$ref\": \"#/$defs/n\"},"
              + " \"additionalProperties\": {\"$ref\": \"#/$defs/n\"}}}, \"$ref\": \"#/$defs/n\"}"
        })
    void deepArraysAndObjectsAreALimitErrorNotAStackOverflow(String schemaText) {
      Schema schema = Schema.fromJson(schemaText);

      for (JsonNode value : List.of(nestedArrays(DEPTH), nestedObjects(DEPTH))) {
        List<SchemaError> errors = bounded(() -> schema.validate(value));

        assertThat(errors)
            .singleElement()
            .satisfies(
                e -> {
                  assertThat(e.keyword()).isEqualTo("limit");
                  assertThat(e.message()).contains("SchemaLimits.maxEvaluationDepth");
                });
        assertThat(bounded(() -> schema.isValid(value))).isFalse();
      }
    }

    @Test
    void aValueJustWithinTheDepthLimitIsValidated() {
      Schema recursive =
          Schema.fromJson(
              "{\"$defs\": {\"n\": {\"type\": [\"array\", \"integer\"],"
                  + " \"items\": {\"$ref\": \"#/$defs/n\"}}}, \"$ref\": \"#/$defs/n\"}");

      assertThat(bounded(() -> recursive.validate(nestedArrays(50)))).isEmpty();
      assertThat(Schema.fromJson("{}").validate(nestedArrays(500))).isEmpty();
    }

    @Test
    void theBoundedMapperRefusesDeepJsonText() {
      String text = "[".repeat(DEPTH) + "]".repeat(DEPTH);

      assertThatThrownBy(() -> Json.boundedMapper(500, 1_000_000).readTree(text))
          .isInstanceOf(JacksonException.class)
          .hasMessageContaining("nesting depth")
          .hasMessageContaining("500");
    }

    private JsonNode nestedArrays(int depth) {
      JsonNode node = Json.nodes().numberNode(1);
      for (int i = 0; i < depth; i++) {
        ArrayNode array = Json.nodes().arrayNode();
        array.add(node);
        node = array;
      }
      return node;
    }

    private JsonNode nestedObjects(int depth) {
      JsonNode node = Json.nodes().numberNode(1);
      for (int i = 0; i < depth; i++) {
        ObjectNode object = Json.nodes().objectNode();
        object.set("a", node);
        node = object;
      }
      return node;
    }
  }

  @Nested
  class ExplodingSchemas {
    @ParameterizedTest
    @ValueSource(
        strings = {
          "{\"$ref\": \"#\"}",
          "{\"$defs\": {\"a\": {\"$ref\": \"#/$defs/b\"}, \"b\": {\"$ref\": \"#/$defs/a\"}},"
              + " \"$ref\": \"#/$defs/a\"}",
          "{\"$defs\": {\"a\": {\"allOf\": [{\"$ref\": \"#/$defs/a\"}]}}, \"$ref\": \"#/$defs/a\"}"
        })
    void refCyclesCompileAndStopWithALimit(String text) {
      Schema schema = bounded(() -> Schema.fromJson(text));

      for (JsonNode value : List.of(json("1"), json("{\"a\": [1]}"))) {
        assertThat(bounded(() -> schema.validate(value)))
            .singleElement()
            .satisfies(e -> assertThat(e.keyword()).isEqualTo("limit"));
        assertThat(bounded(() -> schema.isValid(value))).isFalse();
      }
    }

    @Test
    void anExponentialAnyOfHitsTheStepLimit() {
      Schema schema = Schema.fromJson(nestedAnyOf(30));

      List<SchemaError> errors = bounded(() -> schema.validate(json("5")));

      assertThat(errors)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.keyword()).isEqualTo("limit");
                assertThat(e.message()).contains("SchemaLimits.maxEvaluationSteps");
              });
    }

    @Test
    void theStepLimitIsConfigurable() {
      SchemaOptions tight =
          SchemaOptions.builder()
              .limits(SchemaLimits.defaults().withMaxEvaluationSteps(1_000))
              .build();
      Schema small = Schema.fromJson(nestedAnyOf(5), tight);
      Schema large = Schema.fromJson(nestedAnyOf(12), tight);

      // 2^5 paths fit in 1,000 steps, 2^12 do not.
      assertThat(small.validate(json("\"text\""))).isEmpty();
      assertThat(small.validate(json("5")))
          .isNotEmpty()
          .noneMatch(e -> e.keyword().equals("limit"));
      assertThat(large.validate(json("5")))
          .singleElement()
          .satisfies(e -> assertThat(e.message()).contains("1000 evaluation steps"));
    }

    /** anyOf nested {@code levels} deep, both branches referring to the next level. */
    private String nestedAnyOf(int levels) {
      StringBuilder defs = new StringBuilder("{\"$ref\": \"#/$defs/l0\", \"$defs\": {");
      for (int i = 0; i < levels; i++) {
        String next = "{\"$ref\": \"#/$defs/l" + (i + 1) + "\"}";
        defs.append("\"l").append(i).append("\": {\"anyOf\": [").append(next).append(", ");
        defs.append(next).append("]}, ");
      }
      return defs.append("\"l").append(levels).append("\": {\"type\": \"string\"}}}").toString();
    }
  }

  @Nested
  class OversizedSchemas {
    @Test
    void textLongerThanMaxDocumentCharsIsRefusedUntilTheLimitIsRaised() {
      String text = "{\"enum\": [" + "\"value\",".repeat(2_000) + "\"last\"]}";
      SchemaLimits small = SchemaLimits.defaults().withMaxDocumentChars(10_000);

      assertThatThrownBy(() -> Schema.fromJson(text, SchemaOptions.builder().limits(small).build()))
          .isInstanceOf(SchemaException.class)
          .hasMessageContaining("10000")
          .hasMessageContaining("SchemaLimits.maxDocumentChars");
      SchemaOptions raised =
          SchemaOptions.builder().limits(small.withMaxDocumentChars(100_000)).build();
      assertThat(Schema.fromJson(text, raised).isValid(json("\"last\""))).isTrue();
    }

    @Test
    void theDefaultLimitRefusesAFiveMegabyteDocument() {
      String text = "{\"description\": \"" + "x".repeat(5 * 1024 * 1024) + "\"}";

      assertThatThrownBy(() -> Schema.fromJson(text))
          .isInstanceOf(SchemaException.class)
          .hasMessageContaining("SchemaLimits.maxDocumentChars");
    }

    @Test
    void aTreeDeeperThanMaxNestingDepthIsRefusedUntilTheLimitIsRaised() {
      JsonNode deep = nestedItems(60); // 60 schema levels: 60 levels of JSON objects
      SchemaLimits shallow = SchemaLimits.defaults().withMaxNestingDepth(50);

      assertThatThrownBy(
              () -> Schema.fromJson(deep, SchemaOptions.builder().limits(shallow).build()))
          .isInstanceOf(SchemaException.class)
          .hasMessageContaining("50 levels")
          .hasMessageContaining("SchemaLimits.maxNestingDepth");
      SchemaOptions raised =
          SchemaOptions.builder().limits(shallow.withMaxNestingDepth(100)).build();
      assertThat(Schema.fromJson(deep, raised).isValid(json("[[1]]"))).isTrue();
    }

    @Test
    void aTenThousandLevelTreeOrTextIsRefusedWithoutAStackOverflow() {
      String text = "{\"items\": ".repeat(10_000) + "{}" + "}".repeat(10_000);

      assertThatThrownBy(() -> bounded(() -> Schema.fromJson(nestedItems(10_000))))
          .isInstanceOf(SchemaException.class)
          .hasMessageContaining("SchemaLimits.maxNestingDepth");
      assertThatThrownBy(() -> bounded(() -> Schema.fromJson(text)))
          .isInstanceOf(SchemaException.class)
          .hasMessageContaining("nested deeper than 500 levels")
          .hasMessageContaining("SchemaLimits.maxNestingDepth");
    }

    private JsonNode nestedItems(int depth) {
      ObjectNode node = Json.nodes().objectNode();
      for (int i = 1; i < depth; i++) {
        ObjectNode parent = Json.nodes().objectNode();
        parent.set("items", node);
        node = parent;
      }
      return node;
    }
  }

  @Nested
  class ForbiddenLocations {
    @TempDir Path dir;

    @ParameterizedTest
    @ValueSource(
        strings = {
          "{\"$ref\": \"file:/etc/passwd\"}",
          "{\"$ref\": \"file:///etc/passwd#/x\"}",
          "{\"$ref\": \"http://169.254.169.254/latest/meta-data/\"}",
          "{\"$ref\": \"jar:file:/tmp/x.jar!/schema.json\"}",
          "{\"$id\": \"http://169.254.169.254/latest/\", \"$ref\": \"meta-data\"}",
          "{\"$id\": \"file:/etc/\", \"properties\": {\"a\": {\"$ref\": \"passwd\"}}}",
          "{\"$schema\": \"http://169.254.169.254/schema\"}"
        })
    void hostileReferencesAreRefusedBeforeAnythingIsRead(String text) {
      assertThatThrownBy(() -> bounded(() -> Schema.fromJson(text)))
          .isInstanceOf(SchemaException.class)
          .satisfies(
              e ->
                  assertThat(e.getMessage())
                      .containsAnyOf("refused to load", "Failed to load dialect"))
          .hasMessageContaining(text.contains("169.254") ? "169.254.169.254" : "file:");
    }

    @Test
    void defaultOptionsFetchNothingFromTheNetwork() throws IOException {
      writeSchema("integer.json", "{\"type\": \"integer\"}");
      try (LoopbackServer server = LoopbackServer.serving(dir)) {
        String ref = server.baseUrl() + "integer.json";

        assertThatThrownBy(() -> Schema.fromJson("{\"$ref\": " + quote(ref) + "}"))
            .isInstanceOf(SchemaException.class)
            .hasMessageContaining("refused to load '" + ref + "'")
            .hasMessageContaining("SchemaOptions.Builder.mapPrefix");
        assertThatThrownBy(() -> Schema.fromJson("{\"$schema\": " + quote(ref) + "}"))
            .isInstanceOf(SchemaException.class);
        assertThat(server.requests()).isEmpty();
      }
    }

    @Test
    void aMappingFetchesOnlyBelowItsTarget() throws IOException {
      writeSchema("schemas/integer.json", "{\"type\": \"integer\"}");
      writeSchema("secret/string.json", "{\"type\": \"string\"}");
      try (LoopbackServer server = LoopbackServer.serving(dir)) {
        SchemaOptions options =
            SchemaOptions.builder()
                .mapPrefix("https://schemas.example.com/", server.baseUrl() + "schemas/")
                .build();

        Schema mapped =
            Schema.fromJson("{\"$ref\": \"https://schemas.example.com/integer.json\"}", options);
        assertThat(mapped.isValid(json("1"))).isTrue();
        assertThat(mapped.isValid(json("\"1\""))).isFalse();

        for (String escape :
            List.of(
                "https://schemas.example.com/../secret/string.json",
                "https://schemas.example.com/%2e%2e/secret/string.json",
                "https://other.example.com/secret/string.json")) {
          assertThatThrownBy(() -> Schema.fromJson("{\"$ref\": " + quote(escape) + "}", options))
              .as(escape)
              .isInstanceOf(SchemaException.class);
        }
        assertThat(server.requests()).containsExactly("/schemas/integer.json");
      }
    }

    @Test
    void aFileMappingServesItsFolderAndNothingAboveIt() throws IOException {
      writeSchema("schemas/integer.json", "{\"type\": \"integer\"}");
      writeSchema("secret/string.json", "{\"type\": \"string\"}");
      SchemaOptions options =
          SchemaOptions.builder()
              .mapPrefix("https://schemas.example.com/", dir.resolve("schemas").toUri() + "")
              .build();

      assertThat(
              Schema.fromJson("{\"$ref\": \"https://schemas.example.com/integer.json\"}", options)
                  .isValid(json("2")))
          .isTrue();
      for (String escape :
          List.of(
              "https://schemas.example.com/../secret/string.json",
              "https://schemas.example.com/%2e%2e/secret/string.json",
              dir.resolve("schemas").toUri() + "../secret/string.json")) {
        assertThatThrownBy(() -> Schema.fromJson("{\"$ref\": " + quote(escape) + "}", options))
            .as(escape)
            .isInstanceOf(SchemaException.class);
      }
    }

    @Test
    void aFileMappingWrittenWithDotSegmentsServesItsFolder() throws IOException {
      writeSchema("schemas/integer.json", "{\"type\": \"integer\"}");
      writeSchema("other/string.json", "{\"type\": \"string\"}");
      // A relative path made absolute keeps its "..": the mapping must still match.
      String target = dir.resolve("other").toUri() + "../schemas/";
      SchemaOptions options =
          SchemaOptions.builder().mapPrefix("https://schemas.example.com/", target).build();

      assertThat(
              Schema.fromJson("{\"$ref\": \"https://schemas.example.com/integer.json\"}", options)
                  .isValid(json("2")))
          .isTrue();
    }

    @Test
    void redirectsAreNotFollowed() throws IOException {
      writeSchema("secret/string.json", "{\"type\": \"string\"}");
      try (LoopbackServer server =
          LoopbackServer.serving(dir).redirect("/schemas/moved.json", "/secret/string.json")) {
        SchemaOptions options =
            SchemaOptions.builder()
                .mapPrefix("https://schemas.example.com/", server.baseUrl() + "schemas/")
                .build();

        assertThatThrownBy(
                () ->
                    Schema.fromJson(
                        "{\"$ref\": \"https://schemas.example.com/moved.json\"}", options))
            .isInstanceOf(SchemaException.class)
            .hasMessageContaining("HTTP 302");
        // networknt may ask twice; the redirect's target is never asked for.
        assertThat(server.requests()).containsOnly("/schemas/moved.json");
      }
    }

    @Test
    void aRemoteDocumentLargerThanTheLimitIsNotReadToTheEnd() throws IOException {
      writeSchema("schemas/big.json", "{\"description\": \"" + "x".repeat(200_000) + "\"}");
      try (LoopbackServer server = LoopbackServer.serving(dir)) {
        SchemaOptions options =
            SchemaOptions.builder()
                .limits(SchemaLimits.defaults().withMaxDocumentChars(10_000))
                .mapPrefix("https://schemas.example.com/", server.baseUrl() + "schemas/")
                .build();

        assertThatThrownBy(
                () ->
                    Schema.fromJson(
                        "{\"$ref\": \"https://schemas.example.com/big.json\"}", options))
            .isInstanceOf(SchemaException.class)
            .hasMessageContaining("SchemaLimits.maxDocumentChars");
      }
    }

    private void writeSchema(String relative, String content) throws IOException {
      Path file = dir.resolve(relative);
      Files.createDirectories(file.getParent());
      Files.writeString(file, content);
    }
  }
}
