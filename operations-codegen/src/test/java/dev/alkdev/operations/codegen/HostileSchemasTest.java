package dev.alkdev.operations.codegen;

import static dev.alkdev.operations.codegen.MappingTest.flat;
import static dev.alkdev.operations.codegen.Specs.JSON;
import static dev.alkdev.operations.codegen.Specs.generate;
import static dev.alkdev.operations.codegen.Specs.rawSpec;
import static dev.alkdev.operations.codegen.Specs.source;
import static dev.alkdev.operations.codegen.Specs.typeNames;
import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Schemas written to break a generator: whatever they are, it returns sources that compile, in
 * bounded time and stack, with notes for what it could not map.
 */
@Timeout(120)
class HostileSchemasTest {

  private static GeneratedSources compiles(OperationSpec... specs) {
    GeneratedSources sources = generate(specs);
    Compiled.compile(sources);
    return sources;
  }

  private static ObjectNode object() {
    return JSON.createObjectNode();
  }

  @Test
  void objectsNested1000LevelsDeep() {
    ObjectNode root = object().put("type", "object");
    ObjectNode current = root;
    for (int i = 0; i < 1000; i++) {
      ObjectNode child = object().put("type", "object");
      current.putObject("properties").set("level" + i, child);
      current = child;
    }
    current.putObject("properties").putObject("leaf").put("type", "string");
    GeneratedSources sources = compiles(rawSpec("t", "deep", root, root));
    assertThat(sources.notes())
        .hasSize(2)
        .allMatch(n -> n.endsWith(": nested deeper than 64 levels -> JsonNode"));
    // Records at depths 0 to 64, then JsonNode; twice, and the interface.
    assertThat(typeNames(sources)).hasSize(2 * 65 + 1);
    // Names are cut to 100 characters and numbered past that.
    assertThat(typeNames(sources)).allMatch(name -> name.length() <= 103);
  }

  @Test
  void arraysAndUnionsAndAllOfsNested1000LevelsDeep() {
    ObjectNode root = object();
    ObjectNode current = root;
    for (int i = 0; i < 1000; i++) {
      ObjectNode child = object();
      switch (i % 4) {
        case 0 -> current.put("type", "array").set("items", child);
        case 1 -> current.putArray("oneOf").add(child).addObject().put("type", "null");
        case 2 -> current.putArray("allOf").add(child);
        default -> current.put("type", "object").set("additionalProperties", child);
      }
      current = child;
    }
    current.put("type", "string");
    GeneratedSources sources = compiles(rawSpec("t", "deep", null, root));
    assertThat(sources.notes()).hasSize(1);
    assertThat(sources.notes().get(0)).endsWith(": nested deeper than 64 levels -> JsonNode");
  }

  @Test
  void refChainsThousandsOfDefinitionsLong() {
    ObjectNode defs = object();
    int length = 3000;
    for (int i = 0; i < length; i++) {
      ObjectNode def = defs.putObject("D" + i).put("type", "object");
      def.putObject("properties").putObject("next").put("$ref", "#/$defs/D" + ((i + 1) % length));
    }
    ObjectNode aliases = object();
    for (int i = 0; i < length; i++) {
      aliases.putObject("A" + i).put("$ref", "#/$defs/A" + (i + 1));
    }
    aliases.putObject("A" + length).put("type", "string");
    ObjectNode input = object().put("$ref", "#/$defs/D0");
    input.set("$defs", defs);
    ObjectNode output = object().put("$ref", "#/$defs/A0");
    output.set("$defs", aliases);
    GeneratedSources sources = compiles(rawSpec("t", "chain", input, output));
    assertThat(source(sources, "D0")).contains("record D0(D1 next)");
    assertThat(source(sources, "D2999")).contains("record D2999(D0 next)");
    // The alias chain is followed 64 levels deep, then it is JsonNode.
    assertThat(sources.notes())
        .containsExactly("t.chain output: nested deeper than 64 levels -> JsonNode");
  }

