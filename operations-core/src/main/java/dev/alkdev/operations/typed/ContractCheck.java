package dev.alkdev.operations.typed;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.alkdev.operations.internal.Json;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.temporal.Temporal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Whether a Java type fits a JSON schema, in one direction: an INPUT type must only produce values
 * the schema accepts (its kinds within the schema's, every required property a component); an
 * OUTPUT type must read every value the schema allows (the schema's kinds within the type's, a
 * primitive only where the value is always present, every enum value a constant). What the schema
 * leaves open (no type, an unknown schema, an external {@code $ref}) fits anything: the call itself
 * still validates what crosses.
 *
 * <p>Bounded: a schema nested deeper than {@link #MAX_DEPTH} is not followed further, and a pair of
 * Java type and schema already being checked (a recursive type) is not checked again.
 */
final class ContractCheck {
  static final int MAX_DEPTH = 32;

  enum Direction {
    INPUT,
    OUTPUT
  }

  /** The JSON kinds; INTEGER is a NUMBER too. */
  enum Kind {
    STRING,
    INTEGER,
    NUMBER,
    BOOLEAN,
    ARRAY,
    OBJECT,
    NULL
  }

  private final JsonNode root;
  private final Direction direction;
  private final List<String> problems;
  private final Set<String> inProgress = new HashSet<>();

  /**
   * The pairs of schema (by identity) and Java type found to fit, shared by the checks of one
   * method's input or output: real documents share definitions across thousands of places (GitHub,
   * Stripe), and without this a pair is checked once per path that reaches it. Pairs with problems
   * are not kept, so a branch tried for a union never hides a mismatch.
   */
  private final Map<JsonNode, Set<String>> fits;

  /** allOf schemas merged once per schema node. */
  private final Map<JsonNode, JsonNode> merged;

  private ContractCheck(
      JsonNode root,
      Direction direction,
      List<String> problems,
      Map<JsonNode, Set<String>> fits,
      Map<JsonNode, JsonNode> merged) {
    this.root = root;
    this.direction = direction;
    this.problems = problems;
    this.fits = fits;
    this.merged = merged;
  }

  /** A check of another branch, with its own problems, sharing what is known to fit. */
  private ContractCheck branch(List<String> found) {
    return new ContractCheck(root, direction, found, fits, merged);
  }

  /** Adds to {@code problems} a line per place where {@code type} does not fit {@code schema}. */
  static void check(
      JavaType type, JsonNode schema, Direction direction, String where, List<String> problems) {
    new ContractCheck(schema, direction, problems, new IdentityHashMap<>(), new IdentityHashMap<>())
        .fit(type, schema, where, true, 0);
  }

  /**
   * Checks input gathered from several named parameters, as if they were the components of a
   * record: the operation's input must be an object that requires none but them.
   */
  static void checkParameters(
      String[] names,
      int[] indexes,
      java.lang.reflect.Type[] types,
      JsonNode schema,
      String where,
      List<String> problems) {
    ContractCheck check =
        new ContractCheck(
            schema, Direction.INPUT, problems, new IdentityHashMap<>(), new IdentityHashMap<>());
    JsonNode resolved = check.resolve(schema, 0);
    if (resolved == null || !resolved.isObject()) {
      return;
    }
    Set<Kind> kinds = kindsOf(resolved);
    if (!kinds.isEmpty() && !kinds.contains(Kind.OBJECT)) {
      problems.add(
          where
              + ": the spec says "
              + kindsText(kinds)
              + "; parameters make an object, so take one parameter instead");
      return;
    }
    Map<String, JavaType> components = new LinkedHashMap<>();
    for (int i = 0; i < names.length; i++) {
      components.put(names[i], Json.mapper().constructType(types[indexes[i]]));
    }
    check.membersFit(components, "the parameters", resolved, where, 0);
  }

  /**
   * @param present whether the value is always there (a required property, an array item, the input
   *     or output itself): a primitive fits an output only where it is
   */
  private void fit(JavaType type, JsonNode schema, String where, boolean present, int depth) {
    if (depth > MAX_DEPTH) {
      return;
    }
    JsonNode resolved = resolve(schema, depth);
    schema = resolved == null ? null : merged.computeIfAbsent(resolved, r -> mergeAllOf(r, depth));
    if (schema == null || !schema.isObject()) {
      if (schema != null && schema.isBoolean() && !schema.asBoolean()) {
        problems.add(where + ": the schema is false, no value is valid");
      }
      return;
    }
    Class<?> raw = type.getRawClass();
    if (raw == Optional.class) {
      fit(type.containedTypeOrUnknown(0), schema, where, false, depth + 1);
      return;
    }
    if (isAny(raw)) {
      return;
    }
    String pair = type.toCanonical() + (present ? " present" : " maybe absent");
    Set<String> known = fits.computeIfAbsent(resolved, r -> new HashSet<>());
    if (known.contains(pair)) {
      return;
    }
    String key = pair + " " + System.identityHashCode(resolved);
    if (!inProgress.add(key)) {
      return; // a recursive type: checked where it began
    }
    int before = problems.size();
    try {
      if (!combinators(type, schema, where, present, depth)) {
        return;
      }
      Set<Kind> kinds = kindsOf(schema);
      if (kinds.isEmpty()) {
        return; // the schema names no type: anything fits it
      }
      Kind kind = kindOf(type);
      if (!kindFits(kind, kinds, type, where, present, schema)) {
        return;
      }
      if (!kinds.contains(kind)) {
        return; // only null (or, for a number, an integer) here: nothing structural to check
      }
      switch (kind) {
        case STRING -> enumFits(type, schema, where);
        case ARRAY -> arrayFits(type, schema, where, depth);
        case OBJECT -> objectFits(type, schema, where, depth);
        default -> {}
      }
    } finally {
      inProgress.remove(key);
      if (problems.size() == before) {
        known.add(pair);
      }
    }
  }

  /**
   * Checks {@code allOf} (every branch) and {@code anyOf}/{@code oneOf} (some branch); returns
   * whether the schema's own keywords are still to be checked.
   */
  private boolean combinators(
      JavaType type, JsonNode schema, String where, boolean present, int depth) {
    JsonNode allOf = schema.get("allOf"); // still here: its parts are not all objects
    if (allOf != null && allOf.isArray()) {
      for (JsonNode branch : allOf) {
        fit(type, branch, where, present, depth + 1);
      }
    }
    for (String keyword : List.of("anyOf", "oneOf")) {
      JsonNode branches = schema.get(keyword);
      if (branches == null || !branches.isArray() || branches.isEmpty()) {
        continue;
      }
      List<String> best = null;
      for (JsonNode branch : branches) {
        List<String> found = new ArrayList<>();
        branch(found).fit(type, branch, where, present, depth + 1);
        if (direction == Direction.OUTPUT && !found.isEmpty()) {
          // Every branch may arrive: each must be readable.
          problems.addAll(found);
          return true;
        }
        if (direction == Direction.INPUT && found.isEmpty()) {
          best = found; // one branch accepts what the type produces
          break;
        }
        if (best == null) {
          best = found;
        }
      }
      if (direction == Direction.INPUT && best != null && !best.isEmpty()) {
        problems.add(
            where
                + ": "
                + describe(type)
                + " fits none of the "
                + branches.size()
                + " branches of "
                + keyword
                + " (the first says: "
                + best.get(0).substring(best.get(0).indexOf(": ") + 2)
                + ")");
        return false;
      }
    }
    return true;
  }

  private boolean kindFits(
      Kind kind, Set<Kind> kinds, JavaType type, String where, boolean present, JsonNode schema) {
    boolean fits;
    if (direction == Direction.INPUT) {
      fits = kinds.contains(kind) || (kind == Kind.INTEGER && kinds.contains(Kind.NUMBER));
    } else {
      fits = true;
      for (Kind allowed : kinds) {
        if (allowed == Kind.NULL) {
          continue;
        }
        boolean readable = allowed == kind || (allowed == Kind.INTEGER && kind == Kind.NUMBER);
        fits &= readable;
      }
      if (fits && type.isPrimitive() && (!present || kinds.contains(Kind.NULL))) {
        problems.add(
            where
                + ": the spec "
                + (kinds.contains(Kind.NULL) ? "allows null" : "does not require it")
                + ", so "
                + describe(type)
                + " cannot hold every value; use "
                + boxedName(type.getRawClass()));
        return false;
      }
    }
    if (!fits) {
      problems.add(
          where + ": the spec says " + kindsText(kinds) + ", the type is " + describe(type));
    }
    return fits;
  }

  private void enumFits(JavaType type, JsonNode schema, String where) {
    JsonNode values = schema.get("enum");
    Set<String> constants = enumValues(type.getRawClass());
    if (constants == null) {
      if (direction == Direction.INPUT || values == null) {
        return; // a String sends what it is given; reading any string into a String works
      }
      return;
    }
    if (values == null || !values.isArray()) {
      if (direction == Direction.OUTPUT && !schema.has("const")) {
        problems.add(
            where
                + ": the spec allows any string, "
                + describe(type)
                + " only its constants; use String");
      }
      return;
    }
    Set<String> allowed = new java.util.TreeSet<>();
    for (JsonNode value : values) {
      if (value.isString()) {
        allowed.add(value.asString());
      }
    }
    Set<String> missing = new java.util.TreeSet<>();
    if (direction == Direction.INPUT) {
      for (String constant : constants) {
        if (!allowed.contains(constant)) {
          missing.add(constant);
        }
      }
      if (!missing.isEmpty()) {
        problems.add(
            where + ": " + describe(type) + " has constants the spec does not allow: " + missing);
      }
    } else {
      for (String value : allowed) {
        if (!constants.contains(value)) {
          missing.add(value);
        }
      }
      if (!missing.isEmpty()) {
        problems.add(where + ": " + describe(type) + " has no constant for " + missing);
      }
    }
  }

  private void arrayFits(JavaType type, JsonNode schema, String where, int depth) {
    JavaType element = type.getContentType();
    JsonNode items = schema.get("items");
    if (element == null || items == null || items.isArray()) {
      return; // tuples (draft 4's array items) are not checked
    }
    fit(element, items, where + "[]", true, depth + 1);
  }

  private void objectFits(JavaType type, JsonNode schema, String where, int depth) {
    Class<?> raw = type.getRawClass();
    JsonNode properties = schema.get("properties");
    JsonNode additional = schema.get("additionalProperties");
    if (Map.class.isAssignableFrom(raw)) {
      JavaType value = type.getContentType();
      if (value == null) {
        return;
      }
      if (properties != null && properties.isObject()) {
        for (Map.Entry<String, JsonNode> property : properties.properties()) {
          fit(value, property.getValue(), where + "." + property.getKey(), true, depth + 1);
        }
      }
      if (additional != null && additional.isObject()) {
        fit(value, additional, where + ".*", true, depth + 1);
      }
      return;
    }
    if (!raw.isRecord()) {
      return; // a bean: Jackson decides its properties; the call validates what it sends
    }
    membersFit(components(type), describe(type), schema, where, depth);
  }

  /** Named members (a record's components, a method's parameters) against an object schema. */
  private void membersFit(
      Map<String, JavaType> components, String owner, JsonNode schema, String where, int depth) {
    JsonNode properties = schema.get("properties");
    JsonNode additional = schema.get("additionalProperties");
    boolean closed = additional != null && additional.isBoolean() && !additional.asBoolean();
    Set<String> required = new HashSet<>();
    JsonNode requiredNode = schema.get("required");
    if (requiredNode != null && requiredNode.isArray()) {
      requiredNode.forEach(name -> required.add(name.asString()));
    }
    if (direction == Direction.INPUT) {
      for (String name : new java.util.TreeSet<>(required)) {
        if (!components.containsKey(name)) {
          problems.add(
              where
                  + ": the spec requires property '"
                  + name
                  + "', "
                  + owner
                  + " has nothing for it");
        }
      }
    }
    for (Map.Entry<String, JavaType> component : components.entrySet()) {
      String name = component.getKey();
      String at = where + "." + name;
      JsonNode property = properties != null ? properties.get(name) : null;
      if (property != null) {
        fit(component.getValue(), property, at, required.contains(name), depth + 1);
      } else if (additional != null && additional.isObject()) {
        fit(component.getValue(), additional, at, false, depth + 1);
      } else if (closed && !isMapComponent(component.getValue())) {
        problems.add(
            at
                + ": the spec has no property '"
                + name
                + "' and allows no others ("
                + owner
                + (direction == Direction.INPUT ? " would send it)" : " never receives it)"));
      } else if (direction == Direction.OUTPUT && component.getValue().isPrimitive()) {
        problems.add(
            at
                + ": the spec does not declare it, so "
                + describe(component.getValue())
                + " cannot tell it is absent; use "
                + boxedName(component.getValue().getRawClass()));
      }
    }
  }

  // ------------------------------------------------------------------ the schema side

  /**
   * An {@code allOf} whose parts (through refs and nested allOfs) are all objects, merged into one
   * object schema: a value valid for the allOf has the properties of every part, so a record that
   * merges them is checked against all of them at once, not part by part. Anything else is left as
   * it is, and its branches are checked one by one.
   */
  private JsonNode mergeAllOf(JsonNode schema, int depth) {
    if (schema == null || !schema.isObject() || !(schema.get("allOf") instanceof ArrayNode)) {
      return schema;
    }
    ObjectNode merged = Json.nodes().objectNode();
    ObjectNode properties = Json.nodes().objectNode();
    ArrayNode required = Json.nodes().arrayNode();
    Set<String> requiredNames = new java.util.TreeSet<>();
    List<JsonNode> parts = new ArrayList<>();
    if (!collectParts(schema, parts, depth)
        || parts.stream()
            .noneMatch(
                part ->
                    part.has("properties")
                        || part.has("required")
                        || kindsOf(part).contains(Kind.OBJECT))) {
      return schema; // not an object's parts (string constraints, say): checked one by one
    }
    for (JsonNode part : parts) {
      JsonNode partProperties = part.get("properties");
      if (partProperties != null && partProperties.isObject()) {
        for (Map.Entry<String, JsonNode> property : partProperties.properties()) {
          if (!properties.has(property.getKey())) {
            properties.set(property.getKey(), property.getValue());
          }
        }
      }
      JsonNode partRequired = part.get("required");
      if (partRequired != null && partRequired.isArray()) {
        partRequired.forEach(name -> requiredNames.add(name.asString("")));
      }
      JsonNode additional = part.get("additionalProperties");
      if (additional != null && additional.isBoolean() && !additional.asBoolean()) {
        merged.put("additionalProperties", false);
      }
      if (part.has("nullable") && part.get("nullable").asBoolean(false)) {
        merged.put("nullable", true);
      }
    }
    requiredNames.forEach(required::add);
    merged.put("type", "object");
    merged.set("properties", properties);
    merged.set("required", required);
    return merged;
  }

  /**
   * The object parts of an allOf, own properties included; false when a part is not an object (a
   * string's constraints, say), which leaves the allOf to be checked branch by branch.
   */
  private boolean collectParts(JsonNode schema, List<JsonNode> parts, int depth) {
    if (depth > MAX_DEPTH) {
      return false;
    }
    JsonNode allOf = schema.get("allOf");
    if (allOf instanceof ArrayNode branches) {
      for (JsonNode branch : branches) {
        JsonNode resolved = resolve(branch, depth);
        if (resolved == null || !resolved.isObject() || !collectParts(resolved, parts, depth + 1)) {
          return false;
        }
      }
    }
    Set<Kind> kinds = kindsOf(schema);
    boolean describesOnly = !schema.has("properties") && !schema.has("required") && kinds.isEmpty();
    if (!kinds.isEmpty() && !kinds.contains(Kind.OBJECT)) {
      return false;
    }
    if (!describesOnly || allOf == null) {
      parts.add(schema);
    }
    return true;
  }

  /** Follows {@code $ref}s within the root document; null for one that leads nowhere. */
  private JsonNode resolve(JsonNode schema, int depth) {
    for (int hops = 0; schema != null && schema.isObject() && schema.has("$ref"); hops++) {
      if (hops > MAX_DEPTH) {
        return null;
      }
      String ref = schema.get("$ref").asString("");
      if (!ref.startsWith("#")) {
        return null; // another document: not followed, so not checked
      }
      String pointer = URLDecoder.decode(ref.substring(1), StandardCharsets.UTF_8);
      JsonNode target;
      try {
        target = pointer.isEmpty() ? root : root.at(pointer);
      } catch (IllegalArgumentException e) {
        return null;
      }
      if (target == null || target.isMissingNode()) {
        return null;
      }
      schema = target;
    }
    return schema;
  }

  /**
   * The kinds a schema allows from {@code type}, {@code nullable}, {@code enum} or {@code const}.
   */
  static Set<Kind> kindsOf(JsonNode schema) {
    EnumSet<Kind> kinds = EnumSet.noneOf(Kind.class);
    JsonNode type = schema.get("type");
    if (type != null && type.isString()) {
      addKind(kinds, type.asString());
    } else if (type != null && type.isArray()) {
      type.forEach(t -> addKind(kinds, t.asString("")));
    } else if (schema.has("enum") && schema.get("enum").isArray()) {
      schema.get("enum").forEach(value -> kinds.add(kindOfValue(value)));
    } else if (schema.has("const")) {
      kinds.add(kindOfValue(schema.get("const")));
    }
    JsonNode nullable = schema.get("nullable");
    if (!kinds.isEmpty() && nullable != null && nullable.asBoolean(false)) {
      kinds.add(Kind.NULL);
    }
    return kinds;
  }

  private static void addKind(Set<Kind> kinds, String name) {
    switch (name) {
      case "string" -> kinds.add(Kind.STRING);
      case "integer" -> kinds.add(Kind.INTEGER);
      case "number" -> kinds.add(Kind.NUMBER);
      case "boolean" -> kinds.add(Kind.BOOLEAN);
      case "array" -> kinds.add(Kind.ARRAY);
      case "object" -> kinds.add(Kind.OBJECT);
      case "null" -> kinds.add(Kind.NULL);
      default -> {}
    }
  }

  private static Kind kindOfValue(JsonNode value) {
    if (value.isString()) {
      return Kind.STRING;
    }
    if (value.isIntegralNumber()) {
      return Kind.INTEGER;
    }
    if (value.isNumber()) {
      return Kind.NUMBER;
    }
    if (value.isBoolean()) {
      return Kind.BOOLEAN;
    }
    if (value.isArray()) {
      return Kind.ARRAY;
    }
    return value.isObject() ? Kind.OBJECT : Kind.NULL;
  }

  private static String kindsText(Set<Kind> kinds) {
    List<String> names = new ArrayList<>();
    kinds.forEach(kind -> names.add(kind.name().toLowerCase(java.util.Locale.ROOT)));
    return String.join(" or ", names);
  }

  // ------------------------------------------------------------------ the Java side

  /** Types that take any JSON value. */
  private static boolean isAny(Class<?> raw) {
    return raw == Object.class || JsonNode.class.isAssignableFrom(raw);
  }

  static Kind kindOf(JavaType type) {
    Class<?> raw = type.getRawClass();
    if (raw == boolean.class || raw == Boolean.class) {
      return Kind.BOOLEAN;
    }
    if (raw == int.class
        || raw == long.class
        || raw == short.class
        || raw == byte.class
        || raw == Integer.class
        || raw == Long.class
        || raw == Short.class
        || raw == Byte.class
        || raw == BigInteger.class) {
      return Kind.INTEGER;
    }
    if (raw == double.class
        || raw == float.class
        || raw == Double.class
        || raw == Float.class
        || raw == BigDecimal.class
        || Number.class.isAssignableFrom(raw)) {
      return Kind.NUMBER;
    }
    if (raw == byte[].class
        || CharSequence.class.isAssignableFrom(raw)
        || raw == char.class
        || raw == Character.class
        || raw.isEnum()
        || raw == UUID.class
        || raw == URI.class
        || Temporal.class.isAssignableFrom(raw)
        || raw == java.time.Duration.class
        || raw == java.time.ZoneId.class) {
      return Kind.STRING;
    }
    if (raw.isArray() || Collection.class.isAssignableFrom(raw) || Iterator.class == raw) {
      return Kind.ARRAY;
    }
    return Kind.OBJECT;
  }

  /** A record's components by JSON name, in declaration order ({@code @JsonProperty} renames). */
  private static Map<String, JavaType> components(JavaType record) {
    Map<String, JavaType> components = new LinkedHashMap<>();
    Class<?> raw = record.getRawClass();
    for (RecordComponent component : raw.getRecordComponents()) {
      Field field = field(raw, component.getName());
      Method accessor = component.getAccessor();
      if (ignored(field) || accessor.isAnnotationPresent(JsonIgnore.class)) {
        continue;
      }
      if (accessor.isAnnotationPresent(JsonAnyGetter.class)
          || (field != null && field.isAnnotationPresent(JsonAnySetter.class))) {
        continue; // the other properties, not one named so: checked against additionalProperties
      }
      String name = component.getName();
      JsonProperty renamed =
          field != null
              ? field.getAnnotation(JsonProperty.class)
              : accessor.getAnnotation(JsonProperty.class);
      if (renamed == null) {
        renamed = accessor.getAnnotation(JsonProperty.class);
      }
      if (renamed != null && !renamed.value().isEmpty()) {
        name = renamed.value();
      }
      components.put(
          name,
          Json.mapper()
              .getTypeFactory()
              .resolveMemberType(component.getGenericType(), record.getBindings()));
    }
    return components;
  }

  private static boolean ignored(Field field) {
    return field != null && field.isAnnotationPresent(JsonIgnore.class);
  }

  private static boolean isMapComponent(JavaType type) {
    return Map.class.isAssignableFrom(type.getRawClass());
  }

  private static Field field(Class<?> type, String name) {
    try {
      return type.getDeclaredField(name);
    } catch (NoSuchFieldException e) {
      return null;
    }
  }

  /**
   * The JSON values of an enum's constants ({@code @JsonProperty} renames); null for a String, or
   * an enum whose values a {@code @JsonValue} method decides (not checked).
   */
  private static Set<String> enumValues(Class<?> raw) {
    if (!raw.isEnum()) {
      return null;
    }
    for (Method method : raw.getDeclaredMethods()) {
      if (method.isAnnotationPresent(JsonValue.class)) {
        return null;
      }
    }
    Set<String> values = new java.util.TreeSet<>();
    for (Field field : raw.getDeclaredFields()) {
      if (!field.isEnumConstant() || !Modifier.isPublic(field.getModifiers())) {
        continue;
      }
      JsonProperty renamed = field.getAnnotation(JsonProperty.class);
      // On an enum constant Jackson takes the name as written, "" included.
      values.add(renamed != null ? renamed.value() : field.getName());
    }
    return values;
  }

  static String describe(JavaType type) {
    Class<?> raw = type.getRawClass();
    if (type.containedTypeCount() == 0) {
      return raw.isPrimitive() ? raw.getName() : raw.getSimpleName();
    }
    StringBuilder text = new StringBuilder(raw.getSimpleName()).append('<');
    for (int i = 0; i < type.containedTypeCount(); i++) {
      text.append(i > 0 ? ", " : "").append(describe(type.containedType(i)));
    }
    return text.append('>').toString();
  }

  private static String boxedName(Class<?> primitive) {
    if (primitive == int.class) {
      return "Integer";
    }
    if (primitive == char.class) {
      return "Character";
    }
    String name = primitive.getName();
    return Character.toUpperCase(name.charAt(0)) + name.substring(1);
  }
}
