package dev.alkdev.operations.codegen;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * One schema document, the input or the output schema of one operation: the place where the {@code
 * $ref}s inside it resolve. Refs are resolved against the document's root (a nested {@code $id}
 * does not move the base); anything outside the document is not fetched.
 */
final class SchemaDoc {
  private final String operationId;
  private final String role;
  private final int roleOrder;
  private final JsonNode root;
  private final String rootHint;
  private Map<String, String> anchors;
  private final Map<String, Optional<Loc>> resolved = new HashMap<>();

  SchemaDoc(String operationId, String role, int roleOrder, JsonNode root, String rootHint) {
    this.operationId = operationId;
    this.role = role;
    this.roleOrder = roleOrder;
    this.root = root;
    this.rootHint = rootHint;
  }

  /** Unique among the documents of one generation: the operation id and the role. */
  String id() {
    return operationId + " " + role;
  }

  String operationId() {
    return operationId;
  }

  /** "input" or "output". */
  String role() {
    return role;
  }

  /** Input before output, for a deterministic order. */
  int roleOrder() {
    return roleOrder;
  }

  /** The name the document's own root type takes ({@code ListPetsInput}). */
  String rootHint() {
    return rootHint;
  }

  Loc root() {
    return new Loc(this, "", root);
  }

  /**
   * The schema a {@code $ref} names: {@code #} (the root), {@code #/json/pointer} (with {@code ~0},
   * {@code ~1} and percent escapes), {@code #name} (an {@code $anchor}, or an {@code $id}/{@code
   * id} of {@code #name}), or any of these after the root's own {@code $id}. Empty for anything
   * else (other documents, URLs) and for pointers to nothing.
   */
  Optional<Loc> resolve(String ref) {
    // Documents repeat their refs (every property of a type, every copy of a definition).
    return resolved.computeIfAbsent(ref, this::find);
  }

  private Optional<Loc> find(String ref) {
    String fragment = ref;
    if (!ref.startsWith("#")) {
      String base = baseId();
      if (base.isEmpty() || !ref.startsWith(base)) {
        return Optional.empty();
      }
      fragment = ref.substring(base.length());
      if (fragment.isEmpty()) {
        fragment = "#";
      } else if (!fragment.startsWith("#")) {
        return Optional.empty();
      }
    }
    String decoded = percentDecoded(fragment.substring(1));
    if (decoded == null) {
      return Optional.empty();
    }
    if (decoded.isEmpty()) {
      return Optional.of(root());
    }
    if (!decoded.startsWith("/")) {
      String pointer = anchors().get(decoded);
      return pointer == null ? Optional.empty() : at(pointer);
    }
    return at(decoded);
  }

  /** The schema at a JSON pointer (escaped as in a pointer, not percent-encoded). */
  Optional<Loc> at(String pointer) {
    List<String> segments = Pointers.segments(pointer);
    if (segments == null) {
      return Optional.empty();
    }
    JsonNode node = root;
    for (String segment : segments) {
      if (node.isObject()) {
        node = node.get(segment);
      } else if (node.isArray() && Pointers.isIndex(segment)) {
        node = node.get(Integer.parseInt(segment));
      } else {
        node = null;
      }
      if (node == null) {
        return Optional.empty();
      }
    }
    return Optional.of(new Loc(this, Pointers.of(segments), node));
  }

  private String baseId() {
    JsonNode id = root.isObject() ? root.get("$id") : null;
    if (id == null || !id.isString()) {
      id = root.isObject() ? root.get("id") : null;
    }
    if (id == null || !id.isString()) {
      return "";
    }
    String base = id.asString();
    int hash = base.indexOf('#');
    return hash >= 0 ? base.substring(0, hash) : base;
  }

  /** Every {@code $anchor} (and fragment-only {@code $id}) of the document, by name. */
  private Map<String, String> anchors() {
    if (anchors != null) {
      return anchors;
    }
    Map<String, String> found = new HashMap<>();
    Deque<Object[]> stack = new ArrayDeque<>();
    stack.push(new Object[] {root, ""});
    while (!stack.isEmpty()) {
      Object[] top = stack.pop();
      JsonNode node = (JsonNode) top[0];
      String pointer = (String) top[1];
      if (node.isObject()) {
        anchor(node.get("$anchor"), "", pointer, found);
        anchor(node.get("$id"), "#", pointer, found);
        anchor(node.get("id"), "#", pointer, found);
        for (Map.Entry<String, JsonNode> e : node.properties()) {
          stack.push(new Object[] {e.getValue(), Pointers.append(pointer, e.getKey())});
        }
      } else if (node.isArray()) {
        for (int i = 0; i < node.size(); i++) {
          stack.push(new Object[] {node.get(i), pointer + "/" + i});
        }
      }
    }
    anchors = found;
    return found;
  }

