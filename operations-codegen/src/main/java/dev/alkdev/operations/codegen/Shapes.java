package dev.alkdev.operations.codegen;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * Shallow questions about a schema, asked before it is mapped: does it become a type of its own,
 * which parts does an {@code allOf} merge, what kind of value is a union branch. Answers are kept
 * per location, and every walk is bounded, so that hostile schemas (cycles, deep nesting, diamonds
 * of {@code allOf}) cost linear time and no stack.
 */
final class Shapes {
  /** Nesting deeper than this maps to JsonNode: hostile schemas must not overflow the stack. */
  static final int MAX_DEPTH = 64;

  /**
   * A record's canonical constructor takes at most 255 slots of parameters, {@code this} included;
   * boxing every component (one slot each) keeps 253 properties and an additionalProperties map
   * inside that.
   */
  static final int MAX_COMPONENTS = 253;

  /** A Java enum's static initializer is one method, limited to 64 KiB of bytecode. */
  static final int MAX_ENUM_CONSTANTS = 1000;

  /** The most {@code allOf} parts merged into one record. */
  private static final int MAX_PARTS = 10_000;

  /** The kind of value a schema admits, and the named type it is, for comparing union branches. */
  record Kind(String primitive, String nominal) {
    static final Kind MIXED = new Kind("mixed", null);
    static final Kind ANY = new Kind("any", null);

    boolean isScalar() {
      return switch (primitive) {
        case "string", "integer", "number", "boolean" -> true;
        default -> false;
      };
    }
  }

  private final Map<String, Boolean> declares = new HashMap<>();
  private final Map<String, Kind> kinds = new HashMap<>();

  /**
   * Whether the schema at {@code loc} becomes a type of its own: an object with properties (a
   * record), a string enum (an enum), or an allOf (or a $ref with sibling keywords) whose parts
   * merge into one object with properties.
   */
  boolean declaresHere(Loc loc) {
    JsonNode n = loc.node();
    if (!n.isObject()) {
      return false;
    }
    Boolean known = declares.get(loc.id());
    if (known != null) {
      return known;
    }
    boolean result;
    if (Schemas.ref(n).isPresent()) {
      result = Schemas.hasStructuralSiblings(n) && mergesToRecord(loc);
    } else if (Schemas.array(n, "allOf").isPresent()) {
      result = Schemas.soleAllOfBranch(n) < 0 && mergesToRecord(loc);
    } else if (Schemas.hasProperties(n) && Schemas.objectish(n)) {
      result = fitsRecord(propertyNames(List.of(loc)));
    } else if (Schemas.array(n, "oneOf").isPresent() || Schemas.array(n, "anyOf").isPresent()) {
      result = false;
    } else {
      result = isStringEnum(n) && fitsEnum(n);
    }
    declares.put(loc.id(), result);
    return result;
  }

  /** Whether {@code enum} lists at least one string, only strings and null, for a string type. */
  static boolean isStringEnum(JsonNode n) {
    JsonNode values = n.get("enum");
    if (values == null || !values.isArray()) {
      return false;
    }
    Set<String> types = Schemas.nonNullTypes(n);
    if (!types.isEmpty() && !(types.size() == 1 && types.contains("string"))) {
      return false;
    }
    boolean any = false;
    for (JsonNode v : values) {
      if (v.isString()) {
        any = true;
      } else if (!v.isNull()) {
        return false;
      }
    }
    return any;
  }

  /** Whether a string enum fits a Java enum: not too many values, none too long for a constant. */
  static boolean fitsEnum(JsonNode n) {
    JsonNode values = n.get("enum");
    if (values.size() > MAX_ENUM_CONSTANTS) {
      return false;
    }
    for (JsonNode v : values) {
      if (v.isString() && v.asString().length() > Text.MAX_CONSTANT_CHARS) {
        return false;
      }
    }
    return true;
  }

  private boolean mergesToRecord(Loc loc) {
    Optional<List<Loc>> parts = objectParts(loc);
    return parts.isPresent() && fitsRecord(propertyNames(parts.get()));
  }

  private static boolean fitsRecord(Set<String> names) {
    if (names.isEmpty() || names.size() > MAX_COMPONENTS) {
      return false;
    }
    for (String name : names) {
      if (name.length() > Text.MAX_CONSTANT_CHARS) {
        return false;
      }
    }
    return true;
  }

