package dev.alkdev.operations.schema.internal.cast;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Where each {@code $ref} of one schema document points: the document's resources (the root and
 * every subschema with an {@code $id}), their {@code $anchor}s and {@code $dynamicAnchor}s, and the
 * base URI of every subschema. References that leave the document resolve to nothing; casting
 * leaves the values under them as they are.
 */
final class SchemaIndex {
  /**
   * The base of a document without an {@code $id}. Hierarchical, so that relative {@code $id}s and
   * {@code $ref}s inside such a document still resolve against each other.
   */
  static final URI DEFAULT_BASE = URI.create("https://document.invalid/schema.json");

  /** The base validation gives such a document (SchemaCompiler's); a {@code $ref} may name it. */
  private static final String VALIDATOR_BASE = "urn:dev.alkdev.operations:schema";

  private static final List<String> SCHEMA_KEYWORDS =
      List.of(
          "additionalProperties",
          "additionalItems",
          "items",
          "unevaluatedProperties",
          "unevaluatedItems",
          "contains",
          "propertyNames",
          "not",
          "if",
          "then",
          "else",
          "contentSchema");
  private static final List<String> SCHEMA_ARRAY_KEYWORDS =
      List.of("allOf", "anyOf", "oneOf", "prefixItems", "items");
  private static final List<String> SCHEMA_MAP_KEYWORDS =
      List.of(
          "properties",
          "patternProperties",
          "$defs",
          "definitions",
          "dependentSchemas",
          "dependencies");

  /** A schema node and the base URI its relative references resolve against. */
  record Target(JsonNode node, URI base) {}

  private final Map<String, JsonNode> resources = new HashMap<>();
  private final Map<String, JsonNode> anchors = new HashMap<>();
  private final Map<JsonNode, URI> bases = new IdentityHashMap<>();
  private final URI rootBase;
  private final boolean refHidesSiblings;

  private SchemaIndex(JsonNode document) {
    this.refHidesSiblings = refHidesSiblings(document);
    URI base = DEFAULT_BASE;
    JsonNode id = document.isObject() ? document.get("$id") : null;
    if (id != null && id.isString() && !id.stringValue().startsWith("#")) {
      URI resolved = resolve(DEFAULT_BASE, id.stringValue());
      if (resolved != null) {
        base = URI.create(withoutFragment(resolved));
      }
    }
    this.rootBase = base;
    resources.put(withoutFragment(DEFAULT_BASE), document);
    resources.put(VALIDATOR_BASE, document);
    index(document, base);
  }

  static SchemaIndex of(JsonNode document) {
    return new SchemaIndex(document);
  }

  /**
   * Whether the document's {@code $schema} names draft-07 or older, where a {@code $ref} makes
   * every keyword beside it (including {@code $id}) be ignored. Documents without {@code $schema}
   * get 2020-12's rule, in which the keywords beside a {@code $ref} apply too.
   */
  private static boolean refHidesSiblings(JsonNode document) {
    JsonNode schema = document.isObject() ? document.get("$schema") : null;
    return schema != null
        && schema.isString()
        && schema.stringValue().matches("https?://json-schema\\.org/draft-0[3-7]/schema#?");
  }

  /** Whether the keywords beside this node's {@code $ref} are ignored (draft-07 and older). */
  boolean ignoresSiblingsOf(JsonNode node) {
    return refHidesSiblings && node.isObject() && node.has("$ref");
  }

  URI rootBase() {
    return rootBase;
  }

  /** Walks the schema positions of the document without recursion (it may be deeply nested). */
  private void index(JsonNode document, URI documentBase) {
    Deque<Target> pending = new ArrayDeque<>();
    pending.push(new Target(document, documentBase));
    while (!pending.isEmpty()) {
      Target next = pending.pop();
      JsonNode node = next.node();
      if (!node.isObject() || bases.containsKey(node)) {
        continue;
      }
      URI base = next.base();
      JsonNode id = ignoresSiblingsOf(node) ? null : node.get("$id");
      if (id != null && id.isString()) {
        base = registerId(node, base, id.stringValue());
      }
      for (String keyword : List.of("$anchor", "$dynamicAnchor")) {
        JsonNode anchor = node.get(keyword);
        if (anchor != null && anchor.isString()) {
          anchors.putIfAbsent(withoutFragment(base) + "#" + anchor.stringValue(), node);
        }
      }
      bases.put(node, base);
      for (String keyword : SCHEMA_KEYWORDS) {
        JsonNode child = node.get(keyword);
        if (child != null && child.isObject()) {
          pending.push(new Target(child, base));
        }
      }
      for (String keyword : SCHEMA_ARRAY_KEYWORDS) {
        JsonNode children = node.get(keyword);
        if (children != null && children.isArray()) {
          for (JsonNode child : children.values()) {
            pending.push(new Target(child, base));
          }
        }
      }
      for (String keyword : SCHEMA_MAP_KEYWORDS) {
        JsonNode children = node.get(keyword);
        if (children != null && children.isObject()) {
          for (JsonNode child : children.values()) {
            pending.push(new Target(child, base));
          }
        }
      }
    }
  }

