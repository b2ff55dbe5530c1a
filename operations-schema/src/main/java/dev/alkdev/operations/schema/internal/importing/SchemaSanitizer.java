package dev.alkdev.operations.schema.internal.importing;

import dev.alkdev.operations.schema.SchemaOptions;
import dev.alkdev.operations.schema.internal.EcmaRegexTranslator;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Makes a normalised schema safe to compile, in place: every keyword whose value is malformed is
 * removed (so it constrains nothing, as an unknown keyword would), and every subschema that is not
 * a schema, or whose {@code $ref} leads nowhere, becomes {@code {}}. Each change is recorded.
 *
 * <p>Removing a keyword can only let more values through, never fewer, with one exception handled
 * here: a malformed member of {@code anyOf}/{@code oneOf} removes the whole keyword, because
 * replacing one member with {@code {}} would make {@code oneOf} reject values that match another
 * member.
 *
 * <p>Malformed values networknt would accept silently are the dangerous ones: {@code "type":
 * "file"} or {@code "enum": 5} reject every value, {@code "additionalProperties": "no"} acts as
 * {@code false}, {@code "required": [1]} requires a property named "1".
 */
final class SchemaSanitizer {
  private static final Pattern ANCHOR = Pattern.compile("^[A-Za-z_][-A-Za-z0-9._]*$");
  private static final List<String> NON_NEGATIVE_INTEGERS =
      List.of(
          "maxLength",
          "minLength",
          "maxItems",
          "minItems",
          "maxProperties",
          "minProperties",
          "maxContains",
          "minContains");

  /** Keywords kept when a subschema is degraded: none constrains a value. */
  private static final Set<String> KEPT_WHEN_DEGRADED =
      Set.of(
          "title",
          "description",
          "$schema",
          "$id",
          "$anchor",
          "$dynamicAnchor",
          "$defs",
          "definitions",
          "$comment");

  private final SchemaOptions options;
  private final Notes notes;
  private Draft draft;
  private final Set<String> ids = new HashSet<>();
  private final Set<String> anchors = new HashSet<>();
  private final Set<String> dynamicAnchors = new HashSet<>();

  /**
   * The base of a document without an absolute {@code $id}: any hierarchical URI will do, as long
   * as identifiers and references are resolved against the same one.
   */
  private static final URI IMPLICIT_BASE = URI.create("https://imported.invalid/schema.json");

  private SchemaSanitizer(SchemaOptions options, Notes notes) {
    this.options = options;
    this.notes = notes;
  }

  /** Sanitises {@code document} in place and returns it, or what replaces it. */
  static JsonNode sanitize(JsonNode document, SchemaOptions options, Notes notes) {
    if (!document.isObject()) {
      return document;
    }
    return new SchemaSanitizer(options, notes).run((ObjectNode) document);
  }

  private JsonNode run(ObjectNode root) {
    draft = Draft.of(options.defaultDialect());
    JsonNode declared = root.get("$schema");
    if (declared != null) {
      Optional<Draft> known =
          declared.isString() ? Draft.of(declared.stringValue()) : Optional.empty();
      if (known.isPresent()) {
        draft = known.get();
        root.put("$schema", draft.uri());
      } else if (declared.isString() && isMapped(declared.stringValue())) {
        // A meta-schema the caller lets the compiler load: its vocabularies decide.
      } else {
        root.remove("$schema");
        notes.add(
            "",
            "unknown $schema "
                + declared
                + " removed; compiled as "
                + options.defaultDialect().metaSchemaUri());
      }
    }
    indexIdentifiers(root);
    return visit(root, "", root, IMPLICIT_BASE);
  }

  /**
   * Collects every {@code $id} (resolved against the base its parents set) and every anchor, so
   * references to them can be checked. Iterative: it runs before anything is known about depth.
   */
  private void indexIdentifiers(ObjectNode root) {
    Deque<Map.Entry<JsonNode, URI>> pending = new ArrayDeque<>();
    pending.push(Map.entry(root, IMPLICIT_BASE));
    while (!pending.isEmpty()) {
      Map.Entry<JsonNode, URI> entry = pending.pop();
      JsonNode node = entry.getKey();
      URI base = entry.getValue();
      if (node.isObject()) {
        JsonNode id = node.get(idKeyword());
        if (id != null && id.isString()) {
          String text = id.stringValue();
          if (text.startsWith("#")) {
            anchors.add(text.substring(1)); // drafts 06 and 07 name anchors with "$id": "#name"
          } else {
            URI resolved = resolve(base, text);
            if (resolved != null) {
              base = resolved;
              ids.add(stripFragment(base.toString()));
            }
          }
        }
        addIfString(anchors, node.get("$anchor"));
        addIfString(dynamicAnchors, node.get("$dynamicAnchor"));
      }
      if (node.isContainer()) {
        for (JsonNode child : node.values()) {
          pending.push(Map.entry(child, base));
        }
      }
    }
  }

