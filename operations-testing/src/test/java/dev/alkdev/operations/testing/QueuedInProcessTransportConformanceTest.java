package dev.alkdev.operations.testing;

import dev.alkdev.operations.pubsub.InProcessPubSub;

/**
 * The in-process transport with inline delivery off passes the conformance suite too: every message
 * crosses to the delivery threads, as on a remote transport.
 */
class QueuedInProcessTransportConformanceTest extends TransportConformanceTest {
  @Override
  protected Peers createPeers() {
    return Peers.shared(
        InProcessPubSub.builder().maxMessageBytes(64 * 1024).inlineDelivery(false).build());
  }
}
