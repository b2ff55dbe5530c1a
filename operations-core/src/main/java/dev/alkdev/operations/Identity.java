package dev.alkdev.operations;

import java.util.Objects;
import java.util.Set;

/**
 * Who is calling: a subject and the scopes it holds. On the call protocol the identity is stamped
 * by the side that authenticated the connection, never taken from a payload.
 *
 * @param subject who the caller is ({@code "anonymous"} for nobody in particular)
 * @param scopes what the caller may do
 */
public record Identity(String subject, Set<String> scopes) {
  private static final Identity ANONYMOUS = new Identity("anonymous", Set.of());

  public Identity {
    Objects.requireNonNull(subject, "subject");
    if (subject.isBlank()) {
      throw new IllegalArgumentException("subject must not be blank");
    }
    scopes = Set.copyOf(scopes);
  }

  /** Nobody in particular, with no scopes. */
  public static Identity anonymous() {
    return ANONYMOUS;
  }

  public static Identity of(String subject, String... scopes) {
    return new Identity(subject, Set.of(scopes));
  }

  public boolean hasScope(String scope) {
    return scopes.contains(scope);
  }
}