  private String idKeyword() {
    return draft == Draft.DRAFT_04 ? "id" : "$id";
  }

  private JsonNode visit(ObjectNode schema, String pointer, JsonNode resource, URI base) {
    JsonNode id = schema.get(idKeyword());
    if (id != null && !id.isString()) {
      schema.remove(idKeyword());
      notes.add(pointer, idKeyword() + " is not a string; removed");
    } else if (id != null && !id.stringValue().startsWith("#")) {
      resource = schema;
      URI resolved = resolve(base, id.stringValue());
      base = resolved == null ? base : resolved;
    }
    JsonNode ref = schema.get("$ref");
    if (ref != null) {
      String problem =
          ref.isString() ? unresolvable(ref.stringValue(), resource, base) : "is not a string";
      if (problem != null) {
        notes.add(pointer, "$ref " + ref + " " + problem + "; the subschema accepts any value");
        degradeInPlace(schema);
      }
    }
    if (!pointer.isEmpty() && schema.has("$schema")) {
      JsonNode nested = schema.get("$schema");
      if (!nested.isString()
          || Draft.of(nested.stringValue()).isEmpty() && !isMapped(nested.stringValue())) {
        schema.remove("$schema");
        notes.add(pointer, "unknown $schema " + nested + " removed");
      }
    }
    checkKeywords(schema, pointer, resource, base);
    checkSubschemaShapes(schema, pointer);
    JsonNode childResource = resource;
    URI childBase = base;
    SchemaKeywords.rewriteSubschemas(
        schema,
        pointer,
        (child, at) ->
            child.isObject() ? visit((ObjectNode) child, at, childResource, childBase) : child);
    return schema;
  }

  /**
   * Turns {@code schema} into {@code {}}, keeping the members that constrain nothing (other
   * references may point into its {@code $defs}, and its title still helps a reader).
   */
  static void degradeInPlace(ObjectNode schema) {
    for (String key : new ArrayList<>(schema.propertyNames())) {
      if (!KEPT_WHEN_DEGRADED.contains(key)) {
        schema.remove(key);
      }
    }
  }

  // ---- keywords ---------------------------------------------------------------------------------

  private void checkKeywords(ObjectNode schema, String pointer, JsonNode resource, URI base) {
    checkType(schema, pointer);
    JsonNode values = schema.get("enum");
    if (values != null && !values.isArray()) {
      drop(schema, pointer, "enum", "is not an array");
    }
    checkRequired(schema, pointer);
    for (String keyword : List.of("minimum", "maximum")) {
      JsonNode value = schema.get(keyword);
      if (value != null && !value.isNumber()) {
        drop(schema, pointer, keyword, "is not a number");
      }
    }
    for (String keyword : List.of("exclusiveMinimum", "exclusiveMaximum")) {
      JsonNode value = schema.get(keyword);
      boolean fits =
          draft.hasBooleanExclusiveBounds()
              ? value != null && value.isBoolean()
              : value != null && value.isNumber();
      if (value != null && !fits) {
        drop(
            schema,
            pointer,
            keyword,
            draft.hasBooleanExclusiveBounds() ? "is not a boolean" : "is not a number");
      }
    }
    JsonNode multipleOf = schema.get("multipleOf");
    if (multipleOf != null && !(multipleOf.isNumber() && multipleOf.decimalValue().signum() > 0)) {
      drop(schema, pointer, "multipleOf", "is not a number above 0");
    }
    for (String keyword : NON_NEGATIVE_INTEGERS) {
      JsonNode value = schema.get(keyword);
      if (value != null && !isNonNegativeInteger(value)) {
        drop(schema, pointer, keyword, "is not a non-negative integer");
      }
    }
    JsonNode unique = schema.get("uniqueItems");
    if (unique != null && !unique.isBoolean()) {
      drop(schema, pointer, "uniqueItems", "is not a boolean");
    }
    JsonNode pattern = schema.get("pattern");
    if (pattern != null) {
      String problem = pattern.isString() ? regexProblem(pattern.stringValue()) : "is not a string";
      if (problem != null) {
        drop(schema, pointer, "pattern", problem);
      }
    }
    JsonNode format = schema.get("format");
    if (format != null && !format.isString()) {
      drop(schema, pointer, "format", "is not a string");
    }
    for (String keyword : List.of("$anchor", "$dynamicAnchor")) {
      JsonNode value = schema.get(keyword);
      if (value != null && !(value.isString() && ANCHOR.matcher(value.stringValue()).matches())) {
        drop(schema, pointer, keyword, "is not a valid anchor name");
      }
    }
    JsonNode dynamicRef = schema.get("$dynamicRef");
    if (dynamicRef != null && !dynamicRefResolves(dynamicRef, resource, base)) {
      drop(schema, pointer, "$dynamicRef", "names no $dynamicAnchor or $anchor in the document");
    }
    JsonNode recursiveRef = schema.get("$recursiveRef");
    if (recursiveRef != null && !recursiveRef.isString()) {
      drop(schema, pointer, "$recursiveRef", "is not a string");
    }
    checkDependentRequired(schema, pointer, "dependentRequired");
  }

