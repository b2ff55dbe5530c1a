package dev.alkdev.operations.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.annotation.OptBoolean;
import dev.alkdev.operations.schema.internal.JavaTypeSchemas;
import dev.alkdev.operations.schema.internal.Json;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.Year;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class JavaTypeSchemaTest {

  // ---- types under test -------------------------------------------------------------------

  public record Item(
      @JsonProperty("item_name") @JsonPropertyDescription("What the item is called") String name,
      int quantity,
      Optional<String> note) {}

  public record Annotated(
      @JsonProperty(required = true) String id,
      @JsonIgnore String secret,
      @JsonProperty(isRequired = OptBoolean.FALSE) String hint,
      @JsonProperty(defaultValue = "5") int retries,
      @JsonProperty(defaultValue = "fast") String mode,
      @org.jspecify.annotations.Nullable String typeUseNullable,
      @Nullable String declarationNullable) {}

  /** A declaration annotation named like the usual ones: matched by simple name. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target({
    ElementType.FIELD,
    ElementType.METHOD,
    ElementType.PARAMETER,
    ElementType.RECORD_COMPONENT
  })
  public @interface Nullable {}

  public record BadDefault(@JsonProperty(defaultValue = "many") int count) {}

  public static class Bean {
    private String name;
    private int count;

    @JsonProperty(required = true)
    private String code;

    private String unseen; // private, no getter: Jackson never writes it

    public String getName() {
      return name;
    }

    public void setName(String name) {
      this.name = name;
    }

    public int getCount() {
      return count;
    }

    public void setCount(int count) {
      this.count = count;
    }

    public String getCode() {
      return code;
    }

    public void setCode(String code) {
      this.code = code;
    }

    /** Computed: written by Jackson, so part of the schema; never read. */
    public boolean isEmpty() {
      return count == 0;
    }
  }

  public enum Color {
    RED,
    @JsonProperty("light-green")
    LIGHT_GREEN
  }

  public enum Level {
    LOW("low"),
    HIGH("high");

    private final String wire;

    Level(String wire) {
      this.wire = wire;
    }

    @JsonValue
    public String wire() {
      return wire;
    }
  }

  public enum Priority {
    P1(1),
    P2(2);

    private final int rank;

    Priority(int rank) {
      this.rank = rank;
    }

    @JsonValue
    public int rank() {
      return rank;
    }
  }

  public record Palette(Color color, Level level, Priority priority, Optional<Color> accent) {}

  public record Address(String street, String city) {}

  public record Person(String name, Address home, List<Address> others) {}

  public record Page<T>(List<T> items, int total) {}

  public record Numbers(
      int primitiveInt,
      Integer boxedInt,
      long primitiveLong,
      double primitiveDouble,
      boolean flag,
      Boolean boxedFlag,
      char letter,
      BigDecimal amount,
      BigInteger huge) {}

  public record Times(
      Instant instant,
      OffsetDateTime offsetDateTime,
      ZonedDateTime zonedDateTime,
      LocalDate localDate,
      LocalDateTime localDateTime,
      LocalTime localTime,
      Duration duration,
      Year year,
      UUID id,
      URI link) {}

  public record Blob(String name, byte[] content) {}

  public record Node(String name, List<Node> children) {}

  public record Tree(String title, Node root) {}

  /** A value type Jackson writes as a plain string. */
  public record Email(@JsonValue String address) {}

  public record Contact(Email email, JsonNode extra) {}

  @JsonPropertyOrder({"b", "a"})
  public record Ordered(String a, String b) {}

  /** Jackson cannot write this: two fields claim the same property name. */
  public static class Conflicting {
    @JsonProperty("x")
    public String a;

    @JsonProperty("x")
    public String b;
  }

  // ---- helpers -----------------------------------------------------------------------------

  private static final SchemaOptions STRICT_FORMATS =
      SchemaOptions.builder().formatAssertions(true).build();

  /** The value as it travels: written to JSON text by Jackson and read back. */
  private static JsonNode write(Object value) {
    return Json.mapper().readTree(Json.mapper().writeValueAsString(value));
  }

  private static ObjectNode object(String json) {
    return (ObjectNode) Json.mapper().readTree(json);
  }

  private static List<String> required(JsonNode schema) {
    List<String> names = new ArrayList<>();
    schema.path("required").values().forEach(n -> names.add(n.asString()));
    return names;
  }

  private static List<String> propertyNames(JsonNode schema) {
    return new ArrayList<>(schema.path("properties").propertyNames());
  }

  // ---- records, annotations, required -------------------------------------------------------

  @Test
  void recordComponentsAreRequiredExceptOptional() {
    JsonNode json = JavaTypeSchemas.generate(Item.class);

    assertThat(json.path("$schema").asString())
        .isEqualTo("https://json-schema.org/draft/2020-12/schema");
    assertThat(json.path("type").asString()).isEqualTo("object");
    assertThat(propertyNames(json)).containsExactly("item_name", "quantity", "note");
    assertThat(required(json)).containsExactly("item_name", "quantity");
    assertThat(json.at("/properties/item_name/description").asString())
        .isEqualTo("What the item is called");
    assertThat(json.at("/properties/quantity/type").asString()).isEqualTo("integer");
    // Optional<String>: the schema of String, plus null (Jackson writes Optional.empty() as null).
    assertThat(json.at("/properties/note/type"))
        .isEqualTo(Json.mapper().readTree("[\"string\", \"null\"]"));
    assertThat(json.has("additionalProperties")).isFalse();

    Schema schema = Schema.fromType(Item.class);
    assertThat(schema.validate(write(new Item("pen", 2, Optional.of("blue"))))).isEmpty();
    assertThat(schema.validate(write(new Item("pen", 2, Optional.empty())))).isEmpty();
    assertThat(schema.validate(object("{\"item_name\": \"pen\", \"quantity\": 2}"))).isEmpty();

    assertThat(schema.validate(object("{\"item_name\": \"pen\"}")))
        .extracting(SchemaError::keyword)
        .containsExactly("required");
    assertThat(schema.validate(object("{\"item_name\": \"pen\", \"quantity\": \"two\"}")))
        .extracting(SchemaError::instancePath)
        .containsExactly("/quantity");
    // A required component written as null (a record built with null) does not match.
    assertThat(schema.isValid(write(new Item(null, 1, Optional.empty())))).isFalse();
  }

  @Test
  void jacksonAnnotationsDecideNamesRequiredAndDefaults() {
    JsonNode json = JavaTypeSchemas.generate(Annotated.class);

    assertThat(propertyNames(json))
        .containsExactly("id", "hint", "retries", "mode", "typeUseNullable", "declarationNullable")
        .doesNotContain("secret");
    assertThat(required(json)).containsExactly("id");
    assertThat(json.at("/properties/retries/default").isInt()).isTrue();
    assertThat(json.at("/properties/retries/default").asInt()).isEqualTo(5);
    assertThat(json.at("/properties/mode/default").asString()).isEqualTo("fast");
    for (String nullable : List.of("hint", "typeUseNullable", "declarationNullable")) {
      assertThat(json.at("/properties/" + nullable + "/type"))
          .as(nullable)
          .isEqualTo(Json.mapper().readTree("[\"string\", \"null\"]"));
    }

    Schema schema = Schema.fromType(Annotated.class);
    assertThat(schema.validate(write(new Annotated("a", "s", null, 1, "slow", null, null))))
        .isEmpty();
    assertThat(schema.validate(object("{\"id\": \"a\"}"))).isEmpty();
    assertThat(schema.isValid(object("{\"hint\": \"h\"}"))).isFalse();
    assertThat(schema.isValid(object("{\"id\": \"a\", \"retries\": \"many\"}"))).isFalse();
  }

  @Test
  void defaultThatIsNotOfThePropertyTypeIsRefused() {
    assertThatThrownBy(() -> JavaTypeSchemas.generate(BadDefault.class))
        .isInstanceOf(SchemaException.class)
        .hasMessageContaining("defaultValue = \"many\"")
        .hasMessageContaining("count")
        .hasMessageContaining("integer");
  }

  @Test
  void beanPropertiesAreRequiredOnlyWhenPrimitiveOrDeclaredSo() {
    JsonNode json = JavaTypeSchemas.generate(Bean.class);

    assertThat(propertyNames(json)).containsExactly("name", "count", "code", "empty");
    assertThat(required(json)).containsExactlyInAnyOrder("count", "code");
    assertThat(json.at("/properties/name/type"))
        .isEqualTo(Json.mapper().readTree("[\"string\", \"null\"]"));
    assertThat(json.at("/properties/code/type").asString()).isEqualTo("string");
    assertThat(json.at("/properties/empty/type").asString()).isEqualTo("boolean");

    Schema schema = Schema.fromType(Bean.class);
    Bean bean = new Bean();
    bean.setCode("c1");
    assertThat(schema.validate(write(bean))).isEmpty(); // name is null: allowed
    bean.setName("n");
    bean.setCount(3);
    assertThat(schema.validate(write(bean))).isEmpty();
    assertThat(schema.validate(object("{\"count\": 1}")))
        .extracting(SchemaError::message)
        .anyMatch(m -> m.contains("code"));
    assertThat(schema.isValid(object("{\"count\": 1.5, \"code\": \"c\"}"))).isFalse();
  }

  @Test
  void propertyOrderFollowsJsonPropertyOrder() {
    assertThat(propertyNames(JavaTypeSchemas.generate(Ordered.class))).containsExactly("b", "a");
  }

  // ---- enums ----------------------------------------------------------------------------------

  @Test
  void enumsListTheValuesJacksonWrites() {
    JsonNode json = JavaTypeSchemas.generate(Palette.class);

    assertThat(json.at("/properties/color"))
        .isEqualTo(
            Json.mapper().readTree("{\"type\": \"string\", \"enum\": [\"RED\", \"light-green\"]}"));
    assertThat(json.at("/properties/level/enum"))
        .isEqualTo(Json.mapper().readTree("[\"low\", \"high\"]"));
    assertThat(json.at("/properties/priority"))
        .isEqualTo(Json.mapper().readTree("{\"type\": \"integer\", \"enum\": [1, 2]}"));
    assertThat(required(json)).containsExactly("color", "level", "priority");

    Schema schema = Schema.fromType(Palette.class);
    for (Color color : Color.values()) {
      for (Level level : Level.values()) {
        for (Priority priority : Priority.values()) {
          Palette palette = new Palette(color, level, priority, Optional.of(color));
          assertThat(schema.validate(write(palette))).as(palette.toString()).isEmpty();
        }
      }
    }
    assertThat(
            schema.validate(
                write(new Palette(Color.RED, Level.LOW, Priority.P1, Optional.empty()))))
        .isEmpty();
    assertThat(
            schema.isValid(
                object("{\"color\": \"LIGHT_GREEN\", \"level\": \"low\", \"priority\": 1}")))
        .isFalse();
    assertThat(schema.isValid(object("{\"color\": \"RED\", \"level\": \"LOW\", \"priority\": 1}")))
        .isFalse();
    assertThat(schema.isValid(object("{\"color\": \"RED\", \"level\": \"low\", \"priority\": 3}")))
        .isFalse();
  }

  @Test
  void enumAsTheWholeType() {
    Schema schema = Schema.fromType(Level.class);
    assertThat(schema.json().path("enum")).isEqualTo(Json.mapper().readTree("[\"low\", \"high\"]"));
    assertThat(schema.isValid(write(Level.HIGH))).isTrue();
    assertThat(schema.isValid(Json.nodes().stringNode("HIGH"))).isFalse();
  }

  // ---- nesting and generics -----------------------------------------------------------------

  @Test
  void nestedRecordsAreDescribedAndValidated() {
    JsonNode json = JavaTypeSchemas.generate(Person.class);

    // Address is used twice, so it is defined once and referenced.
    assertThat(json.at("/$defs/Address/properties/street/type").asString()).isEqualTo("string");
    assertThat(json.at("/properties/home/$ref").asString()).isEqualTo("#/$defs/Address");
    assertThat(json.at("/properties/others/items/$ref").asString()).isEqualTo("#/$defs/Address");

    Schema schema = Schema.fromType(Person.class);
    Person ada =
        new Person(
            "Ada", new Address("1 Main St", "London"), List.of(new Address("2 Side", "Bath")));
    assertThat(schema.validate(write(ada))).isEmpty();

    ObjectNode broken = (ObjectNode) write(ada);
    ((ObjectNode) broken.at("/others/0")).remove("city");
    ((ObjectNode) broken.get("home")).put("street", 12);
    assertThat(schema.validate(broken))
        .extracting(SchemaError::instancePath)
        .containsExactlyInAnyOrder("/home/street", "/others/0");
  }

  @Test
  void listOfRecords() {
    Type type = new TypeReference<List<Item>>() {}.getType();
    JsonNode json = JavaTypeSchemas.generate(type);

    assertThat(json.path("type").asString()).isEqualTo("array");
    assertThat(required(json.path("items"))).containsExactly("item_name", "quantity");

    Schema schema = Schema.fromType(type);
    assertThat(schema.validate(write(List.of(new Item("a", 1, Optional.empty()))))).isEmpty();
    assertThat(schema.validate(object("{\"a\": 1}"))).isNotEmpty();
    assertThat(schema.validate(Json.mapper().readTree("[{\"item_name\": \"a\"}]")))
        .extracting(SchemaError::instancePath)
        .containsExactly("/0");
  }

  @Test
  void mapOfRecordsDescribesTheValues() {
    Type type = new TypeReference<Map<String, Item>>() {}.getType();
    JsonNode json = JavaTypeSchemas.generate(type);

    assertThat(json.path("type").asString()).isEqualTo("object");
    assertThat(required(json.path("additionalProperties")))
        .containsExactly("item_name", "quantity");

    Schema schema = Schema.fromType(type);
    assertThat(schema.validate(write(Map.of("x", new Item("x", 1, Optional.empty()))))).isEmpty();
    assertThat(schema.validate(Json.mapper().readTree("{\"x\": {\"item_name\": 3}}")))
        .extracting(SchemaError::instancePath)
        .contains("/x/item_name");
  }

  @Test
  void genericRecordWithItsTypeArgument() {
    Type type = new TypeReference<Page<Item>>() {}.getType();
    JsonNode json = JavaTypeSchemas.generate(type);

    assertThat(json.at("/properties/items/items/properties/item_name/type").asString())
        .isEqualTo("string");
    assertThat(required(json)).containsExactly("items", "total");

    Schema schema = Schema.fromType(type);
    Page<Item> page = new Page<>(List.of(new Item("a", 1, Optional.of("n"))), 1);
    assertThat(schema.validate(write(page))).isEmpty();
    assertThat(schema.isValid(Json.mapper().readTree("{\"items\": [{\"x\": 1}], \"total\": 1}")))
        .isFalse();

    // The raw type leaves T unknown: any item passes.
    Schema raw = Schema.fromType(Page.class);
    assertThat(raw.isValid(Json.mapper().readTree("{\"items\": [1, \"x\"], \"total\": 2}")))
        .isTrue();
  }

  @Test
  void optionalNestedRecordIsOptionalAndNullable() {
    record Wrapper(Optional<Address> address) {}
    JsonNode json = JavaTypeSchemas.generate(Wrapper.class);
    assertThat(required(json)).isEmpty();

    Schema schema = Schema.fromType(Wrapper.class);
    assertThat(schema.validate(write(new Wrapper(Optional.empty())))).isEmpty();
    assertThat(schema.validate(write(new Wrapper(Optional.of(new Address("s", "c")))))).isEmpty();
    assertThat(schema.validate(object("{}"))).isEmpty();
    assertThat(schema.isValid(object("{\"address\": {\"street\": \"s\"}}"))).isFalse();
  }

  // ---- scalars ---------------------------------------------------------------------------------

  @Test
  void primitivesBoxedAndBigNumbers() {
    JsonNode json = JavaTypeSchemas.generate(Numbers.class);

    assertThat(json.at("/properties/primitiveInt/type").asString()).isEqualTo("integer");
    assertThat(json.at("/properties/primitiveInt/maximum").asLong()).isEqualTo(Integer.MAX_VALUE);
    assertThat(json.at("/properties/boxedInt/type").asString()).isEqualTo("integer");
    assertThat(json.at("/properties/primitiveLong/type").asString()).isEqualTo("integer");
    assertThat(json.at("/properties/primitiveDouble/type").asString()).isEqualTo("number");
    assertThat(json.at("/properties/flag/type").asString()).isEqualTo("boolean");
    assertThat(json.at("/properties/boxedFlag/type").asString()).isEqualTo("boolean");
    assertThat(json.at("/properties/letter/type").asString()).isEqualTo("string");
    assertThat(json.at("/properties/letter/maxLength").asInt()).isEqualTo(1);
    assertThat(json.at("/properties/amount/type").asString()).isEqualTo("number");
    assertThat(json.at("/properties/huge/type").asString()).isEqualTo("integer");
    assertThat(required(json)).hasSize(9);

    Schema schema = Schema.fromType(Numbers.class);
    Numbers numbers =
        new Numbers(
            -7,
            Integer.MAX_VALUE,
            Long.MAX_VALUE,
            2.5,
            true,
            false,
            'x',
            new BigDecimal("12345678901234567890.000000001"),
            new BigInteger("123456789012345678901234567890"));
    assertThat(schema.validate(write(numbers))).isEmpty();

    ObjectNode wrong = (ObjectNode) write(numbers);
    wrong.put("primitiveInt", 3_000_000_000L); // does not fit an int
    wrong.put("huge", 1.5);
    wrong.put("letter", "xy");
    assertThat(schema.validate(wrong))
        .extracting(SchemaError::instancePath)
        .containsExactlyInAnyOrder("/primitiveInt", "/huge", "/letter");
  }

  @Test
  void javaTimeAndOtherStringTypesCarryFormatsJacksonOutputMeets() {
    JsonNode json = JavaTypeSchemas.generate(Times.class);

    assertThat(json.at("/properties/instant/format").asString()).isEqualTo("date-time");
    assertThat(json.at("/properties/offsetDateTime/format").asString()).isEqualTo("date-time");
    assertThat(json.at("/properties/zonedDateTime/format").asString()).isEqualTo("date-time");
    assertThat(json.at("/properties/localDate/format").asString()).isEqualTo("date");
    assertThat(json.at("/properties/id/format").asString()).isEqualTo("uuid");
    assertThat(json.at("/properties/link/format").asString()).isEqualTo("uri-reference");
    // No offset (local times) or not RFC 3339 (fractional durations): plain strings.
    for (String plain : List.of("localDateTime", "localTime", "duration")) {
      assertThat(json.at("/properties/" + plain + "/type").asString()).isEqualTo("string");
      assertThat(json.at("/properties/" + plain).has("format")).as(plain).isFalse();
    }
    // Jackson writes a Year as a number.
    assertThat(json.at("/properties/year/type").asString()).isEqualTo("integer");

    Times times =
        new Times(
            Instant.parse("2024-02-29T12:34:56.789Z"),
            OffsetDateTime.of(2024, 1, 2, 3, 4, 5, 6_000, ZoneOffset.ofHours(2)),
            ZonedDateTime.of(2024, 1, 2, 3, 4, 5, 0, ZoneOffset.UTC),
            LocalDate.of(2024, 12, 31),
            LocalDateTime.of(2024, 1, 2, 3, 4),
            LocalTime.of(23, 59, 1, 500_000_000),
            Duration.ofMillis(1500),
            Year.of(2024),
            UUID.randomUUID(),
            URI.create("relative/path?q=1"));
    assertThat(Schema.fromType(Times.class, STRICT_FORMATS).validate(write(times))).isEmpty();

    ObjectNode wrong = (ObjectNode) write(times);
    wrong.put("instant", "yesterday");
    wrong.put("localDate", "2024-13-45");
    wrong.put("id", "not-a-uuid");
    assertThat(Schema.fromType(Times.class, STRICT_FORMATS).validate(wrong))
        .extracting(SchemaError::instancePath)
        .containsExactlyInAnyOrder("/instant", "/localDate", "/id");
  }

  @Test
  void byteArraysAreBase64Strings() {
    JsonNode json = JavaTypeSchemas.generate(Blob.class);
    assertThat(json.at("/properties/content"))
        .isEqualTo(
            Json.mapper().readTree("{\"type\": \"string\", \"contentEncoding\": \"base64\"}"));

    Schema schema = Schema.fromType(Blob.class);
    JsonNode written = write(new Blob("b", new byte[] {1, 2, 3, (byte) 0xff}));
    assertThat(written.get("content").asString()).isEqualTo("AQID/w==");
    assertThat(schema.validate(written)).isEmpty();
    // In a tree built without text in between, Jackson keeps the bytes as a binary node.
    assertThat(schema.validate(Json.mapper().valueToTree(new Blob("b", new byte[] {1})))).isEmpty();
    assertThat(schema.isValid(object("{\"name\": \"b\", \"content\": [1, 2, 3]}"))).isFalse();
  }

  @Test
  void valueTypesAndJsonNodesFollowJackson() {
    JsonNode json = JavaTypeSchemas.generate(Contact.class);
    assertThat(json.at("/properties/email"))
        .isEqualTo(Json.mapper().readTree("{\"type\": \"string\"}"));
    assertThat(json.at("/properties/extra")).isEqualTo(Json.mapper().readTree("{}"));

    Schema schema = Schema.fromType(Contact.class);
    Contact contact = new Contact(new Email("a@b.c"), Json.mapper().readTree("[1, {\"x\": null}]"));
    assertThat(schema.validate(write(contact))).isEmpty();
    assertThat(schema.isValid(object("{\"email\": {\"address\": \"a@b.c\"}, \"extra\": 1}")))
        .isFalse();
  }

  // ---- recursion ------------------------------------------------------------------------------

  @Test
  void recursiveTypeUsesDefsAndRef() {
    JsonNode json = JavaTypeSchemas.generate(Node.class);

    assertThat(json.path("$ref").asString()).isEqualTo("#/$defs/Node");
    assertThat(json.at("/$defs/Node/properties/children/items/$ref").asString())
        .isEqualTo("#/$defs/Node");
    assertThat(json.toString()).doesNotContain("\"$ref\":\"#\"");

    Schema schema = Schema.fromType(Node.class);
    Node tree =
        new Node(
            "root",
            List.of(new Node("a", List.of(new Node("a1", List.of()))), new Node("b", List.of())));
    assertThat(schema.validate(write(tree))).isEmpty();

    ObjectNode broken = (ObjectNode) write(tree);
    ((ObjectNode) broken.at("/children/0/children/0")).remove("children");
    ((ObjectNode) broken.at("/children/1")).put("name", false);
    assertThat(schema.validate(broken))
        .extracting(SchemaError::instancePath)
        .containsExactlyInAnyOrder("/children/0/children/0", "/children/1/name");
  }

  @Test
  void recursiveTypeInsideAnotherType() {
    JsonNode json = JavaTypeSchemas.generate(Tree.class);
    assertThat(json.at("/properties/root/$ref").asString()).isEqualTo("#/$defs/Node");

    Schema schema = Schema.fromType(Tree.class);
    Tree tree = new Tree("t", new Node("r", List.of(new Node("c", List.of()))));
    assertThat(schema.validate(write(tree))).isEmpty();
    assertThat(
            schema.isValid(
                object("{\"title\": \"t\", \"root\": {\"name\": \"r\", \"children\": [{}]}}")))
        .isFalse();
  }

  // ---- errors and caching ---------------------------------------------------------------------

  @Test
  void typesWithoutJsonFormAreRefusedClearly() {
    assertThatThrownBy(() -> Schema.fromType(void.class))
        .isInstanceOf(SchemaException.class)
        .hasMessageContaining("void");
    assertThatThrownBy(() -> Schema.fromType(Page.class.getTypeParameters()[0]))
        .isInstanceOf(SchemaException.class)
        .hasMessageContaining("type variable T");
    Type listOfT = Page.class.getRecordComponents()[0].getGenericType(); // List<T>
    assertThatThrownBy(() -> Schema.fromType(listOfT))
        .isInstanceOf(SchemaException.class)
        .hasMessageContaining("type variable T");
    assertThatThrownBy(() -> Schema.fromType(Conflicting.class))
        .isInstanceOf(SchemaException.class)
        .hasMessageContaining("Conflicting")
        .hasMessageContaining("Jackson cannot serialize it");
  }

  @Test
  void generatedDocumentsAreCachedButReturnedAsCopies() {
    JsonNode first = JavaTypeSchemas.generate(Person.class);
    ((ObjectNode) first).put("type", "changed");
    JsonNode second = JavaTypeSchemas.generate(Person.class);
    assertThat(second.path("type").asString()).isEqualTo("object");
  }

  @Test
  void generationFromManyThreadsGivesTheSameDocument() throws Exception {
    record Fresh(String a, List<Address> b, Map<String, Node> c) {}
    List<Thread> threads = new ArrayList<>();
    List<JsonNode> results = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < 8; i++) {
      Thread thread = new Thread(() -> results.add(JavaTypeSchemas.generate(Fresh.class)));
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    assertThat(results).hasSize(8);
    assertThat(results).allMatch(r -> r.equals(results.get(0)));
  }
}
