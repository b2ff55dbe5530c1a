package dev.alkdev.operations.internal;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * The library's shared Jackson mappers: the schema module's (one place decides how JSON is read, so
 * every entry point applies the same size and depth guards), plus core's own helpers.
 */
public final class Json {
  private Json() {}

  /** The default mapper (Jackson's own read constraints: nesting 500, and so on). */
  public static JsonMapper mapper() {
    return dev.alkdev.operations.schema.internal.Json.mapper();
  }

  public static JsonNodeFactory nodes() {
    return dev.alkdev.operations.schema.internal.Json.nodes();
  }

  /**
   * A mapper whose reader refuses documents deeper than {@code maxNestingDepth} or longer than
   * {@code maxDocumentChars}. Cheap enough to build per call site; cache it where it is hot.
   */
  public static JsonMapper boundedMapper(int maxNestingDepth, long maxDocumentChars) {
    return dev.alkdev.operations.schema.internal.Json.boundedMapper(
        maxNestingDepth, maxDocumentChars);
  }

  /**
   * A short description of a value for an error message: "the string \"abc\"", "the number 5", "an
   * object"; long strings are cut, so a hostile value cannot flood a message or a log line.
   */
  public static String describe(JsonNode node) {
    if (node == null || node.isMissingNode()) {
      return "absent";
    }
    switch (node.getNodeType()) {
      case STRING:
        return "the string " + quote(node.asString());
      case NUMBER:
        return "the number " + cut(node.toString(), 40);
      case BOOLEAN:
        return String.valueOf(node.booleanValue());
      case NULL:
        return "null";
      case ARRAY:
        return "an array";
      case OBJECT:
        return "an object";
      default:
        return node.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** The text as a JSON string literal, cut to 64 characters with its full length noted. */
  public static String quote(String text) {
    String shown = cut(text, 64);
    return nodes().stringNode(shown).toString()
        + (shown.length() < text.length() ? " (" + text.length() + " chars)" : "");
  }

  /** The text, cut to {@code max} characters with "..." when longer. */
  public static String cut(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max - 3) + "...";
  }
}
