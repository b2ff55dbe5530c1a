package dev.alkdev.operations.schema.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaDialect;
import dev.alkdev.operations.schema.SchemaLimits;
import dev.alkdev.operations.schema.SchemaOptions;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@link SimpleCheck} must never accept what networknt refuses, and should accept what it accepts:
 * checked against the JSON-Schema-Test-Suite's cases whose schema it covers, against networknt
 * itself on numbers of every node kind, and on random schemas and values of the covered keywords.
 */
class SimpleCheckTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final Path SUITE =
      Path.of(System.getProperty("ops.shared.dir")).resolve("data/json-schema-test-suite/tests");

  @Test
  void agreesWithTheTestSuiteOnEveryCaseItCovers() throws IOException {
    int covered = 0;
    List<String> wrong = new ArrayList<>();
    for (SchemaDialect dialect : SchemaDialect.values()) {
      String folder = dialect == SchemaDialect.DRAFT_07 ? "draft7" : "draft2020-12";
      List<Path> files;
      try (Stream<Path> listing = Files.list(SUITE.resolve(folder))) {
        files = listing.filter(p -> p.toString().endsWith(".json")).sorted().toList();
      }
      for (Path file : files) {
        for (JsonNode group : Json.mapper().readTree(file.toFile()).values()) {
          JsonNode schema = group.get("schema");
          String declared =
              schema.isObject() && schema.has("$schema")
                  ? schema.get("$schema").asString()
                  : dialect.metaSchemaUri();
          SimpleCheck check = SimpleCheck.compile(schema, declared, SchemaLimits.defaults());
          if (check == null) {
            continue;
          }
          for (JsonNode test : group.get("tests").values()) {
            covered++;
            boolean valid = test.get("valid").asBoolean();
            if (check.accepts(test.get("data")) != valid) {
              wrong.add(
                  folder
                      + "/"
                      + file.getFileName()
                      + " | "
                      + group.get("description").asString()
                      + " | "
                      + test.get("description").asString());
            }
          }
        }
      }
    }
    assertThat(wrong).as("cases where the fast path disagrees with the suite").isEmpty();
    // type, properties, required, additionalProperties, items, enum, const, boolean schemas.
    assertThat(covered)
        .as("suite cases the fast path covers")
        .isGreaterThan(350); // 386 required cases of the two drafts
  }

  @Test
  void numbersOfEveryNodeKindAreTypedAsNetworkntTypesThem() {
    List<JsonNode> numbers =
        List.of(
            NODES.numberNode(1),
            NODES.numberNode(-7L),
            NODES.numberNode(BigInteger.TEN.pow(40)),
            NODES.numberNode(1.0),
            NODES.numberNode(1.5),
            NODES.numberNode(-0.0),
            NODES.numberNode(1e300),
            NODES.numberNode(1.0f),
            NODES.numberNode(2.25f),
            NODES.numberNode(new BigDecimal("1.000")),
            NODES.numberNode(new BigDecimal("1E+3")),
            NODES.numberNode(new BigDecimal("0.0")),
            NODES.numberNode(new BigDecimal("1.0000000000000000000000001")),
            NODES.numberNode((short) 3));
    for (String type : List.of("integer", "number", "string")) {
      String document = "{\"type\":\"" + type + "\"}";
      for (JsonNode number : numbers) {
        assertAgrees(document, number);
      }
    }
  }

  @Test
  void randomSchemasAndValuesGetNetworkntsVerdictAndErrors() {
    Random random = new Random(19);
    int accepted = 0;
    for (int i = 0; i < 400; i++) {
      JsonNode document = randomSchema(random, 0);
      assertThat(
              SimpleCheck.compile(
                  document, SchemaDialect.DRAFT_2020_12.metaSchemaUri(), SchemaLimits.defaults()))
          .as("covered: %s", document)
          .isNotNull();
      for (int j = 0; j < 10; j++) {
        JsonNode value = randomValue(random, 0);
        accepted += assertAgrees(document.toString(), value) ? 1 : 0;
      }
    }
    // Both verdicts must be well represented for the comparison to mean anything.
    assertThat(accepted).isBetween(400, 3600);
  }

  @Test
  void theBenchmarksItemSchemaIsCoveredAndDocumentsWithOtherKeywordsAreNot() {
    String item =
        "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"},"
            + "\"text\":{\"type\":\"string\"}}}";
    String uri = SchemaDialect.DRAFT_2020_12.metaSchemaUri();
    SchemaLimits limits = SchemaLimits.defaults();
    assertThat(SimpleCheck.compile(Json.mapper().readTree(item), uri, limits)).isNotNull();
    for (String other :
        List.of(
            "{\"type\":\"string\",\"minLength\":1}",
            "{\"properties\":{\"a\":{\"format\":\"email\"}}}",
            "{\"items\":[{\"type\":\"string\"}]}",
            "{\"enum\":[1,2]}",
            "{\"$ref\":\"#/$defs/a\",\"$defs\":{\"a\":true}}",
            "{\"type\":\"object\",\"x-extension\":1}")) {
      assertThat(SimpleCheck.compile(Json.mapper().readTree(other), uri, limits))
          .as(other)
          .isNull();
    }
    assertThat(
            SimpleCheck.compile(
                Json.mapper().readTree(item), "http://json-schema.org/draft-04/schema#", limits))
        .isNull();
  }

  @Test
  void aValueTooLongToCheckCheaplyIsLeftToNetworknt() {
    JsonNode document = Json.mapper().readTree("{\"items\":{\"type\":\"integer\"}}");
    SimpleCheck check =
        SimpleCheck.compile(
            document,
            SchemaDialect.DRAFT_2020_12.metaSchemaUri(),
            SchemaLimits.defaults().withMaxEvaluationSteps(80));
    // 80 / 8 = 10 steps: one for the array, one per item.
    ArrayNode nine = NODES.arrayNode();
    ArrayNode ten = NODES.arrayNode();
    for (int i = 0; i < 10; i++) {
      if (i < 9) {
        nine.add(i);
      }
      ten.add(i);
    }
    assertThat(check.accepts(nine)).isTrue();
    assertThat(check.accepts(ten)).isFalse();
    assertThat(Schema.fromJson(document.toString()).isValid(ten)).isTrue();
  }

  /** Whether the value is valid; fails unless both paths give the same verdict and errors. */
  private static boolean assertAgrees(String document, JsonNode value) {
    SchemaOptions options = SchemaOptions.defaults();
    Schema fast = SchemaCompiler.compile(Json.mapper().readTree(document), options, true);
    Schema networknt = SchemaCompiler.compile(Json.mapper().readTree(document), options, false);
    assertThat(fast.validate(value))
        .as("%s against %s", value, document)
        .isEqualTo(networknt.validate(value));
    assertThat(fast.isValid(value))
        .as("%s against %s", value, document)
        .isEqualTo(networknt.isValid(value));
    return networknt.isValid(value);
  }

  private static final String[] TYPES = {
    "null", "boolean", "object", "array", "number", "string", "integer"
  };

  private static JsonNode randomSchema(Random random, int depth) {
    if (random.nextInt(12) == 0) {
      return NODES.booleanNode(random.nextInt(4) > 0);
    }
    ObjectNode schema = NODES.objectNode();
    if (random.nextBoolean()) {
      if (random.nextBoolean()) {
        schema.put("type", TYPES[random.nextInt(TYPES.length)]);
      } else {
        ArrayNode types = schema.putArray("type");
        types.add(TYPES[random.nextInt(TYPES.length)]);
        String second = TYPES[random.nextInt(TYPES.length)];
        if (!second.equals(types.get(0).asString())) {
          types.add(second);
        }
      }
    }
    if (depth < 3 && random.nextInt(3) == 0) {
      ObjectNode properties = schema.putObject("properties");
      for (String name : new String[] {"a", "b", "c"}) {
        if (random.nextBoolean()) {
          properties.set(name, randomSchema(random, depth + 1));
        }
      }
    }
    if (random.nextInt(4) == 0) {
      ArrayNode required = schema.putArray("required");
      required.add(random.nextBoolean() ? "a" : "b");
    }
    if (depth < 3 && random.nextInt(5) == 0) {
      schema.set("additionalProperties", randomSchema(random, depth + 1));
    }
    if (depth < 3 && random.nextInt(4) == 0) {
      schema.set("items", randomSchema(random, depth + 1));
    }
    if (random.nextInt(8) == 0) {
      schema.putArray("enum").add("x").add(true).addNull();
    } else if (random.nextInt(10) == 0) {
      schema.put("const", random.nextBoolean() ? "x" : "true");
    }
    if (random.nextInt(6) == 0) {
      schema.put("description", "annotation");
    }
    return schema;
  }

  private static JsonNode randomValue(Random random, int depth) {
    switch (random.nextInt(depth < 3 ? 11 : 8)) {
      case 0:
        return NODES.nullNode();
      case 1:
        return NODES.booleanNode(random.nextBoolean());
      case 2:
        return NODES.numberNode(random.nextInt(5));
      case 3:
        return NODES.numberNode(random.nextBoolean() ? 2.0 : 2.5);
      case 4:
        return NODES.stringNode(random.nextBoolean() ? "x" : "true");
      case 5:
        return NODES.numberNode(new BigDecimal(random.nextBoolean() ? "3.0" : "3.1"));
      case 6:
        return NODES.stringNode("y");
      case 7:
        return NODES.booleanNode(true);
      case 8:
      case 9:
        ObjectNode object = NODES.objectNode();
        for (String name : new String[] {"a", "b", "c", "d"}) {
          if (random.nextBoolean()) {
            object.set(name, randomValue(random, depth + 1));
          }
        }
        return object;
      default:
        ArrayNode array = NODES.arrayNode();
        for (int i = random.nextInt(4); i > 0; i--) {
          array.add(randomValue(random, depth + 1));
        }
        return array;
    }
  }
}
