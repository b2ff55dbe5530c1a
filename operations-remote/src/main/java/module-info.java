/**
 * operations for Java, remote: what crosses a process boundary. The pub/sub SPI with its in-process
 * transport, the call protocol that runs over it, and discovery (serving nodes, the catalogue of
 * remote operations, routed calls). Packages named {@code internal} are not API.
 */
module dev.alkdev.operations.remote {
  requires transitive dev.alkdev.operations.core;
  requires tools.jackson.core;
  requires tools.jackson.databind;
  requires org.slf4j;

  exports dev.alkdev.operations.pubsub;
  exports dev.alkdev.operations.protocol;
  exports dev.alkdev.operations.discovery;
  exports dev.alkdev.operations.transport.kit;

  // Not API: the reply futures whose dependents never run on an I/O thread (Redis completes its
  // publishes with them, D86); the one node id check (the broker permission builders).
  exports dev.alkdev.operations.remote.internal to
      dev.alkdev.operations.transport.redis,
      dev.alkdev.operations.transport.nats;

  // PubSubFactory.installed: the transports on the path, for hosts (ops, the Spring starter).
  uses dev.alkdev.operations.pubsub.PubSubFactory;
}
