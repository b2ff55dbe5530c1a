/**
 * operations for Java, core: errors, specs, envelopes, the registry, the serving pipeline, scanning
 * and sources. Packages named {@code internal} are not part of the API.
 */
module dev.alkdev.operations.core {
  requires transitive tools.jackson.databind;
  requires transitive dev.alkdev.operations.schema;
  requires tools.jackson.dataformat.yaml;
  requires org.slf4j;

  exports dev.alkdev.operations;
  exports dev.alkdev.operations.envelope;
  exports dev.alkdev.operations.annotation;
  exports dev.alkdev.operations.scan;
  exports dev.alkdev.operations.serving;
  exports dev.alkdev.operations.source;
  exports dev.alkdev.operations.typed;

  // Not API: the rate-limited log, for the adapters' per-call warnings (a hostile peer must not
  // flood the log through them either), the check of a client's W3C trace context that the
  // servers share, and, for the remote module, the scheduler, the call watch and the result
  // pipeline that the serving side uses too.
  exports dev.alkdev.operations.internal to
      dev.alkdev.operations.remote,
      dev.alkdev.operations.mcp,
      dev.alkdev.operations.mcpserver,
      dev.alkdev.operations.http,
      dev.alkdev.operations.jetty,
      dev.alkdev.operations.transport.websocket;

  uses dev.alkdev.operations.scan.OperationProvider;
}
