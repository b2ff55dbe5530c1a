package dev.alkdev.operations.schema.internal;

import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.dialect.DefaultDialectRegistry;
import com.networknt.schema.dialect.Dialect;
import com.networknt.schema.dialect.DialectRegistry;
import com.networknt.schema.dialect.Dialects;
import com.networknt.schema.keyword.AnnotationKeyword;
import com.networknt.schema.path.NodePath;
import com.networknt.schema.path.PathType;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaException;
import dev.alkdev.operations.schema.SchemaLimits;
import dev.alkdev.operations.schema.SchemaOptions;
import dev.alkdev.operations.schema.internal.cast.Caster;
import java.util.Map;
import java.util.stream.Stream;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.databind.JsonNode;

/** Turns schema documents into {@link CompiledSchema}s on networknt's validator. */
public final class SchemaCompiler {
  /** Where a document without {@code $id} lives, so its inner {@code $ref}s have a base. */
  private static final String ANONYMOUS_BASE = "urn:dev.alkdev.operations:schema";

  /**
   * The dialects networknt bundles, each taught that a keyword it does not know is an annotation
   * without a word. JSON Schema says exactly that of unknown keywords, but networknt's default logs
   * a warning for each new one ("Unknown keyword x-foo - you should define your own Meta Schema"):
   * OpenAPI documents carry {@code x-} extensions, {@code discriminator}, {@code xml} and {@code
   * example} everywhere (222 warnings in one pass over the APIs-guru corpus), and a schema from
   * outside may carry any name. Not cached per name, as networknt's default is: names come from
   * documents, and a hostile one could grow such a cache without bound.
   */
  private static final DialectRegistry QUIET_DIALECTS =
      new DefaultDialectRegistry(
          Stream.of(
                  Dialects.getDraft4(),
                  Dialects.getDraft6(),
                  Dialects.getDraft7(),
                  Dialects.getDraft201909(),
                  Dialects.getDraft202012(),
                  Dialects.getOpenApi30(),
                  Dialects.getOpenApi31())
              .map(
                  dialect ->
                      Dialect.builder(dialect)
                          .unknownKeywordFactory((name, context) -> new AnnotationKeyword(name))
                          .build())
              .toList());

  private SchemaCompiler() {}

  /** Compiles a schema document given as text. */
  public static Schema compile(String json, SchemaOptions options) {
    SchemaLimits limits = options.limits();
    if (json.length() > limits.maxDocumentChars()) {
      throw new SchemaException(
          "Schema document is "
              + json.length()
              + " characters, more than the limit of "
              + limits.maxDocumentChars()
              + " (SchemaLimits.maxDocumentChars)");
    }
    JsonNode document;
    try {
      document =
          Json.boundedMapper(limits.maxNestingDepth(), limits.maxDocumentChars()).readTree(json);
    } catch (StreamConstraintsException e) {
      // Jackson names its own setting; say which of ours to raise.
      String limit =
          e.getOriginalMessage().contains("nesting depth")
              ? "nested deeper than "
                  + limits.maxNestingDepth()
                  + " levels (SchemaLimits.maxNestingDepth)"
              : "longer than the limit of "
                  + limits.maxDocumentChars()
                  + " characters (SchemaLimits.maxDocumentChars)";
      throw new SchemaException("Schema document is " + limit, e);
    } catch (JacksonException e) {
      throw new SchemaException("Schema document is not valid JSON: " + e.getOriginalMessage(), e);
    }
    return compile(document, options);
  }

  /** Compiles a schema document. The document is copied; later changes to it have no effect. */
  public static Schema compile(JsonNode document, SchemaOptions options) {
    return compile(document, options, true);
  }

