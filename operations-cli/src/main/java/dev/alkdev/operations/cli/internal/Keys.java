package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.cli.ExitCodes;
import dev.alkdev.operations.discovery.NodeKeys;
import dev.alkdev.operations.discovery.NodeSigner;
import dev.alkdev.operations.discovery.TrustedNodes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The signing and trusted keys of {@code --sign-key}, {@code --trust-key}, {@code
 * --trust-identity}.
 */
final class Keys {
  private Keys() {}

  /** The signer of {@code ops serve --sign-key FILE}: the key id is the file's name less .key. */
  static NodeSigner signer(Path file) {
    String name = file.getFileName().toString();
    String keyId = name.endsWith(".key") ? name.substring(0, name.length() - 4) : name;
    try {
      return NodeSigner.of(keyId, NodeKeys.privateKey(read("--sign-key", file)));
    } catch (IllegalArgumentException e) {
      throw new Failure(
          ExitCodes.USAGE,
          "--sign-key " + file + ": " + e.getMessage(),
          "make one: ops keygen NAME");
    }
  }

  /** The trusted nodes of {@code --trust-key NAME=FILE} and {@code --trust-identity SUBJECT}. */
  static Optional<TrustedNodes> trustedNodes(List<String> keys, List<String> identities) {
    if (keys.isEmpty() && identities.isEmpty()) {
      return Optional.empty();
    }
    TrustedNodes.Builder trust = TrustedNodes.builder();
    for (String entry : keys) {
      int eq = entry.indexOf('=');
      if (eq <= 0 || eq == entry.length() - 1) {
        throw new Failure(
            ExitCodes.USAGE,
            "--trust-key " + entry + ": expected NAME=FILE",
            "e.g. --trust-key billing=keys/billing.pub");
      }
      Path file = Path.of(entry.substring(eq + 1));
      try {
        trust.key(entry.substring(0, eq), NodeKeys.publicKey(read("--trust-key", file)), "*");
      } catch (IllegalArgumentException e) {
        throw new Failure(ExitCodes.USAGE, "--trust-key " + entry + ": " + e.getMessage());
      }
    }
    for (String subject : identities) {
      try {
        trust.brokerIdentity(subject, "*");
      } catch (IllegalArgumentException e) {
        throw new Failure(ExitCodes.USAGE, "--trust-identity " + subject + ": " + e.getMessage());
      }
    }
    return Optional.of(trust.build());
  }

  private static String read(String flag, Path file) {
    try {
      return Files.readString(file, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new Failure(ExitCodes.USAGE, flag + " " + file + ": cannot read it (" + e + ")");
    }
  }
}
