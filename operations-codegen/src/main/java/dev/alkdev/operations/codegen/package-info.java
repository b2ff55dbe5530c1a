/**
 * Java sources from operation specs: {@link dev.alkdev.operations.codegen.JavaGenerator} maps the
 * JSON Schemas of the specs' inputs and outputs to records and enums, and each namespace to an
 * interface of annotated methods.
 */
package dev.alkdev.operations.codegen;
