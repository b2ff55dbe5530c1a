package dev.alkdev.operations.schema;

import dev.alkdev.operations.schema.internal.DeferredSchema;
import dev.alkdev.operations.schema.internal.JavaTypeSchemas;
import dev.alkdev.operations.schema.internal.SchemaCompiler;
import dev.alkdev.operations.schema.internal.UnknownSchema;
import java.lang.reflect.Type;
import java.util.List;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;

/**
 * A compiled JSON Schema: validates values with every error located by JSON Pointer, and casts
 * values towards the schema (the seeds' {@code Value.Cast}).
 *
 * <p>Instances are immutable and safe to share between threads. Compile once, use many times.
 *
 * <pre>{@code
 * Schema schema = Schema.fromJson("""
 *     {"type": "object", "properties": {"n": {"type": "integer", "default": 1}}}""");
 * schema.validate(value);  // List<SchemaError>, empty when valid
 * schema.cast(value);      // {"n": 1} for {}, {"n": 42} for {"n": "42", "extra": true}
 * }</pre>
 */
public interface Schema {

  /** The schema that accepts anything and casts nothing ({@code Type.Unknown()} in the seeds). */
  static Schema unknown() {
    return UnknownSchema.INSTANCE;
  }

  /**
   * Compiles a JSON Schema document given as text, with the default options (draft 2020-12 unless
   * the document's {@code $schema} names draft-07; nothing loaded from outside the document).
   *
   * @throws SchemaException if the text is not JSON, exceeds the limits, or is not a valid schema
   */
  static Schema fromJson(String json) {
    return fromJson(json, SchemaOptions.defaults());
  }

  /** Compiles a JSON Schema document given as text. */
  static Schema fromJson(String json, SchemaOptions options) {
    return SchemaCompiler.compile(json, options);
  }

  /** Compiles a JSON Schema document. */
  static Schema fromJson(JsonNode document) {
    return fromJson(document, SchemaOptions.defaults());
  }

  /** Compiles a JSON Schema document. */
  static Schema fromJson(JsonNode document, SchemaOptions options) {
    return SchemaCompiler.compile(document, options);
  }

  /**
   * Derives a schema from a Java type: a record, a class with Jackson annotations, an enum, a
   * generic type such as {@code List<Item>} (pass a {@link java.lang.reflect.ParameterizedType}).
   * See the docs for which properties count as required.
   */
  static Schema fromType(Type type) {
    return fromType(type, SchemaOptions.defaults());
  }

  /** Derives a schema from a Java type. */
  static Schema fromType(Type type, SchemaOptions options) {
    return SchemaCompiler.compile(JavaTypeSchemas.generate(type), options);
  }

  /**
   * A schema made by {@code supplier} on its first use (any method of it, {@code json()} included)
   * and kept: for programs that register many operations and call few of them, or that must start
   * fast ({@code ops list} compiles nothing). The price is when errors show: a document that does
   * not compile fails its first use, and every later one the same way, instead of failing where the
   * operation is defined; so defer only schemas you trust or whose failure you can take at call
   * time. Thread-safe; the supplier runs at most once.
   *
   * <pre>{@code
   * Schema input = Schema.deferred(() -> Schema.fromType(Order.class));
   * }</pre>
   */
  static Schema deferred(Supplier<? extends Schema> supplier) {
    return new DeferredSchema(supplier);
  }

  /** The schema document this was compiled from (after any normalisation). */
  JsonNode json();

  /** Whether this is {@link #unknown()}: it accepts every value and casts nothing. */
  boolean isUnknown();

  /**
   * Every reason {@code value} does not match, in document order; empty when it matches. Never
   * throws on data. (To fail a call instead, operations-core has {@code
   * CallError.validateOrThrow(schema, value, what)}.)
   */
  List<SchemaError> validate(JsonNode value);

  /** Whether {@code value} matches; may stop at the first error. */
  default boolean isValid(JsonNode value) {
    return validate(value).isEmpty();
  }

  /**
   * Casts {@code value} towards this schema and returns the result; {@code value} is not changed.
   * Keeps what matches, fills defaults, drops undeclared properties, converts primitives where no
   * information is lost, and picks the best branch of {@code anyOf}/{@code oneOf}. Never throws on
   * data: what cannot be made to match is kept as it was, for validation to report. The rules are
   * in docs/schema-cast.md.
   */
  JsonNode cast(JsonNode value);
}