  private static void anchor(
      JsonNode value, String prefix, String pointer, Map<String, String> out) {
    if (value != null && value.isString()) {
      String text = value.asString();
      if (text.startsWith(prefix) && text.length() > prefix.length()) {
        // The shallowest, first-found definition wins; a document that defines one twice is broken.
        out.putIfAbsent(text.substring(prefix.length()), pointer);
      }
    }
  }

  /** A URI fragment with its percent escapes decoded as UTF-8; null if they are malformed. */
  static String percentDecoded(String fragment) {
    if (fragment.indexOf('%') < 0) {
      return fragment;
    }
    ByteBuffer bytes = ByteBuffer.allocate(fragment.length() * 4);
    for (int i = 0; i < fragment.length(); i++) {
      char c = fragment.charAt(i);
      if (c == '%') {
        if (i + 2 >= fragment.length()) {
          return null;
        }
        int hi = Character.digit(fragment.charAt(i + 1), 16);
        int lo = Character.digit(fragment.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          return null;
        }
        bytes.put((byte) (hi * 16 + lo));
        i += 2;
      } else {
        int end = Character.isHighSurrogate(c) && i + 1 < fragment.length() ? i + 2 : i + 1;
        bytes.put(fragment.substring(i, end).getBytes(StandardCharsets.UTF_8));
        i = end - 1;
      }
    }
    bytes.flip();
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(bytes)
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /** JSON pointers as this package writes them: {@code ""} for the root, {@code /a/b~1c}. */
  static final class Pointers {
    private Pointers() {}

    static String append(String pointer, String segment) {
      return pointer + "/" + segment.replace("~", "~0").replace("/", "~1");
    }

    static String of(List<String> segments) {
      StringBuilder out = new StringBuilder();
      for (String segment : segments) {
        out.append('/').append(segment.replace("~", "~0").replace("/", "~1"));
      }
      return out.toString();
    }

    /** The unescaped segments of a pointer; null if it is not one. */
    static List<String> segments(String pointer) {
      List<String> out = new ArrayList<>();
      if (pointer.isEmpty()) {
        return out;
      }
      if (!pointer.startsWith("/")) {
        return null;
      }
      int start = 1;
      while (true) {
        int slash = pointer.indexOf('/', start);
        String raw = slash < 0 ? pointer.substring(start) : pointer.substring(start, slash);
        String segment = unescape(raw);
        if (segment == null) {
          return null;
        }
        out.add(segment);
        if (slash < 0) {
          return out;
        }
        start = slash + 1;
      }
    }

    private static String unescape(String raw) {
      if (raw.indexOf('~') < 0) {
        return raw;
      }
      StringBuilder out = new StringBuilder();
      for (int i = 0; i < raw.length(); i++) {
        char c = raw.charAt(i);
        if (c != '~') {
          out.append(c);
        } else if (i + 1 < raw.length() && (raw.charAt(i + 1) == '0' || raw.charAt(i + 1) == '1')) {
          out.append(raw.charAt(++i) == '0' ? '~' : '/');
        } else {
          return null;
        }
      }
      return out.toString();
    }

    static boolean isIndex(String segment) {
      return !segment.isEmpty()
          && segment.length() < 10
          && segment.chars().allMatch(c -> c >= '0' && c <= '9')
          && (segment.length() == 1 || segment.charAt(0) != '0');
    }

    /**
     * The definition name if {@code pointer} names a definition: its last segment after {@code
     * $defs}, {@code definitions} or {@code components/schemas}; empty otherwise.
     */
    static Optional<String> definitionName(String pointer) {
      List<String> segments = segments(pointer);
      if (segments == null || segments.size() < 2) {
        return Optional.empty();
      }
      int n = segments.size();
      String parent = segments.get(n - 2);
      boolean def =
          parent.equals("$defs")
              || parent.equals("definitions")
              || (parent.equals("schemas") && n >= 3 && segments.get(n - 3).equals("components"));
      return def ? Optional.of(segments.get(n - 1)) : Optional.empty();
    }

    /** The pointer's prefixes, longest first, the pointer itself included and the root not. */
    static Iterator<String> prefixes(String pointer) {
      return new Iterator<>() {
        int end = pointer.length();

        @Override
        public boolean hasNext() {
          return end > 0;
        }

        @Override
        public String next() {
          String prefix = pointer.substring(0, end);
          end = pointer.lastIndexOf('/', end - 1);
          return prefix;
        }
      };
    }
  }
}
