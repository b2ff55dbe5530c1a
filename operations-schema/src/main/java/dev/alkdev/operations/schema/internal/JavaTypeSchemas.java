package dev.alkdev.operations.schema.internal;

import dev.alkdev.operations.schema.SchemaException;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Derives JSON Schema (draft 2020-12) documents from Java types, describing the JSON that the
 * library's Jackson mapper writes for them. The rules (required properties, nullability, formats)
 * are in docs/schema-import.md.
 *
 * <p>Generation takes milliseconds, so documents are cached per type. The cache holds its keys
 * weakly: a cached schema never keeps a class, or the class loader that defined it, alive.
 */
public final class JavaTypeSchemas {
  private static final Map<Type, JsonNode> CACHE = new WeakHashMap<>();

  private JavaTypeSchemas() {}

  /**
   * The schema document of {@code type}: a fresh copy the caller may change.
   *
   * @throws SchemaException when the type has no JSON form (void, an unresolved type variable) or
   *     Jackson cannot serialize it
   */
  public static JsonNode generate(Type type) {
    Objects.requireNonNull(type, "type");
    JsonNode cached;
    synchronized (CACHE) {
      cached = CACHE.get(type);
    }
    if (cached == null) {
      checkDescribable(type, type);
      cached = generateUncached(type);
      synchronized (CACHE) {
        CACHE.putIfAbsent(type, cached);
      }
    }
    return cached.deepCopy();
  }

  private static ObjectNode generateUncached(Type type) {
    try {
      return TypeSchemaGenerator.generate(Json.mapper(), type);
    } catch (SchemaException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new SchemaException(
          "Cannot derive a JSON Schema from " + type.getTypeName() + ": " + e.getMessage(), e);
    } catch (StackOverflowError e) {
      throw new SchemaException(
          "Cannot derive a JSON Schema from " + type.getTypeName() + ": it nests too deeply");
    }
  }

  /** Refuses types that have no JSON form before the generator turns them into {@code {}}. */
  private static void checkDescribable(Type type, Type root) {
    if (type == void.class || type == Void.class) {
      throw new SchemaException(
          "Cannot derive a JSON Schema from "
              + root.getTypeName()
              + ": void has no JSON value (use Schema.unknown() for an operation without output)");
    }
    if (type instanceof TypeVariable<?> variable) {
      throw new SchemaException(
          "Cannot derive a JSON Schema from "
              + root.getTypeName()
              + ": type variable "
              + variable.getName()
              + " is not a concrete type; pass a ParameterizedType with every type argument"
              + " given, such as the type of a TypeReference<Page<Item>>");
    }
    if (type instanceof ParameterizedType parameterized) {
      for (Type argument : parameterized.getActualTypeArguments()) {
        checkDescribable(argument, root);
      }
    } else if (type instanceof GenericArrayType array) {
      checkDescribable(array.getGenericComponentType(), root);
    } else if (type instanceof WildcardType wildcard) {
      for (Type bound : wildcard.getUpperBounds()) {
        checkDescribable(bound, root);
      }
    }
  }
}
