package dev.alkdev.operations.schema.internal;

import com.fasterxml.classmate.ResolvedType;
import com.github.victools.jsonschema.generator.CustomDefinition;
import com.github.victools.jsonschema.generator.CustomDefinitionProviderV2;
import com.github.victools.jsonschema.generator.SchemaGenerationContext;
import dev.alkdev.operations.schema.SchemaException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.net.URL;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.util.Calendar;
import java.util.Collection;
import java.util.Date;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.UUID;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsonFormatVisitors.JsonAnyFormatVisitor;
import tools.jackson.databind.jsonFormatVisitors.JsonArrayFormatVisitor;
import tools.jackson.databind.jsonFormatVisitors.JsonBooleanFormatVisitor;
import tools.jackson.databind.jsonFormatVisitors.JsonFormatVisitorWrapper;
import tools.jackson.databind.jsonFormatVisitors.JsonIntegerFormatVisitor;
import tools.jackson.databind.jsonFormatVisitors.JsonMapFormatVisitor;
import tools.jackson.databind.jsonFormatVisitors.JsonNullFormatVisitor;
import tools.jackson.databind.jsonFormatVisitors.JsonNumberFormatVisitor;
import tools.jackson.databind.jsonFormatVisitors.JsonObjectFormatVisitor;
import tools.jackson.databind.jsonFormatVisitors.JsonStringFormatVisitor;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Schemas of the types Jackson writes as a single JSON value: the schema says what Jackson writes,
 * not what the Java class looks like. A {@code Year} is an integer, a {@code Locale} or a value
 * type with {@code @JsonValue} a string, an enum the list of its constants as Jackson writes them
 * (so {@code @JsonValue}, {@code @JsonProperty} on constants and the mapper's enum features all
 * count), {@code byte[]} a base64 string. Objects, arrays and maps are left to the generator.
 */
final class JacksonValueDefinitions implements CustomDefinitionProviderV2 {

  /** The shape Jackson says it writes a type as. */
  enum Kind {
    STRING,
    INTEGER,
    NUMBER,
    BOOLEAN,
    OBJECT,
    ARRAY,
    ANY
  }

  private static final Map<Class<?>, String> FORMATS =
      Map.ofEntries(
          Map.entry(Instant.class, "date-time"),
          Map.entry(OffsetDateTime.class, "date-time"),
          Map.entry(ZonedDateTime.class, "date-time"),
          Map.entry(Date.class, "date-time"),
          Map.entry(Calendar.class, "date-time"),
          Map.entry(LocalDate.class, "date"),
          Map.entry(OffsetTime.class, "time"),
          Map.entry(UUID.class, "uuid"),
          Map.entry(URL.class, "uri"),
          Map.entry(URI.class, "uri-reference"));

  private final JsonMapper mapper;

  JacksonValueDefinitions(JsonMapper mapper) {
    this.mapper = mapper;
  }

  @Override
  public CustomDefinition provideCustomSchemaDefinition(
      ResolvedType type, SchemaGenerationContext context) {
    ObjectNode schema = schemaOf(type);
    return schema == null
        ? null
        : new CustomDefinition(
            schema,
            CustomDefinition.DefinitionType.INLINE,
            CustomDefinition.AttributeInclusion.YES);
  }

  private ObjectNode schemaOf(ResolvedType type) {
    Class<?> raw = type.getErasedType();
    ObjectNode schema = mapper.createObjectNode();
    if (raw == byte[].class) {
      // Jackson writes byte arrays as base64 text, not as arrays of numbers.
      return schema.put("type", "string").put("contentEncoding", "base64");
    }
    if (raw == char[].class) {
      return schema.put("type", "string");
    }
    if (JsonNode.class.isAssignableFrom(raw)) {
      if (ObjectNode.class.isAssignableFrom(raw)) {
        schema.put("type", "object");
      } else if (ArrayNode.class.isAssignableFrom(raw)) {
        schema.put("type", "array");
      }
      return schema;
    }
    if (raw.isEnum()) {
      return enumSchema(raw, schema);
    }
    if (raw.isArray()
        || Collection.class.isAssignableFrom(raw)
        || Map.class.isAssignableFrom(raw)
        || raw == Optional.class
        || raw == Object.class) {
      return null;
    }
    Kind kind = kindOf(mapper, type);
    switch (kind) {
      case STRING -> {
        schema.put("type", "string");
        String format = FORMATS.get(raw);
        if (format != null) {
          schema.put("format", format);
        }
        if (raw == char.class || raw == Character.class) {
          schema.put("minLength", 1).put("maxLength", 1);
        }
      }
      case INTEGER -> {
        schema.put("type", "integer");
        addRange(raw, schema);
      }
      case NUMBER -> schema.put("type", "number");
      case BOOLEAN -> schema.put("type", "boolean");
      case ANY -> {
        // A custom serializer that does not describe itself: nothing is known.
      }
      default -> {
        return null;
      }
    }
    return schema;
  }