  @Test
  void refCyclesWithoutABaseCase() {
    GeneratedSources sources =
        compiles(
            rawSpec(
                "t",
                "cycles",
                """
                {"type": "object", "properties": {
                   "ab": {"$ref": "#/$defs/A"}, "self": {"$ref": "#/$defs/Self"},
                   "all": {"$ref": "#/$defs/AllA"}, "arr": {"$ref": "#/$defs/Arr"},
                   "any": {"$ref": "#/$defs/U"}, "objects": {"$ref": "#/$defs/X"}},
                 "$defs": {
                   "A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"},
                   "Self": {"$ref": "#/$defs/Self"},
                   "AllA": {"allOf": [{"$ref": "#/$defs/AllB"}]}, "AllB": {"allOf": [{"$ref": "#/$defs/AllA"}]},
                   "Arr": {"type": "array", "items": {"$ref": "#/$defs/Arr"}},
                   "U": {"anyOf": [{"$ref": "#/$defs/U"}, {"type": "null"}]},
                   "X": {"type": "object", "properties": {"y": {"$ref": "#/$defs/Y"}}},
                   "Y": {"type": "object", "properties": {"x": {"$ref": "#/$defs/X"}}}}}""",
                """
                {"$ref": "#"}"""));
    assertThat(flat(source(sources, "CyclesInput")))
        .contains(
            "record CyclesInput(JsonNode ab, JsonNode self, JsonNode all, List<JsonNode> arr,"
                + " JsonNode any, X objects)");
    assertThat(source(sources, "X")).contains("record X(Y y)");
    assertThat(source(sources, "Y")).contains("record Y(X x)");
    assertThat(sources.notes())
        .contains(
            "t.cycles input.ab: recursive $ref #/$defs/A through schemas that are not objects -> JsonNode",
            "t.cycles input.self: recursive $ref #/$defs/Self through schemas that are not objects -> JsonNode",
            "t.cycles output: recursive $ref # through schemas that are not objects -> JsonNode");
  }

  @Test
  void refsToNowhereAndMalformedRefs() {
    GeneratedSources sources =
        compiles(
            rawSpec(
                "t",
                "refs",
                """
                {"type": "object", "properties": {
                   "a": {"$ref": "#/$defs/Nowhere"}, "b": {"$ref": "#/$defs/a~2b"},
                   "c": {"$ref": "#/%ZZ"}, "d": {"$ref": "#/required"}, "e": {"$ref": 42},
                   "f": {"$ref": "#/properties/f/items/7"}, "g": {"$ref": "#nope"},
                   "h": {"$ref": "#/$defs/Str/0"}, "i": {"$ref": ""}, "j": {"$ref": "#/$defs/%"}},
                 "required": ["a"], "$defs": {"Str": "text"}}""",
                null));
    assertThat(flat(source(sources, "RefsInput")))
        .contains(
            "record RefsInput(JsonNode a, JsonNode b, JsonNode c, JsonNode d, JsonNode e, JsonNode f,"
                + " JsonNode g, JsonNode h, JsonNode i, JsonNode j)");
    assertThat(sources.notes())
        .contains(
            "t.refs input.a: unresolvable $ref #/$defs/Nowhere -> JsonNode",
            "t.refs input.d: not a schema (a JSON array) -> JsonNode",
            "t.refs input.i: external $ref  -> JsonNode");
  }

  @Test
  void schemasThatAreNotSchemas() {
    GeneratedSources sources =
        compiles(
            rawSpec(
                "t",
                "junk",
                """
                {"type": "object", "properties": {"a": 5, "b": "string", "c": null, "d": [1],
                  "e": {"type": 7}, "f": {"type": "file"}, "g": {"items": 3, "type": "array"},
                  "h": {"enum": "x"}, "i": {"allOf": 1}, "j": {"oneOf": []},
                  "k": {"type": "object", "additionalProperties": 3},
                  "l": {"properties": {"x": {"type": "string"}}, "type": "string"}}}""",
                "[1, 2]"));
    assertThat(source(sources, "JunkInput")).contains("record JunkInput(");
    assertThat(sources.notes())
        .contains(
            "t.junk input.a: not a schema (a JSON integer) -> JsonNode",
            "t.junk input.f: unknown type file -> JsonNode",
            "t.junk output: not a schema (a JSON array) -> JsonNode");
  }

