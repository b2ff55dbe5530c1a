package dev.alkdev.operations.mcp;

import dev.alkdev.operations.mcp.internal.AuthorizationPrompts;
import java.net.URI;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * How the user is asked to authorize an MCP client: shown the authorization server's page for
 * {@code authorizationUrl}, after which the server sends the browser to {@code redirectUri}, a
 * loopback address the client listens on. A prompt that sees that redirect itself (one that fetches
 * the page without a browser) completes with it; one that only opens a browser completes empty once
 * it has, and the client waits for the redirect to reach its listener. A failed future ends the
 * authorization with its message.
 */
@FunctionalInterface
public interface McpAuthorizationPrompt {

  CompletableFuture<Optional<URI>> authorize(URI authorizationUrl, URI redirectUri);

  /**
   * Opens the system browser at the authorization page and also prints its address to standard
   * error, for when there is no browser to open (a remote shell) and the user opens it elsewhere.
   */
  static McpAuthorizationPrompt systemBrowser() {
    return AuthorizationPrompts::systemBrowser;
  }

  /**
   * Fetches the authorization page itself and follows the authorization server's redirects, at most
   * ten, until one leads to the redirect URI: for authorization servers that approve at once (test
   * servers, or a user already signed in that needs no consent). A page that asks the user for
   * anything fails the authorization.
   */
  static McpAuthorizationPrompt headless() {
    return AuthorizationPrompts::headless;
  }

  /**
   * {@link #headless()} when the environment variable {@code OPS_OAUTH_HEADLESS} is {@code 1},
   * {@link #systemBrowser()} otherwise.
   */
  static McpAuthorizationPrompt fromEnvironment() {
    return "1".equals(System.getenv("OPS_OAUTH_HEADLESS")) ? headless() : systemBrowser();
  }
}
