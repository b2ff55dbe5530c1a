package dev.alkdev.operations.schema.internal;

import com.github.victools.jsonschema.generator.MethodScope;
import com.github.victools.jsonschema.generator.Option;
import com.github.victools.jsonschema.generator.OptionPreset;
import com.github.victools.jsonschema.generator.SchemaGenerator;
import com.github.victools.jsonschema.generator.SchemaGeneratorConfigBuilder;
import com.github.victools.jsonschema.generator.SchemaVersion;
import com.github.victools.jsonschema.module.jackson.JacksonSchemaModule;
import com.github.victools.jsonschema.module.jackson.JsonPropertySorter;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.introspect.BeanPropertyDefinition;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The configured victools generator. Fields are the properties, as Jackson sees them (the Jackson
 * module drops what Jackson ignores and applies {@code @JsonProperty} names); getters without a
 * field are added when Jackson writes them; properties keep declaration order unless
 * {@code @JsonPropertyOrder} says otherwise, as Jackson writes them.
 *
 * <p>One instance serves one generation and is then dropped: the generator's configuration keeps
 * per-run state and caches keyed by class (which would pin class loaders if kept), and building it
 * costs a fraction of a millisecond against several for a generation.
 */
final class TypeSchemaGenerator {
  private final JsonMapper mapper;

  /** Jackson's view of each class, for this generation. */
  private final Map<Class<?>, BeanDescription> descriptions = new HashMap<>();

  private TypeSchemaGenerator(JsonMapper mapper) {
    this.mapper = mapper;
  }

  /**
   * The schema of {@code type}. A type that contains itself (a tree node) is generated again with
   * its own definition under {@code $defs}, so no reference points at the document root: a root
   * reference breaks as soon as the schema is embedded in another document.
   */
  static ObjectNode generate(JsonMapper mapper, Type type) {
    TypeSchemaGenerator generator = new TypeSchemaGenerator(mapper);
    ObjectNode schema = generator.generator(false).generateSchema(type);
    if (refersToRoot(schema)) {
      schema = generator.generator(true).generateSchema(type);
    }
    // The generator stores defaults as POJO nodes; a round trip through text makes the document
    // plain JSON that every reader (and equals) understands.
    return (ObjectNode) mapper.readTree(mapper.writeValueAsString(schema));
  }

  private SchemaGenerator generator(boolean rootInDefs) {
    return new SchemaGenerator(configure(rootInDefs).build());
  }

  private SchemaGeneratorConfigBuilder configure(boolean rootInDefs) {
    SchemaGeneratorConfigBuilder builder =
        new SchemaGeneratorConfigBuilder(
            mapper, SchemaVersion.DRAFT_2020_12, OptionPreset.PLAIN_JSON);
    builder.with(new JacksonSchemaModule());
    builder.with(
        Option.FLATTENED_OPTIONALS,
        Option.PLAIN_DEFINITION_KEYS,
        Option.MAP_VALUES_AS_ADDITIONAL_PROPERTIES,
        // Argument-free methods are offered so that getter-only properties can be kept; the
        // ignore check below drops every one Jackson does not write.
        Option.NONSTATIC_NONVOID_NONGETTER_METHODS,
        Option.FIELDS_DERIVED_FROM_ARGUMENTFREE_METHODS);
    if (rootInDefs) {
      builder.with(Option.DEFINITION_FOR_MAIN_SCHEMA);
    }
    builder
        .forTypesInGeneral()
        .withCustomDefinitionProvider(new JacksonValueDefinitions(mapper))
        .withPropertySorter(new JsonPropertySorter(false));
    PropertyRules rules = new PropertyRules(mapper);
    builder
        .forFields()
        .withRequiredCheck(rules::isRequired)
        .withNullableCheck(rules::isNullable)
        .withDefaultResolver(rules::defaultValue);
    builder
        .forMethods()
        .withIgnoreCheck(method -> getterOnlyProperty(method).isEmpty())
        .withPropertyNameOverrideResolver(
            method -> getterOnlyProperty(method).map(BeanPropertyDefinition::getName).orElse(null))
        .withRequiredCheck(rules::isRequired)
        .withNullableCheck(rules::isNullable)
        .withDefaultResolver(rules::defaultValue);
    return builder;
  }

  /**
   * The Jackson property that {@code method} is the getter of, when that property has no field
   * (fields are described already): {@code isActive()} or {@code getFullName()} computed from other
   * state.
   */
  private Optional<BeanPropertyDefinition> getterOnlyProperty(MethodScope scope) {
    if (scope.isFakeContainerItemScope()) {
      return Optional.empty();
    }
    Method method = scope.getRawMember();
    if (method.getParameterCount() != 0 || Modifier.isStatic(method.getModifiers())) {
      return Optional.empty();
    }
    Class<?> owner =
        scope.getDeclaringTypeMembers().allTypesAndOverrides().get(0).getType().getErasedType();
    for (BeanPropertyDefinition property : describe(owner).findProperties()) {
      if (property.hasGetter()
          && method.equals(property.getGetter().getAnnotated())
          && !hasInstanceField(owner, property.getInternalName())) {
        return Optional.of(property);
      }
    }
    return Optional.empty();
  }

  private BeanDescription describe(Class<?> type) {
    return descriptions.computeIfAbsent(
        type,
        raw -> {
          JavaType javaType = mapper.getTypeFactory().constructType(raw);
          var introspector = mapper.serializationConfig().classIntrospectorInstance();
          return introspector.introspectForSerialization(
              javaType, introspector.introspectClassAnnotations(javaType));
        });
  }

  private static boolean hasInstanceField(Class<?> type, String name) {
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field field : c.getDeclaredFields()) {
        if (field.getName().equals(name) && !Modifier.isStatic(field.getModifiers())) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether any {@code $ref} is {@code "#"}. Iterative: generated documents can be deep. */
  private static boolean refersToRoot(JsonNode schema) {
    Deque<JsonNode> pending = new ArrayDeque<>();
    pending.push(schema);
    while (!pending.isEmpty()) {
      JsonNode node = pending.pop();
      if (node.isObject()) {
        JsonNode ref = node.get("$ref");
        if (ref != null && "#".equals(ref.asString(""))) {
          return true;
        }
      }
      if (node.isContainer()) {
        node.values().forEach(pending::push);
      }
    }
    return false;
  }
}
