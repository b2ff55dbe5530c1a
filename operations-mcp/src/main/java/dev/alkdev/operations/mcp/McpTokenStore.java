package dev.alkdev.operations.mcp;

import dev.alkdev.operations.mcp.internal.FileTokenStore;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where an MCP client keeps the OAuth tokens it obtained, by the server (resource) they are for.
 * Implementations are thread-safe and never log a token.
 */
public interface McpTokenStore {

  /** The tokens held for {@code resource}, if any. */
  Optional<McpOAuthTokens> load(URI resource);

  /** Keeps {@code tokens} for their resource, replacing what was held for it. */
  void save(McpOAuthTokens tokens);

  /** Forgets what is held for {@code resource}. */
  void remove(URI resource);

  /** Tokens kept in this process only; the default. */
  static McpTokenStore inMemory() {
    Map<URI, McpOAuthTokens> tokens = new ConcurrentHashMap<>();
    return new McpTokenStore() {
      @Override
      public Optional<McpOAuthTokens> load(URI resource) {
        return Optional.ofNullable(tokens.get(resource));
      }

      @Override
      public void save(McpOAuthTokens saved) {
        tokens.put(saved.resource(), saved);
      }

      @Override
      public void remove(URI resource) {
        tokens.remove(resource);
      }
    };
  }

  /**
   * Tokens kept in a JSON file that only its owner may read: it is written with mode 0600 (on file
   * systems with POSIX permissions) by replacing it atomically, and a file that others may read or
   * write is refused rather than used. A missing file is an empty store.
   */
  static McpTokenStore file(Path path) {
    return new FileTokenStore(Objects.requireNonNull(path, "path"));
  }
}
