package dev.alkdev.operations.testing;

import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.pubsub.PubSub;

/**
 * The in-process transport with inline delivery off passes the pub/sub contract too: every message
 * crosses to the delivery threads, as on a remote transport. A small size limit, as a broker might
 * set.
 */
class QueuedInProcessPubSubTest extends PubSubContractTest {
  // snippet: contract
  private final InProcessPubSub bus =
      InProcessPubSub.builder().inlineDelivery(false).maxMessageBytes(64 * 1024).build();

  @Override
  protected PubSub connect() {
    return bus; // every client of a test is this one bus; the suite closes it after the test
  }

  @Override
  protected void severConnection(PubSub client) {
    client.close(); // there is no connection to lose in-process: closing is how it goes away
  }
  // end-snippet
}
