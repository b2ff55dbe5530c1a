package dev.alkdev.operations.internal;

import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * The library's shared Jackson mappers. One place decides how JSON is read, so every entry point
 * applies the same size and depth guards.
 */
public final class Json {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private Json() {}

  /** The default mapper (Jackson's own read constraints: nesting 500, and so on). */
  public static JsonMapper mapper() {
    return MAPPER;
  }

  public static JsonNodeFactory nodes() {
    return JsonNodeFactory.instance;
  }

  /**
   * A mapper whose reader refuses documents deeper than {@code maxNestingDepth} or longer than
   * {@code maxDocumentChars}. Cheap enough to build per call site; cache it where it is hot.
   */
  public static JsonMapper boundedMapper(int maxNestingDepth, long maxDocumentChars) {
    StreamReadConstraints constraints =
        StreamReadConstraints.builder()
            .maxNestingDepth(maxNestingDepth)
            .maxDocumentLength(maxDocumentChars)
            .build();
    return JsonMapper.builder(JsonFactory.builder().streamReadConstraints(constraints).build())
        .build();
  }

  /**
   * The nesting depth of {@code node} (a scalar is 0, {@code {}} is 1), or {@code -1} once it
   * passes {@code limit}. Iterative, so a hostile tree cannot overflow the stack while it is
   * measured.
   */
  public static int depthUpTo(JsonNode node, int limit) {
    java.util.List<JsonNode> level = java.util.List.of(node);
    int depth = 0;
    while (true) {
      java.util.List<JsonNode> next = new java.util.ArrayList<>();
      for (JsonNode current : level) {
        if (current.isContainer()) {
          next.addAll(current.values());
        }
      }
      if (next.isEmpty() && level.stream().noneMatch(JsonNode::isContainer)) {
        return depth;
      }
      depth++;
      if (depth > limit) {
        return -1;
      }
      level = next;
    }
  }
}