  /** Registers an {@code $id}, returning the base URI it sets for the node's subschemas. */
  private URI registerId(JsonNode node, URI base, String id) {
    if (id.startsWith("#")) {
      // draft-07's location-independent identifier: an anchor in the current resource
      if (id.length() > 1) {
        anchors.putIfAbsent(withoutFragment(base) + id, node);
      }
      return base;
    }
    URI resolved = resolve(base, id);
    if (resolved == null) {
      return base;
    }
    String resource = withoutFragment(resolved);
    resources.putIfAbsent(resource, node);
    String fragment = resolved.getRawFragment();
    if (fragment != null && !fragment.isEmpty() && !fragment.startsWith("/")) {
      anchors.putIfAbsent(resource + "#" + fragment, node);
    }
    return URI.create(resource);
  }

  /** The base URI of a schema node of this document, or {@code fallback} if it is not indexed. */
  URI baseOf(JsonNode node, URI fallback) {
    URI base = bases.get(node);
    return base == null ? fallback : base;
  }

  /** The schema a {@code $ref} names, or {@code null} when it is not in this document. */
  Target resolve(String ref, URI base) {
    int hash = ref.indexOf('#');
    String location = hash < 0 ? ref : ref.substring(0, hash);
    String fragment = hash < 0 ? null : ref.substring(hash + 1);
    URI resourceUri = location.isEmpty() ? base : resolve(base, location);
    if (resourceUri == null) {
      return null;
    }
    String resource = withoutFragment(resourceUri);
    JsonNode root = resources.get(resource);
    if (root == null) {
      return null;
    }
    URI resourceBase = VALIDATOR_BASE.equals(resource) ? rootBase : URI.create(resource);
    if (fragment == null || fragment.isEmpty()) {
      return new Target(root, baseOf(root, resourceBase));
    }
    String decoded = percentDecode(fragment);
    if (decoded.startsWith("/")) {
      return walkPointer(root, resourceBase, decoded);
    }
    JsonNode anchored = anchors.get(withoutFragment(resourceBase) + "#" + decoded);
    return anchored == null ? null : new Target(anchored, baseOf(anchored, resourceBase));
  }

  /** Follows an RFC 6901 pointer, tracking the base URI through any {@code $id} on the way. */
  private Target walkPointer(JsonNode root, URI base, String pointer) {
    JsonNode current = root;
    URI currentBase = baseOf(root, base);
    for (String token : pointer.substring(1).split("/", -1)) {
      String name = token.replace("~1", "/").replace("~0", "~");
      if (current.isObject()) {
        current = current.get(name);
      } else if (current.isArray() && isIndex(name)) {
        int index = Integer.parseInt(name);
        current = index < current.size() ? current.get(index) : null;
      } else {
        current = null;
      }
      if (current == null) {
        return null;
      }
      URI known = bases.get(current);
      if (known != null) {
        currentBase = known;
      } else if (current.isObject()
          && current.get("$id") != null
          && current.get("$id").isString()
          && !current.get("$id").stringValue().startsWith("#")) {
        URI resolved = resolve(currentBase, current.get("$id").stringValue());
        if (resolved != null) {
          currentBase = URI.create(withoutFragment(resolved));
        }
      }
    }
    return new Target(current, currentBase);
  }

  private static boolean isIndex(String token) {
    if (token.isEmpty() || token.length() > 9 || (token.length() > 1 && token.charAt(0) == '0')) {
      return false;
    }
    for (int i = 0; i < token.length(); i++) {
      if (token.charAt(i) < '0' || token.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  private static URI resolve(URI base, String reference) {
    try {
      URI uri = new URI(reference);
      if (uri.isAbsolute()) {
        return uri;
      }
      return base.isOpaque() ? null : base.resolve(uri);
    } catch (URISyntaxException e) {
      return null;
    }
  }

  private static String withoutFragment(URI uri) {
    String text = uri.toString();
    int hash = text.indexOf('#');
    return hash < 0 ? text : text.substring(0, hash);
  }

  /** Decodes %XX escapes as UTF-8; a malformed escape is kept as written. */
  static String percentDecode(String text) {
    if (text.indexOf('%') < 0) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length());
    ByteArrayOutputStream run = new ByteArrayOutputStream();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '%'
          && i + 2 < text.length()
          && hex(text.charAt(i + 1)) >= 0
          && hex(text.charAt(i + 2)) >= 0) {
        run.write(hex(text.charAt(i + 1)) * 16 + hex(text.charAt(i + 2)));
        i += 2;
        continue;
      }
      if (run.size() > 0) {
        out.append(run.toString(StandardCharsets.UTF_8));
        run.reset();
      }
      out.append(c);
    }
    out.append(run.toString(StandardCharsets.UTF_8));
    return out.toString();
  }

  private static int hex(char c) {
    return Character.digit(c, 16);
  }
}
