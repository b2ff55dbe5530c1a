package dev.alkdev.operations;

import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Who may call an operation: an identity needs every one of the required scopes. No required scopes
 * means anyone may call it.
 *
 * @param requiredScopes every scope a caller must hold
 */
public record AccessControl(Set<String> requiredScopes) {
  private static final AccessControl OPEN = new AccessControl(Set.of());

  public AccessControl {
    requiredScopes = Set.copyOf(requiredScopes);
    for (String scope : requiredScopes) {
      if (scope.isBlank()) {
        throw new IllegalArgumentException("a required scope must not be blank");
      }
    }
  }

  /** No scopes required. */
  public static AccessControl open() {
    return OPEN;
  }

  public static AccessControl requireScopes(String... scopes) {
    return new AccessControl(Set.of(scopes));
  }

  /** Whether {@code identity} holds every required scope. */
  public boolean allows(Identity identity) {
    Objects.requireNonNull(identity, "identity");
    return identity.scopes().containsAll(requiredScopes);
  }

  /**
   * Throws {@link ErrorCode#ACCESS_DENIED} unless {@code identity} holds every required scope; the
   * message names the missing scopes (they are part of the public spec, so naming them leaks
   * nothing).
   */
  public void check(Identity identity, String operationId) {
    if (!allows(identity)) {
      Set<String> missing = new TreeSet<>(requiredScopes);
      missing.removeAll(identity.scopes());
      throw CallError.of(
          ErrorCode.ACCESS_DENIED,
          "Access denied to " + operationId + ": missing scope(s) " + String.join(", ", missing));
    }
  }
}