  @Test
  void propertyNamesThatAreAllKeywordsOrPunctuation() {
    List<String> names = new ArrayList<>();
    for (String k :
        "abstract assert boolean break byte case catch char class const continue default do double else enum extends final finally float for goto if implements import instanceof int interface long native new package private protected public return short static strictfp super switch synchronized this throw throws transient try void volatile while true false null _ var yield record sealed permits when"
            .split(" ")) {
      names.add(k);
    }
    for (char c = 33; c < 127; c++) {
      if (!Character.isLetterOrDigit(c)) {
        names.add(String.valueOf(c));
        names.add(c + "" + c);
      }
    }
    names.addAll(
        List.of(
            "", " ", "\n", "\t", "\u0000", "*/", "/*", "\\u000a", "\"", "\\", "é", "名", "😀", "$L",
            "$S"));
    ObjectNode properties = object();
    for (String name : names) {
      properties.putObject(name).put("type", "string");
    }
    ObjectNode schema = object().put("type", "object");
    schema.set("properties", properties);
    ArrayNode enumValues = JSON.createArrayNode();
    names.forEach(enumValues::add);
    ObjectNode output = object();
    output.set("enum", enumValues);
    output.put("description", String.join(" ", names));
    Compiled compiled = Compiled.compile(generate(rawSpec("t", "names", schema, output)));
    // Every value of the enum reads and writes back as it was.
    Class<?> type = compiled.load(Specs.PACKAGE + ".NamesOutput");
    for (String name : names) {
      String json = JSON.writeValueAsString(name);
      assertThat(JSON.writeValueAsString(JSON.readValue(json, type))).isEqualTo(json);
    }
  }

  @Test
  void hugeEnumsBecomeStringsAndLargeOnesStayEnums() {
    ObjectNode huge = object().put("type", "string");
    ArrayNode values = huge.putArray("enum");
    for (int i = 0; i < 20_000; i++) {
      values.add("value-" + i);
    }
    ObjectNode large = object().put("type", "string");
    ArrayNode some = large.putArray("enum");
    for (int i = 0; i < 1000; i++) {
      some.add("v" + i + "-" + "x".repeat(i % 50));
    }
    GeneratedSources sources = compiles(rawSpec("t", "huge", huge, large));
    assertThat(source(sources, "T"))
        .contains("HugeOutput huge(String input, OperationContext context)")
        .contains("and 19950 more");
    assertThat(source(sources, "HugeOutput")).contains("public enum HugeOutput {");
    assertThat(sources.notes())
        .containsExactly("t.huge input: enum of 20000 values, too many for a Java enum -> String");
  }

  @Test
  void recordsWithMoreComponentsThanTheJvmAllows() {
    ObjectNode wide = object().put("type", "object");
    ObjectNode widest = object().put("type", "object");
    ArrayNode required = wide.putArray("required");
    for (int i = 0; i < 253; i++) {
      wide.withObject("properties").putObject("n" + i).put("type", "integer");
      required.add("n" + i);
    }
    for (int i = 0; i < 300; i++) {
      widest.withObject("properties").putObject("p" + i).put("type", "string");
    }
    wide.put("additionalProperties", true);
    GeneratedSources sources = compiles(rawSpec("t", "wide", wide, widest));
    assertThat(source(sources, "WideInput")).contains("Long n0, Long n1,");
    assertThat(source(sources, "T")).contains("JsonNode wide(WideInput input");
    assertThat(sources.notes())
        .containsExactly(
            "t.wide input: record of 254 components: numbers are boxed to fit the JVM's limit of"
                + " parameters",
            "t.wide output: object with 300 properties, more than a Java record can hold -> JsonNode");
  }

  @Test
  void hugeNamesAndTexts() {
    String longName = "n".repeat(30_000);
    ObjectNode schema = object().put("type", "object");
    schema.withObject("properties").putObject(longName).put("type", "string");
    schema.withObject("properties").putObject("a" + "b".repeat(500)).put("type", "string");
    ObjectNode output = object().put("type", "string");
    output.putArray("enum").add("x".repeat(30_000)).add("y");
    OperationSpec spec =
        OperationSpec.builder("t", "o" + "p".repeat(127))
            .description("d".repeat(70_000))
            .version("v".repeat(30_000))
            .inputSchema(new Specs.RawSchema(schema))
            .outputSchema(new Specs.RawSchema(output))
            .build();
    GeneratedSources sources = compiles(spec);
    assertThat(sources.files())
        .allMatch(f -> f.relativePath().length() < 200, "file names stay short");
    assertThat(sources.notes()).hasSize(4);
  }

