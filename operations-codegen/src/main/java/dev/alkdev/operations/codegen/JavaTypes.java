package dev.alkdev.operations.codegen;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;

/** The types the generated code names. */
final class JavaTypes {
  static final ClassName JSON_NODE = ClassName.get("tools.jackson.databind", "JsonNode");
  static final ClassName STRING = ClassName.get("java.lang", "String");
  static final ClassName LIST = ClassName.get("java.util", "List");
  static final ClassName MAP = ClassName.get("java.util", "Map");
  static final ClassName COMPLETABLE_FUTURE =
      ClassName.get("java.util.concurrent", "CompletableFuture");
  static final ClassName PUBLISHER = ClassName.get("java.util.concurrent", "Flow", "Publisher");
  static final ClassName OPERATION_CONTEXT =
      ClassName.get("dev.alkdev.operations", "OperationContext");
  static final ClassName OPERATION_TYPE = ClassName.get("dev.alkdev.operations", "OperationType");
  static final ClassName OPERATION = ClassName.get("dev.alkdev.operations.annotation", "Operation");
  static final ClassName NAMESPACE = ClassName.get("dev.alkdev.operations.annotation", "Namespace");
  private static final String JACKSON = "com.fasterxml.jackson.annotation";
  static final ClassName JSON_PROPERTY = ClassName.get(JACKSON, "JsonProperty");
  static final ClassName JSON_INCLUDE = ClassName.get(JACKSON, "JsonInclude");
  static final ClassName JSON_IGNORE_PROPERTIES = ClassName.get(JACKSON, "JsonIgnoreProperties");
  static final ClassName JSON_ANY_SETTER = ClassName.get(JACKSON, "JsonAnySetter");
  static final ClassName JSON_ANY_GETTER = ClassName.get(JACKSON, "JsonAnyGetter");

  private JavaTypes() {}

  static TypeName listOf(TypeName item) {
    return ParameterizedTypeName.get(LIST, item.box());
  }

  static TypeName mapOf(TypeName value) {
    return ParameterizedTypeName.get(MAP, STRING, value.box());
  }

  /** The type as a Javadoc {@code @link} names it: without type arguments. */
  static TypeName erasure(TypeName type) {
    return type instanceof ParameterizedTypeName p ? p.rawType() : type;
  }
}
