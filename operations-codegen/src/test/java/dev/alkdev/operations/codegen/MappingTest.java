package dev.alkdev.operations.codegen;

import static dev.alkdev.operations.codegen.Specs.generate;
import static dev.alkdev.operations.codegen.Specs.rawSpec;
import static dev.alkdev.operations.codegen.Specs.source;
import static dev.alkdev.operations.codegen.Specs.spec;
import static dev.alkdev.operations.codegen.Specs.typeNames;
import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationType;
import org.junit.jupiter.api.Test;

/**
 * One test per row of the mapping table (README): the generated source text for each JSON Schema
 * construct, and the note where the mapping is not exact. Every test also compiles its output.
 */
class MappingTest {

  /** Sources for one query {@code t.op} with this input schema; compiled, so they must compile. */
  private static GeneratedSources input(String schema) {
    GeneratedSources sources = generate(spec("t", "op", schema, null));
    Compiled.compile(sources);
    return sources;
  }

  /** As {@link #input}, for schemas the validator refuses. */
  private static GeneratedSources rawInput(String schema) {
    GeneratedSources sources = generate(rawSpec("t", "op", schema, null));
    Compiled.compile(sources);
    return sources;
  }

  /** The source with every run of white space as one space: JavaPoet wraps long lines. */
  static String flat(String source) {
    return source.replaceAll("\\s+", " ");
  }

  private static String record(String properties) {
    return record(properties, "[]");
  }

  private static String record(String properties, String required) {
    return flat(
        source(
            input(
                "{\"type\":\"object\",\"properties\":"
                    + properties
                    + ",\"required\":"
                    + required
                    + "}"),
            "OpInput"));
  }

  @Test
  void stringIsStringForEveryFormatAndJavadocNamesTheFormat() {
    String s =
        record(
            """
            {"a": {"type": "string"}, "b": {"type": "string", "format": "date-time"},
             "c": {"type": "string", "format": "uuid"}, "d": {"type": "string", "format": "byte"},
             "e": {"type": "string", "format": "binary"}, "f": {"type": "string", "format": "uri"}}""");
    assertThat(s)
        .contains("record OpInput(String a, String b, String c, String d, String e, String f)")
        .contains("@param b Format: <code>date-time</code>.")
        .contains("@param c Format: <code>uuid</code>.")
        .contains("@param e Format: <code>binary</code>.");
  }

  @Test
  void integerIsLongWhenRequiredAndNotNullableElseLongBoxed() {
    String s =
        record(
            """
            {"req": {"type": "integer"}, "opt": {"type": "integer"},
             "reqNull": {"type": ["integer", "null"]}, "i64": {"type": "integer", "format": "int64"}}""",
            "[\"req\", \"reqNull\", \"i64\"]");
    assertThat(s).contains("record OpInput(long req, Long opt,");
    assertThat(s).contains("@JsonInclude(JsonInclude.Include.ALWAYS) Long reqNull, long i64)");
  }

  @Test
  void int32IsInt() {
    String s =
        record(
            """
            {"a": {"type": "integer", "format": "int32"}, "b": {"type": "integer", "format": "int32"}}""",
            "[\"a\"]");
    assertThat(s).contains("record OpInput(int a, Integer b)");
  }

  @Test
  void numberIsDoubleAndBooleanIsBoolean() {
    String s =
        record(
            """
            {"n": {"type": "number"}, "f": {"type": "number", "format": "float"},
             "b": {"type": "boolean"}, "ob": {"type": "boolean"}, "on": {"type": "number"}}""",
            "[\"n\", \"f\", \"b\"]");
    assertThat(s).contains("record OpInput(double n, double f, boolean b, Boolean ob, Double on)");
  }