  /**
   * The property names of the parts that can be record components, in order of first appearance:
   * those declared, then those only required (when some are declared); all but the empty name,
   * which Jackson reads as "no name given" in {@code @JsonProperty("")}.
   */
  static Set<String> propertyNames(List<Loc> parts) {
    Set<String> names = new LinkedHashSet<>();
    for (Loc part : parts) {
      if (Schemas.hasProperties(part.node())) {
        names.addAll(part.node().get("properties").propertyNames());
      }
    }
    if (!names.isEmpty()) {
      for (Loc part : parts) {
        names.addAll(Schemas.required(part.node()));
      }
    }
    names.remove("");
    return names;
  }

  /**
   * The object schemas an allOf (or a $ref with sibling keywords) combines, through refs and nested
   * allOfs, each once; empty if a part is not an object schema (a string, a ref to nowhere).
   * Schemas that constrain nothing contribute nothing; a cycle stops where it closes.
   */
  Optional<List<Loc>> objectParts(Loc loc) {
    return parts(loc).parts();
  }

  /** Whether {@link #objectParts} is empty because the parts nest too deep, not for their kind. */
  boolean partsTooDeep(Loc loc) {
    return parts(loc).tooDeep();
  }

  private record Parts(Optional<List<Loc>> parts, boolean tooDeep) {}

  private final Map<String, Parts> parts = new HashMap<>();

  private Parts parts(Loc loc) {
    Parts known = parts.get(loc.id());
    if (known == null) {
      List<Loc> out = new ArrayList<>();
      boolean[] tooDeep = {false};
      boolean ok = collect(loc, out, new HashSet<>(), 0, tooDeep);
      known = new Parts(ok ? Optional.of(List.copyOf(out)) : Optional.empty(), tooDeep[0]);
      parts.put(loc.id(), known);
    }
    return known;
  }

  private boolean collect(Loc loc, List<Loc> out, Set<String> seen, int depth, boolean[] tooDeep) {
    if (depth > MAX_DEPTH || seen.size() > MAX_PARTS) {
      tooDeep[0] = true;
      return false;
    }
    if (!seen.add(loc.id())) {
      return true;
    }
    JsonNode n = loc.node();
    if (n.isBoolean()) {
      return n.asBoolean();
    }
    if (!n.isObject()) {
      return false;
    }
    boolean composite = false;
    Optional<String> ref = Schemas.ref(n);
    if (ref.isPresent()) {
      Optional<Loc> target = loc.doc().resolve(ref.get());
      if (target.isEmpty() || !collect(target.get(), out, seen, depth + 1, tooDeep)) {
        return false;
      }
      composite = true;
    }
    Optional<JsonNode> allOf = Schemas.array(n, "allOf");
    if (allOf.isPresent()) {
      for (int i = 0; i < allOf.get().size(); i++) {
        if (!collect(loc.child("allOf", i), out, seen, depth + 1, tooDeep)) {
          return false;
        }
      }
      composite = true;
    }
    Set<String> types = Schemas.nonNullTypes(n);
    boolean objectTyped = types.isEmpty() || (types.size() == 1 && types.contains("object"));
    if (Schemas.objectish(n)
        || (objectTyped
            && (Schemas.array(n, "oneOf").isPresent() || Schemas.array(n, "anyOf").isPresent()))) {
      // A union beside object keywords: the record keeps the properties, a note says the rest.
      out.add(loc);
      return true;
    }
    return composite ? objectTyped : Schemas.unconstrained(n);
  }

  /** The kind of value the schema at {@code loc} admits. */
  Kind kindOf(Loc loc) {
    return kindOf(loc, new HashSet<>(), 0);
  }

  private Kind kindOf(Loc loc, Set<String> visiting, int depth) {
    JsonNode n = loc.node();
    if (n.isBoolean()) {
      return n.asBoolean() ? Kind.ANY : Kind.MIXED;
    }
    if (!n.isObject() || depth > MAX_DEPTH) {
      return Kind.MIXED;
    }
    Kind known = kinds.get(loc.id());
    if (known != null) {
      return known;
    }
    if (!visiting.add(loc.id())) {
      return Kind.MIXED;
    }
    Kind kind = computeKind(loc, visiting, depth);
    visiting.remove(loc.id());
    kinds.put(loc.id(), kind);
    return kind;
  }

