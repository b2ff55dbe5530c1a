package dev.alkdev.operations.mcpserver;

import dev.alkdev.operations.Identity;
import java.util.Optional;

/**
 * Turns the bearer token of an HTTP request into the caller's {@link Identity} (its subject and
 * scopes). Empty means the token is not valid: the request is answered 401 with {@code
 * WWW-Authenticate}. The token is never passed on: calls the served operations make to upstream
 * services carry their own credentials. Called on Jetty's threads for every request: keep it fast
 * (cache verified tokens) and thread-safe; a method that throws counts as an invalid token.
 */
@FunctionalInterface
public interface McpAuthenticator {
  Optional<Identity> authenticate(String bearerToken);
}
