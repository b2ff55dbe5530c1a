package dev.alkdev.operations.openapi.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.openapi.internal.DocumentLoader.Source;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import tools.jackson.core.JsonPointer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code $ref} resolution. Parameters, request bodies, responses and path items are followed to
 * their target (a chain of at most {@link #MAX_HOPS}; a cycle is an error). Schemas are not
 * inlined: each referenced schema is copied once into the {@code $defs} of a scope (one per
 * imported document, shared by all its operations, D69) and the ref rewritten to {@code
 * #/$defs/Name}, so recursive schemas stay finite.
 */
final class Refs {
  static final int MAX_HOPS = 32;

  /** A node and the document it belongs to (refs inside it resolve against that document). */
  record Located(JsonNode node, Source source) {}

  private final DocumentLoader loader;
  private final Map<Source, JsonNode> documents = new HashMap<>();

  Refs(DocumentLoader loader, JsonNode rootDocument) {
    this.loader = loader;
    documents.put(loader.root(), rootDocument);
  }

  /** The node {@code ref} names, seen from the document {@code from}. */
  Located target(String ref, Source from) {
    int hash = ref.indexOf('#');
    String location = hash < 0 ? ref : ref.substring(0, hash);
    String fragment = hash < 0 ? "" : ref.substring(hash + 1);
    Source source = from;
    JsonNode document;
    if (location.isEmpty()) {
      document = documents.get(from);
    } else {
      Map.Entry<Source, JsonNode> external = loader.external(from, location, ref);
      source = external.getKey();
      document = external.getValue();
      documents.putIfAbsent(source, document);
    }
    String pointer = DocumentLoader.decodeFragment(fragment);
    if (!pointer.isEmpty() && !pointer.startsWith("/")) {
      throw CallError.of(
          ErrorCode.INVALID_INPUT, "$ref '" + ref + "' has a fragment that is not a JSON pointer");
    }
    JsonNode node;
    try {
      node = document.at(JsonPointer.compile(pointer));
    } catch (IllegalArgumentException e) {
      throw CallError.of(ErrorCode.INVALID_INPUT, "$ref '" + ref + "' is not a valid JSON pointer");
    }
    if (node == null || node.isMissingNode()) {
      throw CallError.of(
          ErrorCode.INVALID_INPUT, "$ref '" + ref + "' points to nothing in " + describe(source));
    }
    return new Located(node, source);
  }

  /** Follows {@code $ref}s until a node without one. */
  Located deref(Located start) {
    Located current = start;
    Set<String> seen = new LinkedHashSet<>();
    while (current.node().isObject() && current.node().path("$ref").isString()) {
      String ref = current.node().get("$ref").asString();
      if (!seen.add(current.source().location() + "|" + ref) || seen.size() > MAX_HOPS) {
        throw CallError.of(
            ErrorCode.INVALID_INPUT,
            "$ref cycle or chain too long: " + String.join(" -> ", refsOf(seen)));
      }
      current = target(ref, current.source());
    }
    return current;
  }

  private static Set<String> refsOf(Set<String> keys) {
    Set<String> refs = new LinkedHashSet<>();
    keys.forEach(key -> refs.add(key.substring(key.indexOf('|') + 1)));
    return refs;
  }

  private static String describe(Source source) {
    return source.kind() == Source.Kind.STRING ? "the document" : source.location();
  }

  /** A fresh collector of {@code $defs} for one schema. */
  SchemaScope scope() {
    return new SchemaScope();
  }

  /** Collects the referenced schemas of the schemas it rewrites into one {@code $defs}. */
  final class SchemaScope {
    private final ObjectNode defs = JsonNodeFactory.instance.objectNode();
    private final Map<String, String> nameByKey = new HashMap<>();
    private final Set<String> names = new HashSet<>();
    private final Deque<Runnable> pending = new ArrayDeque<>();

    /** A copy of {@code schema} whose refs point into this scope's {@code $defs}. */
    JsonNode rewrite(JsonNode schema, Source source) {
      JsonNode copy = copy(schema, source);
      // Targets are copied breadth-first after their name is taken, so cycles end.
      while (!pending.isEmpty()) {
        pending.poll().run();
      }
      return copy;
    }

    /** The collected definitions (empty when the schema had no refs). */
    ObjectNode defs() {
      return defs;
    }

    private JsonNode copy(JsonNode node, Source source) {
      if (node.isObject()) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        for (Map.Entry<String, JsonNode> field : node.properties()) {
          if (field.getKey().equals("$ref") && field.getValue().isString()) {
            out.put("$ref", "#/$defs/" + defName(field.getValue().asString(), source));
          } else {
            out.set(field.getKey(), copy(field.getValue(), source));
          }
        }
        return out;
      }
      if (node.isArray()) {
        var out = JsonNodeFactory.instance.arrayNode();
        node.forEach(item -> out.add(copy(item, source)));
        return out;
      }
      return node;
    }

    private String defName(String ref, Source source) {
      String key = source.kind() + ":" + source.location() + "|" + ref;
      String existing = nameByKey.get(key);
      if (existing != null) {
        return existing;
      }
      Located target = target(ref, source);
      String name = uniqueName(ref);
      nameByKey.put(key, name);
      defs.putNull(name); // keeps document order and reserves the slot
      pending.add(() -> defs.set(name, copy(target.node(), target.source())));
      return name;
    }

    private String uniqueName(String ref) {
      int slash = ref.lastIndexOf('/');
      String base = slash >= 0 ? ref.substring(slash + 1) : ref;
      base = base.replace("~1", "_").replace("~0", "_").replaceAll("[^A-Za-z0-9_.-]", "_");
      if (base.isEmpty()) {
        base = "root";
      }
      String name = base;
      for (int n = 2; !names.add(name); n++) {
        name = base + "_" + n;
      }
      return name;
    }
  }
}
