package dev.alkdev.operations.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The non-blocking promise (D62): how the option composes, and who makes it. */
class NonBlockingSubscriptionsTest {

  @Test
  void theOptionIsOffByDefaultAndSurvivesTheOtherSettings() {
    assertThat(SubscribeOptions.defaults().nonBlockingHandler()).isFalse();
    assertThat(SubscribeOptions.queueGroup("g").nonBlockingHandler()).isFalse();

    SubscribeOptions options =
        SubscribeOptions.queueGroup("g")
            .withNonBlockingHandler()
            .withBufferSize(7)
            .withOverflow(OverflowPolicy.DROP_NEWEST);
    assertThat(options)
        .isEqualTo(new SubscribeOptions(Optional.of("g"), 7, OverflowPolicy.DROP_NEWEST, true));
    assertThat(SubscribeOptions.defaults().withBufferSize(7).withNonBlockingHandler().bufferSize())
        .isEqualTo(7);
  }

  @Test
  void theProtocolsSubscriptionsPromiseItAndTheCatalogsWhichRunUsersCodeDoNot() {
    try (InProcessPubSub inner = InProcessPubSub.create();
        OperationRegistry registry = OperationRegistry.create()) {
      Recording pubsub = new Recording(inner);
      registry.register(
          dev.alkdev.operations.OperationSpec.builder("t", "echo").build(),
          dev.alkdev.operations.Handler.async((in, ctx) -> CompletableFuture.completedFuture(in)));
      try (CallHandler handler = CallHandler.serve(registry, pubsub);
          PendingRequestMap calls = PendingRequestMap.create(pubsub);
          ServingNode node = ServingNode.start(registry, pubsub);
          RemoteCatalog catalog = RemoteCatalog.create(pubsub)) {
        assertThat(pubsub.options.keySet())
            .as("who subscribed")
            .anyMatch(k -> k.startsWith("catalog "))
            .anyMatch(k -> k.startsWith("inbox "))
            .anyMatch(k -> k.startsWith("serving "));
        // The caller's inbox hands users' code over (D73); the catalog runs users' listeners.
        pubsub.options.forEach(
            (subscriber, options) ->
                assertThat(options.nonBlockingHandler())
                    .as(subscriber)
                    .isEqualTo(!subscriber.startsWith("catalog ")));
      }
    }
  }

  /**
   * Records each subscription's options by side and topic: "catalog " for the catalog's (they run
   * users' listeners), "inbox " for the caller inbox's (it hands continuations and stream
   * subscribers over, D73), "serving " for CallHandler's and ServingNode's.
   */
  private static final class Recording implements PubSub {
    final PubSub inner;
    final Map<String, SubscribeOptions> options = new ConcurrentHashMap<>();

    Recording(PubSub inner) {
      this.inner = inner;
    }

    @Override
    public CompletableFuture<Integer> publish(String topic, byte[] payload) {
      return inner.publish(topic, payload);
    }

    @Override
    public Subscription subscribe(
        String topic, SubscribeOptions subscribeOptions, Consumer<Message> handler) {
      // The innermost of the protocol's classes decides.
      String subscriber =
          StackWalker.getInstance()
              .walk(
                  s ->
                      s.map(f -> f.getClassName())
                          .filter(
                              c ->
                                  c.equals(RemoteCatalog.class.getName())
                                      || c.equals(PendingRequestMap.class.getName())
                                      || c.equals(CallHandler.class.getName())
                                      || c.equals(ServingNode.class.getName()))
                          .findFirst()
                          .orElse(""));
      String side =
          subscriber.equals(RemoteCatalog.class.getName())
              ? "catalog "
              : subscriber.equals(PendingRequestMap.class.getName()) ? "inbox " : "serving ";
      options.put(side + topic, subscribeOptions);
      return inner.subscribe(topic, subscribeOptions, handler);
    }

    @Override
    public int maxMessageBytes() {
      return inner.maxMessageBytes();
    }

    @Override
    public boolean trustsPayloadIdentity() {
      return inner.trustsPayloadIdentity();
    }

    @Override
    public Registration onDisconnect(Runnable action) {
      return inner.onDisconnect(action);
    }

    @Override
    public void close() {
      inner.close();
    }
  }
}
