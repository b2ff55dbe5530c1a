package dev.alkdev.operations.codegen;

import static dev.alkdev.operations.codegen.Specs.JSON;
import static dev.alkdev.operations.codegen.Specs.generate;
import static dev.alkdev.operations.codegen.Specs.spec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.schema.Schema;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Generated records read the JSON of a valid value and write it back equal, with Jackson 3 as it
 * comes ({@code JsonMapper.builder().build()}): odd names, odd enum values, required nullable
 * properties, additionalProperties maps, recursive types.
 */
class RoundTripTest {
  private static final String SCHEMA =
      """
      {"type": "object",
       "required": ["id", "ratio", "flag", "nothing", "count32"],
       "properties": {
         "id": {"type": "integer"},
         "count32": {"type": "integer", "format": "int32"},
         "ratio": {"type": "number"},
         "flag": {"type": "boolean"},
         "nothing": {"type": ["string", "null"]},
         "maybe": {"type": ["string", "null"]},
         "pet-name": {"type": "string"},
         "class": {"type": "string"},
         "": {"type": "string"},
         "$ref": {"type": "string"},
         "a b/c~d": {"type": "string"},
         "größe": {"type": "integer"},
         "名前": {"type": "string"},
         "isActive": {"type": "boolean"},
         "getValue": {"type": "string"},
         "hashCode": {"type": "integer"},
         "status": {"enum": ["in progress", "", "+", "-", "ünïcödé", "done", null]},
         "statuses": {"type": "array", "items": {"$ref": "#/$defs/Status"}},
         "labels": {"type": "object", "additionalProperties": {"type": "string"}},
         "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
         "tree": {"$ref": "#/$defs/Node"},
         "extra": {"$ref": "#/$defs/Open"},
         "typedExtra": {"$ref": "#/$defs/Typed"},
         "any": {},
         "self": {"$ref": "#"}
       },
       "additionalProperties": false,
       "$defs": {
         "Status": {"type": "string", "enum": ["a", "A", "a-", "_a"]},
         "Node": {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}},
         "Open": {"type": "object", "properties": {"known": {"type": "string"}},
                  "additionalProperties": true},
         "Typed": {"type": "object", "properties": {"known": {"type": "string"}},
                   "additionalProperties": {"type": "object", "properties": {"n": {"type": "integer"}}}}
       }}""";

  private static Compiled compiled;

  @BeforeAll
  static void compile() {
    compiled = Compiled.compile(generate(spec("t", "op", SCHEMA, null)));
  }

  /** Reads {@code json} into the record, writes it back, and compares the two as JSON. */
  private static Object roundTrip(String type, String json) {
    Class<?> record = compiled.load(Specs.PACKAGE + "." + type);
    Object value = JSON.readValue(json, record);
    JsonNode written = JSON.readTree(JSON.writeValueAsString(value));
    assertThat(sameJson(written, JSON.readTree(json)))
        .as("%s written back as %s", json, written)
        .isTrue();
    return value;
  }

  /** Equal JSON, numbers by value: a {@code double} property writes 1 back as 1.0. */
  static boolean sameJson(JsonNode a, JsonNode b) {
    return a.equals(
        (x, y) ->
            x.isNumber() && y.isNumber()
                ? x.decimalValue().compareTo(y.decimalValue())
                : x.equals(y) ? 0 : 1,
        b);
  }

  @Test
  void aFullValueRoundTrips() {
    roundTrip(
        "OpInput",
        """
        {"id": 9007199254740993, "count32": 7, "ratio": 0.25, "flag": true, "nothing": null,
         "maybe": "m", "pet-name": "Rex", "class": "c", "$ref": "r",
         "a b/c~d": "odd", "größe": 3, "名前": "n", "isActive": false, "getValue": "v",
         "hashCode": 5,
         "status": "in progress", "statuses": ["a", "A", "a-", "_a"],
         "labels": {"x": "1", "y": "2"}, "matrix": [[1.5, 2.0], []],
         "tree": {"name": "root", "children": [{"name": "leaf", "children": []}]},
         "extra": {"known": "k", "other": {"deep": [1, 2]}, "n": null},
         "typedExtra": {"known": "k", "first": {"n": 1}, "second": {"n": 2}},
         "any": [1, "two", {"three": 3}],
         "self": {"id": 1, "count32": 0, "ratio": 1, "flag": false, "nothing": "x"}}""");
  }

  @Test
  void absentOptionalPropertiesStayAbsentAndRequiredNullIsSent() {
    Object value =
        roundTrip(
            "OpInput",
            """
            {"id": 1, "count32": 2, "ratio": 3.5, "flag": true, "nothing": null}""");
    assertThat(JSON.writeValueAsString(value)).contains("\"nothing\":null").doesNotContain("maybe");
  }

  @Test
  void everyOddEnumValueRoundTrips() {
    for (String status : List.of("in progress", "", "+", "-", "ünïcödé", "done")) {
      roundTrip(
          "OpInput",
          """
          {"id": 1, "count32": 2, "ratio": 3.5, "flag": true, "nothing": null, "status": %s}"""
              .formatted(JSON.writeValueAsString(status)));
    }
  }

