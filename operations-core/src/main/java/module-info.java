/**
 * operations for Java, core: schemas, errors, specs, envelopes, the registry, the serving pipeline
 * and the call protocol. Packages named {@code internal} are not part of the API.
 */
module dev.alkdev.operations.core {
  requires transitive tools.jackson.databind;
  requires tools.jackson.dataformat.yaml;
  requires com.networknt.schema;
  requires com.github.victools.jsonschema.generator;
  requires com.github.victools.jsonschema.module.jackson;
  requires com.fasterxml.classmate;
  requires org.slf4j;

  exports dev.alkdev.operations;
  exports dev.alkdev.operations.schema;
  exports dev.alkdev.operations.envelope;
  exports dev.alkdev.operations.annotation;
  exports dev.alkdev.operations.scan;
  exports dev.alkdev.operations.protocol;
  exports dev.alkdev.operations.serving;
  exports dev.alkdev.operations.pubsub;

  uses dev.alkdev.operations.scan.OperationProvider;
}
