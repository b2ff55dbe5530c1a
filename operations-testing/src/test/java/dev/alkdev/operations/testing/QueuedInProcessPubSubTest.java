package dev.alkdev.operations.testing;

import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.pubsub.PubSub;
import org.junit.jupiter.api.AfterEach;

/**
 * The in-process transport with inline delivery off passes the pub/sub contract too: every message
 * crosses to the delivery threads, as on a remote transport. A small size limit, as a broker might
 * set.
 */
class QueuedInProcessPubSubTest extends PubSubContractTest {
  private final InProcessPubSub bus =
      InProcessPubSub.builder().inlineDelivery(false).maxMessageBytes(64 * 1024).build();

  @Override
  protected PubSub connect() {
    return bus;
  }

  @Override
  protected void severConnection(PubSub client) {
    client.close();
  }

  @AfterEach
  void close() {
    bus.close();
  }
}
