/**
 * operations for Java, Redis transport: the {@link dev.alkdev.operations.pubsub.PubSub} SPI on
 * Redis pub/sub (Lettuce). Packages named {@code internal} are not API.
 */
module dev.alkdev.operations.transport.redis {
  requires transitive dev.alkdev.operations.remote;
  requires lettuce.core;
  requires io.netty.common;
  requires io.netty.transport;
  requires io.netty.handler;
  requires org.slf4j;

  exports dev.alkdev.operations.transport.redis;

  provides dev.alkdev.operations.pubsub.PubSubFactory with
      dev.alkdev.operations.transport.redis.internal.RedisPubSubFactory;
}
