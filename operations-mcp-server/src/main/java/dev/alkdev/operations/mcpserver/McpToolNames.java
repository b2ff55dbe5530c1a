package dev.alkdev.operations.mcpserver;

/**
 * The alphabet of the tool names a server offers. Either way a name is at most 64 characters, is
 * the same for the same operations whatever order they were registered in, and two operations never
 * get one name (the later id, in id order, gets a checksum of its own id appended; see {@link
 * McpServer#collisions()}).
 */
public enum McpToolNames {
  /** Letters, digits and {@code _ - .}: operation ids as they are ({@code github.repos.get}). */
  STANDARD,

  /**
   * Letters, digits, {@code _} and {@code -} only, as some model APIs require of function names:
   * every other character becomes {@code _} ({@code github.repos.get} is {@code github_repos_get}).
   */
  MODEL_SAFE
}
