package dev.alkdev.operations.schema.internal.importing;

import dev.alkdev.operations.schema.FromSchema;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaException;
import dev.alkdev.operations.schema.SchemaLimits;
import dev.alkdev.operations.schema.SchemaOptions;
import dev.alkdev.operations.schema.internal.Json;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns a third party's schema into a {@link Schema} without ever failing: normalise, sanitise,
 * compile; if the compiler still refuses, degrade the part it names and try again; as a last
 * resort, {@link Schema#unknown()}. Every change is logged at WARN under {@link FromSchema}'s
 * logger, with a JSON Pointer into the normalised document.
 */
public final class LenientImport {
  private static final Logger LOG = LoggerFactory.getLogger(FromSchema.class);

  /** Enough for every failure the sanitizer could miss; each retry compiles the whole document. */
  private static final int MAX_RETRIES = 16;

  private static final Pattern UNRESOLVED_REFERENCE =
      Pattern.compile("Reference (\\S+) cannot be resolved");
  private static final Pattern SCHEMA_AT = Pattern.compile("Schema at \\S*#(/\\S*) must be");

  /** The meta-schema check's first complaint: "Invalid schema (does not match ...): at /x: ...". */
  private static final Pattern META_AT =
      Pattern.compile("Invalid schema \\(does not match [^)]*\\): at (/[^:\\s]*):");

  private LenientImport() {}

  public static Schema convert(
      JsonNode imported, FromSchema.Dialect dialect, SchemaOptions options) {
    Objects.requireNonNull(imported, "imported");
    Objects.requireNonNull(dialect, "dialect");
    Objects.requireNonNull(options, "options");
    if (!imported.isObject() && !imported.isBoolean()) {
      LOG.warn(
          "Imported schema is not a JSON object or boolean but {}; using Schema.unknown()",
          imported.getNodeType());
      return Schema.unknown();
    }
    SchemaLimits limits = options.limits();
    if (Json.depthUpTo(imported, limits.maxNestingDepth()) < 0) {
      LOG.warn(
          "Imported schema is nested deeper than {} levels (SchemaLimits.maxNestingDepth);"
              + " using Schema.unknown()",
          limits.maxNestingDepth());
      return Schema.unknown();
    }
    if (longerThan(imported, limits.maxDocumentChars())) {
      LOG.warn(
          "Imported schema is larger than {} characters (SchemaLimits.maxDocumentChars);"
              + " using Schema.unknown()",
          limits.maxDocumentChars());
      return Schema.unknown();
    }
    Notes notes = new Notes();
    try {
      JsonNode document = SchemaNormalizer.normalize(imported, dialect, options.defaultDialect());
      // A holder, so that the root can be replaced like any other subschema.
      ArrayNode holder = Json.nodes().arrayNode().add(document);
      holder.set(0, SchemaSanitizer.sanitize(document, options, notes));
      for (int attempt = 0; attempt <= MAX_RETRIES; attempt++) {
        try {
          Schema schema = Schema.fromJson(holder.get(0), options);
          report(notes);
          return schema;
        } catch (SchemaException e) {
          if (attempt == MAX_RETRIES || !degradeWhatFailed(holder, e, notes)) {
            report(notes);
            LOG.warn(
                "Imported schema does not compile ({}); using Schema.unknown()", e.getMessage());
            return Schema.unknown();
          }
        }
      }
    } catch (RuntimeException | StackOverflowError e) {
      report(notes);
      LOG.warn("Imported schema could not be read ({}); using Schema.unknown()", e.toString());
    }
    return Schema.unknown();
  }

  /**
   * Finds the part of the document the compiler's error names and degrades it. Returns false when
   * the error names nothing more specific than the whole document.
   */
  static boolean degradeWhatFailed(ArrayNode holder, SchemaException e, Notes notes) {
    String message = String.valueOf(e.getMessage());
    Matcher reference = UNRESOLVED_REFERENCE.matcher(message);
    if (reference.find()) {
      return degradeReferencesTo(holder.get(0), reference.group(1), notes);
    }
    String pointer = null;
    String keyword = null;
    if (e.getCause() instanceof com.networknt.schema.SchemaException cause
        && cause.getError() != null
        && cause.getError().getSchemaLocation() != null) {
      String location = cause.getError().getSchemaLocation().toString();
      int hash = location.indexOf('#');
      pointer = hash < 0 ? null : location.substring(hash + 1);
      keyword = cause.getError().getKeyword();
    }
    Matcher schemaAt = SCHEMA_AT.matcher(message);
    if ((pointer == null || pointer.isEmpty()) && schemaAt.find()) {
      pointer = schemaAt.group(1);
      keyword = null;
    }
    Matcher metaAt = META_AT.matcher(message);
    if ((pointer == null || pointer.isEmpty()) && metaAt.find()) {
      // One keyword's value breaks the meta-schema (an OpenAPI "examples" written as an object,
      // say): that keyword goes, not the whole schema. A complaint inside an array (required/0)
      // names the keyword holding the array.
      pointer = metaAt.group(1);
      int cut = pointer.lastIndexOf('/');
      JsonNode parentNode =
          cut <= 0
              ? holder.get(0)
              : SchemaSanitizer.resolvePointer(holder.get(0), pointer.substring(0, cut));
      if (parentNode instanceof ArrayNode && cut > 0) {
        pointer = pointer.substring(0, cut);
      }
      keyword =
          pointer.substring(pointer.lastIndexOf('/') + 1).replace("~1", "/").replace("~0", "~");
    }
    if (pointer == null || pointer.isEmpty() || !pointer.startsWith("/")) {
      return false;
    }
    int slash = pointer.lastIndexOf('/');
    String parentPointer = pointer.substring(0, slash);
    JsonNode parent =
        parentPointer.isEmpty()
            ? holder.get(0)
            : SchemaSanitizer.resolvePointer(holder.get(0), parentPointer);
    String last = pointer.substring(slash + 1).replace("~1", "/").replace("~0", "~");
    if (parent instanceof ObjectNode object && object.has(last)) {
      if (last.equals(keyword)) {
        object.remove(last);
        notes.add(pointer, "the compiler refused " + keyword + " (" + message + "); removed");
      } else {
        object.set(last, object.objectNode());
        notes.add(pointer, "the compiler refused this subschema (" + message + "); replaced by {}");
      }
      return true;
    }
    if (parent instanceof ArrayNode array && last.matches("[0-9]{1,9}")) {
      int index = Integer.parseInt(last);
      if (index < array.size()) {
        array.set(index, array.objectNode());
        notes.add(pointer, "the compiler refused this subschema (" + message + "); replaced by {}");
        return true;
      }
    }
    return false;
  }

  /** Degrades every subschema whose {@code $ref} ends in the unresolved target. */
  private static boolean degradeReferencesTo(JsonNode root, String target, Notes notes) {
    boolean changed = false;
    Deque<Map.Entry<String, JsonNode>> pending = new ArrayDeque<>();
    pending.push(Map.entry("", root));
    while (!pending.isEmpty()) {
      Map.Entry<String, JsonNode> entry = pending.pop();
      String pointer = entry.getKey();
      JsonNode node = entry.getValue();
      if (node.isObject()) {
        JsonNode ref = node.get("$ref");
        if (ref != null && ref.isString() && refersTo(ref.stringValue(), target)) {
          SchemaSanitizer.degradeInPlace((ObjectNode) node);
          notes.add(
              pointer, "$ref " + ref + " cannot be resolved; the subschema accepts any value");
          changed = true;
        }
        for (Map.Entry<String, JsonNode> member : node.properties()) {
          pending.push(
              Map.entry(pointer + "/" + SchemaKeywords.escape(member.getKey()), member.getValue()));
        }
      } else if (node.isArray()) {
        for (int i = 0; i < node.size(); i++) {
          pending.push(Map.entry(pointer + "/" + i, node.get(i)));
        }
      }
    }
    return changed;
  }

  private static boolean refersTo(String ref, String target) {
    return ref.equals(target) || ref.endsWith("#" + target) || ref.endsWith(target);
  }

  static void report(Notes notes) {
    for (Degradation degradation : notes.kept()) {
      LOG.warn("Imported schema degraded at {}", degradation);
    }
    if (notes.count() > notes.kept().size()) {
      LOG.warn(
          "Imported schema: {} more degradations not listed", notes.count() - notes.kept().size());
    }
  }

  /** Whether the JSON text of {@code node} would exceed {@code limit} characters. Iterative. */
  static boolean longerThan(JsonNode node, long limit) {
    long size = 0;
    Deque<JsonNode> pending = new ArrayDeque<>();
    pending.push(node);
    while (!pending.isEmpty()) {
      JsonNode current = pending.pop();
      if (current.isObject()) {
        size += 2;
        for (Map.Entry<String, JsonNode> member : current.properties()) {
          size += member.getKey().length() + 4;
          pending.push(member.getValue());
        }
      } else if (current.isArray()) {
        size += 2 + current.size();
        current.values().forEach(pending::push);
      } else if (current.isString()) {
        size += current.stringValue().length() + 2;
      } else {
        size += current.isNumber() ? current.numberValue().toString().length() : 5;
      }
      if (size > limit) {
        return true;
      }
    }
    return false;
  }
}
