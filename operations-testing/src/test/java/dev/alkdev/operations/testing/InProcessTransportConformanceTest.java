package dev.alkdev.operations.testing;

import dev.alkdev.operations.pubsub.InProcessPubSub;

/** The in-process transport passes the conformance suite. */
class InProcessTransportConformanceTest extends TransportConformanceTest {

  // snippet: conformance
  @Override
  protected Peers createPeers() {
    // Small messages keep the oversized-message tests cheap; the rules are the same at 1 MiB.
    return Peers.shared(InProcessPubSub.builder().maxMessageBytes(64 * 1024).build());
  }
  // end-snippet
}
