package dev.alkdev.operations.discovery;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.protocol.OperationPattern;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The nodes a caller trusts to serve, and what each may serve (docs/security.md, "Trusted nodes";
 * D103). A node proves who it is in one of two ways:
 *
 * <ul>
 *   <li>its hello is signed ({@link NodeSigner}) with a key listed here, recently ({@link
 *       Builder#maxAge}); the key id is its identity;
 *   <li>the transport authenticated the connection it announced from, as the WebSocket hub does
 *       (the message's {@link dev.alkdev.operations.pubsub.Message#identity()}), under a subject
 *       listed here as a broker identity. The anonymous identity proves nothing.
 * </ul>
 *
 * <p>A catalog given these rules ({@link RemoteCatalog.Builder#trustedNodes}) lists every node,
 * saying which are verified, and routes calls only to verified nodes, for the operations their
 * identity may serve.
 */
public final class TrustedNodes {
  /** How old a signed hello may be when it arrives: 5 minutes by default. */
  public static final Duration DEFAULT_MAX_AGE = Duration.ofMinutes(5);

  private final Map<String, Trusted> keys;
  private final Map<String, List<OperationPattern>> brokerIdentities;
  private final long maxAgeMillis;

  private record Trusted(PublicKey key, List<OperationPattern> operations) {}

  private TrustedNodes(Builder builder) {
    this.keys = Map.copyOf(builder.keys);
    this.brokerIdentities = Map.copyOf(builder.brokerIdentities);
    this.maxAgeMillis = builder.maxAge.toMillis();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Who announced {@code hello}: proven by a valid, recent signature of a trusted key, or by a
   * trusted identity the transport authenticated; otherwise the identity it claims, unverified.
   */
  NodeProof check(NodeEvent.Hello hello, Optional<Identity> sender, long nowMillis) {
    if (hello.proof().isPresent()) {
      NodeEvent.Proof proof = hello.proof().get();
      Trusted trusted = keys.get(proof.keyId());
      if (trusted == null) {
        return NodeProof.unverified(proof.keyId(), "the key " + proof.keyId() + " is not trusted");
      }
      if (!isFresh(proof, nowMillis)) {
        return stale(proof, nowMillis);
      }
      byte[] content =
          NodeSigner.signedContent(
              hello.nodeId(), hello.digest(), proof.signedAtMillis(), proof.keyId());
      return verifies(trusted.key(), content, proof.signature())
          ? NodeProof.verified(proof.keyId())
          : NodeProof.unverified(proof.keyId(), "the signature does not match");
    }
    Optional<String> subject = NodeProof.authenticated(sender);
    if (subject.isPresent() && brokerIdentities.containsKey(subject.get())) {
      return NodeProof.verified(subject.get());
    }
    return NodeProof.unchecked(hello, sender);
  }

  /** Whether {@code proof} was signed within {@code maxAge} of {@code nowMillis}, either way. */
  boolean isFresh(NodeEvent.Proof proof, long nowMillis) {
    return Math.abs(nowMillis - proof.signedAtMillis()) <= maxAgeMillis;
  }

  static NodeProof stale(NodeEvent.Proof proof, long nowMillis) {
    return NodeProof.unverified(
        proof.keyId(), "signed " + (nowMillis - proof.signedAtMillis()) + " ms ago");
  }

  /** Whether the verified identity {@code identity} may serve {@code operationId}. */
  boolean mayServe(String identity, String operationId) {
    Trusted trusted = keys.get(identity);
    List<OperationPattern> patterns =
        trusted != null ? trusted.operations() : brokerIdentities.get(identity);
    if (patterns == null) {
      return false;
    }
    for (OperationPattern pattern : patterns) {
      if (pattern.matches(operationId)) {
        return true;
      }
    }
    return false;
  }

  private static boolean verifies(PublicKey key, byte[] content, byte[] signature) {
    try {
      Signature verifier = Signature.getInstance("Ed25519");
      verifier.initVerify(key);
      verifier.update(content);
      return verifier.verify(signature);
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      return false;
    }
  }

  /** Configures {@link TrustedNodes}. */
  public static final class Builder {
    private final Map<String, Trusted> keys = new LinkedHashMap<>();
    private final Map<String, List<OperationPattern>> brokerIdentities = new LinkedHashMap<>();
    private Duration maxAge = DEFAULT_MAX_AGE;

    private Builder() {}

    /**
     * Trusts the Ed25519 public key {@code keyId} ({@link NodeKeys#publicKey}) for the operations
     * {@code operations} (ids or patterns, {@link OperationPattern}); {@code *} for all.
     *
     * @throws IllegalArgumentException when no operation is given, a pattern is malformed or the
     *     key is not an Ed25519 key
     */
    public Builder key(String keyId, PublicKey key, String... operations) {
      Objects.requireNonNull(keyId, "keyId");
      Objects.requireNonNull(key, "key");
      if (!key.getAlgorithm().equals("Ed25519") && !key.getAlgorithm().equals("EdDSA")) {
        throw new IllegalArgumentException(
            "The key of " + keyId + " is " + key.getAlgorithm() + "; expected an Ed25519 key");
      }
      keys.put(keyId, new Trusted(key, patterns(keyId, operations)));
      return this;
    }

    /**
     * Trusts nodes that announce over a connection the transport authenticated as {@code subject}
     * (the WebSocket hub's authenticator), for {@code operations}.
     */
    public Builder brokerIdentity(String subject, String... operations) {
      Objects.requireNonNull(subject, "subject");
      if (subject.equals(Identity.anonymous().subject())) {
        throw new IllegalArgumentException("The anonymous identity proves nothing: name a subject");
      }
      brokerIdentities.put(subject, patterns(subject, operations));
      return this;
    }

    /**
     * How old a signed hello may be when it arrives, either way of the caller's clock (5 minutes by
     * default): a replayed old announcement is not believed. At least 2 minutes: a node sends one
     * proof for a minute before it signs anew, and clocks differ.
     */
    public Builder maxAge(Duration maxAge) {
      if (maxAge.compareTo(Duration.ofMinutes(2)) < 0) {
        throw new IllegalArgumentException(
            "maxAge must be at least 2 minutes (a node re-sends one proof for a minute), was "
                + maxAge);
      }
      this.maxAge = maxAge;
      return this;
    }

    public TrustedNodes build() {
      return new TrustedNodes(this);
    }

    private static List<OperationPattern> patterns(String who, String... operations) {
      if (operations.length == 0) {
        throw new IllegalArgumentException(
            "Say which operations " + who + " may serve (ids, namespace.* or *)");
      }
      return Arrays.stream(operations).map(OperationPattern::of).toList();
    }
  }
}
