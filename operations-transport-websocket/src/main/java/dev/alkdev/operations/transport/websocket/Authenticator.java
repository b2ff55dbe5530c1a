package dev.alkdev.operations.transport.websocket;

import dev.alkdev.operations.Identity;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Decides who a spoke is, once, at the WebSocket upgrade. The hub stamps the identity it returns on
 * every message of that connection and never reads one from a payload. An empty result refuses the
 * upgrade with 401. It runs on the hub's I/O threads: it must not block for long (look tokens up in
 * memory, or in a cache).
 */
@FunctionalInterface
public interface Authenticator {
  Optional<Identity> authenticate(Handshake handshake);

  /**
   * Every connection is {@link Identity#anonymous()}: for a hub on loopback whose {@link
   * SpokePermissions} decide by other means. The hub's default when none is set.
   */
  static Authenticator anonymous() {
    return handshake -> Optional.of(Identity.anonymous());
  }

  /**
   * Bearer tokens ({@link Handshake#bearerToken()}: the {@code Authorization} header, or the {@code
   * ops.bearer.<token>} subprotocol for browsers), each standing for an identity. Tokens are
   * compared in constant time; a missing or unknown token refuses the upgrade.
   */
  static Authenticator bearerTokens(Map<String, Identity> tokens) {
    Objects.requireNonNull(tokens, "tokens");
    Map<byte[], Identity> copy = new LinkedHashMap<>();
    tokens.forEach(
        (token, identity) -> {
          if (token.isBlank()) {
            throw new IllegalArgumentException("a bearer token must not be blank");
          }
          copy.put(token.getBytes(StandardCharsets.UTF_8), Objects.requireNonNull(identity));
        });
    return handshake -> {
      Optional<String> offered = handshake.bearerToken();
      if (offered.isEmpty()) {
        return Optional.empty();
      }
      byte[] candidate = offered.get().getBytes(StandardCharsets.UTF_8);
      Identity found = null;
      for (Map.Entry<byte[], Identity> entry : copy.entrySet()) {
        // Every token is compared, so the time taken does not say which one nearly matched.
        if (MessageDigest.isEqual(entry.getKey(), candidate)) {
          found = entry.getValue();
        }
      }
      return Optional.ofNullable(found);
    };
  }
}
