package dev.alkdev.operations.discovery;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.Objects;

/**
 * Ed25519 keys for {@link NodeSigner} and {@link TrustedNodes}, in the PEM forms OpenSSL writes and
 * reads ({@code openssl genpkey -algorithm ed25519}): a private key as PKCS#8 ({@code BEGIN PRIVATE
 * KEY}), a public key as X.509 SubjectPublicKeyInfo ({@code BEGIN PUBLIC KEY}).
 */
public final class NodeKeys {
  private NodeKeys() {}

  /** A new Ed25519 key pair. */
  public static KeyPair generate() {
    try {
      return KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Every JDK since 15 has Ed25519", e);
    }
  }

  /** The PEM text of a private key (keep it secret: it lets its holder speak for the key id). */
  public static String toPem(PrivateKey key) {
    return pem("PRIVATE KEY", key.getEncoded());
  }

  /** The PEM text of a public key, for the callers that trust it. */
  public static String toPem(PublicKey key) {
    return pem("PUBLIC KEY", key.getEncoded());
  }

  /**
   * Reads an Ed25519 private key from PEM text.
   *
   * @throws IllegalArgumentException when it is not one, saying what was found
   */
  public static PrivateKey privateKey(String pem) {
    try {
      return KeyFactory.getInstance("Ed25519")
          .generatePrivate(new PKCS8EncodedKeySpec(body(pem, "PRIVATE KEY")));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "not an Ed25519 private key (PKCS#8 PEM): " + e.getMessage(), e);
    }
  }

  /**
   * Reads an Ed25519 public key from PEM text.
   *
   * @throws IllegalArgumentException when it is not one, saying what was found
   */
  public static PublicKey publicKey(String pem) {
    try {
      return KeyFactory.getInstance("Ed25519")
          .generatePublic(new X509EncodedKeySpec(body(pem, "PUBLIC KEY")));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "not an Ed25519 public key (X.509 PEM): " + e.getMessage(), e);
    }
  }

  private static String pem(String label, byte[] der) {
    return "-----BEGIN "
        + label
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + label
        + "-----\n";
  }

  private static byte[] body(String pem, String label) {
    Objects.requireNonNull(pem, "pem");
    String begin = "-----BEGIN " + label + "-----";
    String end = "-----END " + label + "-----";
    int from = pem.indexOf(begin);
    int to = pem.indexOf(end);
    if (from < 0 || to < from) {
      throw new IllegalArgumentException("expected PEM text between " + begin + " and " + end);
    }
    try {
      return Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to).strip());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the PEM body is not Base64: " + e.getMessage(), e);
    }
  }
}
