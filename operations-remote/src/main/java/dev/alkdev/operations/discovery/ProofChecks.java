package dev.alkdev.operations.discovery;

import dev.alkdev.operations.Identity;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A catalog's checks of hellos against its {@link TrustedNodes}, each signature once: a node sends
 * the same proof again for a while ({@link ServingNode#RESIGN_MILLIS}) and checking one takes a
 * fraction of a millisecond, so a hello whose proof and digest equal the last ones verified for its
 * node is only checked for age.
 */
final class ProofChecks {
  /** The last proof verified for a node, with the digest it covers. */
  private record Verified(String digest, NodeEvent.Proof proof) {}

  private final TrustedNodes trust;
  // Only verified proofs are kept, so its size is bounded by the nodes trusted keys signed for.
  private final ConcurrentHashMap<String, Verified> verified = new ConcurrentHashMap<>();

  ProofChecks(TrustedNodes trust) {
    this.trust = trust;
  }

  NodeProof prove(NodeEvent.Hello hello, Optional<Identity> sender, long nowMillis) {
    if (hello.proof().isPresent()) {
      NodeEvent.Proof proof = hello.proof().get();
      Verified seen = verified.get(hello.nodeId());
      if (seen != null && seen.digest().equals(hello.digest()) && seen.proof().equals(proof)) {
        return trust.isFresh(proof, nowMillis)
            ? NodeProof.verified(proof.keyId())
            : TrustedNodes.stale(proof, nowMillis);
      }
    }
    NodeProof proven = trust.check(hello, sender, nowMillis);
    if (proven.verified() && hello.proof().isPresent()) {
      verified.put(hello.nodeId(), new Verified(hello.digest(), hello.proof().get()));
    }
    return proven;
  }

  /** The node is gone: its proof is checked again if it comes back. */
  void forget(String nodeId) {
    verified.remove(nodeId);
  }
}
