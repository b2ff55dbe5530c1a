package dev.alkdev.operations.schema.internal;

import com.networknt.schema.Error;
import com.networknt.schema.ExecutionConfig;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.ValidationLimitExceededException;
import com.networknt.schema.dialect.DialectId;
import com.networknt.schema.path.PathType;
import dev.alkdev.operations.schema.SchemaError;
import dev.alkdev.operations.schema.SchemaException;
import dev.alkdev.operations.schema.SchemaLimits;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;

/**
 * Checks a schema document against the meta-schema of its dialect before it is compiled.
 *
 * <p>networknt compiles many malformed schemas without complaint and then misbehaves: {@code
 * {"type": 5}} rejects every value, {@code {"required": "a"}} and {@code {"maxLength": "x"}} are
 * silently ignored. Schemas come from third parties, so a mistake must surface where the schema is
 * defined, with the place in the document that is wrong.
 *
 * <p>Only the drafts networknt bundles are checked; a document with a custom meta-schema (loaded
 * through a mapping) is left to networknt.
 */
final class MetaSchemaCheck {
  private static final Set<String> BUNDLED =
      Set.of(
          DialectId.DRAFT_4,
          DialectId.DRAFT_6,
          DialectId.DRAFT_7,
          DialectId.DRAFT_2019_09,
          DialectId.DRAFT_2020_12);

  /** Errors quoted in the exception message; the rest are counted. */
  private static final int ERRORS_SHOWN = 5;

  /** Meta-schemas load from networknt's classpath copies only; nothing is fetched. */
  private static final SchemaRegistry REGISTRY =
      SchemaRegistry.withDefaultDialectId(
          DialectId.DRAFT_2020_12,
          builder ->
              builder
                  .schemaRegistryConfig(
                      SchemaRegistryConfig.builder()
                          .pathType(PathType.JSON_POINTER)
                          .regularExpressionFactory(
                              new DeadlineRegexFactory(Duration.ofMillis(100)))
                          .build())
                  .schemaLoader(loader -> loader.fetchRemoteResources(false)));

  private static final Map<String, com.networknt.schema.Schema> META_SCHEMAS =
      new ConcurrentHashMap<>();

  private MetaSchemaCheck() {}

  /**
   * Throws a {@link SchemaException} listing what is wrong if {@code document} does not match the
   * meta-schema {@code dialectId}; does nothing for a dialect networknt does not bundle.
   */
  static void check(JsonNode document, String declaredDialect, SchemaLimits limits) {
    String dialectId = bundled(declaredDialect);
    if (dialectId == null || document.isBoolean()) {
      return;
    }
    com.networknt.schema.Schema meta =
        META_SCHEMAS.computeIfAbsent(dialectId, MetaSchemaCheck::load);
    ExecutionConfig config =
        ExecutionConfig.builder()
            // Each level of a schema costs several levels of meta-schema evaluation
            // (properties, $dynamicRef, allOf, $ref), so the depth bound scales with the nesting
            // the document is already allowed.
            .maxEvaluationDepth(limits.maxNestingDepth() * 8 + 64)
            // Checking costs a few dozen steps per subschema, so the budget follows the size a
            // document may have, not the (possibly much tighter) budget for values.
            .maxEvaluationSteps(
                Math.max(limits.maxEvaluationSteps(), 16L * limits.maxDocumentChars()))
            .annotationCollectionEnabled(false)
            .build();
    List<Error> errors;
    try {
      errors = meta.validate(document, context -> context.setExecutionConfig(config));
    } catch (ValidationLimitExceededException e) {
      throw new SchemaException(
          "Schema document is too large or too deep to check against its meta-schema ("
              + (e.getLimitKind() == ValidationLimitExceededException.LimitKind.EVALUATION_DEPTH
                  ? "SchemaLimits.maxNestingDepth"
                  : "SchemaLimits.maxDocumentChars")
              + ")",
          e);
    } catch (StackOverflowError e) {
      throw new SchemaException("Schema document is nested too deeply to check", null);
    }
    if (errors.isEmpty()) {
      return;
    }
    // The meta-schemas reach most keywords through several paths; say each thing once.
    Set<String> distinct = new LinkedHashSet<>();
    for (Error error : errors) {
      SchemaError described = CompiledSchema.describe(error);
      distinct.add(
          "at "
              + (described.instancePath().isEmpty() ? "(root)" : described.instancePath())
              + ": "
              + described.message());
    }
    StringBuilder message = new StringBuilder("Invalid schema (does not match ");
    message.append(dialectId).append("): ");
    message.append(String.join("; ", distinct.stream().limit(ERRORS_SHOWN).toList()));
    if (distinct.size() > ERRORS_SHOWN) {
      message.append(" (and ").append(distinct.size() - ERRORS_SHOWN).append(" more)");
    }
    throw new SchemaException(message.toString());
  }

  /** The bundled dialect {@code uri} names (with or without the empty fragment), or null. */
  private static String bundled(String uri) {
    String bare = uri.endsWith("#") ? uri.substring(0, uri.length() - 1) : uri;
    for (String id : BUNDLED) {
      if (id.equals(bare) || id.equals(bare + "#")) {
        return id;
      }
    }
    return null;
  }

  private static com.networknt.schema.Schema load(String dialectId) {
    com.networknt.schema.Schema meta = REGISTRY.getSchema(SchemaLocation.of(dialectId));
    meta.initializeValidators();
    return meta;
  }
}