  private void checkType(ObjectNode schema, String pointer) {
    JsonNode type = schema.get("type");
    if (type == null) {
      return;
    }
    if (type.isString()) {
      if (!SchemaKeywords.TYPES.contains(type.stringValue())) {
        drop(schema, pointer, "type", "names no JSON Schema type");
      }
      return;
    }
    if (!type.isArray()) {
      drop(schema, pointer, "type", "is neither a type name nor an array of them");
      return;
    }
    Set<String> kept = new LinkedHashSet<>();
    for (JsonNode entry : type.values()) {
      if (entry.isString() && SchemaKeywords.TYPES.contains(entry.stringValue())) {
        kept.add(entry.stringValue());
      }
    }
    if (kept.size() == type.size()) {
      return;
    }
    if (kept.isEmpty()) {
      drop(schema, pointer, "type", "names no JSON Schema type");
      return;
    }
    ArrayNode replacement = schema.arrayNode();
    kept.forEach(replacement::add);
    schema.set("type", replacement);
    notes.add(pointer + "/type", "unknown or repeated type names " + type + " reduced to " + kept);
  }

  private void checkRequired(ObjectNode schema, String pointer) {
    JsonNode required = schema.get("required");
    if (required == null) {
      return;
    }
    if (!required.isArray()) {
      // Draft-03 put "required": true on the property itself; later drafts ignore that.
      drop(schema, pointer, "required", "is not an array of property names");
      return;
    }
    ArrayNode names = (ArrayNode) required;
    for (int i = names.size() - 1; i >= 0; i--) {
      if (!names.get(i).isString()) {
        notes.add(pointer + "/required/" + i, names.get(i) + " is not a property name; removed");
        names.remove(i);
      }
    }
  }

  private void checkDependentRequired(ObjectNode schema, String pointer, String keyword) {
    JsonNode dependent = schema.get(keyword);
    if (dependent == null) {
      return;
    }
    if (!dependent.isObject()) {
      drop(schema, pointer, keyword, "is not an object");
      return;
    }
    ObjectNode map = (ObjectNode) dependent;
    for (String name : new ArrayList<>(map.propertyNames())) {
      JsonNode names = map.get(name);
      String at = pointer + "/" + keyword + "/" + SchemaKeywords.escape(name);
      if (!names.isArray()) {
        map.remove(name);
        notes.add(at, "is not an array of property names; removed");
      } else {
        for (int i = names.size() - 1; i >= 0; i--) {
          if (!names.get(i).isString()) {
            ((ArrayNode) names).remove(i);
            notes.add(at + "/" + i, "is not a property name; removed");
          }
        }
      }
    }
  }

  // ---- subschema positions ----------------------------------------------------------------------

