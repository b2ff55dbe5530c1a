package dev.alkdev.operations.schema.internal;

import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.path.PathType;
import dev.alkdev.operations.internal.Json;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaException;
import dev.alkdev.operations.schema.SchemaLimits;
import dev.alkdev.operations.schema.SchemaOptions;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/** Turns schema documents into {@link CompiledSchema}s on networknt's validator. */
public final class SchemaCompiler {
  /** Where a document without {@code $id} lives, so its inner {@code $ref}s have a base. */
  private static final String ANONYMOUS_BASE = "urn:dev.alkdev.operations:schema";

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
    } catch (JacksonException e) {
      throw new SchemaException("Schema document is not valid JSON: " + e.getOriginalMessage(), e);
    }
    return compile(document, options);
  }

  /** Compiles a schema document. The document is copied; later changes to it have no effect. */
  public static Schema compile(JsonNode document, SchemaOptions options) {
    if (document == null || document.isMissingNode()) {
      throw new SchemaException("Schema document is missing");
    }
    if (!document.isObject() && !document.isBoolean()) {
      throw new SchemaException(
          "A schema must be a JSON object or a boolean, was " + document.getNodeType());
    }
    SchemaLimits limits = options.limits();
    if (Json.depthUpTo(document, limits.maxNestingDepth()) < 0) {
      throw new SchemaException(
          "Schema document is nested deeper than "
              + limits.maxNestingDepth()
              + " levels (SchemaLimits.maxNestingDepth)");
    }
    JsonNode copy = document.deepCopy();
    com.networknt.schema.Schema compiled;
    try {
      SchemaRegistry registry = registryFor(options);
      compiled = registry.getSchema(SchemaLocation.of(ANONYMOUS_BASE), copy);
      // Resolve every $ref now, so a broken or forbidden reference fails here and not mid-call.
      compiled.initializeValidators();
    } catch (com.networknt.schema.SchemaException e) {
      throw new SchemaException("Invalid schema: " + e.getMessage(), e);
    } catch (IllegalArgumentException | IllegalStateException | JacksonException e) {
      throw new SchemaException("Invalid schema: " + e.getMessage(), e);
    } catch (StackOverflowError e) {
      throw new SchemaException("Schema is too deeply recursive to compile", null);
    }
    return new CompiledSchema(copy, compiled, limits, options.formatAssertions());
  }

  /**
   * A fresh registry per document: networknt caches schemas by id, and two documents may reuse the
   * same {@code $id} for different content.
   */
  private static SchemaRegistry registryFor(SchemaOptions options) {
    SchemaRegistryConfig config =
        SchemaRegistryConfig.builder()
            .pathType(PathType.JSON_POINTER)
            .regularExpressionFactory(new DeadlineRegexFactory(options.limits().regexTimeout()))
            .formatAssertionsEnabled(options.formatAssertions() ? Boolean.TRUE : null)
            .build();
    Map<String, String> mappings = options.prefixMappings();
    return SchemaRegistry.withDefaultDialectId(
        options.defaultDialect().metaSchemaUri(),
        builder -> {
          builder.schemaRegistryConfig(config);
          builder.schemaLoader(
              loader -> {
                mappings.forEach(
                    (from, to) -> loader.schemaIdResolvers(ids -> ids.mapPrefix(from, to)));
                boolean remote = mappings.values().stream().anyMatch(to -> !to.startsWith("file:"));
                // Nothing is fetched unless it was mapped to a location the caller chose.
                loader.fetchRemoteResources(remote);
                loader.allow(
                    iri -> {
                      String uri = iri.toString();
                      return uri.startsWith("https://json-schema.org/")
                          || uri.startsWith("http://json-schema.org/")
                          || uri.startsWith(ANONYMOUS_BASE)
                          || mappings.values().stream().anyMatch(uri::startsWith)
                          || mappings.keySet().stream().anyMatch(uri::startsWith);
                    });
              });
        });
  }
}
