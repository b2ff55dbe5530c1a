/**
 * operations for Java, NATS transport: the {@link dev.alkdev.operations.pubsub.PubSub} SPI on a
 * NATS server or cluster (jnats). Packages named {@code internal} are not API.
 */
module dev.alkdev.operations.transport.nats {
  requires transitive dev.alkdev.operations.remote;
  requires io.nats.jnats;
  requires org.slf4j;

  exports dev.alkdev.operations.transport.nats;

  provides dev.alkdev.operations.pubsub.PubSubFactory with
      dev.alkdev.operations.transport.nats.internal.NatsPubSubFactory;
}
