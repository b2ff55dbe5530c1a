package dev.alkdev.operations.envelope.internal;

import dev.alkdev.operations.internal.Json;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Small helpers the envelope records share to write themselves as JSON and check their fields. */
public final class WireJson {
  /** The content block types the seeds define; any other type is kept as an unknown block. */
  public static final Set<String> KNOWN_BLOCK_TYPES =
      Set.of("text", "image", "audio", "resource", "resource_link");

  /** Beyond this a double no longer holds every integer exactly (2^53), as in JavaScript. */
  private static final double MAX_SAFE_INTEGER = 9007199254740991d;

  private WireJson() {}

  public static ObjectNode object() {
    return Json.nodes().objectNode();
  }

  /**
   * Writes a number the way JavaScript's {@code JSON.stringify} does: an integral value without a
   * fraction ({@code 1}, not {@code 1.0}), so that what a TypeScript peer sent comes back as it
   * was.
   */
  public static JsonNode number(double value) {
    if (value == Math.rint(value) && Math.abs(value) <= MAX_SAFE_INTEGER) {
      return integer((long) value);
    }
    return Json.nodes().numberNode(value);
  }

  /**
   * An integer node of the type Jackson's parser gives the same digits (int when it fits, else
   * long), so a tree written here equals the tree read back from its text.
   */
  public static JsonNode integer(long value) {
    return value == (int) value
        ? Json.nodes().numberNode((int) value)
        : Json.nodes().numberNode(value);
  }

  /**
   * Copies the fields a record does not model, refusing the ones it does: a known field in the
   * extra map would be written twice.
   *
   * @param owner the record, for the message ("McpContentBlock.Text")
   * @param known the fields the record writes itself
   */
  public static Map<String, JsonNode> unknownFields(
      Map<String, JsonNode> fields, String owner, Set<String> known) {
    Objects.requireNonNull(fields, "unknownFields");
    if (fields.isEmpty()) {
      return Map.of();
    }
    Map<String, JsonNode> copy = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> field : fields.entrySet()) {
      String name = Objects.requireNonNull(field.getKey(), "unknownFields: null name");
      JsonNode value =
          Objects.requireNonNull(
              field.getValue(), () -> "unknownFields: null value for \"" + name + "\"");
      if (known.contains(name)) {
        throw new IllegalArgumentException(
            owner
                + " models \""
                + name
                + "\" itself; it cannot also be an unknown field (known fields: "
                + known
                + ")");
      }
      copy.put(name, value);
    }
    return Collections.unmodifiableMap(copy);
  }

  /** Appends the unknown fields after the known ones, in their original order. */
  public static ObjectNode putUnknown(ObjectNode json, Map<String, JsonNode> unknownFields) {
    unknownFields.forEach(json::set);
    return json;
  }
}