  private Kind computeKind(Loc loc, Set<String> visiting, int depth) {
    JsonNode n = loc.node();
    if (declaresHere(loc)) {
      return new Kind(isStringEnum(n) ? "string" : "object", loc.id());
    }
    Optional<String> ref = Schemas.ref(n);
    if (ref.isPresent()) {
      if (Schemas.hasStructuralSiblings(n)) {
        return Kind.MIXED;
      }
      Optional<Loc> target = loc.doc().resolve(ref.get());
      return target.isEmpty() ? Kind.MIXED : kindOf(target.get(), visiting, depth + 1);
    }
    Optional<JsonNode> allOf = Schemas.array(n, "allOf");
    if (allOf.isPresent()) {
      int sole = Schemas.soleAllOfBranch(n);
      if (sole >= 0) {
        return kindOf(loc.child("allOf", sole), visiting, depth + 1);
      }
      return objectParts(loc).isPresent() ? new Kind("object", null) : Kind.MIXED;
    }
    if (Schemas.hasProperties(n) && Schemas.objectish(n)) {
      return new Kind("object", null);
    }
    String union = Schemas.array(n, "oneOf").isPresent() ? "oneOf" : "anyOf";
    Optional<JsonNode> branches = Schemas.array(n, union);
    if (branches.isPresent()) {
      Kind common = null;
      for (int i = 0; i < branches.get().size(); i++) {
        Loc branch = loc.child(union, i);
        if (Schemas.onlyNull(branch.node())) {
          continue;
        }
        Kind k = kindOf(branch, visiting, depth + 1);
        if (common == null) {
          common = k;
        } else if (!common.primitive().equals(k.primitive())) {
          return Kind.MIXED;
        } else if (!Objects.equals(common.nominal(), k.nominal())) {
          if (!common.isScalar()) {
            return Kind.MIXED; // two different objects or arrays: no one Java type holds both
          }
          common = new Kind(common.primitive(), null);
        }
      }
      return common == null ? new Kind("null", null) : common;
    }
    JsonNode values = n.get("enum");
    if (values != null && values.isArray()) {
      return valuesKind(values);
    }
    if (n.has("const")) {
      return valuesKind(n.get("const"));
    }
    Set<String> types = Schemas.nonNullTypes(n);
    if (types.size() > 1) {
      return Kind.MIXED;
    }
    if (types.size() == 1) {
      String t = types.iterator().next();
      return switch (t) {
        case "string", "integer", "number", "boolean", "array", "object" -> new Kind(t, null);
        default -> Kind.MIXED;
      };
    }
    if (Schemas.onlyNull(n)) {
      return new Kind("null", null);
    }
    if (Schemas.objectish(n)) {
      return new Kind("object", null);
    }
    if (n.has("items") || n.has("prefixItems")) {
      return new Kind("array", null);
    }
    return Schemas.unconstrained(n) ? Kind.ANY : Kind.MIXED;
  }

  /** The JSON type shared by every non-null value (one value, or the elements of an array). */
  static Kind valuesKind(JsonNode values) {
    String common = null;
    for (JsonNode v : values.isArray() ? values : List.of(values)) {
      if (v.isNull()) {
        continue;
      }
      String t = jsonType(v);
      if (common == null) {
        common = t;
      } else if (!common.equals(t)) {
        if (common.equals("integer") && t.equals("number")
            || common.equals("number") && t.equals("integer")) {
          common = "number";
        } else {
          return Kind.MIXED;
        }
      }
    }
    return new Kind(common == null ? "null" : common, null);
  }

  /** The JSON Schema type name of a value. */
  static String jsonType(JsonNode v) {
    if (v.isString()) {
      return "string";
    }
    if (v.isIntegralNumber() || v.isNumber() && v.canConvertToExactIntegral()) {
      return "integer";
    }
    if (v.isNumber()) {
      return "number";
    }
    if (v.isBoolean()) {
      return "boolean";
    }
    if (v.isArray()) {
      return "array";
    }
    return v.isObject() ? "object" : "null";
  }
}