  /** As {@link #compile(JsonNode, SchemaOptions)}; without the fast path only for its tests. */
  static Schema compile(JsonNode document, SchemaOptions options, boolean simpleCheck) {
    if (document == null || document.isMissingNode()) {
      throw new SchemaException("Schema document is missing");
    }
    if (!document.isObject() && !document.isBoolean()) {
      throw new SchemaException(
          "A schema must be a JSON object or a boolean, was " + document.getNodeType());
    }
    SchemaLimits limits = options.limits();
    checkDepth(document, limits);
    JsonNode copy = document.deepCopy();
    com.networknt.schema.Schema compiled =
        asSchemaError(
            () -> {
              // Before networknt reads the document: it accepts much that is malformed, or fails
              // on it with messages about its internals.
              MetaSchemaCheck.check(copy, dialectOf(copy, options), limits);
              SchemaRegistry registry = registryFor(options);
              com.networknt.schema.Schema schema =
                  registry.getSchema(SchemaLocation.of(ANONYMOUS_BASE), copy);
              // Resolve every $ref now, so a broken or forbidden reference fails here, not
              // mid-call.
              schema.initializeValidators();
              return schema;
            });
    return new CompiledSchema(
        copy,
        compiled,
        limits,
        options.formatAssertions(),
        castView(copy, options),
        simpleCheck ? SimpleCheck.compile(copy, dialectOf(copy, options), limits) : null);
  }

  private static void checkDepth(JsonNode document, SchemaLimits limits) {
    if (Json.depthUpTo(document, limits.maxNestingDepth()) < 0) {
      throw new SchemaException(
          "Schema document is nested deeper than "
              + limits.maxNestingDepth()
              + " levels (SchemaLimits.maxNestingDepth)");
    }
  }

  /**
   * Runs networknt's part of a compile. networknt reports a bad document with assorted exceptions
   * (its own, IllegalArgument, IllegalState, Jackson's); whichever it is, the document is at fault,
   * and a SchemaException says so.
   */
  private static <T> T asSchemaError(java.util.function.Supplier<T> work) {
    try {
      return work.get();
    } catch (SchemaException e) {
      throw e;
    } catch (StackOverflowError e) {
      throw new SchemaException("Schema is too deeply recursive to compile", null);
    } catch (RuntimeException e) {
      throw new SchemaException("Invalid schema: " + reason(e), e);
    }
  }

  /**
   * One document whose {@code $defs} hold schemas compiled separately and lazily, sharing the
   * compiled form of what they reference (D69): one networknt registry and root, so a {@code $ref}
   * target is compiled once for every schema that reaches it, and one cast-plan compiler. The
   * document is checked against its meta-schema once, when loaded.
   */
  public static final class SharedDocument {
    private final JsonNode document;
    private final SchemaOptions options;
    private final com.networknt.schema.Schema root;
    private final Caster.Shared casts;

    private SharedDocument(
        JsonNode document, SchemaOptions options, com.networknt.schema.Schema root) {
      this.document = document;
      this.options = options;
      this.root = root;
      this.casts = new Caster.Shared(castView(document, options), options.limits());
    }

    /**
     * Checks and loads {@code document} (an object with {@code $defs}); compiles nothing yet. The
     * document is kept, not copied: the caller must not change it afterwards.
     *
     * @throws SchemaException if it is too deep or does not match its meta-schema
     */
    public static SharedDocument load(JsonNode document, SchemaOptions options) {
      if (document == null || !document.isObject()) {
        throw new SchemaException("A shared schema document must be a JSON object");
      }
      SchemaLimits limits = options.limits();
      checkDepth(document, limits);
      return asSchemaError(
          () -> {
            MetaSchemaCheck.check(document, dialectOf(document, options), limits);
            return new SharedDocument(
                document,
                options,
                registryFor(options).getSchema(SchemaLocation.of(ANONYMOUS_BASE), document));
          });
    }

    /** The document loaded (shared, not a copy). */
    public JsonNode document() {
      return document;
    }

    /**
     * Compiles {@code $defs/name}: every {@code $ref} it reaches is resolved now (so a broken one
     * fails here), reusing what earlier schemas of this document compiled. Callers serialise.
     *
     * @param json the schema's self-contained JSON, made when {@link Schema#json()} is asked
     * @throws SchemaException if it does not compile
     */
    public Schema compile(String name, java.util.function.Supplier<JsonNode> json) {
      JsonNode node = document.path("$defs").path(name);
      if (!node.isObject() && !node.isBoolean()) {
        throw new SchemaException("No schema at #/$defs/" + name);
      }
      com.networknt.schema.Schema compiled =
          asSchemaError(
              () -> {
                com.networknt.schema.Schema schema =
                    root.getSubSchema(
                        new NodePath(PathType.JSON_POINTER).append("$defs").append(name));
                schema.initializeValidators();
                return schema;
              });
      return new CompiledSchema(
          node,
          compiled,
          options.limits(),
          options.formatAssertions(),
          casts.compile(castNode(name)),
          null, // a shared document's schemas use $ref and $defs: never the fast path
          json);
    }