  private void checkSubschemaShapes(ObjectNode schema, String pointer) {
    for (String keyword : SchemaKeywords.SINGLE) {
      JsonNode value = schema.get(keyword);
      if (value != null && !SchemaKeywords.isSchema(value)) {
        drop(schema, pointer, keyword, "is not a schema");
      }
    }
    JsonNode items = schema.get("items");
    if (items != null) {
      if (items.isArray() && draft.hasArrayItems()) {
        replaceNonSchemas((ArrayNode) items, pointer + "/items");
      } else if (!SchemaKeywords.isSchema(items)) {
        drop(schema, pointer, "items", "is not a schema");
      }
    }
    for (String keyword : SchemaKeywords.ARRAY) {
      JsonNode value = schema.get(keyword);
      if (value == null) {
        continue;
      }
      if (!value.isArray() || value.isEmpty()) {
        drop(schema, pointer, keyword, "is not a non-empty array of schemas");
        continue;
      }
      ArrayNode members = (ArrayNode) value;
      String at = pointer + "/" + keyword;
      switch (keyword) {
        case "allOf" -> {
          for (int i = members.size() - 1; i >= 0; i--) {
            if (!SchemaKeywords.isSchema(members.get(i))) {
              notes.add(at + "/" + i, "is not a schema; removed from allOf");
              members.remove(i);
            }
          }
          if (members.isEmpty()) {
            schema.remove(keyword);
          }
        }
        case "prefixItems" -> replaceNonSchemas(members, at);
        default -> {
          for (JsonNode member : members.values()) {
            if (!SchemaKeywords.isSchema(member)) {
              drop(schema, pointer, keyword, "has a member that is not a schema");
              break;
            }
          }
        }
      }
    }
    for (String keyword : SchemaKeywords.MAP) {
      JsonNode value = schema.get(keyword);
      if (value == null) {
        continue;
      }
      if (!value.isObject()) {
        drop(schema, pointer, keyword, "is not an object of schemas");
        continue;
      }
      ObjectNode map = (ObjectNode) value;
      for (String name : new ArrayList<>(map.propertyNames())) {
        String at = pointer + "/" + keyword + "/" + SchemaKeywords.escape(name);
        if (keyword.equals("patternProperties")) {
          String problem = regexProblem(name);
          if (problem != null) {
            map.remove(name);
            notes.add(at, problem + "; removed");
            continue;
          }
        }
        if (!SchemaKeywords.isSchema(map.get(name))) {
          map.set(name, map.objectNode());
          notes.add(at, "is not a schema; replaced by {}");
        }
      }
    }
    JsonNode dependencies = schema.get("dependencies");
    if (dependencies != null) {
      if (!dependencies.isObject()) {
        drop(schema, pointer, "dependencies", "is not an object");
      } else {
        ObjectNode map = (ObjectNode) dependencies;
        for (String name : new ArrayList<>(map.propertyNames())) {
          JsonNode member = map.get(name);
          if (!member.isArray() && !SchemaKeywords.isSchema(member)) {
            map.remove(name);
            notes.add(
                pointer + "/dependencies/" + SchemaKeywords.escape(name),
                "is neither property names nor a schema; removed");
          }
        }
        checkDependentRequiredArrays(map, pointer + "/dependencies");
      }
    }
  }

  private void checkDependentRequiredArrays(ObjectNode map, String at) {
    for (Map.Entry<String, JsonNode> entry : map.properties()) {
      if (entry.getValue().isArray()) {
        ArrayNode names = (ArrayNode) entry.getValue();
        for (int i = names.size() - 1; i >= 0; i--) {
          if (!names.get(i).isString()) {
            names.remove(i);
            notes.add(
                at + "/" + SchemaKeywords.escape(entry.getKey()) + "/" + i,
                "is not a property name; removed");
          }
        }
      }
    }
  }

  private void replaceNonSchemas(ArrayNode members, String at) {
    for (int i = 0; i < members.size(); i++) {
      if (!SchemaKeywords.isSchema(members.get(i))) {
        notes.add(at + "/" + i, "is not a schema; replaced by {}");
        members.set(i, members.objectNode());
      }
    }
  }

  // ---- references -------------------------------------------------------------------------------

  /** Why {@code ref} cannot be followed, or {@code null} when it can. */
  private String unresolvable(String ref, JsonNode resource, URI base) {
    int hash = ref.indexOf('#');
    String document = hash < 0 ? ref : ref.substring(0, hash);
    String fragment = hash < 0 ? "" : ref.substring(hash + 1);
    if (document.isEmpty()) {
      if (fragment.isEmpty()) {
        return null;
      }
      if (fragment.startsWith("/")) {
        JsonNode target = resolvePointer(resource, fragment);
        return target != null && SchemaKeywords.isSchema(target)
            ? null
            : "points at no schema in the document";
      }
      return anchors.contains(fragment) || dynamicAnchors.contains(fragment)
          ? null
          : "names an anchor the document does not define";
    }
    if (Draft.of(document).isPresent()) {
      return null; // a meta-schema: always available
    }
    URI resolved = resolve(base, document);
    if (resolved == null) {
      return "is not a valid URI reference";
    }
    String target = stripFragment(resolved.toString());
    if (ids.contains(target) || isMapped(target) || isMapped(document)) {
      return null; // embedded, or the compiler may load it from where the caller mapped it
    }
    return "points outside the document, and SchemaOptions maps no prefix to load it from";
  }

