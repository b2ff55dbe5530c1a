/**
 * operations for Java, core: errors, specs, envelopes, the registry, the serving pipeline and the
 * call protocol. Packages named {@code internal} are not part of the API.
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
  exports dev.alkdev.operations.protocol;
  exports dev.alkdev.operations.serving;
  exports dev.alkdev.operations.pubsub;
  exports dev.alkdev.operations.source;
  exports dev.alkdev.operations.discovery;

  // Not API: the rate-limited log, for the adapters' per-call warnings (a hostile peer must not
  // flood the log through them either), the check of a client's W3C trace context that the
  // servers share, and the reply futures whose dependents never run on an I/O thread (Redis
  // completes its publishes with them, D86).
  exports dev.alkdev.operations.internal to
      dev.alkdev.operations.mcp,
      dev.alkdev.operations.mcpserver,
      dev.alkdev.operations.http,
      dev.alkdev.operations.jetty,
      dev.alkdev.operations.transport.redis;

  uses dev.alkdev.operations.scan.OperationProvider;
}
