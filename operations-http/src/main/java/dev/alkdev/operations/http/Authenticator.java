package dev.alkdev.operations.http;

import dev.alkdev.operations.Identity;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Turns a request's bearer token ({@code Authorization: Bearer <token>}) into the caller's {@link
 * Identity}. The gateway asks it once per request; identity never comes from the request's body.
 *
 * <p>A request without an {@code Authorization} header is anonymous (it may still call operations
 * that need no scope). A token the authenticator does not know ({@link Optional#empty()}), or
 * another scheme than Bearer, is answered 401 UNAUTHENTICATED before anything runs. An
 * authenticator may throw a {@link dev.alkdev.operations.CallError} to answer with its code
 * instead; any other exception is answered 500 and logged. It runs on the server's threads: keep it
 * fast, or cache.
 */
@FunctionalInterface
public interface Authenticator {
  /** The identity {@code token} stands for, or empty if it stands for nobody. */
  Optional<Identity> authenticate(String token);

  /**
   * A fixed table of tokens (for tests, demos and small deployments). Tokens are compared in
   * constant time, so a caller cannot learn a token from response times.
   */
  static Authenticator bearerTokens(Map<String, Identity> tokens) {
    Objects.requireNonNull(tokens, "tokens");
    Map<String, Identity> copy = Map.copyOf(tokens);
    return token -> {
      byte[] given = token.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      Identity found = null;
      for (Map.Entry<String, Identity> entry : copy.entrySet()) {
        byte[] known = entry.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (java.security.MessageDigest.isEqual(given, known)) {
          found = entry.getValue();
        }
      }
      return Optional.ofNullable(found);
    };
  }
}
