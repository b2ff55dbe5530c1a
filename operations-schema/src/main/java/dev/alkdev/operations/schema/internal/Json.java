package dev.alkdev.operations.schema.internal;

import java.util.ArrayDeque;
import java.util.Iterator;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * The library's Jackson mappers and depth guards. The schema module depends on nothing of ours, so
 * they live here, and core reads JSON with them too (its {@code internal.Json} delegates):
 * Jackson's defaults, plus explicit size and depth bounds where a document comes from outside.
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
   * Whether {@code node} nests containers more than {@code limit} levels deep. Recursive but
   * bounded by the limit, and without allocating for arrays: this runs before every validation. A
   * limit too large for the thread's stack answers true (too deep to handle here).
   */
  public static boolean deeperThan(JsonNode node, int limit) {
    try {
      return exceeds(node, limit);
    } catch (StackOverflowError e) {
      return true;
    }
  }

  private static boolean exceeds(JsonNode node, int remaining) {
    if (!node.isContainer()) {
      return false;
    }
    if (remaining == 0) {
      return true;
    }
    if (node.isArray()) {
      for (int i = 0, n = node.size(); i < n; i++) {
        if (exceeds(node.get(i), remaining - 1)) {
          return true;
        }
      }
    } else {
      for (JsonNode child : node.values()) {
        if (exceeds(child, remaining - 1)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The nesting depth of {@code node} (a scalar is 0, {@code {}} is 1), or {@code -1} once it
   * passes {@code limit}. Iterative, so a hostile tree cannot overflow the stack while it is
   * measured; it keeps one iterator per level and stops as soon as the limit is passed, so a
   * hostile value costs at most {@code limit} levels of memory.
   */
  public static int depthUpTo(JsonNode node, int limit) {
    if (!node.isContainer()) {
      return 0;
    }
    ArrayDeque<Iterator<JsonNode>> open = new ArrayDeque<>();
    open.push(node.values().iterator());
    int deepest = 1;
    if (deepest > limit) {
      return -1;
    }
    while (!open.isEmpty()) {
      Iterator<JsonNode> children = open.peek();
      if (!children.hasNext()) {
        open.pop();
        continue;
      }
      JsonNode child = children.next();
      if (child.isContainer()) {
        open.push(child.values().iterator());
        if (open.size() > deepest) {
          deepest = open.size();
          if (deepest > limit) {
            return -1;
          }
        }
      }
    }
    return deepest;
  }
}
