package dev.alkdev.operations.discovery;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.serving.OperationStats;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One discovery message (docs/protocol.md, "Discovery"); {@link NodeEvents} reads and writes them.
 */
sealed interface NodeEvent {

  /**
   * A node's announcement: when it joins, when its registry changes, and in answer to a query.
   *
   * @param specs the specs it serves; empty when they did not fit in one message (ask for them)
   * @param proof its signature, when it signs its announcements ({@link NodeSigner})
   */
  record Hello(
      String nodeId,
      String digest,
      long heartbeatMillis,
      Optional<List<OperationSpec>> specs,
      Optional<Proof> proof)
      implements NodeEvent {
    public Hello {
      Objects.requireNonNull(nodeId, "nodeId");
      Objects.requireNonNull(digest, "digest");
      specs = specs.map(List::copyOf);
      Objects.requireNonNull(proof, "proof");
    }

    Hello(String nodeId, String digest, long heartbeatMillis, Optional<List<OperationSpec>> specs) {
      this(nodeId, digest, heartbeatMillis, specs, Optional.empty());
    }
  }

  /**
   * A hello's signature: by the key {@code keyId}, at {@code signedAtMillis} (epoch), over {@link
   * NodeSigner#signedContent}.
   */
  record Proof(String keyId, long signedAtMillis, byte[] signature) {
    public Proof {
      Objects.requireNonNull(keyId, "keyId");
      signature = signature.clone();
    }

    @Override
    public byte[] signature() {
      return signature.clone();
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Proof proof
          && keyId.equals(proof.keyId)
          && signedAtMillis == proof.signedAtMillis
          && java.util.Arrays.equals(signature, proof.signature);
    }

    @Override
    public int hashCode() {
      return Objects.hash(keyId, signedAtMillis, java.util.Arrays.hashCode(signature));
    }

    @Override
    public String toString() {
      return "Proof[keyId=" + keyId + ", signedAtMillis=" + signedAtMillis + "]";
    }
  }

  /**
   * A node is alive; small on purpose: the specs are named by their digest only. It repeats the
   * interval so that a caller that missed the hello knows when to give up on the node.
   */
  record Heartbeat(
      String nodeId, String digest, long heartbeatMillis, int inFlight, boolean draining)
      implements NodeEvent {}

  /**
   * A node is leaving: it takes no new calls and finishes those it runs within {@code drainMillis};
   * 0 when it is gone.
   */
  record Bye(String nodeId, long drainMillis) implements NodeEvent {}

  /** A caller asks every node for its hello, sent to {@code replyTo}. */
  record Query(String replyTo) implements NodeEvent {}

  /** A caller asks one node (on its specs topic) for its specs, sent to {@code replyTo}. */
  record SpecsRequested(String replyTo) implements NodeEvent {}

  /** Part {@code part} (from 1) of {@code parts} of a node's specs, as of {@code digest}. */
  record Specs(String nodeId, String digest, int part, int parts, List<OperationSpec> specs)
      implements NodeEvent {
    public Specs {
      specs = List.copyOf(specs);
    }
  }

  /**
   * A caller asks every node (or only {@code nodeId}) for its statistics, sent to {@code replyTo}
   * with the same {@code requestId}. {@code identity} is believed only where the transport trusts
   * payloads, as for calls.
   */
  record StatsRequested(
      String requestId, String replyTo, Optional<String> nodeId, Optional<Identity> identity)
      implements NodeEvent {}

  /**
   * A node's statistics: when it started, its calls running, whether it is leaving or saturated (a
   * lane of its serving pipeline is full), and per operation the caller may see (at most what fits
   * in one message: {@code omitted} says how many were left out).
   */
  record Stats(
      String requestId,
      String nodeId,
      Instant startedAt,
      int inFlight,
      boolean draining,
      boolean saturated,
      List<OperationStats> operations,
      int omitted)
      implements NodeEvent {
    public Stats {
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(nodeId, "nodeId");
      Objects.requireNonNull(startedAt, "startedAt");
      operations = List.copyOf(operations);
    }
  }
}
