package dev.alkdev.operations.codegen;

import tools.jackson.databind.JsonNode;

/**
 * A schema and where it is: its document and its JSON pointer there. Compared by {@link #id()},
 * never by the node (deep equality of schemas is for definitions only).
 */
record Loc(SchemaDoc doc, String pointer, JsonNode node) {

  /** The schema under {@code keyword} ({@code items}, {@code additionalProperties}). */
  Loc child(String keyword) {
    return new Loc(doc, SchemaDoc.Pointers.append(pointer, keyword), node.get(keyword));
  }

  /** The schema {@code name} under {@code keyword} ({@code properties/name}). */
  Loc child(String keyword, String name) {
    return new Loc(
        doc,
        SchemaDoc.Pointers.append(SchemaDoc.Pointers.append(pointer, keyword), name),
        node.get(keyword).get(name));
  }

  /** The schema {@code index} under {@code keyword} ({@code oneOf/0}). */
  Loc child(String keyword, int index) {
    return new Loc(
        doc,
        SchemaDoc.Pointers.append(pointer, keyword) + "/" + index,
        node.get(keyword).get(index));
  }

  /** Unique among the schemas of one generation. */
  String id() {
    return doc.id() + "#" + pointer;
  }
}
