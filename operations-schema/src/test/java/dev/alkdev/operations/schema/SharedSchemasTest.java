package dev.alkdev.operations.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** {@link FromSchema#shared}: schemas of one document sharing its definitions (D69). */
@Timeout(120)
class SharedSchemasTest {
  private static final ObjectMapper JSON = JsonMapper.builder().build();

  private static ObjectNode definitions() {
    return (ObjectNode)
        JSON.readTree(
            """
            {"Pet": {"type": "object", "required": ["name"],
                     "properties": {"name": {"type": "string"},
                                    "age": {"type": "integer", "default": 1},
                                    "owner": {"$ref": "#/$defs/Person"}}},
             "Person": {"type": "object", "nullable": true,
                        "properties": {"friend": {"$ref": "#/$defs/Person"}}},
             "Unused": {"type": "string"}}""");
  }

  @Test
  void schemasValidateAndCastThroughTheSharedDefinitions() {
    FromSchema.Shared shared =
        FromSchema.shared(definitions(), FromSchema.Dialect.OPENAPI_3_0, SchemaOptions.defaults());
    Schema pet = shared.schema(JSON.readTree("{\"$ref\": \"#/$defs/Pet\"}"));
    Schema pets =
        shared.schema(
            JSON.readTree("{\"type\": \"array\", \"items\": {\"$ref\": \"#/$defs/Pet\"}}"));

    assertThat(pet.isValid(JSON.readTree("{\"name\": \"Rex\", \"owner\": null}"))).isTrue();
    assertThat(pet.validate(JSON.readTree("{\"owner\": {\"friend\": 5}}")))
        .extracting(SchemaError::instancePath)
        .contains("", "/owner/friend");
    assertThat(pets.cast(JSON.readTree("[{\"name\": \"Rex\"}]")).toString())
        .isEqualTo("[{\"name\":\"Rex\",\"age\":1}]");
    assertThat(pets.isValid(JSON.readTree("[{\"name\": 3}]"))).isFalse();
  }

  @Test
  void jsonIsSelfContainedWithOnlyTheDefinitionsReached() {
    FromSchema.Shared shared =
        FromSchema.shared(definitions(), FromSchema.Dialect.OPENAPI_3_0, SchemaOptions.defaults());
    Schema pet = shared.schema(JSON.readTree("{\"$ref\": \"#/$defs/Pet\"}"));

    JsonNode json = pet.json();
    assertThat(json.get("$ref").stringValue()).isEqualTo("#/$defs/Pet");
    assertThat(json.get("$defs").propertyNames()).containsExactly("Pet", "Person");
    // OpenAPI 3.0's nullable is normalised as in FromSchema.convert
    assertThat(json.at("/$defs/Person/type").toString()).isEqualTo("[\"object\",\"null\"]");
    // what users are shown compiles on its own and means the same
    Schema alone = Schema.fromJson(json);
    assertThat(alone.isValid(JSON.readTree("{\"name\": \"Rex\", \"owner\": null}"))).isTrue();
    assertThat(alone.isValid(JSON.readTree("{\"owner\": null}"))).isFalse();
  }

  @Test
  void aBadKeywordInADefinitionIsDroppedWithoutLosingTheOthers() {
    ObjectNode definitions = definitions();
    // "examples" written as an object (OpenAPI style) breaks the 2020-12 meta-schema
    ((ObjectNode) definitions.get("Pet")).set("examples", JSON.readTree("{\"a\": {}}"));
    FromSchema.Shared shared =
        FromSchema.shared(definitions, FromSchema.Dialect.OPENAPI_3_1, SchemaOptions.defaults());
    Schema pet = shared.schema(JSON.readTree("{\"$ref\": \"#/$defs/Pet\"}"));
    Schema person = shared.schema(JSON.readTree("{\"$ref\": \"#/$defs/Person\"}"));

    assertThat(pet.isUnknown()).isFalse();
    assertThat(pet.isValid(JSON.readTree("{}"))).isFalse(); // "required" still applies
    assertThat(person.isUnknown()).isFalse();
  }

  @Test
  void aSchemaMadeAfterTheFirstUseIsConvertedWithItsOwnCopies() {
    FromSchema.Shared shared =
        FromSchema.shared(definitions(), FromSchema.Dialect.OPENAPI_3_0, SchemaOptions.defaults());
    Schema first = shared.schema(JSON.readTree("{\"$ref\": \"#/$defs/Person\"}"));
    assertThat(first.isValid(JSON.readTree("{\"friend\": null}"))).isTrue();

    Schema late = shared.schema(JSON.readTree("{\"$ref\": \"#/$defs/Pet\"}"));
    assertThat(late.isValid(JSON.readTree("{\"name\": \"Rex\"}"))).isTrue();
    assertThat(late.isValid(JSON.readTree("{\"owner\": {}}"))).isFalse();
    assertThat(late.json().get("$defs").propertyNames()).containsExactly("Pet", "Person");
  }

  @Test
  void hostileLimitsStillApply() {
    SchemaOptions tight =
        SchemaOptions.builder()
            .limits(SchemaLimits.defaults().withMaxNestingDepth(20).withMaxDocumentChars(2_000))
            .build();
    // a definition nested deeper than the limit: the document is refused, every schema unknown
    ObjectNode deep = JSON.createObjectNode();
    ObjectNode node = deep;
    for (int i = 0; i < 30; i++) {
      node = node.putObject("properties").putObject("p");
    }
    ObjectNode definitions = definitions();
    definitions.set("Deep", deep);
    FromSchema.Shared shared =
        FromSchema.shared(definitions, FromSchema.Dialect.JSON_SCHEMA, tight);
    assertThat(shared.schema(JSON.readTree("{\"$ref\": \"#/$defs/Pet\"}")).isUnknown()).isTrue();

    // a definition larger than maxDocumentChars accepts any value; the others keep their rules
    ObjectNode large = JSON.createObjectNode().put("type", "string");
    large.put("description", "x".repeat(3_000));
    ObjectNode withLarge = definitions();
    withLarge.set("Large", large);
    FromSchema.Shared sized = FromSchema.shared(withLarge, FromSchema.Dialect.JSON_SCHEMA, tight);
    Schema largeRef = sized.schema(JSON.readTree("{\"$ref\": \"#/$defs/Large\"}"));
    Schema pet = sized.schema(JSON.readTree("{\"$ref\": \"#/$defs/Pet\"}"));
    assertThat(largeRef.isValid(JSON.readTree("5"))).isTrue();
    assertThat(pet.isValid(JSON.readTree("{}"))).isFalse();
  }

  @Test
  void aDefinitionReachedByManySchemasIsCompiledOnceForAll() {
    // A large definition: compiling it is most of what each schema costs when it has its own copy.
    ObjectNode big = JSON.createObjectNode().put("type", "object");
    ObjectNode properties = big.putObject("properties");
    for (int i = 0; i < 400; i++) {
      properties.set(
          "p" + i, JSON.readTree("{\"type\": \"string\", \"minLength\": " + (i % 7) + "}"));
    }
    ObjectNode definitions = JSON.createObjectNode();
    definitions.set("Big", big);
    JsonNode root = JSON.readTree("{\"type\": \"array\", \"items\": {\"$ref\": \"#/$defs/Big\"}}");

    // Copies, as before D69: 10 schemas each with their own copy of the definition.
    ObjectNode alone = (ObjectNode) root.deepCopy();
    alone.putObject("$defs").set("Big", big);
    long copies = System.nanoTime();
    for (int i = 0; i < 10; i++) {
      ObjectNode copy = alone.deepCopy();
      copy.put("description", "copy " + i);
      assertThat(FromSchema.convert(copy).isUnknown()).isFalse();
    }
    copies = System.nanoTime() - copies;

    // Shared: 200 schemas reaching the one definition (20 times as many as above).
    FromSchema.Shared shared =
        FromSchema.shared(definitions, FromSchema.Dialect.JSON_SCHEMA, SchemaOptions.defaults());
    List<Schema> schemas = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      ObjectNode distinct = (ObjectNode) root.deepCopy();
      distinct.put("description", "schema " + i);
      schemas.add(shared.schema(distinct));
    }
    long sharedTime = System.nanoTime();
    for (Schema schema : schemas) {
      assertThat(schema.isValid(JSON.readTree("[{\"p1\": \"x\"}]"))).isTrue();
    }
    sharedTime = System.nanoTime() - sharedTime;

    // Compiled per schema, 200 would take about 20 times as long as the 10 copies; shared, the
    // definition compiles once and the 200 together take less than the 10 copies.
    assertThat(sharedTime).isLessThan(copies);
  }
}