  /** Diamonds of allOf and of unions through refs: each definition is looked at once. */
  private static ObjectNode diamonds(int levels) {
    ObjectNode defs = object();
    for (int i = 0; i < levels; i++) {
      ArrayNode allOf = defs.putObject("D" + i).putArray("allOf");
      allOf.addObject().put("$ref", "#/$defs/D" + (i + 1));
      allOf.addObject().put("$ref", "#/$defs/D" + (i + 1));
      allOf
          .addObject()
          .put("type", "object")
          .putObject("properties")
          .putObject("p" + i)
          .put("type", "integer");
      ArrayNode oneOf = defs.putObject("U" + i).putArray("oneOf");
      oneOf.addObject().put("$ref", "#/$defs/U" + (i + 1));
      oneOf.addObject().put("$ref", "#/$defs/U" + (i + 1));
    }
    defs.putObject("D" + levels)
        .put("type", "object")
        .putObject("properties")
        .putObject("end")
        .put("type", "string");
    defs.putObject("U" + levels).put("type", "string");
    ObjectNode schema = object().put("type", "object");
    schema.withObject("properties").putObject("d").put("$ref", "#/$defs/D0");
    schema.withObject("properties").putObject("u").put("$ref", "#/$defs/U0");
    schema.set("$defs", defs);
    return schema;
  }

  @Test
  void allOfAndUnionDiamondsDoNotExplode() {
    GeneratedSources sources = compiles(rawSpec("t", "diamond", diamonds(30), null));
    assertThat(source(sources, "DiamondInput")).contains("record DiamondInput(D0 d, String u)");
    assertThat(flat(source(sources, "D0"))).contains("record D0(String end, Long p29, Long p28,");
    assertThat(sources.notes()).isEmpty();

    long start = System.nanoTime();
    GeneratedSources deeper = compiles(rawSpec("t", "diamond", diamonds(2000), null));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
    assertThat(source(deeper, "DiamondInput"))
        .contains("record DiamondInput(JsonNode d, JsonNode u)");
    assertThat(deeper.notes())
        .containsExactly(
            "t.diamond input.d: allOf nested deeper than 64 levels -> JsonNode",
            "t.diamond input.u: nested deeper than 64 levels -> JsonNode");
  }

  @Test
  void manySpecsWithCopiesOfTheSameDefinitions() {
    List<OperationSpec> specs = new ArrayList<>();
    String defs =
        """
        "Pet": {"type": "object", "properties": {"name": {"type": "string"},
                "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}},
                "owner": {"$ref": "#/$defs/Owner"}}},
        "Tag": {"type": "object", "properties": {"label": {"type": "string"}}},
        "Owner": {"type": "object", "properties": {"pets": {"type": "array", "items": {"$ref": "#/$defs/Pet"}}}}""";
    for (int i = 0; i < 400; i++) {
      specs.add(
          rawSpec(
              "pets",
              "op" + i,
              "{\"type\": \"object\", \"properties\": {\"body\": {\"$ref\": \"#/$defs/Pet\"}}, \"$defs\": {"
                  + defs
                  + "}}",
              "{\"type\": \"array\", \"items\": {\"$ref\": \"#/$defs/Pet\"}, \"$defs\": {"
                  + defs
                  + "}}"));
    }
    GeneratedSources sources = generate(specs.toArray(OperationSpec[]::new));
    assertThat(typeNames(sources)).contains("Pet", "Tag", "Owner").doesNotContain("Pet2");
    assertThat(sources.files()).hasSize(400 + 3 + 1);
    Compiled.compile(sources);
  }

  @Test
  void rootsThatAreBooleansOrEmpty() {
    JsonNode no = JSON.getNodeFactory().booleanNode(false);
    JsonNode yes = JSON.getNodeFactory().booleanNode(true);
    GeneratedSources sources =
        compiles(rawSpec("t", "a", no, yes), rawSpec("t", "b", object(), no));
    assertThat(source(sources, "T"))
        .contains("JsonNode a(JsonNode input, OperationContext context);")
        .contains("JsonNode b(JsonNode input, OperationContext context);");
    assertThat(sources.notes())
        .containsExactly(
            "t.a input: schema false (no value is valid) -> JsonNode",
            "t.b output: schema false (no value is valid) -> JsonNode");
  }
}
