package dev.alkdev.operations.schema.internal.importing;

import dev.alkdev.operations.schema.FromSchema;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaException;
import dev.alkdev.operations.schema.SchemaOptions;
import dev.alkdev.operations.schema.internal.Json;
import dev.alkdev.operations.schema.internal.SchemaCompiler;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@link FromSchema#shared}: many schemas of one document (an OpenAPI document's operations) whose
 * {@code $ref}s point into the same definitions. The definitions and every root registered are put
 * into one document on the first use of any of the schemas; that document is normalised, sanitised
 * and checked once, and each root compiles on its own first use, reusing the compiled form
 * (networknt's and the cast plan's) of every definition an earlier root reached (D69).
 *
 * <p>Leniency is {@link LenientImport}'s: what the compiler refuses is degraded where it is and the
 * document is loaded again; a root that still does not compile is {@link Schema#unknown()}.
 */
public final class SharedImport implements FromSchema.Shared {
  private static final Logger LOG = LoggerFactory.getLogger(FromSchema.class);
  private static final String ROOT_PREFIX = "_root";
  private static final int MAX_RETRIES = 16;

  private final ObjectNode definitions;
  private final FromSchema.Dialect dialect;
  private final SchemaOptions options;
  private final Map<String, JsonNode> roots = new LinkedHashMap<>();

  /** A holder of the shared document, so that its root can be replaced like any subschema. */
  private ArrayNode holder;

  private SchemaCompiler.SharedDocument loaded;
  private int reloads;

  /** Set when the document itself cannot be loaded even after degrading: every root is unknown. */
  private boolean broken;

  public SharedImport(ObjectNode definitions, FromSchema.Dialect dialect, SchemaOptions options) {
    this.definitions = Objects.requireNonNull(definitions, "definitions");
    this.dialect = Objects.requireNonNull(dialect, "dialect");
    this.options = Objects.requireNonNull(options, "options");
  }

  @Override
  public synchronized Schema schema(JsonNode root) {
    Objects.requireNonNull(root, "root");
    if (holder != null) {
      // The shared document is made already: this one is converted alone, with what it references.
      JsonNode alone = selfContained(root, definitions, null);
      return Schema.deferred(() -> LenientImport.convert(alone, dialect, options));
    }
    String key = ROOT_PREFIX + roots.size();
    while (definitions.has(key)) {
      key = "_" + key;
    }
    roots.put(key, root);
    String name = key;
    return Schema.deferred(() -> compile(name));
  }

  private synchronized Schema compile(String name) {
    Notes notes = new Notes();
    if (broken) {
      return Schema.unknown();
    }
    try {
      if (holder == null) {
        prepare(notes);
      }
      for (int attempt = 0; attempt <= MAX_RETRIES; attempt++) {
        try {
          if (loaded == null) {
            loaded = SchemaCompiler.SharedDocument.load(holder.get(0), options);
          }
          JsonNode document = holder.get(0);
          Schema schema = loaded.compile(name, () -> json(document, name));
          LenientImport.report(notes);
          return schema;
        } catch (SchemaException e) {
          if (attempt == MAX_RETRIES
              || reloads >= MAX_RETRIES
              || !LenientImport.degradeWhatFailed(holder, e, notes)) {
            LenientImport.report(notes);
            broken = loaded == null;
            LOG.warn(
                "Imported schema #/$defs/{} does not compile ({}); using Schema.unknown()",
                name,
                e.getMessage());
            return Schema.unknown();
          }
          // Degraded in place: load again, so nothing compiled from the old form is reused.
          loaded = null;
          reloads++;
        }
      }
    } catch (RuntimeException | StackOverflowError e) {
      broken = loaded == null;
      LenientImport.report(notes);
      LOG.warn("Imported schema could not be read ({}); using Schema.unknown()", e.toString());
    }
    return Schema.unknown();
  }

  /** Under the lock: a later schema's degrading changes the shared document in place. */
  private synchronized JsonNode json(JsonNode document, String name) {
    return selfContained(document, name);
  }

  /** Builds, normalises and sanitises the shared document. */
  private void prepare(Notes notes) {
    ObjectNode defs = Json.nodes().objectNode();
    for (Map.Entry<String, JsonNode> definition : definitions.properties()) {
      JsonNode value = definition.getValue();
      if (LenientImport.longerThan(value, options.limits().maxDocumentChars())) {
        LOG.warn(
            "Imported schema #/$defs/{} is larger than {} characters"
                + " (SchemaLimits.maxDocumentChars); it accepts any value",
            definition.getKey(),
            options.limits().maxDocumentChars());
        value = Json.nodes().objectNode();
      }
      defs.set(definition.getKey(), value);
    }
    roots.forEach(defs::set);
    ObjectNode raw = Json.nodes().objectNode();
    raw.set("$defs", defs);
    holder = Json.nodes().arrayNode();
    if (Json.depthUpTo(raw, options.limits().maxNestingDepth()) < 0) {
      throw new SchemaException(
          "shared document nested deeper than "
              + options.limits().maxNestingDepth()
              + " levels (SchemaLimits.maxNestingDepth)");
    }
    JsonNode document = SchemaNormalizer.normalize(raw, dialect, options.defaultDialect());
    holder.add(SchemaSanitizer.sanitize(document, options, notes));
    if (holder.get(0) instanceof ObjectNode object && !object.has("$schema")) {
      // Explicit, so the cast plan reads the dialect the validator compiles in.
      object.put("$schema", options.defaultDialect().metaSchemaUri());
    }
  }

  /** {@code $defs/name} of the shared document, with the definitions it reaches, as one schema. */
  private static JsonNode selfContained(JsonNode document, String name) {
    JsonNode defs = document.path("$defs");
    ObjectNode result = selfContained(defs.get(name), defs, document.get("$schema"));
    return result;
  }

  /**
   * A copy of {@code root} with a {@code $defs} holding every definition of {@code defs} it reaches
   * through {@code #/$defs/...} references: what users are shown (describe, tools/list, the
   * gateway's OpenAPI), made on request and not kept.
   */
  static ObjectNode selfContained(JsonNode root, JsonNode defs, JsonNode dialect) {
    Set<String> reached = new LinkedHashSet<>();
    Deque<JsonNode> pending = new ArrayDeque<>();
    pending.push(root);
    Deque<JsonNode> walk = new ArrayDeque<>();
    while (!pending.isEmpty()) {
      walk.push(pending.pop());
      while (!walk.isEmpty()) {
        JsonNode node = walk.pop();
        if (node.isObject()) {
          JsonNode ref = node.get("$ref");
          if (ref != null && ref.isString()) {
            String target = definitionOf(ref.stringValue());
            if (target != null && defs.has(target) && reached.add(target)) {
              pending.push(defs.get(target));
            }
          }
          node.values().forEach(walk::push);
        } else if (node.isArray()) {
          node.values().forEach(walk::push);
        }
      }
    }
    ObjectNode result = Json.nodes().objectNode();
    if (dialect != null) {
      result.set("$schema", dialect);
    }
    if (root.isObject()) {
      root.properties()
          .forEach(
              field -> {
                if (!field.getKey().equals("$schema") && !field.getKey().equals("$defs")) {
                  result.set(field.getKey(), field.getValue().deepCopy());
                }
              });
    } else {
      result.set("allOf", Json.nodes().arrayNode().add(root.deepCopy()));
    }
    if (!reached.isEmpty()) {
      ObjectNode copies = result.putObject("$defs");
      for (String name : reached) {
        copies.set(name, defs.get(name).deepCopy());
      }
    }
    return result;
  }

  /** The definition name a {@code #/$defs/Name...} reference starts with, else null. */
  private static String definitionOf(String ref) {
    if (!ref.startsWith("#/$defs/")) {
      return null;
    }
    String rest = ref.substring("#/$defs/".length());
    int slash = rest.indexOf('/');
    String token = slash < 0 ? rest : rest.substring(0, slash);
    return token.replace("~1", "/").replace("~0", "~");
  }
}