  @Test
  void nullableKeywordsMakeBoxedTypes() {
    String s =
        record(
            """
            {"a": {"type": "integer", "nullable": true}, "b": {"type": ["boolean", "null"]},
             "c": {"anyOf": [{"type": "number"}, {"type": "null"}]},
             "d": {"oneOf": [{"type": "null"}, {"type": "integer", "format": "int32"}]}}""",
            "[\"a\", \"b\", \"c\", \"d\"]");
    assertThat(s)
        .contains("@JsonInclude(JsonInclude.Include.ALWAYS) Long a")
        .contains("@JsonInclude(JsonInclude.Include.ALWAYS) Boolean b")
        .contains("@JsonInclude(JsonInclude.Include.ALWAYS) Double c")
        .contains("@JsonInclude(JsonInclude.Include.ALWAYS) Integer d");
  }

  @Test
  void everyRecordLeavesOutNullsAndRequiredNullableAlwaysSendsThem() {
    String s =
        record(
            """
            {"a": {"type": "string"}, "b": {"type": ["string", "null"]}}""",
            "[\"b\"]");
    assertThat(s)
        .contains("@JsonInclude(JsonInclude.Include.NON_NULL) @JsonIgnoreProperties")
        .contains("record OpInput(String a, @JsonInclude(JsonInclude.Include.ALWAYS) String b)");
  }

  @Test
  void arrayIsListOfBoxedItems() {
    String s =
        record(
            """
            {"ids": {"type": "array", "items": {"type": "integer"}},
             "names": {"type": "array", "items": {"type": "string"}},
             "any": {"type": "array"}, "untyped": {"items": {"type": "boolean"}}}""",
            "[\"ids\"]");
    assertThat(s)
        .contains(
            "record OpInput(List<Long> ids, List<String> names, List<JsonNode> any,"
                + " List<Boolean> untyped)");
  }

  @Test
  void tupleIsListOfJsonNodeWithANote() {
    GeneratedSources sources =
        rawInput(
            """
            {"type": "object", "properties": {
              "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
              "old": {"type": "array", "items": [{"type": "string"}]}}}""");
    assertThat(source(sources, "OpInput"))
        .contains("record OpInput(List<JsonNode> pair, List<JsonNode> old)")
        .contains("@param pair Not exact: tuple (prefixItems) -&gt; List&lt;JsonNode&gt;.");
    assertThat(sources.notes())
        .containsExactly(
            "t.op input.old: tuple (prefixItems) -> List<JsonNode>",
            "t.op input.pair: tuple (prefixItems) -> List<JsonNode>");
  }

