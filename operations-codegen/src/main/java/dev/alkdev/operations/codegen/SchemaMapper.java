package dev.alkdev.operations.codegen;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.TypeName;
import dev.alkdev.operations.codegen.TypeDecl.Component;
import dev.alkdev.operations.codegen.TypeDecl.Constant;
import dev.alkdev.operations.codegen.TypeDecl.EnumDecl;
import dev.alkdev.operations.codegen.TypeDecl.RecordDecl;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * Maps schemas to Java types, declaring the records and enums they need (the rules are the table in
 * docs/typed-clients.md, "From JSON Schema to Java"). Named types reached through {@code $ref} are
 * declared from a queue, not by recursion, so a chain or cycle of definitions of any length costs
 * no stack; everything else recurses at most {@link Shapes#MAX_DEPTH} levels deep.
 *
 * <p>Every type has one name per location key ({@link DefCatalog#keyOf}), so a schema reached
 * twice, by structure and by {@code $ref}, or in two copies of one definition, is declared once.
 */
final class SchemaMapper {
  private record Pending(Loc loc, String path) {}

  private final Shapes shapes;
  private final DefCatalog catalog;
  private final TypeNames names;
  private final Notes notes;
  private final Map<String, ClassName> typeByKey = new HashMap<>();
  private final Set<String> declared = new HashSet<>();
  private final Set<String> queued = new HashSet<>();
  private final Deque<Pending> pending = new ArrayDeque<>();
  private final Set<String> inlining = new HashSet<>();
  private final List<TypeDecl> decls = new ArrayList<>();

  SchemaMapper(Shapes shapes, DefCatalog catalog, TypeNames names, Notes notes) {
    this.shapes = shapes;
    this.catalog = catalog;
    this.names = names;
    this.notes = notes;
  }

  /** Maps a document's root schema and declares every type it needs. */
  Mapped mapRoot(SchemaDoc doc) {
    Mapped mapped = map(doc.root(), doc.rootHint(), doc.role(), 0);
    while (!pending.isEmpty()) {
      Pending next = pending.poll();
      map(next.loc(), "", next.path(), 0);
    }
    return mapped;
  }

  /** The records and enums declared so far, in the order they were named. */
  List<TypeDecl> declarations() {
    return List.copyOf(decls);
  }

  private Mapped map(Loc loc, String hint, String path, int depth) {
    JsonNode n = loc.node();
    if (depth > Shapes.MAX_DEPTH) {
      return lossy(loc, path, "nested deeper than " + Shapes.MAX_DEPTH + " levels -> JsonNode");
    }
    if (n.isBoolean()) {
      return n.asBoolean()
          ? Mapped.json()
          : lossy(loc, path, "schema false (no value is valid) -> JsonNode");
    }
    if (!n.isObject()) {
      return lossy(loc, path, "not a schema (a JSON " + Shapes.jsonType(n) + ") -> JsonNode");
    }
    boolean nullable = Schemas.nullable(n);
    if (shapes.declaresHere(loc)) {
      return new Mapped(declare(loc, hint, path, depth), nullable, false, List.of());
    }
    Optional<String> ref = Schemas.ref(n);
    if (ref.isPresent()) {
      Mapped mapped =
          Schemas.hasStructuralSiblings(n)
              ? composite(loc, hint, path, depth, "$ref with sibling keywords")
              : reference(loc, ref.get(), hint, path, depth);
      return mapped.orNull(nullable);
    }
    Optional<JsonNode> allOf = Schemas.array(n, "allOf");
    if (allOf.isPresent()) {
      int sole = Schemas.soleAllOfBranch(n);
      if (sole >= 0) {
        return map(loc.child("allOf", sole), hint, path, depth + 1).orNull(nullable);
      }
      return composite(loc, hint, path, depth, "allOf").orNull(nullable);
    }
    if (Schemas.hasProperties(n) && Schemas.objectish(n)) {
      Set<String> properties = Shapes.propertyNames(List.of(loc));
      // Only a property named "": no record can name it, JsonNode keeps it.
      return (properties.isEmpty() ? Mapped.json() : tooLarge(loc, path, properties))
          .orNull(nullable);
    }
    if (Schemas.array(n, "oneOf").isPresent() || Schemas.array(n, "anyOf").isPresent()) {
      return union(loc, hint, path, depth).orNull(nullable);
    }
    if (Schemas.onlyNull(n)) {
      return lossy(loc, path, "only null is valid -> JsonNode").orNull(true);
    }
    if (n.has("enum") && n.get("enum").isArray()) {
      return enumValues(loc, path).orNull(nullable);
    }
    if (n.has("const")) {
      return constant(n).orNull(nullable);
    }
    return byType(loc, hint, path, depth).orNull(nullable);
  }

  /** The type of a declaring location, declared now if it is not yet. */
  private ClassName declare(Loc loc, String hint, String path, int depth) {
    String key = catalog.keyOf(loc);
    ClassName name = nameFor(loc, key, hint);
    if (declared.add(key)) {
      // The same order of questions as Shapes.declaresHere: merged parts, properties, enum.
      JsonNode n = loc.node();
      boolean merged = Schemas.ref(n).isPresent() || Schemas.array(n, "allOf").isPresent();
      if (merged) {
        declareRecord(name, loc, shapes.objectParts(loc).orElseThrow(), path, depth);
      } else if (Schemas.hasProperties(n)) {
        declareRecord(name, loc, List.of(loc), path, depth);
      } else {
        declareEnum(name, loc);
      }
    }
    return name;
  }

  private ClassName nameFor(Loc loc, String key, String hint) {
    ClassName known = typeByKey.get(key);
    if (known != null) {
      return known;
    }
    ClassName name =
        catalog
            .at(loc.doc(), loc.pointer())
            .flatMap(DefCatalog.Def::type)
            .orElseGet(() -> names.allocate(hint));
    typeByKey.put(key, name);
    return name;
  }

  /** A {@code $ref}: the target's type, declared later if it is named, or mapped in place. */
  private Mapped reference(Loc loc, String ref, String hint, String path, int depth) {
    Optional<Loc> found = loc.doc().resolve(ref);
    if (found.isEmpty()) {
      String what = ref.startsWith("#") ? "unresolvable" : "external";
      return lossy(loc, path, what + " $ref " + shown(ref) + " -> JsonNode");
    }
    Loc target = found.get();
    String targetHint =
        catalog
            .at(target.doc(), target.pointer())
            .map(DefCatalog.Def::hint)
            .orElse(target.pointer().isEmpty() ? target.doc().rootHint() : hint);
    if (shapes.declaresHere(target)) {
      String key = catalog.keyOf(target);
      ClassName name = nameFor(target, key, targetHint);
      if (!declared.contains(key) && queued.add(key)) {
        pending.add(new Pending(target, target.doc().role() + "#" + target.pointer()));
      }
      return new Mapped(name, Schemas.nullable(target.node()), false, List.of());
    }
    if (!inlining.add(target.id())) {
      return lossy(
          loc,
          path,
          "recursive $ref " + shown(ref) + " through schemas that are not objects -> JsonNode");
    }
    try {
      return map(target, targetHint, path, depth + 1);
    } finally {
      inlining.remove(target.id());
    }
  }

  /**
   * An allOf, or a $ref with sibling keywords, that does not declare a record: its parts are not
   * all objects, or they merge into an object without properties, or with too many.
   */
  private Mapped composite(Loc loc, String hint, String path, int depth, String what) {
    Optional<List<Loc>> parts = shapes.objectParts(loc);
    if (parts.isEmpty()) {
      return shapes.partsTooDeep(loc)
          ? lossy(
              loc, path, what + " nested deeper than " + Shapes.MAX_DEPTH + " levels -> JsonNode")
          : lossy(loc, path, what + " of schemas that are not all objects -> JsonNode");
    }
    Set<String> properties = Shapes.propertyNames(parts.get());
    if (!properties.isEmpty()) {
      return tooLarge(loc, path, properties);
    }
    if (parts.get().stream().anyMatch(p -> Schemas.hasProperties(p.node()))) {
      return Mapped.json(); // only a property named "", which no record can name
    }
    return objectWithoutProperties(additional(parts.get()), hint, path, depth);
  }

  private Mapped tooLarge(Loc loc, String path, Set<String> properties) {
    if (properties.size() > Shapes.MAX_COMPONENTS) {
      return lossy(
          loc,
          path,
          "object with "
              + properties.size()
              + " properties, more than a Java record can hold -> JsonNode");
    }
    return lossy(
        loc,
        path,
        "property name longer than " + Text.MAX_CONSTANT_CHARS + " characters -> JsonNode");
  }

  /**
   * The additionalProperties of merged parts: absent (empty), {@code false} (present, a {@code
   * false} node) if any part forbids extras, else the first part's schema or {@code true}.
   */
  private static Optional<Loc> additional(List<Loc> parts) {
    Optional<Loc> first = Optional.empty();
    for (Loc part : parts) {
      JsonNode ap = part.node().get("additionalProperties");
      if (ap == null) {
        continue;
      }
      if (ap.isBoolean() && !ap.asBoolean()) {
        return Optional.of(part.child("additionalProperties"));
      }
      if (first.isEmpty()) {
        first = Optional.of(part.child("additionalProperties"));
      }
    }
    return first;
  }

  private void declareRecord(ClassName name, Loc loc, List<Loc> parts, String path, int depth) {
    Map<String, List<Loc>> properties = new LinkedHashMap<>();
    Map<String, String> owners = new HashMap<>();
    Set<String> required = new LinkedHashSet<>();
    List<String> recordDocs = new ArrayList<>();
    boolean patternProperties = false;
    boolean unnamed = false;
    for (Loc part : parts) {
      JsonNode p = part.node();
      if (Schemas.hasProperties(p)) {
        String owner = owner(part, name);
        for (String property : p.get("properties").propertyNames()) {
          if (property.isEmpty()) {
            unnamed = true;
            continue;
          }
          owners.putIfAbsent(property, owner);
          properties
              .computeIfAbsent(property, k -> new ArrayList<>())
              .add(part.child("properties", property));
        }
      }
      required.addAll(Schemas.required(p));
      for (String union : List.of("oneOf", "anyOf")) {
        if (Schemas.array(p, union).isPresent()) {
          recordDocs.add(
              lossyDoc(
                  loc, path, union + " beside properties is not mapped (only the properties are)"));
        }
      }
      patternProperties |= p.has("patternProperties") && !p.get("patternProperties").isEmpty();
    }
    // A required property the schema does not declare is still sent and received: a component
    // whose type additionalProperties gives, JsonNode without one.
    Optional<Loc> additional = additional(parts);
    List<String> undeclared = new ArrayList<>();
    for (String property : required) {
      if (!property.isEmpty() && !properties.containsKey(property)) {
        undeclared.add(property);
      }
    }
    boolean strict =
        additional.isPresent()
            && additional.get().node().isBoolean()
            && !additional.get().node().asBoolean();
    boolean collectsExtras = additional.isPresent() && !strict;
    if (unnamed) {
      // Jackson takes @JsonProperty("") for "no name given" (and fails on @JsonAlias("")).
      recordDocs.add(
          lossyDoc(
              loc,
              path,
              collectsExtras
                  ? "the property named \"\" is not a component (Jackson cannot name one):"
                      + " it is kept among the additional properties"
                  : "the property named \"\" is not mapped (Jackson cannot name a component"
                      + " so): it is ignored"));
    }
    if (patternProperties && !collectsExtras) {
      recordDocs.add(
          lossyDoc(loc, path, "patternProperties are not mapped (such properties are ignored)"));
    }

    List<Component> components = new ArrayList<>();
    List<String> paramDocs = new ArrayList<>();
    Set<String> taken = Names.taken();
    for (Map.Entry<String, List<Loc>> e : properties.entrySet()) {
      String json = e.getKey();
      String java = Names.unique(Names.member(json, "property"), taken, "");
      String pascal = Names.pascal(json);
      String hint = owners.get(json) + (pascal.isEmpty() ? "Property" : pascal);
      Mapped m = property(e.getValue(), hint, path + "." + shownName(json), depth + 1);
      boolean isRequired = required.contains(json);
      TypeName type = isRequired && !m.nullable() ? m.type() : m.boxed();
      components.add(new Component(java, json, type, isRequired && m.nullable(), false));
      List<String> lines = new ArrayList<>();
      String text = describe(e.getValue().get(0).node());
      if (!text.isEmpty()) {
        lines.add(Text.doc(text));
      }
      lines.addAll(m.docs());
      if (!lines.isEmpty()) {
        paramDocs.add("@param " + java + " " + String.join("\n    ", lines));
      }
    }
    if (strict && !undeclared.isEmpty()) {
      // Required, yet neither declared nor allowed: no value is valid; the record keeps to what
      // the schema declares.
      recordDocs.add(
          lossyDoc(
              loc,
              path,
              "required but neither declared nor allowed (additionalProperties: false): "
                  + String.join(", ", undeclared.stream().map(SchemaMapper::shownName).toList())
                  + " (no value is valid)"));
      undeclared.clear();
    }
    for (String json : undeclared) {
      String java = Names.unique(Names.member(json, "property"), taken, "");
      Mapped m =
          additional.isPresent() && additional.get().node().isObject()
              ? map(
                  additional.get(),
                  name.simpleName() + Names.type(json),
                  path + "." + shownName(json),
                  depth + 1)
              : Mapped.json();
      String text = "required but not declared in properties";
      List<String> lines = new ArrayList<>();
      if (m.type().equals(JavaTypes.JSON_NODE)) {
        lines.add(lossyDoc(loc, path + "." + shownName(json), text + " -> JsonNode"));
      } else {
        lines.add(Text.doc(text) + ".");
      }
      lines.addAll(m.docs());
      components.add(
          new Component(java, json, m.nullable() ? m.boxed() : m.type(), m.nullable(), false));
      paramDocs.add("@param " + java + " " + String.join("\n    ", lines));
    }
    if (collectsExtras) {
      Loc ap = additional.get();
      Mapped value =
          ap.node().isBoolean()
              ? Mapped.json()
              : map(ap, name.simpleName() + "Value", path + "{}", depth + 1);
      String java = Names.unique("additionalProperties", taken, "");
      components.add(new Component(java, null, JavaTypes.mapOf(value.boxed()), false, true));
      List<String> lines = new ArrayList<>();
      lines.add("the properties the schema does not name");
      lines.addAll(prefixed("Values: ", value.docs()));
      paramDocs.add("@param " + java + " " + String.join("\n    ", lines));
    }
    if (slots(components) > 254) {
      // Past the 255 parameter slots of a JVM method (this takes one): box the two-slot primitives.
      components.replaceAll(
          c ->
              new Component(
                  c.name(), c.jsonName(), c.type().box(), c.alwaysInclude(), c.anyProperties()));
      recordDocs.add(
          lossyDoc(
              loc,
              path,
              "record of "
                  + components.size()
                  + " components: numbers are boxed to fit the JVM's limit of parameters"));
    }

    List<String> doc = new ArrayList<>(typeDocs(loc.node()));
    doc.addAll(recordDocs);
    if (!paramDocs.isEmpty()) {
      if (!doc.isEmpty()) {
        doc.add("");
      }
      doc.addAll(paramDocs);
    }
    decls.add(new RecordDecl(name, String.join("\n", doc), components, !strict || unnamed));
  }

  /**
   * The name a part's nested types start from: the record's, or, for a part that is a definition
   * merged in (the {@code Pet} of {@code allOf: [Pet, ...]}), the definition's, so that they are
   * named the same whichever record is declared first.
   */
  private String owner(Loc part, ClassName record) {
    return catalog
        .at(part.doc(), part.pointer())
        .map(d -> d.type().map(ClassName::simpleName).orElse(d.hint()))
        .orElse(record.simpleName());
  }

  private static int slots(List<Component> components) {
    int slots = 0;
    for (Component c : components) {
      slots += c.type().equals(TypeName.LONG) || c.type().equals(TypeName.DOUBLE) ? 2 : 1;
    }
    return slots;
  }

  /**
   * A property, declared by one or more allOf parts. Parts that do not constrain it (a description
   * only) defer to those that do; parts that give it different types make it JsonNode.
   */
  private Mapped property(List<Loc> declarations, String hint, String path, int depth) {
    List<Loc> constrained = new ArrayList<>();
    for (Loc d : declarations) {
      if (!Schemas.unconstrained(d.node())) {
        constrained.add(d);
      }
    }
    if (constrained.isEmpty()) {
      return map(declarations.get(0), hint, path, depth);
    }
    Loc first = constrained.get(0);
    boolean same = constrained.stream().allMatch(d -> d.node().equals(first.node()));
    if (same) {
      return map(first, hint, path, depth);
    }
    Mapped mapped = map(first, hint, path, depth);
    for (Loc other : constrained.subList(1, constrained.size())) {
      Mapped m = map(other, hint, path, depth);
      if (!m.boxed().equals(mapped.boxed())) {
        return lossy(first, path, "allOf declares the property with different types -> JsonNode");
      }
      mapped = mapped.orNull(m.nullable());
    }
    return mapped;
  }

  private void declareEnum(ClassName name, Loc loc) {
    Set<String> values = new LinkedHashSet<>();
    for (JsonNode v : loc.node().get("enum")) {
      if (v.isString()) {
        values.add(v.asString());
      }
    }
    Set<String> taken = Names.taken();
    List<Constant> constants = new ArrayList<>();
    for (String value : values) {
      constants.add(new Constant(Names.unique(Names.enumConstant(value), taken, "_"), value));
    }
    decls.add(new EnumDecl(name, String.join("\n", typeDocs(loc.node())), constants));
  }

  /** An enum that is not a Java enum: not all strings, or too many or too long for one. */
  private Mapped enumValues(Loc loc, String path) {
    JsonNode n = loc.node();
    JsonNode values = n.get("enum");
    List<String> docs = List.of("Allowed values: " + listed(values) + ".");
    if (Shapes.isStringEnum(n)) {
      String why =
          values.size() > Shapes.MAX_ENUM_CONSTANTS
              ? "enum of " + values.size() + " values, too many for a Java enum -> String"
              : "enum value longer than " + Text.MAX_CONSTANT_CHARS + " characters -> String";
      return lossy(loc, path, why, JavaTypes.STRING).withDocs(docs);
    }
    if (values.isEmpty()) {
      return lossy(loc, path, "enum without values (no value is valid) -> JsonNode");
    }
    Set<String> types = Schemas.nonNullTypes(n);
    String kind =
        types.size() == 1 ? types.iterator().next() : Shapes.valuesKind(values).primitive();
    Optional<TypeName> type = scalar(kind, Schemas.text(n, "format"));
    if (type.isEmpty()) {
      String what = kind.equals("mixed") ? "values of different types" : kind + " values";
      return lossy(loc, path, "enum of " + what + " -> JsonNode").withDocs(docs);
    }
    String shownType = type.get().isPrimitive() ? type.get().toString() : "String";
    return lossy(loc, path, "enum of " + kind + " values -> " + shownType, type.get())
        .withDocs(docs);
  }

  private Mapped constant(JsonNode n) {
    JsonNode value = n.get("const");
    List<String> docs = List.of("Always " + Text.code(shownValue(value)) + ".");
    if (value.isNull()) {
      return Mapped.json().orNull(true).withDocs(docs);
    }
    String kind = Shapes.jsonType(value);
    Set<String> types = Schemas.nonNullTypes(n);
    if (types.size() == 1 && types.contains("number") && kind.equals("integer")) {
      kind = "number";
    }
    return Mapped.of(scalar(kind, Schemas.text(n, "format")).orElse(JavaTypes.JSON_NODE))
        .withDocs(docs);
  }

  private Mapped byType(Loc loc, String hint, String path, int depth) {
    JsonNode n = loc.node();
    Set<String> types = Schemas.nonNullTypes(n);
    if (types.size() > 1) {
      return lossy(loc, path, "several types (" + String.join(", ", types) + ") -> JsonNode");
    }
    String type;
    if (types.size() == 1) {
      type = types.iterator().next();
    } else if (Schemas.objectish(n)) {
      type = "object";
    } else if (n.has("items") || n.has("prefixItems")) {
      type = "array";
    } else {
      return Mapped.json();
    }
    String format = Schemas.text(n, "format");
    List<String> formatDoc =
        format.isEmpty() ? List.of() : List.of("Format: " + Text.code(format) + ".");
    switch (type) {
      case "string", "number", "boolean" -> {
        return Mapped.of(scalar(type, format).orElseThrow()).withDocs(formatDoc);
      }
      case "integer" -> {
        boolean plain = format.equals("int32") || format.equals("int64");
        return Mapped.of(scalar(type, format).orElseThrow())
            .withDocs(plain ? List.of() : formatDoc);
      }
      case "array" -> {
        return array(loc, hint, path, depth);
      }
      case "object" -> {
        JsonNode ap = n.get("additionalProperties");
        Optional<Loc> additional =
            ap == null ? Optional.empty() : Optional.of(loc.child("additionalProperties"));
        if (n.has("patternProperties") && !n.get("patternProperties").isEmpty()) {
          return Mapped.json(); // the names matter to the values' types; JsonNode keeps them all
        }
        return objectWithoutProperties(additional, hint, path, depth);
      }
      default -> {
        return lossy(loc, path, "unknown type " + shown(type) + " -> JsonNode");
      }
    }
  }

  /** The Java type of a scalar JSON Schema type. */
  private static Optional<TypeName> scalar(String type, String format) {
    return switch (type) {
      case "string" -> Optional.of(JavaTypes.STRING);
      case "integer" -> Optional.of(format.equals("int32") ? TypeName.INT : TypeName.LONG);
      case "number" -> Optional.of(TypeName.DOUBLE);
      case "boolean" -> Optional.of(TypeName.BOOLEAN);
      default -> Optional.empty();
    };
  }

  private Mapped array(Loc loc, String hint, String path, int depth) {
    JsonNode n = loc.node();
    JsonNode items = n.get("items");
    if (n.has("prefixItems") || (items != null && items.isArray())) {
      return lossy(
          loc,
          path,
          "tuple (prefixItems) -> List<JsonNode>",
          JavaTypes.listOf(JavaTypes.JSON_NODE));
    }
    if (items == null || Schemas.unconstrained(items)) {
      return Mapped.of(JavaTypes.listOf(JavaTypes.JSON_NODE));
    }
    Mapped item = map(loc.child("items"), hint + "Item", path + "[]", depth + 1);
    return Mapped.of(JavaTypes.listOf(item.boxed())).withDocs(prefixed("Items: ", item.docs()));
  }

  /**
   * An object without properties: a map when additionalProperties is a schema, else JsonNode (an
   * empty object, when nothing may be in it but what is not declared either).
   */
  private Mapped objectWithoutProperties(
      Optional<Loc> additional, String hint, String path, int depth) {
    if (additional.isPresent() && additional.get().node().isObject()) {
      Mapped value = map(additional.get(), hint + "Value", path + "{}", depth + 1);
      return Mapped.of(JavaTypes.mapOf(value.boxed())).withDocs(prefixed("Values: ", value.docs()));
    }
    boolean empty = additional.isEmpty() || !additional.get().node().asBoolean(true);
    return new Mapped(JavaTypes.JSON_NODE, false, empty, List.of());
  }

  /**
   * oneOf / anyOf: null branches make it nullable; one other branch is that branch; branches of one
   * named type, equal branches, or scalars of one kind are that type; anything else JsonNode, with
   * the named branch types listed in its Javadoc.
   */
  private Mapped union(Loc loc, String hint, String path, int depth) {
    JsonNode n = loc.node();
    String keyword = Schemas.array(n, "oneOf").isPresent() ? "oneOf" : "anyOf";
    List<String> docs = new ArrayList<>();
    if (keyword.equals("oneOf") && Schemas.array(n, "anyOf").isPresent()) {
      docs.add(lossyDoc(loc, path, "anyOf beside oneOf is not mapped (only the oneOf is)"));
    }
    List<Loc> branches = new ArrayList<>();
    boolean sawNull = false;
    for (int i = 0; i < n.get(keyword).size(); i++) {
      Loc branch = loc.child(keyword, i);
      if (admitsOnlyNull(branch)) {
        sawNull = true;
      } else {
        branches.add(branch);
      }
    }
    if (branches.isEmpty()) {
      return lossy(loc, path, "only null is valid -> JsonNode").orNull(true).withDocs(docs);
    }
    if (branches.size() == 1) {
      return map(branches.get(0), hint, path, depth + 1).orNull(sawNull).withDocs(docs);
    }
    if (branches.stream().allMatch(b -> b.node().equals(branches.get(0).node()))) {
      return map(branches.get(0), hint, path, depth + 1).orNull(sawNull).withDocs(docs);
    }
    List<Shapes.Kind> kinds = new ArrayList<>();
    for (Loc branch : branches) {
      kinds.add(shapes.kindOf(branch));
    }
    Shapes.Kind first = kinds.get(0);
    if (first.nominal() != null
        && kinds.stream().allMatch(k -> first.nominal().equals(k.nominal()))) {
      return map(branches.get(0), hint, path, depth + 1).orNull(sawNull).withDocs(docs);
    }
    if (first.isScalar() && kinds.stream().allMatch(k -> k.primitive().equals(first.primitive()))) {
      return Mapped.of(scalar(first.primitive(), "").orElseThrow()).orNull(sawNull).withDocs(docs);
    }
    List<String> shownBranches = new ArrayList<>();
    for (int i = 0; i < branches.size(); i++) {
      shownBranches.add(branchName(branches.get(i), kinds.get(i), hint));
    }
    docs.add("One of: " + String.join(", ", shownBranches) + ".");
    String text = keyword + " of " + branches.size() + " different types -> JsonNode";
    return lossy(loc, path, text).orNull(sawNull).withDocs(docs);
  }

  private boolean admitsOnlyNull(Loc branch) {
    if (Schemas.onlyNull(branch.node())) {
      return true;
    }
    Optional<String> ref = Schemas.ref(branch.node());
    if (ref.isPresent() && !Schemas.hasStructuralSiblings(branch.node())) {
      Optional<Loc> target = branch.doc().resolve(ref.get());
      return target.isPresent() && Schemas.onlyNull(target.get().node());
    }
    return false;
  }

  /**
   * How a union branch is named in Javadoc: a link to its type when it is a {@code $ref} to a named
   * one (which is then generated, for callers to convert the JsonNode to), else its kind.
   */
  private String branchName(Loc branch, Shapes.Kind kind, String hint) {
    Optional<String> ref = Schemas.ref(branch.node());
    if (ref.isPresent() && !Schemas.hasStructuralSiblings(branch.node())) {
      Optional<Loc> target = branch.doc().resolve(ref.get());
      if (target.isPresent() && shapes.declaresHere(target.get())) {
        Mapped m = reference(branch, ref.get(), hint, "", 0);
        return "{@link " + ((ClassName) m.type()).simpleName() + "}";
      }
    }
    return switch (kind.primitive()) {
      case "mixed", "any" -> "any";
      default -> kind.primitive();
    };
  }

  private static List<String> prefixed(String prefix, List<String> lines) {
    return lines.stream().map(line -> prefix + line).toList();
  }

  /** Records a note and returns JsonNode with a Javadoc line that says why. */
  private Mapped lossy(Loc loc, String path, String text) {
    return lossy(loc, path, text, JavaTypes.JSON_NODE);
  }

  private Mapped lossy(Loc loc, String path, String text, TypeName type) {
    return new Mapped(type, false, false, List.of(lossyDoc(loc, path, text)));
  }

  private String lossyDoc(Loc loc, String path, String text) {
    notes.add(loc.doc().operationId(), path, text);
    return "Not exact: " + Text.doc(text) + ".";
  }

  /** A type's Javadoc lines: its title, then its description. */
  private static List<String> typeDocs(JsonNode schema) {
    List<String> lines = new ArrayList<>();
    String title = Schemas.text(schema, "title");
    String description = Schemas.text(schema, "description");
    if (!title.isEmpty()) {
      lines.add(Text.doc(title));
    }
    if (!description.isEmpty() && !description.equals(title)) {
      if (!lines.isEmpty()) {
        lines.add("");
      }
      lines.add(Text.doc(description));
    }
    return lines;
  }

  /**
   * A property's description, else its title; else those of an allOf branch that only describes
   * ({@code allOf: [{$ref: Zone}, {description: "..."}]}).
   */
  private static String describe(JsonNode schema) {
    String description = Schemas.text(schema, "description");
    if (description.isEmpty()) {
      description = Schemas.text(schema, "title");
    }
    Optional<JsonNode> allOf = Schemas.array(schema, "allOf");
    if (description.isEmpty() && allOf.isPresent()) {
      for (JsonNode branch : allOf.get()) {
        if (branch.isObject() && Schemas.unconstrained(branch)) {
          description = describe(branch);
          if (!description.isEmpty()) {
            break;
          }
        }
      }
    }
    return description;
  }

  private static String listed(JsonNode values) {
    List<String> shown = new ArrayList<>();
    int limit = 50;
    for (JsonNode v : values) {
      if (shown.size() == limit) {
        shown.add("and " + (values.size() - limit) + " more");
        break;
      }
      shown.add(Text.code(shownValue(v)));
    }
    return String.join(", ", shown);
  }

  private static String shownValue(JsonNode value) {
    if (value.isString()) {
      return "\"" + value.asString() + "\"";
    }
    if (value.isContainer()) {
      try {
        String text = value.toString();
        return text.length() > 200 ? text.substring(0, 200) + "..." : text;
      } catch (RuntimeException e) {
        return value.isArray() ? "[...]" : "{...}"; // nested deeper than Jackson writes
      }
    }
    return value.toString();
  }

  private static String shown(String text) {
    return text.length() > 200 ? text.substring(0, 200) + "..." : text;
  }

  private static String shownName(String property) {
    return property.length() > 100 ? property.substring(0, 100) + "..." : property;
  }
}
