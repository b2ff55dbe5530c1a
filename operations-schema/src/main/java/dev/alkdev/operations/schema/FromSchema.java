package dev.alkdev.operations.schema;

import dev.alkdev.operations.schema.internal.importing.LenientImport;
import dev.alkdev.operations.schema.internal.importing.SchemaNormalizer;
import dev.alkdev.operations.schema.internal.importing.SharedImport;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Schemas written by third parties (an MCP tool's {@code inputSchema}/{@code outputSchema}, an
 * OpenAPI document's schemas) turned into {@link Schema}s: the seeds' {@code FromSchema}.
 *
 * <p>Import is lenient. A document in an older draft or in OpenAPI's dialect is rewritten into
 * draft 2020-12 ({@link #normalize}); then every construct that would not compile, or would compile
 * into something that rejects everything (an invalid {@code pattern}, a {@code $ref} to nowhere,
 * {@code "minimum": "abc"}, {@code "type": "file"}), is dropped or widened to {@code {}} (accept
 * anything), and each such change is logged at WARN under this class's logger with a JSON Pointer
 * to where it was made. Conversion never throws on a bad document: at worst the result is {@link
 * Schema#unknown()}. Hostile documents (too large or too deep for the {@link SchemaLimits}) become
 * {@link Schema#unknown()} too.
 *
 * <pre>{@code
 * Schema input = FromSchema.convert(tool.inputSchema());                 // MCP: JSON Schema
 * Schema pet = FromSchema.convert(petSchema, Dialect.OPENAPI_3_0, SchemaOptions.defaults());
 * }</pre>
 *
 * <p>{@code $ref}s are resolved within the document only (and through {@link
 * SchemaOptions.Builder#mapPrefix} where the caller allows it): an OpenAPI schema that refers to
 * {@code #/components/schemas/...} must be given with those references resolved or inlined, as in
 * the seeds, or they become "any value". The rules are listed in docs/schema-import.md.
 */
public final class FromSchema {

  /** The language an imported schema is written in. */
  public enum Dialect {
    /**
     * JSON Schema: draft 2020-12, or the draft its {@code $schema} names (04, 06, 07, 2019-09). MCP
     * tool schemas are this.
     */
    JSON_SCHEMA,
    /**
     * An OpenAPI 3.0 Schema Object: {@code nullable}, boolean {@code exclusiveMinimum}/{@code
     * exclusiveMaximum}, {@code example}, {@code xml}, {@code externalDocs}.
     */
    OPENAPI_3_0,
    /**
     * An OpenAPI 3.1 Schema Object: draft 2020-12 plus {@code example}, {@code xml} and friends.
     */
    OPENAPI_3_1
  }

  private FromSchema() {}

  /**
   * Schemas of one document that share its definitions, made by {@link #shared}: each {@link
   * #schema} is compiled on its first use, and a definition reached by many of them is compiled
   * once for all.
   */
  public interface Shared {
    /**
     * A schema whose {@code $ref}s of the form {@code #/$defs/Name} point into the shared
     * definitions; compiled lazily, and leniently as {@link #convert} is. Its {@link Schema#json()}
     * is self-contained: a copy with the definitions it reaches in its own {@code $defs}, made on
     * each request.
     */
    Schema schema(JsonNode root);
  }

  /**
   * Many schemas sharing {@code definitions} (an OpenAPI document's components): the definitions
   * are normalised, checked and compiled once, on the first use of any schema made from the result,
   * instead of once per schema that references them. {@code definitions} is read then (it may still
   * grow until that first use) and must not change afterwards.
   */
  public static Shared shared(ObjectNode definitions, Dialect dialect, SchemaOptions options) {
    return new SharedImport(definitions, dialect, options);
  }

  /**
   * {@code imported} rewritten into draft 2020-12 (or left in draft-04/06/07/2019-09 when its
   * {@code $schema} names one): OpenAPI keywords become their JSON Schema equivalents, tuple {@code
   * items} becomes {@code prefixItems}. The argument is not changed.
   *
   * @throws SchemaException if {@code imported} is neither a JSON object nor a boolean
   */
  public static JsonNode normalize(JsonNode imported, Dialect dialect) {
    return SchemaNormalizer.normalize(imported, dialect, SchemaDialect.DRAFT_2020_12);
  }

  /** Converts a JSON Schema with the default options; never throws on a bad document. */
  public static Schema convert(JsonNode imported) {
    return convert(imported, Dialect.JSON_SCHEMA, SchemaOptions.defaults());
  }

  /**
   * Normalises {@code imported} and compiles it, degrading what does not compile (see the class
   * comment). Never throws on a bad document.
   */
  public static Schema convert(JsonNode imported, Dialect dialect, SchemaOptions options) {
    return LenientImport.convert(imported, dialect, options);
  }
}
