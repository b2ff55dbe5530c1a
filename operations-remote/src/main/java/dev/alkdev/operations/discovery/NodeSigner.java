package dev.alkdev.operations.discovery;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Signs a serving node's announcements ({@code node.hello}) with an Ed25519 key the deployment gave
 * it, so that callers holding the matching public key ({@link TrustedNodes}) know who serves what
 * (docs/security.md, "Trusted nodes"; D103). The signature covers the node id, the digest of its
 * specs, the time of signing and the key id; a node signs anew each minute and when its specs
 * change.
 */
public final class NodeSigner {
  private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9_.:@-]{1,64}");

  private final String keyId;
  private final PrivateKey key;

  private NodeSigner(String keyId, PrivateKey key) {
    this.keyId = keyId;
    this.key = key;
  }

  /**
   * A signer under {@code keyId} (1 to 64 letters, digits, {@code _ . : @ -}: the name callers know
   * the key by, and the identity they see) with an Ed25519 private key ({@link NodeKeys}).
   *
   * @throws IllegalArgumentException when the key id is not of that form or the key cannot sign
   *     with Ed25519
   */
  public static NodeSigner of(String keyId, PrivateKey privateKey) {
    Objects.requireNonNull(keyId, "keyId");
    Objects.requireNonNull(privateKey, "privateKey");
    if (!KEY_ID.matcher(keyId).matches()) {
      throw new IllegalArgumentException(
          "A key id is 1 to 64 ASCII letters, digits, '_', '.', ':', '@' or '-', was '"
              + keyId
              + "'");
    }
    NodeSigner signer = new NodeSigner(keyId, privateKey);
    signer.sign(new byte[0]); // a key of another algorithm fails here, not at the first hello
    return signer;
  }

  /** The name of the key, as callers' {@link TrustedNodes} know it. */
  public String keyId() {
    return keyId;
  }

  NodeEvent.Proof prove(String nodeId, String digest, long signedAtMillis) {
    return new NodeEvent.Proof(
        keyId, signedAtMillis, sign(signedContent(nodeId, digest, signedAtMillis, keyId)));
  }

  /** What a hello's signature covers (docs/protocol.md, "Signed announcements"). */
  static byte[] signedContent(String nodeId, String digest, long signedAtMillis, String keyId) {
    return ("ops.node.hello\n" + nodeId + "\n" + digest + "\n" + signedAtMillis + "\n" + keyId)
        .getBytes(StandardCharsets.UTF_8);
  }

  private byte[] sign(byte[] content) {
    try {
      Signature signature = Signature.getInstance("Ed25519");
      signature.initSign(key);
      signature.update(content);
      return signature.sign();
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "The key of " + keyId + " cannot sign with Ed25519: " + e.getMessage(), e);
    }
  }
}