  private boolean isMapped(String uri) {
    return options.prefixMappings().keySet().stream().anyMatch(uri::startsWith);
  }

  /**
   * A {@code $dynamicRef} to a plain name needs a dynamic anchor; otherwise it is a {@code $ref}.
   */
  private boolean dynamicRefResolves(JsonNode ref, JsonNode resource, URI base) {
    if (!ref.isString()) {
      return false;
    }
    String text = ref.stringValue();
    if (text.startsWith("#") && text.length() > 1 && text.charAt(1) != '/') {
      String name = text.substring(1);
      return dynamicAnchors.contains(name) || anchors.contains(name);
    }
    return unresolvable(text, resource, base) == null;
  }

  /** Follows an RFC 6901 pointer given as a URI fragment (so percent-encoded), or null. */
  static JsonNode resolvePointer(JsonNode from, String fragment) {
    if (from == null) {
      return null;
    }
    String pointer = percentDecode(fragment);
    if (pointer == null) {
      return null;
    }
    JsonNode node = from;
    for (String raw : pointer.substring(1).split("/", -1)) {
      String token = raw.replace("~1", "/").replace("~0", "~");
      if (node.isObject()) {
        node = node.get(token);
      } else if (node.isArray() && token.matches("0|[1-9][0-9]{0,8}")) {
        node = node.get(Integer.parseInt(token));
      } else {
        return null;
      }
      if (node == null) {
        return null;
      }
    }
    return node;
  }

  private static String percentDecode(String text) {
    if (text.indexOf('%') < 0) {
      return text;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '%') {
        if (i + 2 >= text.length()) {
          return null;
        }
        int value;
        try {
          value = Integer.parseInt(text.substring(i + 1, i + 3), 16);
        } catch (NumberFormatException e) {
          return null;
        }
        bytes.write(value);
        i += 2;
      } else {
        byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        bytes.write(encoded, 0, encoded.length);
      }
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  /** {@code reference} resolved against {@code base}, or null when it is not a URI reference. */
  private static URI resolve(URI base, String reference) {
    try {
      URI uri = new URI(reference);
      return uri.isAbsolute() || base.isOpaque() ? uri : base.resolve(uri);
    } catch (java.net.URISyntaxException | IllegalArgumentException e) {
      return null;
    }
  }

  private static String stripFragment(String uri) {
    int hash = uri.indexOf('#');
    return hash < 0 ? uri : uri.substring(0, hash);
  }

  // ---- helpers ----------------------------------------------------------------------------------

  private void drop(ObjectNode schema, String pointer, String keyword, String problem) {
    JsonNode value = schema.remove(keyword);
    notes.add(
        pointer + "/" + SchemaKeywords.escape(keyword),
        keyword + " " + abbreviate(value) + " " + problem + "; removed");
  }

  /** Checked as the engine will run it: ECMA-262, translated to a Java pattern. */
  private static String regexProblem(String regex) {
    try {
      Pattern.compile(EcmaRegexTranslator.toJava(regex));
      return null;
    } catch (PatternSyntaxException e) {
      return "is not a valid regular expression (" + e.getDescription() + ")";
    } catch (IllegalArgumentException e) {
      return "is not a valid regular expression (" + e.getMessage() + ")";
    }
  }

  private static boolean isNonNegativeInteger(JsonNode value) {
    if (!value.isNumber()) {
      return false;
    }
    java.math.BigDecimal number = value.decimalValue();
    return number.signum() >= 0 && number.stripTrailingZeros().scale() <= 0;
  }

  private static void addIfString(Set<String> into, JsonNode value) {
    if (value != null && value.isString()) {
      into.add(value.stringValue());
    }
  }

  static String abbreviate(JsonNode value) {
    String text = String.valueOf(value);
    return text.length() > 60 ? text.substring(0, 57) + "..." : text;
  }
}