    /** The node in the cast view (the same node unless the view is a copy). */
    private JsonNode castNode(String name) {
      return casts.document().path("$defs").path(name);
    }
  }

  /** The {@code $schema} of the document, or the default dialect's. */
  private static String dialectOf(JsonNode document, SchemaOptions options) {
    JsonNode declared = document.get("$schema");
    return declared != null && declared.isString()
        ? declared.stringValue()
        : options.defaultDialect().metaSchemaUri();
  }

  /**
   * The most useful message in the cause chain: our own refusal if there is one (networknt wraps
   * it, sometimes in a message of its own), else the innermost message networknt did not merely
   * copy from its cause.
   */
  private static String reason(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SchemaException || t instanceof java.io.IOException) {
        return describe(t);
      }
    }
    Throwable t = e;
    while (t.getCause() != null
        && t.getCause() != t
        && (t.getMessage() == null || t.getMessage().equals(t.getCause().toString()))) {
      t = t.getCause();
    }
    return describe(t);
  }

  private static String describe(Throwable t) {
    if (t instanceof java.io.FileNotFoundException) {
      return "no document at "
          + t.getMessage()
          + " (or it lies outside the locations mapped with SchemaOptions.Builder.mapPrefix)";
    }
    String message = t.getMessage();
    return message == null
        ? t.getClass().getSimpleName()
        : message.replace(ANONYMOUS_BASE + "#", "#").replace(ANONYMOUS_BASE, "(this document)");
  }

  /**
   * The document as the cast plan must read it: with the dialect it was compiled in made explicit,
   * since a draft-07 document compiled through {@code defaultDialect} ignores the keywords beside a
   * {@code $ref}, and the plan can tell only from {@code $schema}.
   */
  private static JsonNode castView(JsonNode document, SchemaOptions options) {
    if (!document.isObject() || document.has("$schema")) {
      return document;
    }
    tools.jackson.databind.node.ObjectNode view =
        ((tools.jackson.databind.node.ObjectNode) document).deepCopy();
    view.put("$schema", options.defaultDialect().metaSchemaUri());
    return view;
  }

  /**
   * A fresh registry per document: networknt caches schemas by id, and two documents may reuse the
   * same {@code $id} for different content.
   */
  private static SchemaRegistry registryFor(SchemaOptions options) {
    SchemaRegistryConfig config =
        SchemaRegistryConfig.builder()
            .pathType(PathType.JSON_POINTER)
            .regularExpressionFactory(new DeadlineRegexFactory(options.limits().maxRegexTime()))
            .formatAssertionsEnabled(options.formatAssertions() ? Boolean.TRUE : null)
            .build();
    Map<String, String> mappings = options.prefixMappings();
    return SchemaRegistry.withDefaultDialectId(
        options.defaultDialect().metaSchemaUri(),
        builder -> {
          builder.schemaRegistryConfig(config);
          builder.dialectRegistry(QUIET_DIALECTS);
          builder.schemaLoader(
              loader -> {
                mappings.forEach(
                    (from, to) -> loader.schemaIdResolvers(ids -> ids.mapPrefix(from, to)));
                // networknt's own fetcher would load any URL, follow redirects and read without
                // bound; ours loads only below the mapped locations (checked after mapping and
                // after ".." is resolved), so a hostile $ref, $id or $schema reaches nothing.
                loader.fetchRemoteResources(false);
                loader.resourceLoaders(
                    loaders ->
                        loaders.add(
                            new MappedResourceLoader(
                                mappings.values(), options.limits().maxDocumentChars())));
                // First check, on the id as written: the meta-schemas networknt bundles, this
                // document, and ids under a mapping.
                loader.allow(
                    iri -> {
                      String uri = iri.toString();
                      if (uri.startsWith("https://json-schema.org/")
                          || uri.startsWith("http://json-schema.org/")
                          || uri.startsWith(ANONYMOUS_BASE)
                          || mappings.keySet().stream().anyMatch(uri::startsWith)
                          || mappings.values().stream().anyMatch(uri::startsWith)) {
                        return true;
                      }
                      throw new SchemaException(
                          "refused to load '"
                              + uri
                              + "': a schema loads nothing outside its document unless"
                              + " SchemaOptions.Builder.mapPrefix maps the location");
                    });
              });
        });
  }
}
