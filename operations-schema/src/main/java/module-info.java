/**
 * operations for Java, schema: JSON Schema compile, validate, cast, lenient import (FromSchema) and
 * schemas from Java types. Packages named {@code internal} are not part of the API.
 */
module dev.alkdev.operations.schema {
  requires transitive tools.jackson.databind;
  requires com.networknt.schema;
  requires com.github.victools.jsonschema.generator;
  requires com.github.victools.jsonschema.module.jackson;
  requires com.fasterxml.classmate;
  requires org.slf4j;

  exports dev.alkdev.operations.schema;

  // Not API: core reads JSON with the same mappers (one place decides how JSON is read).
  exports dev.alkdev.operations.schema.internal to
      dev.alkdev.operations.core;
}
