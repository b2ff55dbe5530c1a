/**
 * operations for Java, code generation: Java sources (records and one interface per namespace) from
 * operation specs, for typed clients and typed implementations.
 */
module dev.alkdev.operations.codegen {
  requires transitive dev.alkdev.operations.core;
  requires com.palantir.javapoet;
  requires java.compiler;

  exports dev.alkdev.operations.codegen;
}
