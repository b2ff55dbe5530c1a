package dev.alkdev.operations.discovery;

import dev.alkdev.operations.Identity;
import java.util.Optional;

/**
 * Who announced a node, as a caller could tell: an identity (a signing key's id, or the subject the
 * transport authenticated) and whether it was proven ({@link TrustedNodes}).
 *
 * @param identity who the node is, proven or claimed; empty when nothing says
 * @param verified whether a trusted key or a trusted broker identity proved it
 * @param why why it was not verified; empty when it was or when nothing was checked
 */
record NodeProof(Optional<String> identity, boolean verified, Optional<String> why) {
  static NodeProof verified(String identity) {
    return new NodeProof(Optional.of(identity), true, Optional.empty());
  }

  static NodeProof unverified(String claimed, String why) {
    return new NodeProof(Optional.of(claimed), false, Optional.of(why));
  }

  /** Without trusted nodes: the key id a hello claims, else the authenticated sender, if any. */
  static NodeProof unchecked(NodeEvent.Hello hello, Optional<Identity> sender) {
    Optional<String> identity = hello.proof().map(NodeEvent.Proof::keyId);
    return new NodeProof(
        identity.isPresent() ? identity : authenticated(sender), false, Optional.empty());
  }

  /** The subject of an authenticated sender; anonymous proves nothing. */
  static Optional<String> authenticated(Optional<Identity> sender) {
    return sender.map(Identity::subject).filter(s -> !s.equals(Identity.anonymous().subject()));
  }
}