  private ObjectNode enumSchema(Class<?> raw, ObjectNode schema) {
    ArrayNode values = schema.arrayNode();
    boolean strings = true;
    boolean integers = true;
    boolean numbers = true;
    for (Object constant : raw.getEnumConstants()) {
      JsonNode value;
      try {
        value = mapper.valueToTree(constant);
      } catch (JacksonException e) {
        throw new SchemaException(
            "Cannot derive a JSON Schema from enum "
                + raw.getName()
                + ": Jackson cannot write its constant "
                + constant
                + ": "
                + e.getOriginalMessage(),
            e);
      }
      strings &= value.isString();
      integers &= value.isIntegralNumber();
      numbers &= value.isNumber();
      values.add(value);
    }
    if (strings) {
      schema.put("type", "string");
    } else if (integers) {
      schema.put("type", "integer");
    } else if (numbers) {
      schema.put("type", "number");
    }
    schema.set("enum", values);
    return schema;
  }

  /**
   * {@code int}, {@code short} and {@code byte} hold a small range; saying so rejects overflowing
   * input at validation instead of at deserialization. ({@code long} is left open: its bounds are
   * noise to every client.)
   */
  private static void addRange(Class<?> raw, ObjectNode schema) {
    if (raw == int.class || raw == Integer.class || raw == OptionalInt.class) {
      schema.put("minimum", Integer.MIN_VALUE).put("maximum", Integer.MAX_VALUE);
    } else if (raw == short.class || raw == Short.class) {
      schema.put("minimum", Short.MIN_VALUE).put("maximum", Short.MAX_VALUE);
    } else if (raw == byte.class || raw == Byte.class) {
      schema.put("minimum", Byte.MIN_VALUE).put("maximum", Byte.MAX_VALUE);
    }
  }

  /**
   * What Jackson writes values of {@code type} as, asked through its format visitor, which every
   * standard serializer implements.
   *
   * @throws SchemaException when Jackson cannot serialize the type at all
   */
  static Kind kindOf(JsonMapper mapper, ResolvedType type) {
    Class<?> raw = type.getErasedType();
    if (raw == BigDecimal.class || raw == OptionalDouble.class) {
      return Kind.NUMBER;
    }
    if (raw == BigInteger.class) {
      return Kind.INTEGER;
    }
    JavaType javaType = mapper.getTypeFactory().constructType(raw);
    KindVisitor visitor = new KindVisitor();
    try {
      mapper.acceptJsonFormatVisitor(javaType, visitor);
    } catch (JacksonException e) {
      throw new SchemaException(
          "Cannot derive a JSON Schema from "
              + type.getBriefDescription()
              + ": Jackson cannot serialize it: "
              + e.getOriginalMessage(),
          e);
    }
    return visitor.kind;
  }

  /** Records the first shape a serializer announces. */
  private static final class KindVisitor extends JsonFormatVisitorWrapper.Base {
    Kind kind = Kind.OBJECT;

    @Override
    public JsonObjectFormatVisitor expectObjectFormat(JavaType type) {
      kind = Kind.OBJECT;
      return null;
    }

    @Override
    public JsonArrayFormatVisitor expectArrayFormat(JavaType type) {
      kind = Kind.ARRAY;
      return null;
    }

    @Override
    public JsonStringFormatVisitor expectStringFormat(JavaType type) {
      kind = Kind.STRING;
      return null;
    }

    @Override
    public JsonNumberFormatVisitor expectNumberFormat(JavaType type) {
      kind = Kind.NUMBER;
      return null;
    }

    @Override
    public JsonIntegerFormatVisitor expectIntegerFormat(JavaType type) {
      kind = Kind.INTEGER;
      return null;
    }

    @Override
    public JsonBooleanFormatVisitor expectBooleanFormat(JavaType type) {
      kind = Kind.BOOLEAN;
      return null;
    }

    @Override
    public JsonNullFormatVisitor expectNullFormat(JavaType type) {
      kind = Kind.ANY;
      return null;
    }

    @Override
    public JsonAnyFormatVisitor expectAnyFormat(JavaType type) {
      kind = Kind.ANY;
      return null;
    }

    @Override
    public JsonMapFormatVisitor expectMapFormat(JavaType type) {
      kind = Kind.OBJECT;
      return null;
    }
  }
}