  @Test
  void arrayItemsThatAreObjectsAreNamedParentPropertyItem() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {"pets": {"type": "array", "items":
              {"type": "object", "properties": {"name": {"type": "string"}}}}}}""");
    assertThat(source(sources, "OpInput")).contains("record OpInput(List<OpInputPetsItem> pets)");
    assertThat(source(sources, "OpInputPetsItem")).contains("record OpInputPetsItem(String name)");
  }

  @Test
  void objectWithPropertiesIsARecordInSchemaOrderWithJsonPropertyWhereNamesDiffer() {
    String s =
        record(
            """
            {"zeta": {"type": "string"}, "pet-name": {"type": "string"}, "alpha": {"type": "string"},
             "created_at": {"type": "string"}, "ID": {"type": "string"}}""");
    assertThat(s)
        .contains(
            "record OpInput(String zeta, @JsonProperty(\"pet-name\") String petName, String alpha,"
                + " @JsonProperty(\"created_at\") String createdAt, @JsonProperty(\"ID\") String id)");
  }

  @Test
  void nestedObjectsAreNamedParentProperty() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {"owner": {"type": "object", "properties": {
              "address": {"type": "object", "properties": {"city": {"type": "string"}}}}}}}""");
    assertThat(source(sources, "OpInput")).contains("record OpInput(OpInputOwner owner)");
    assertThat(source(sources, "OpInputOwner"))
        .contains("record OpInputOwner(OpInputOwnerAddress address)");
    assertThat(source(sources, "OpInputOwnerAddress")).contains("(String city)");
  }

  @Test
  void componentNamesAreValidIdentifiers() {
    String s =
        record(
            """
            {"class": {"type": "string"}, "1st": {"type": "string"}, "": {"type": "string"},
             "***": {"type": "string"}, "hashCode": {"type": "string"}, "toString": {"type": "string"},
             "getClass": {"type": "string"}, "wait": {"type": "string"}, "a_b": {"type": "string"},
             "aB": {"type": "string"}, "a-b": {"type": "string"}, "record": {"type": "string"},
             "_": {"type": "string"}}""");
    assertThat(s)
        .contains("@JsonProperty(\"class\") String class_")
        .contains("@JsonProperty(\"1st\") String _1st")
        .contains("@JsonProperty(\"***\") String property,")
        .contains("@JsonProperty(\"hashCode\") String hashCode_")
        .contains("@JsonProperty(\"toString\") String toString_")
        .contains("@JsonProperty(\"getClass\") String getClass_")
        .contains("@JsonProperty(\"wait\") String wait_")
        .contains("@JsonProperty(\"a_b\") String aB")
        .contains("String aB2") // "aB" itself, after "a_b" took aB
        .contains("@JsonProperty(\"a-b\") String aB3")
        .contains("@JsonProperty(\"record\") String record_")
        .contains("@JsonProperty(\"_\") String property2)")
        // Jackson reads @JsonProperty("") as "no name": the property cannot be a component.
        .contains("Not exact: the property named \"\" is not mapped")
        .doesNotContain("@JsonProperty(\"\")");
  }

  @Test
  void additionalPropertiesAbsentIgnoresUnknownFalseDoesNot() {
    String open = record("{\"a\": {\"type\": \"string\"}}");
    assertThat(open)
        .contains("@JsonIgnoreProperties( ignoreUnknown = true ) public record OpInput");
    String closed =
        source(
            input(
                """
                {"type": "object", "properties": {"a": {"type": "string"}},
                 "additionalProperties": false}"""),
            "OpInput");
    assertThat(closed)
        .doesNotContain("JsonIgnoreProperties")
        .doesNotContain("additionalProperties");
  }

  @Test
  void additionalPropertiesTrueOrASchemaWithPropertiesIsALastMapComponent() {
    String any =
        source(
            input(
                """
                {"type": "object", "properties": {"a": {"type": "string"}},
                 "additionalProperties": true}"""),
            "OpInput");
    assertThat(flat(any))
        .contains(
            "record OpInput(String a,"
                + " @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> additionalProperties)");
    String typed =
        source(
            input(
                """
                {"type": "object", "properties": {"a": {"type": "string"},
                 "additionalProperties": {"type": "string"}},
                 "additionalProperties": {"type": "integer"}}"""),
            "OpInput");
    assertThat(flat(typed))
        .contains("String additionalProperties,")
        .contains("@JsonAnySetter @JsonAnyGetter Map<String, Long> additionalProperties2)");
  }

  @Test
  void objectWithoutPropertiesIsAMapForASchemaElseJsonNode() {
    String s =
        record(
            """
            {"labels": {"type": "object", "additionalProperties": {"type": "string"}},
             "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
             "free": {"type": "object"}, "open": {"type": "object", "additionalProperties": true},
             "nested": {"type": "object", "additionalProperties":
                {"type": "object", "properties": {"x": {"type": "number"}}}}}""");
    assertThat(s)
        .contains(
            "record OpInput(Map<String, String> labels, Map<String, Long> counts, JsonNode free,"
                + " JsonNode open, Map<String, OpInputNestedValue> nested)");
  }

  @Test
  void stringEnumIsAnEnumWithJsonPropertyOnEveryConstant() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {"status": {"type": "string", "description": "Where it is",
              "enum": ["available", "in-progress", "inProgress", "", "1st", "+", "class", "A b"]}}}""");
    assertThat(source(sources, "OpInput")).contains("record OpInput(OpInputStatus status)");
    assertThat(source(sources, "OpInputStatus"))
        .contains("/**\n * Where it is\n */\npublic enum OpInputStatus {")
        .contains("@JsonProperty(\"available\")\n  AVAILABLE,")
        .contains("@JsonProperty(\"in-progress\")\n  IN_PROGRESS,")
        .contains("@JsonProperty(\"inProgress\")\n  IN_PROGRESS_2,")
        .contains("@JsonProperty(\"\")\n  EMPTY,")
        .contains("@JsonProperty(\"1st\")\n  _1ST,")
        .contains("@JsonProperty(\"+\")\n  _2B,")
        .contains("@JsonProperty(\"class\")\n  CLASS,")
        .contains("@JsonProperty(\"A b\")\n  A_B\n");
  }

  @Test
  void nullAmongEnumValuesMakesThePropertyNullable() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "required": ["mode"],
             "properties": {"mode": {"enum": ["on", "off", null]}}}""");
    assertThat(source(sources, "OpInput"))
        .contains("record OpInput(@JsonInclude(JsonInclude.Include.ALWAYS) OpInputMode mode)");
    assertThat(source(sources, "OpInputMode")).contains("ON,").contains("OFF\n");
  }

  @Test
  void enumOfADefinitionIsNamedAfterTheDefinition() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {"color": {"$ref": "#/$defs/Color"}},
             "$defs": {"Color": {"type": "string", "enum": ["red", "green"]}}}""");
    assertThat(source(sources, "OpInput")).contains("record OpInput(Color color)");
    assertThat(source(sources, "Color")).contains("public enum Color {");
  }

  @Test
  void nonStringEnumsAreTheBaseTypeWithValuesInJavadocAndANote() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {"level": {"type": "integer", "enum": [1, 2, 3]},
             "ratio": {"enum": [0.5, 1.5]}, "mixed": {"enum": ["a", 1, true]},
             "shapes": {"enum": [{"a": 1}, {"b": 2}]}}}""");
    assertThat(source(sources, "OpInput"))
        .contains("record OpInput(Long level, Double ratio, JsonNode mixed, JsonNode shapes)")
        .contains("Allowed values: <code>1</code>, <code>2</code>, <code>3</code>.")
        .contains("Allowed values: <code>\"a\"</code>, <code>1</code>, <code>true</code>.");
    assertThat(sources.notes())
        .containsExactly(
            "t.op input.level: enum of integer values -> long",
            "t.op input.mixed: enum of values of different types -> JsonNode",
            "t.op input.ratio: enum of number values -> double",
            "t.op input.shapes: enum of object values -> JsonNode");
  }

  @Test
  void constIsTheTypeOfItsValue() {
    String s =
        record(
            """
            {"kind": {"const": "pet"}, "v": {"const": 2}, "f": {"const": 2.5}, "b": {"const": true},
             "o": {"const": {"a": 1}}}""",
            "[\"kind\", \"v\", \"f\", \"b\", \"o\"]");
    assertThat(s)
        .contains("record OpInput(String kind, long v, double f, boolean b, JsonNode o)")
        .contains("@param kind Always <code>\"pet\"</code>.");
  }

  @Test
  void oneOfOrAnyOfOfOneScalarKindIsThatType() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {
              "when": {"oneOf": [{"type": "string", "format": "date"}, {"type": "string", "format": "date-time"}]},
              "n": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "integer", "maximum": -10}]},
              "e": {"oneOf": [{"enum": ["a", "b"]}, {"enum": ["c"]}]}}}""");
    assertThat(source(sources, "OpInput"))
        .contains("record OpInput(String when, Long n, String e)");
    assertThat(sources.notes()).isEmpty();
  }

  @Test
  void oneOfOfDifferentTypesIsJsonNodeWithANoteAndTheNamedBranchesGenerated() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {
              "tag": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
              "pet": {"anyOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]}},
             "$defs": {"Cat": {"type": "object", "properties": {"meow": {"type": "boolean"}}},
                       "Dog": {"type": "object", "properties": {"bark": {"type": "boolean"}}}}}""");
    assertThat(source(sources, "OpInput"))
        .contains("record OpInput(JsonNode tag, JsonNode pet)")
        .contains("@param tag Not exact: oneOf of 2 different types -&gt; JsonNode.")
        .contains("One of: string, integer.")
        .contains("One of: {@link Cat}, {@link Dog}.");
    assertThat(typeNames(sources)).contains("Cat", "Dog");
    assertThat(sources.notes())
        .containsExactly(
            "t.op input.pet: anyOf of 2 different types -> JsonNode",
            "t.op input.tag: oneOf of 2 different types -> JsonNode");
  }

  @Test
  void oneOfOfOneRefAndNullIsThatTypeNullable() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "required": ["pet"], "properties": {
              "pet": {"oneOf": [{"$ref": "#/$defs/Pet"}, {"type": "null"}]}},
             "$defs": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}}""");
    assertThat(source(sources, "OpInput"))
        .contains("record OpInput(@JsonInclude(JsonInclude.Include.ALWAYS) Pet pet)");
  }

  @Test
  void allOfOfOneBranchIsThatBranch() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {
              "pet": {"allOf": [{"$ref": "#/$defs/Pet"}], "nullable": true, "description": "The pet"}},
             "$defs": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}}""");
    assertThat(source(sources, "OpInput"))
        .contains("record OpInput(Pet pet)")
        .contains("@param pet The pet");
    assertThat(typeNames(sources)).containsExactly("OpInput", "Pet", "T");
  }

  /** AWS's descriptions document a use of a schema with a branch that only describes. */
  @Test
  void allOfOfOneConstrainingBranchAndDescriptionsIsThatBranch() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {
              "zone": {"allOf": [{"$ref": "#/$defs/Zone"}, {"description": "Where traffic goes"}]}},
             "$defs": {"Zone": {"type": "string", "maxLength": 20}}}""");
    assertThat(source(sources, "OpInput"))
        .contains("record OpInput(String zone)")
        .contains("@param zone Where traffic goes");
    assertThat(sources.notes()).isEmpty();
  }

  @Test
  void requiredPropertiesThatAreNotDeclaredAreComponentsAllTheSame() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "required": ["name", "legacyId"],
             "properties": {"name": {"type": "string"}}}""");
    assertThat(source(sources, "OpInput"))
        .contains("record OpInput(String name, JsonNode legacyId)")
        .contains(
            "@param legacyId Not exact: required but not declared in properties -&gt; JsonNode.");
    assertThat(sources.notes())
        .containsExactly(
            "t.op input.legacyId: required but not declared in properties -> JsonNode");
    String typed =
        source(
            input(
                """
                {"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "string"}},
                 "additionalProperties": {"type": "integer"}}"""),
            "OpInput");
    assertThat(flat(typed))
        .contains(
            "record OpInput(String a, long b, @JsonAnySetter @JsonAnyGetter Map<String, Long>");
    GeneratedSources closed =
        input(
            """
            {"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "string"}},
             "additionalProperties": false}""");
    assertThat(source(closed, "OpInput")).contains("record OpInput(String a)");
    assertThat(closed.notes())
        .containsExactly(
            "t.op input: required but neither declared nor allowed (additionalProperties: false):"
                + " b (no value is valid)");
  }

  @Test
  void allOfOfObjectsMergesPropertiesAndRequired() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {"dog": {"$ref": "#/$defs/Dog"}},
             "$defs": {
               "Animal": {"type": "object", "required": ["name"],
                          "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}},
               "Dog": {"allOf": [{"$ref": "#/$defs/Animal"},
                                 {"type": "object", "required": ["age"],
                                  "properties": {"bark": {"type": "boolean"}, "age": {"description": "years"}}}]}}}""");
    assertThat(source(sources, "Dog")).contains("record Dog(String name, long age, Boolean bark)");
    assertThat(sources.notes()).isEmpty();
  }

  @Test
  void allOfWithAPropertyOfDifferentTypesMakesItJsonNodeWithANote() {
    GeneratedSources sources =
        input(
            """
            {"allOf": [{"type": "object", "properties": {"id": {"type": "string"}}},
                       {"type": "object", "properties": {"id": {"type": "integer"}, "x": {"type": "string"}}}]}""");
    assertThat(source(sources, "OpInput")).contains("record OpInput(JsonNode id, String x)");
    assertThat(sources.notes())
        .containsExactly(
            "t.op input.id: allOf declares the property with different types -> JsonNode");
  }

  @Test
  void allOfOfSchemasThatAreNotAllObjectsIsJsonNodeWithANote() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {"x": {"allOf": [{"type": "string"}, {"minLength": 2}]}}}""");
    assertThat(source(sources, "OpInput")).contains("record OpInput(JsonNode x)");
    assertThat(sources.notes())
        .containsExactly("t.op input.x: allOf of schemas that are not all objects -> JsonNode");
  }

  @Test
  void severalNonNullTypesAreJsonNodeWithANote() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {"v": {"type": ["string", "integer", "null"]}}}""");
    assertThat(source(sources, "OpInput")).contains("record OpInput(JsonNode v)");
    assertThat(sources.notes())
        .containsExactly("t.op input.v: several types (string, integer) -> JsonNode");
  }

  @Test
  void unconstrainedSchemasAreJsonNodeAndFalseHasANote() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {"a": {}, "b": true, "c": {"description": "anything"},
              "d": false, "e": {"minimum": 3}}}""");
    assertThat(source(sources, "OpInput"))
        .contains("record OpInput(JsonNode a, JsonNode b, JsonNode c, JsonNode d, JsonNode e)");
    assertThat(sources.notes())
        .containsExactly("t.op input.d: schema false (no value is valid) -> JsonNode");
  }

  @Test
  void propertiesWithoutTypeMakeARecord() {
    GeneratedSources sources =
        input("{\"properties\": {\"a\": {\"properties\": {\"b\": {\"type\": \"string\"}}}}}");
    assertThat(source(sources, "OpInput")).contains("record OpInput(OpInputA a)");
    assertThat(source(sources, "OpInputA")).contains("record OpInputA(String b)");
  }

  @Test
  void recursiveDefinitionsReferToThemselves() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
             "$defs": {"Node": {"type": "object", "properties": {
               "name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}""");
    assertThat(source(sources, "Node")).contains("record Node(String name, List<Node> children)");
  }

  @Test
  void theRootRefOfAnInlineInputIsItsRecord() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {"name": {"type": "string"},
              "children": {"type": "array", "items": {"$ref": "#"}}, "parent": {"$ref": "#"}}}""");
    assertThat(source(sources, "OpInput"))
        .contains("record OpInput(String name, List<OpInput> children, OpInput parent)");
  }

  @Test
  void refsToNowhereAndExternalRefsAreJsonNodeWithANote() {
    GeneratedSources sources =
        rawInput(
            """
            {"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"},
              "b": {"$ref": "other.json#/Pet"}, "c": {"$ref": "https://example.com/s.json"}}}""");
    assertThat(source(sources, "OpInput"))
        .contains("record OpInput(JsonNode a, JsonNode b, JsonNode c)");
    assertThat(sources.notes())
        .containsExactly(
            "t.op input.a: unresolvable $ref #/$defs/Missing -> JsonNode",
            "t.op input.b: external $ref other.json#/Pet -> JsonNode",
            "t.op input.c: external $ref https://example.com/s.json -> JsonNode");
  }

  @Test
  void nestingDeeperThan64LevelsIsJsonNodeWithANote() {
    StringBuilder schema = new StringBuilder();
    int levels = 70;
    for (int i = 0; i < levels; i++) {
      schema.append("{\"type\": \"array\", \"items\": ");
    }
    schema.append("{\"type\": \"string\"}");
    schema.append("}".repeat(levels));
    GeneratedSources sources = generate(spec("t", "op", null, schema.toString()));
    Compiled.compile(sources);
    assertThat(sources.notes()).hasSize(1);
    assertThat(sources.notes().get(0))
        .startsWith("t.op output" + "[]".repeat(65) + ": nested deeper than 64 levels -> JsonNode");
  }

  @Test
  void definitionsInEveryPlaceAndPointerEscapesResolve() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {
               "a": {"$ref": "#/definitions/A"}, "b": {"$ref": "#/components/schemas/B"},
               "c": {"$ref": "#/$defs/with~1slash"}, "d": {"$ref": "#/$defs/with~0tilde"},
               "e": {"$ref": "#/$defs/My%20Pet"}, "f": {"$ref": "#/$defs/%C3%A9t%C3%A9"}},
             "definitions": {"A": {"type": "object", "properties": {"x": {"type": "string"}}}},
             "components": {"schemas": {"B": {"type": "object", "properties": {"x": {"type": "string"}}}}},
             "$defs": {"with/slash": {"type": "object", "properties": {"x": {"type": "string"}}},
                       "with~tilde": {"type": "object", "properties": {"x": {"type": "string"}}},
                       "My Pet": {"type": "object", "properties": {"x": {"type": "string"}}},
                       "été": {"type": "object", "properties": {"x": {"type": "string"}}}}}""");
    assertThat(source(sources, "OpInput"))
        .contains("record OpInput(A a, B b, WithSlash c, WithTilde d, MyPet e, Ete f)");
    assertThat(sources.notes()).isEmpty();
  }

  @Test
  void aRefToAnAliasUsesTheAliasedType() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "properties": {"p": {"$ref": "#/$defs/Input"}},
             "$defs": {"Input": {"$ref": "#/$defs/Pet"},
                       "Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}}""");
    assertThat(source(sources, "OpInput")).contains("record OpInput(Pet p)");
    assertThat(typeNames(sources)).doesNotContain("Input");
  }

  @Test
  void anInputThatIsARefOrAnAllOfOfOneRefUsesTheNamedType() {
    GeneratedSources sources =
        generate(
            spec(
                "t",
                "op",
                """
                {"$ref": "#/$defs/Query", "$defs": {"Query": {"type": "object",
                  "properties": {"q": {"type": "string"}}}}}""",
                """
                {"allOf": [{"$ref": "#/$defs/Page"}], "$defs": {"Page": {"type": "object",
                  "properties": {"n": {"type": "integer"}}}}}"""));
    Compiled.compile(sources);
    assertThat(typeNames(sources)).containsExactly("Page", "Query", "T");
    assertThat(source(sources, "T")).contains("Page op(Query input, OperationContext context);");
  }

  @Test
  void theSameDefinitionInManySpecsIsOneTypeAndDifferentOnesAreNumbered() {
    String pet =
        """
        "Pet": {"type": "object", "properties": {"name": {"type": "string"}, "tag": {"$ref": "#/$defs/Tag"}}},
        "Tag": {"type": "object", "properties": {"label": {"type": "string"}}}""";
    String otherTag =
        """
        "Pet": {"type": "object", "properties": {"name": {"type": "string"}, "tag": {"$ref": "#/$defs/Tag"}}},
        "Tag": {"type": "object", "properties": {"label": {"type": "integer"}}}""";
    String output = "{\"$ref\": \"#/$defs/Pet\", \"$defs\": {%s}}";
    GeneratedSources sources =
        generate(
            spec("pets", "a", null, output.formatted(pet)),
            spec("pets", "b", null, output.formatted(pet)),
            spec("pets", "c", null, output.formatted(otherTag)));
    Compiled.compile(sources);
    assertThat(typeNames(sources)).containsExactly("Pet", "Pet2", "Pets", "Tag", "Tag2");
    assertThat(source(sources, "Pet")).contains("record Pet(String name, Tag tag)");
    // The second Pet differs only in what its Tag is: it is another type all the same.
    assertThat(source(sources, "Pet2")).contains("record Pet2(String name, Tag2 tag)");
    assertThat(source(sources, "Pets"))
        .contains("Pet a(OperationContext context);")
        .contains("Pet b(OperationContext context);")
        .contains("Pet2 c(OperationContext context);");
  }

  @Test
  void typeNamesThatTheGeneratedCodeUsesGetAnUnderscore() {
    String[] names = {
      "String",
      "List",
      "Map",
      "Object",
      "Record",
      "Class",
      "Operation",
      "Namespace",
      "Override",
      "Integer",
      "JsonNode",
      "OperationContext",
      "Flow",
      "Long",
      "Boolean",
      "Double"
    };
    StringBuilder properties = new StringBuilder();
    StringBuilder defs = new StringBuilder();
    for (String name : names) {
      String sep = properties.length() == 0 ? "" : ",";
      properties
          .append(sep)
          .append("\"p")
          .append(name)
          .append("\": {\"$ref\": \"#/$defs/")
          .append(name)
          .append("\"}");
      defs.append(sep)
          .append("\"")
          .append(name)
          .append("\": {\"type\": \"object\", \"properties\": {\"v\": {\"type\": \"integer\"},")
          .append(
              " \"s\": {\"type\": \"string\"}, \"m\": {\"type\": \"object\", \"additionalProperties\": {\"type\": \"boolean\"}},")
          .append(" \"l\": {\"type\": \"array\", \"items\": {\"type\": \"number\"}}}}");
    }
    GeneratedSources sources =
        generate(
            spec(
                "t",
                "op",
                OperationType.SUBSCRIPTION,
                "{\"type\": \"object\", \"properties\": {"
                    + properties
                    + "}, \"$defs\": {"
                    + defs
                    + "}}",
                "{\"$ref\": \"#/$defs/Object\", \"$defs\": {" + defs + "}}"));
    Compiled.compile(sources);
    for (String name : names) {
      assertThat(typeNames(sources)).contains(name + "_").doesNotContain(name);
    }
    assertThat(source(sources, "OpInput")).contains("String_ pString").contains("List_ pList");
    assertThat(source(sources, "T")).contains("Flow.Publisher<Object_> op(OpInput input");
  }

  @Test
  void javadocComesFromTitleAndDescriptionEscaped() {
    GeneratedSources sources =
        input(
            """
            {"type": "object", "title": "A <b>query</b>", "description": "Ends */ here; C:\\\\users\\\\u0041 @see {@code x} $1 and é",
             "properties": {"a": {"type": "string", "description": "line one\\nline two */"}}}""");
    String s = source(sources, "OpInput");
    assertThat(s)
        .contains(" * A &lt;b&gt;query&lt;/b&gt;\n *\n")
        .contains(
            " * Ends *&#47; here; C:&#92;users&#92;u0041 &#64;see {&#64;code x} $1 and &#xE9;\n")
        .contains(" * @param a line one\n * line two *&#47;\n");
  }

  @Test
  void everyFileStartsWithTheGeneratedComment() {
    GeneratedSources sources =
        input("{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\"}}}");
    for (GeneratedFile file : sources.files()) {
      assertThat(file.content())
          .startsWith(
              "// Generated by operations for Java (ops generate java). Do not edit.\n"
                  + "package com.example.gen;\n");
      assertThat(file.content().chars().allMatch(c -> c < 128)).isTrue();
    }
  }
}
