package dev.alkdev.operations.codegen;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.TypeName;
import java.util.List;

/** A type to generate: a record or an enum, with its Javadoc already escaped. */
sealed interface TypeDecl {
  ClassName name();

  /** A record; {@code ignoreUnknown} unless the schema says {@code additionalProperties: false}. */
  record RecordDecl(
      ClassName name, String javadoc, List<Component> components, boolean ignoreUnknown)
      implements TypeDecl {}

  /**
   * A record component: the Java name, the JSON name, the type; {@code alwaysInclude} for a
   * required nullable property (its null is sent); {@code anyProperties} for the map that collects
   * the properties not declared.
   */
  record Component(
      String name, String jsonName, TypeName type, boolean alwaysInclude, boolean anyProperties) {}

  /** An enum of string values. */
  record EnumDecl(ClassName name, String javadoc, List<Constant> constants) implements TypeDecl {}

  /** One constant and the JSON value it stands for. */
  record Constant(String name, String value) {}
}