  /**
   * An optional nullable property cannot say "absent" and "null" apart in a record: both are a Java
   * null, and a null is left out. Both are valid values of the schema.
   */
  @Test
  void anOptionalNullablePropertyWrittenAsNullComesBackAbsent() {
    Class<?> type = compiled.load(Specs.PACKAGE + ".OpInput");
    Object value =
        JSON.readValue(
            "{\"id\": 1, \"count32\": 2, \"ratio\": 3.5, \"flag\": true, \"nothing\": null,"
                + " \"status\": null}",
            type);
    assertThat(JSON.writeValueAsString(value)).doesNotContain("status");
  }

  @Test
  void additionalPropertiesAreCollectedIntoTheMapAndWrittenBack() throws Exception {
    Object open = roundTrip("Open", "{\"known\": \"k\", \"a\": 1, \"b\": [true], \"c\": null}");
    RecordComponent[] components = open.getClass().getRecordComponents();
    assertThat(components[1].getName()).isEqualTo("additionalProperties");
    Map<Object, Object> extras =
        new java.util.LinkedHashMap<>((Map<?, ?>) components[1].getAccessor().invoke(open));
    assertThat(extras.keySet()).containsExactly("a", "b", "c");
    assertThat(components[0].getAccessor().invoke(open)).isEqualTo("k");

    Object typed = roundTrip("Typed", "{\"known\": \"k\", \"x\": {\"n\": 1}}");
    Map<?, ?> values =
        (Map<?, ?>) typed.getClass().getRecordComponents()[1].getAccessor().invoke(typed);
    assertThat(values.get("x").getClass().getSimpleName()).isEqualTo("TypedValue");

    // Nothing extra: an empty map, and nothing extra written.
    roundTrip("Open", "{\"known\": \"k\"}");
    roundTrip("Open", "{}");
  }

  /** A property named "" cannot be a component; with additionalProperties, the map keeps it. */
  @Test
  void aPropertyNamedEmptyIsKeptAmongTheAdditionalProperties() {
    GeneratedSources sources =
        generate(
            spec(
                "t",
                "op",
                """
                {"type": "object", "properties": {"": {"type": "string"}, "a": {"type": "string"}},
                 "additionalProperties": true}""",
                null));
    assertThat(sources.notes())
        .containsExactly(
            "t.op input: the property named \"\" is not a component (Jackson cannot name one):"
                + " it is kept among the additional properties");
    Class<?> type = Compiled.compile(sources).load(Specs.PACKAGE + ".OpInput");
    String json = "{\"\": \"empty\", \"a\": \"x\"}";
    assertThat(JSON.readTree(JSON.writeValueAsString(JSON.readValue(json, type))))
        .isEqualTo(JSON.readTree(json));
  }

  @Test
  void recursiveTypesRoundTripAtDepth() {
    StringBuilder deep = new StringBuilder();
    for (int i = 0; i < 50; i++) {
      deep.append("{\"name\": \"n").append(i).append("\", \"children\": [");
    }
    deep.append("{\"name\": \"leaf\"}");
    deep.append("]}".repeat(50));
    roundTrip("Node", deep.toString());
  }

  @Test
  void aMergedAllOfRecordRoundTrips() {
    Compiled merged =
        Compiled.compile(
            generate(
                spec(
                    "t",
                    "op",
                    """
                    {"allOf": [{"$ref": "#/$defs/Base"},
                               {"type": "object", "required": ["extra"],
                                "properties": {"extra": {"type": ["integer", "null"]}}}],
                     "$defs": {"Base": {"type": "object", "required": ["id"],
                                        "properties": {"id": {"type": "string"}}}}}""",
                    null)));
    Class<?> type = merged.load(Specs.PACKAGE + ".OpInput");
    String json = "{\"id\": \"x\", \"extra\": null}";
    assertThat(JSON.readTree(JSON.writeValueAsString(JSON.readValue(json, type))))
        .isEqualTo(JSON.readTree(json));
    assertThat(type.getRecordComponents())
        .extracting(RecordComponent::getName)
        .containsExactly("id", "extra");
  }

  /** A record of the test code. */
  record Order(
      String id, List<Line> lines, Kind kind, Map<String, Integer> counts, List<Order> parts) {}

  /** A line of an order. */
  record Line(String sku, int quantity, double price) {}

  /** What an order is. */
  enum Kind {
    RETAIL,
    WHOLESALE
  }

  /** Schemas that victools makes from Java records ({@link Schema#fromType}) work too. */
  @Test
  void aSchemaMadeFromAJavaRecordGivesARecordThatReadsItsJson() {
    OperationSpec op =
        OperationSpec.builder("shop", "place_order")
            .inputSchema(Schema.fromType(Order.class))
            .outputSchema(Schema.fromType(Line.class))
            .build();
    GeneratedSources sources = generate(op);
    Compiled types = Compiled.compile(sources);
    Order order =
        new Order(
            "o1",
            List.of(new Line("a", 2, 1.5)),
            Kind.WHOLESALE,
            Map.of("a", 2),
            List.of(new Order("o0", List.of(), Kind.RETAIL, Map.of(), List.of())));
    String json = JSON.writeValueAsString(order);
    // The input schema is a $ref to the definition of Order: the record is Order, not a wrapper.
    assertThat(Specs.source(sources, "Shop"))
        .contains("PlaceOrderOutput placeOrder(Order input, OperationContext context);");
    Class<?> generated = types.load(Specs.PACKAGE + ".Order");
    Object read = JSON.readValue(json, generated);
    assertThat(sameJson(JSON.readTree(JSON.writeValueAsString(read)), JSON.readTree(json)))
        .isTrue();
  }
}
