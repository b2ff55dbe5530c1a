package dev.alkdev.operations.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.alkdev.operations.schema.internal.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
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
 * The bounds prove "does not hang", not speed: what they stop is work that would take hours (2^30
 * paths), so they are wide enough for cold code on a loaded 2-core CI machine, where the step-limit
 * case's million steps once took more than 5 s in the interpreter.
 */
class HostileSchemaTest {
  private static final Duration BOUND = Duration.ofSeconds(30);

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
    void theBudgetTripsOnAPatternTheJdkCannotFinish() {
      // On the JDK engine this match runs for minutes; the guard stops it after maxRegexTime.
      Schema schema = Schema.fromJson("{\"pattern\": \"^(a+){1,50}$\"}");

      List<SchemaError> errors = bounded(() -> schema.validate(Json.nodes().stringNode(A30)));

      assertThat(errors)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.keyword()).isEqualTo("limit");
                assertThat(e.message())
                    .contains("'^(a+){1,50}$'")
                    .contains("250 ms")
                    .contains("31-character")
                    .contains("SchemaLimits.maxRegexTime");
              });
    }

    @Test
    void theBudgetGuardsShortInputsToo() {
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
    void theRegexBudgetIsConfigurable() {
      SchemaOptions impatient =
          SchemaOptions.builder()
              .limits(SchemaLimits.defaults().withMaxRegexTime(Duration.ofMillis(20)))
              .build();
      Schema schema = Schema.fromJson("{\"pattern\": \"^(a+){1,50}$\"}", impatient);

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
        assertThat(error.message()).contains("SchemaLimits.maxRegexTime");
      }
    }
  }

  /**
   * One time budget for all the regular expressions of one value: many matches that each take a few
   * milliseconds must not add up to minutes (before the budget, 2,000 such strings took 15 s of CPU
   * and a 1 MiB message six minutes). The outcome is asserted, not a timing.
   */
  @Nested
  class RegexTimeBudget {
    private static final String PATTERN = "^(a+){1,50}$";

    /** Backtracks for a few milliseconds against {@link #PATTERN} and never matches. */
    private static final String SLOW = "a".repeat(18) + "!";

    private static final int MEBIBYTE = 1024 * 1024;

    private final Schema items =
        Schema.fromJson("{\"items\": {\"pattern\": " + quote(PATTERN) + "}}");

    private final Schema keys =
        Schema.fromJson(
            "{\"patternProperties\": {"
                + quote(PATTERN)
                + ": {\"type\": \"integer\"}}, \"additionalProperties\": false}");

    @Test
    void twoThousandSlowArrayItemsEndInOneLimitError() {
      JsonNode value = strings(2_000, SLOW);

      assertBudgetSpent(bounded(() -> items.validate(value)));
      assertThat(bounded(() -> items.isValid(value))).isFalse();
    }

    @Test
    void twoThousandSlowPatternPropertiesKeysEndInOneLimitError() {
      JsonNode value = slowKeys(2_000);

      assertBudgetSpent(bounded(() -> keys.validate(value)));
      assertThat(bounded(() -> keys.isValid(value))).isFalse();
    }

    @Test
    void aHostileMebibyteEndsInOneLimitError() {
      JsonNode array = strings(MEBIBYTE / 21, SLOW);
      JsonNode object = slowKeys(MEBIBYTE / 20);
      assertThat(Json.mapper().writeValueAsString(array).length()).isGreaterThan(MEBIBYTE);
      assertThat(Json.mapper().writeValueAsString(object).length()).isGreaterThan(MEBIBYTE);

      assertBudgetSpent(bounded(() -> items.validate(array)));
      assertBudgetSpent(bounded(() -> keys.validate(object)));
    }

    @Test
    void aMebibyteOfStringsThePatternMatchesIsValid() {
      // The same pattern matches 18 a at once: a large legitimate value is not refused.
      JsonNode array = strings(MEBIBYTE / 21, "a".repeat(18));

      assertThat(bounded(() -> items.validate(array))).isEmpty();
    }

    @Test
    void eachValidationHasABudgetOfItsOwn() {
      assertBudgetSpent(bounded(() -> items.validate(strings(2_000, SLOW))));

      // The same thread, right after: the spent budget is gone with the call that spent it.
      assertThat(items.validate(strings(100, "a".repeat(18)))).isEmpty();
      assertThat(keys.validate(json("{\"aaa\": 1}"))).isEmpty();
    }

    @Test
    void aSpentBudgetOnOneThreadLeavesAnotherThreadsValidationAlone() throws Exception {
      JsonNode hostile = strings(2_000, SLOW);
      JsonNode fine = strings(200, "a".repeat(18));
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        Future<List<SchemaError>> spent = pool.submit(() -> items.validate(hostile));
        Future<Integer> errorsMeanwhile =
            pool.submit(
                () -> {
                  int errors = 0;
                  while (!spent.isDone()) {
                    errors += items.validate(fine).size();
                  }
                  return errors;
                });

        assertBudgetSpent(spent.get(BOUND.toSeconds(), TimeUnit.SECONDS));
        assertThat(errorsMeanwhile.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isZero();
      } finally {
        pool.shutdownNow();
      }
    }

    @Test
    void onVirtualThreadsEachValidationHasItsOwnBudgetToo() throws Exception {
      // JDK 21+ only (the build targets 17): the registry runs blocking handlers there.
      ExecutorService virtual;
      try {
        virtual =
            (ExecutorService)
                Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
      } catch (NoSuchMethodException e) {
        Assumptions.abort("no virtual threads before JDK 21");
        return;
      }
      JsonNode hostile = strings(2_000, SLOW);
      JsonNode fine = strings(200, "a".repeat(18));
      try {
        List<Future<List<SchemaError>>> spent = new ArrayList<>();
        List<Future<List<SchemaError>>> valid = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          spent.add(virtual.submit(() -> items.validate(hostile)));
          valid.add(virtual.submit(() -> items.validate(fine)));
        }
        for (int i = 0; i < 4; i++) {
          assertBudgetSpent(spent.get(i).get(BOUND.toSeconds() * 2, TimeUnit.SECONDS));
          assertThat(valid.get(i).get(BOUND.toSeconds() * 2, TimeUnit.SECONDS)).isEmpty();
        }
      } finally {
        virtual.shutdownNow();
      }
    }

    @Test
    void theBudgetIsConfigurable() {
      // Twenty strings that each backtrack for about a millisecond before the second alternative
      // matches: slow, but legitimate.
      String regex = quote("^(?:(a+){1,50}b|a)");
      JsonNode value = strings(20, "a".repeat(16) + "!");
      Schema tight =
          Schema.fromJson(
              "{\"items\": {\"pattern\": " + regex + "}}",
              SchemaOptions.builder()
                  .limits(SchemaLimits.defaults().withMaxRegexTime(Duration.ofMillis(1)))
                  .build());
      Schema generous =
          Schema.fromJson(
              "{\"items\": {\"pattern\": " + regex + "}}",
              SchemaOptions.builder()
                  .limits(SchemaLimits.defaults().withMaxRegexTime(Duration.ofMinutes(1)))
                  .build());

      assertThat(bounded(() -> tight.validate(value)))
          .singleElement()
          .satisfies(e -> assertThat(e.message()).contains("1 ms"));
      assertThat(bounded(() -> generous.validate(value))).isEmpty();
    }

    @Test
    void castKeepsWhatItCouldNotMatchInTimeAndValidationReportsIt() {
      Schema schema =
          Schema.fromJson(
              "{\"properties\": {\"n\": {\"type\": \"integer\"}}, \"patternProperties\": {"
                  + quote(PATTERN)
                  + ": {\"type\": \"integer\"}}}");
      ObjectNode value = Json.nodes().objectNode().put("n", "7");
      value.setAll((ObjectNode) slowKeys(2_000));

      JsonNode cast = bounded(() -> schema.cast(value));

      // Casting never throws: what needed no slow match is cast, the rest is kept as it came
      // (an undeclared key that was matched in time is dropped, as always).
      assertThat(cast.get("n").isInt()).isTrue();
      assertThat(cast.get(SLOW + 1999)).isEqualTo(value.get(SLOW + 1999));
      assertBudgetSpent(bounded(() -> schema.validate(cast)));
    }

    private static JsonNode strings(int count, String text) {
      ArrayNode array = Json.nodes().arrayNode();
      for (int i = 0; i < count; i++) {
        array.add(text);
      }
      return array;
    }

    /** Distinct keys that each backtrack for a few milliseconds and match nothing. */
    private static JsonNode slowKeys(int count) {
      ObjectNode object = Json.nodes().objectNode();
      for (int i = 0; i < count; i++) {
        object.put(SLOW + i, 1);
      }
      return object;
    }

    private static void assertBudgetSpent(List<SchemaError> errors) {
      assertThat(errors)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.keyword()).isEqualTo("limit");
                assertThat(e.message())
                    .contains("250 ms in total on this value")
                    .contains("SchemaLimits.maxRegexTime")
                    .contains(quote(PATTERN).replace('"', '\''));
              });
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
