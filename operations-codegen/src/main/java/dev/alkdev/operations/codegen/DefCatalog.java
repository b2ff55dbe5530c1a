package dev.alkdev.operations.codegen;

import com.palantir.javapoet.ClassName;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * The named definitions ({@code $defs}, {@code definitions}, {@code components/schemas}) that the
 * operations' schemas reach through {@code $ref}, made into one identity each across documents.
 *
 * <p>Sources copy the same definition into many documents (the OpenAPI importer puts every schema
 * an operation reaches into that operation's own {@code $defs}). Two occurrences are one definition
 * when they have the same name, equal JSON, and reach equal JSON through their refs (the same
 * {@code Pet} whose {@code Tag} differs is two definitions). A definition that reaches a schema
 * outside the definitions (the root, through {@code #}) belongs to its document alone. Variants of
 * a name are numbered in the order of their first occurrence, by operation id, then pointer: the
 * type of a second {@code Pet} is {@code Pet2}.
 */
final class DefCatalog {
  /**
   * One definition: the scope that keys its locations, the name its nested types start from, and
   * its type if it becomes one.
   */
  record Def(String scope, String hint, Optional<ClassName> type) {}

  private record Occurrence(Loc loc, String name) {}

  private record Variant(Loc first, Def def) {}

  private final Map<String, Def> byLocation = new HashMap<>();

  private DefCatalog() {}

  /** The definition at exactly {@code doc}'s {@code pointer}, if one was reached there. */
  Optional<Def> at(SchemaDoc doc, String pointer) {
    return Optional.ofNullable(byLocation.get(doc.id() + "#" + pointer));
  }

  /**
   * The key of a location: inside a definition, the definition's scope and the pointer below it
   * (the same for every copy of the definition); elsewhere, the document and the pointer.
   */
  String keyOf(Loc loc) {
    for (Iterator<String> it = SchemaDoc.Pointers.prefixes(loc.pointer()); it.hasNext(); ) {
      String prefix = it.next();
      Def def = byLocation.get(loc.doc().id() + "#" + prefix);
      if (def != null) {
        return def.scope() + "#" + loc.pointer().substring(prefix.length());
      }
    }
    return "doc " + loc.id();
  }

  /** Finds the definitions the documents reach, and names those that become types. */
  static DefCatalog build(List<SchemaDoc> docs, Shapes shapes, TypeNames names) {
    List<Occurrence> occurrences = new ArrayList<>();
    for (SchemaDoc doc : docs) {
      reach(doc, occurrences);
    }
    occurrences.sort(
        Comparator.comparing((Occurrence o) -> o.loc().doc().operationId())
            .thenComparing(o -> o.loc().pointer())
            .thenComparingInt(o -> o.loc().doc().roleOrder()));
    DefCatalog catalog = new DefCatalog();
    Map<String, List<Variant>> variants = new LinkedHashMap<>();
    Map<String, Boolean> compared = new HashMap<>();
    for (Occurrence occurrence : occurrences) {
      List<Variant> known = variants.computeIfAbsent(occurrence.name(), k -> new ArrayList<>());
      Def def = null;
      for (Variant v : known) {
        if (sameDefinition(v.first(), occurrence.loc(), compared)) {
          def = v.def();
          break;
        }
      }
      if (def == null) {
        int number = known.size() + 1;
        String hint = Names.type(occurrence.name()) + (number > 1 ? number : "");
        Optional<ClassName> type =
            shapes.declaresHere(occurrence.loc())
                ? Optional.of(names.allocate(Names.type(occurrence.name())))
                : Optional.empty();
        // The name's length first: names may hold any character, scopes must stay unambiguous.
        String scope = "def " + number + " " + occurrence.name().length() + ":" + occurrence.name();
        def = new Def(scope, hint, type);
        known.add(new Variant(occurrence.loc(), def));
      }
      catalog.byLocation.put(occurrence.loc().id(), def);
    }
    return catalog;
  }

  /**
   * Adds the definitions that {@code doc}'s schema reaches, through the keywords the mapping
   * follows: properties, additionalProperties, items, the branches of allOf, anyOf and oneOf, and
   * {@code $ref}.
   */
  private static void reach(SchemaDoc doc, List<Occurrence> out) {
    // Nodes by identity, not locations by pointer: a document is walked once, cheaply, and only
    // the targets of refs need their pointers.
    Deque<JsonNode> stack = new ArrayDeque<>();
    Set<JsonNode> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    stack.push(doc.root().node());
    seen.add(doc.root().node());
    while (!stack.isEmpty()) {
      JsonNode n = stack.pop();
      if (!n.isObject()) {
        continue;
      }
      Optional<String> ref = Schemas.ref(n);
      if (ref.isPresent()) {
        Optional<Loc> target = doc.resolve(ref.get());
        if (target.isPresent() && seen.add(target.get().node())) {
          SchemaDoc.Pointers.definitionName(target.get().pointer())
              .ifPresent(name -> out.add(new Occurrence(target.get(), name)));
          stack.push(target.get().node());
        }
      }
      JsonNode properties = n.get("properties");
      if (properties != null && properties.isObject()) {
        for (JsonNode child : properties.values()) {
          if (seen.add(child)) {
            stack.push(child);
          }
        }
      }
      for (String keyword : List.of("additionalProperties", "items")) {
        JsonNode child = n.get(keyword);
        if (child != null && child.isObject() && seen.add(child)) {
          stack.push(child);
        }
      }
      for (String keyword : List.of("allOf", "anyOf", "oneOf")) {
        JsonNode branches = n.get(keyword);
        if (branches != null && branches.isArray()) {
          for (JsonNode child : branches.values()) {
            if (seen.add(child)) {
              stack.push(child);
            }
          }
        }
      }
    }
  }

  /**
   * Whether two occurrences are one definition: equal JSON, and every ref reached from them, in
   * step, leads to equal JSON at the same pointer. A ref that leaves the definitions (to the root,
   * into a property) ties a definition to its document.
   */
  private static boolean sameDefinition(Loc a, Loc b, Map<String, Boolean> known) {
    String key = a.id() + "\n" + b.id();
    Boolean answer = known.get(key);
    if (answer == null) {
      Set<String> reached = new HashSet<>();
      answer = sameClosure(a, b, reached);
      known.put(key, answer);
      if (answer) {
        // Everything reached matched, so each reached definition is the same in both documents:
        // copies of one set of definitions are walked once per pair of documents, not once each.
        for (String pointer : reached) {
          known.put(a.doc().id() + "#" + pointer + "\n" + b.doc().id() + "#" + pointer, true);
        }
      }
    }
    return answer;
  }

  private static boolean sameClosure(Loc a, Loc b, Set<String> seen) {
    if (!a.node().equals(b.node())) {
      return false;
    }
    boolean sameDocument = a.doc() == b.doc();
    Deque<JsonNode> schemas = new ArrayDeque<>();
    schemas.push(a.node());
    while (!schemas.isEmpty()) {
      // The two sides are equal JSON: walk one, resolve each ref on both.
      Deque<JsonNode> nodes = new ArrayDeque<>();
      nodes.push(schemas.pop());
      while (!nodes.isEmpty()) {
        JsonNode node = nodes.pop();
        if (node.isObject()) {
          Optional<String> ref = Schemas.ref(node);
          if (ref.isPresent()) {
            Optional<Loc> ta = a.doc().resolve(ref.get());
            Optional<Loc> tb = b.doc().resolve(ref.get());
            if (ta.isPresent() != tb.isPresent()) {
              return false;
            }
            if (ta.isPresent()) {
              String pointer = ta.get().pointer();
              if (!pointer.equals(tb.get().pointer())
                  || (!sameDocument && SchemaDoc.Pointers.definitionName(pointer).isEmpty())
                  || !ta.get().node().equals(tb.get().node())) {
                return false;
              }
              if (seen.add(pointer)) {
                schemas.push(ta.get().node());
              }
            }
          }
          nodes.addAll(node.values());
        } else if (node.isArray()) {
          nodes.addAll(node.values());
        }
      }
    }
    return true;
  }
}
