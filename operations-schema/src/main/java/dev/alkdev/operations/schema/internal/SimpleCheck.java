package dev.alkdev.operations.schema.internal;

import static dev.alkdev.operations.schema.internal.cast.JsonTypes.ANY;
import static dev.alkdev.operations.schema.internal.cast.JsonTypes.ARRAY;
import static dev.alkdev.operations.schema.internal.cast.JsonTypes.OBJECT;

import dev.alkdev.operations.schema.SchemaLimits;
import dev.alkdev.operations.schema.internal.cast.JsonTypes;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * A fast path in front of networknt for the schemas most outputs have: {@code type}, {@code
 * properties}, {@code required}, {@code additionalProperties}, {@code items} (one schema), {@code
 * enum} and {@code const} of strings, booleans and null, and annotations, nested. Streams validate
 * every item against the output schema, and networknt's general machinery (an execution context, a
 * walk over keyword validators, error objects) was a third of a gateway stream's CPU for such a
 * schema (docs/benchmarks.md, "HTTP gateway").
 *
 * <p>It only ever says "valid": {@link #accepts} is true when the value certainly matches and false
 * when it does not or when this check cannot tell, and then networknt decides and describes the
 * errors. So verdicts and error lists stay networknt's; what must hold is that {@code accepts} is
 * never true for a value networknt refuses, which {@code SimpleCheckTest} checks against every case
 * of the JSON-Schema-Test-Suite whose schema this check covers. A document using any keyword
 * outside that set gets no fast path at all ({@link #compile} returns null), so the set only has to
 * be right for the keywords it names.
 *
 * <p>networknt's guards are kept: a value deeper than the limit never reaches this check ({@code
 * CompiledSchema} refuses it first), a document nested deeper than a fraction of the evaluation
 * depth gets no fast path, and a value that takes more than a fraction of the evaluation steps to
 * check is handed to networknt, which then counts its steps as before.
 */
final class SimpleCheck {

  /**
   * Keywords that never decide validity in the dialects this check serves: annotations, and {@code
   * $comment}. Any other keyword, {@code $id} and {@code $defs} included, disables the fast path
   * for the document.
   */
  private static final Set<String> ANNOTATIONS =
      Set.of(
          "title",
          "description",
          "default",
          "examples",
          "$comment",
          "deprecated",
          "readOnly",
          "writeOnly");

  /** The dialects whose meaning of the keywords above this check implements. */
  private static final Set<String> DIALECTS =
      Set.of(
          "https://json-schema.org/draft/2020-12/schema",
          "http://json-schema.org/draft-07/schema#");

  private final Node root;
  private final long maxSteps;

  private SimpleCheck(Node root, long maxSteps) {
    this.root = root;
    this.maxSteps = maxSteps;
  }

  /**
   * The fast path for {@code document} compiled in {@code dialect} (the document's {@code $schema}
   * or the default), or null when the document uses a keyword, a form or a dialect it does not
   * cover.
   */
  static SimpleCheck compile(JsonNode document, String dialect, SchemaLimits limits) {
    if (!DIALECTS.contains(dialect)) {
      return null;
    }
    // networknt counts evaluation depth along the schema as well as the value; a shallow
    // document keeps a value the depth check let through well inside it.
    int maxSchemaDepth = limits.maxEvaluationDepth() / 4;
    Node root = node(document, true, 0, maxSchemaDepth);
    // A step here costs far less than one of networknt's; stop early enough that a value this
    // check accepts is also within networknt's budget.
    return root == null ? null : new SimpleCheck(root, limits.maxEvaluationSteps() / 8);
  }

  /** True when {@code value} certainly matches; false when it does not or this cannot tell. */
  boolean accepts(JsonNode value) {
    long[] steps = {maxSteps};
    return check(value, root, steps);
  }

  private static boolean check(JsonNode value, Node node, long[] steps) {
    if (node.acceptsAll) {
      return true;
    }
    if ((steps[0] -= node.keywords) < 0) {
      return false;
    }
    int type = JsonTypes.of(value);
    if ((node.types & type) == 0) {
      return false;
    }
    if (node.members != null) {
      String key = memberKey(value);
      if (key == null || !node.members.contains(key)) {
        return false;
      }
    }
    if (type == OBJECT) {
      for (String name : node.required) {
        if (!value.has(name)) {
          return false;
        }
      }
      if (node.properties != null || node.additional != null) {
        for (Map.Entry<String, JsonNode> field : value.properties()) {
          Node declared = node.property(field.getKey());
          Node applied = declared != null ? declared : node.additional;
          if (applied != null && !check(field.getValue(), applied, steps)) {
            return false;
          }
        }
      }
    } else if (type == ARRAY && node.items != null) {
      for (Iterator<JsonNode> it = node.items.acceptsAll ? null : value.values().iterator();
          it != null && it.hasNext(); ) {
        if (!check(it.next(), node.items, steps)) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * How an {@code enum} or {@code const} member of the covered kinds (strings, booleans, null) is
   * looked up: by kind and text, so the string "true" is not the boolean; null for a value that is
   * none of these kinds, which is then in no such set.
   */
  private static String memberKey(JsonNode value) {
    if (value.isString()) {
      return "s" + value.stringValue();
    }
    if (value.isBoolean()) {
      return value.booleanValue() ? "true" : "false";
    }
    return value.isNull() ? "null" : null;
  }

  /** One schema, compiled; null when it is outside what this check covers. */
  private static Node node(JsonNode schema, boolean root, int depth, int maxDepth) {
    if (depth > maxDepth) {
      return null;
    }
    if (schema.isBoolean()) {
      return schema.booleanValue() ? Node.ANYTHING : Node.NOTHING;
    }
    if (!schema.isObject()) {
      return null;
    }
    Node node = new Node();
    int keywords = 0;
    for (Map.Entry<String, JsonNode> entry : schema.properties()) {
      String keyword = entry.getKey();
      JsonNode value = entry.getValue();
      keywords++;
      switch (keyword) {
        case "$schema":
          if (!root) {
            return null;
          }
          break;
        case "type":
          node.types = types(value);
          if (node.types == 0) {
            return null;
          }
          break;
        case "properties":
          if (!value.isObject()) {
            return null;
          }
          node.properties = new HashMap<>();
          for (Map.Entry<String, JsonNode> property : value.properties()) {
            Node sub = node(property.getValue(), false, depth + 1, maxDepth);
            if (sub == null) {
              return null;
            }
            node.properties.put(property.getKey(), sub);
          }
          break;
        case "additionalProperties":
          node.additional = node(value, false, depth + 1, maxDepth);
          if (node.additional == null) {
            return null;
          }
          break;
        case "required":
          if (!value.isArray()) {
            return null;
          }
          String[] names = new String[value.size()];
          for (int i = 0; i < names.length; i++) {
            if (!value.get(i).isString()) {
              return null;
            }
            names[i] = value.get(i).stringValue();
          }
          node.required = names;
          break;
        case "items":
          // The array form is draft-07's tuple (and an error in 2020-12): not covered.
          if (!value.isObject() && !value.isBoolean()) {
            return null;
          }
          node.items = node(value, false, depth + 1, maxDepth);
          if (node.items == null) {
            return null;
          }
          break;
        case "enum":
          if (!value.isArray() || !addMembers(node, value)) {
            return null;
          }
          break;
        case "const":
          if (!addMembers(node, Json.nodes().arrayNode().add(value))) {
            return null;
          }
          break;
        default:
          if (!ANNOTATIONS.contains(keyword)) {
            return null;
          }
          keywords--;
      }
    }
    if (schema.has("enum") && schema.has("const")) {
      return null; // both must hold; one set cannot say that
    }
    node.keywords = Math.max(1, keywords);
    node.indexProperties();
    node.acceptsAll =
        node.types == ANY
            && node.members == null
            && node.required.length == 0
            && node.properties == null
            && node.additional == null
            && node.items == null;
    return node.acceptsAll ? Node.ANYTHING : node;
  }

  private static int types(JsonNode type) {
    if (type.isString()) {
      return JsonTypes.ofName(type.stringValue());
    }
    if (!type.isArray() || type.isEmpty()) {
      return 0;
    }
    int bits = 0;
    for (JsonNode name : type) {
      int one = name.isString() ? JsonTypes.ofName(name.stringValue()) : 0;
      if (one == 0) {
        return 0;
      }
      bits |= one;
    }
    return bits;
  }

  private static boolean addMembers(Node node, JsonNode members) {
    java.util.HashSet<String> keys = new java.util.HashSet<>();
    for (JsonNode member : members) {
      String key = memberKey(member);
      if (key == null) {
        return false; // numbers, arrays and objects compare by JSON equality: not covered
      }
      keys.add(key);
    }
    node.members = Set.copyOf(keys);
    return true;
  }

  /** A compiled schema object; fields left at their defaults constrain nothing. */
  private static final class Node {
    static final Node ANYTHING = new Node();
    static final Node NOTHING = new Node();

    static {
      ANYTHING.acceptsAll = true;
      NOTHING.types = 0;
    }

    int types = ANY;
    Set<String> members;
    String[] required = new String[0];
    Map<String, Node> properties;
    Node additional;
    Node items;
    int keywords = 1;
    boolean acceptsAll;

    // The usual few properties are looked up by a scan (names are often the same instances, as
    // Jackson interns the names it parses), many through the map.
    private String[] names;
    private Node[] subs;

    Node property(String name) {
      if (names != null) {
        for (int i = 0; i < names.length; i++) {
          if (names[i].equals(name)) {
            return subs[i];
          }
        }
        return null;
      }
      return properties == null ? null : properties.get(name);
    }

    void indexProperties() {
      if (properties != null && properties.size() <= 8) {
        names = properties.keySet().toArray(new String[0]);
        subs = new Node[names.length];
        for (int i = 0; i < names.length; i++) {
          subs[i] = properties.get(names[i]);
        }
      }
    }
  }
}
