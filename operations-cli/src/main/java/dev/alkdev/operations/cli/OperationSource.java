package dev.alkdev.operations.cli;

import dev.alkdev.operations.OperationRegistry;
import java.util.concurrent.CompletableFuture;

/**
 * Somewhere operations come from: the demo, an OpenAPI document, an MCP server. The command opens
 * every configured source, loads them all at once into one {@link OperationRegistry} (showing a
 * progress line while they load), runs the command, then closes them.
 *
 * <p>A source owns what it opens (an HTTP client, an MCP subprocess) and releases it in {@link
 * #close}, which must be safe to call whether or not {@link #load} finished, and more than once.
 */
public interface OperationSource extends AutoCloseable {

  /** The source's name, as the user wrote it: the namespace of its operations. */
  String name();

  /** What kind of source this is, for messages: "demo", "OpenAPI", "MCP". */
  String kind();

  /**
   * Starts loading and registers the source's operations into {@code registry}. Must not block the
   * caller for long (fetching a document or starting a server happens on another thread); the
   * future fails with the reason the source could not be loaded, said so the user can act on it.
   */
  CompletableFuture<Void> load(OperationRegistry registry);

  /** Releases what the source holds; never throws. */
  @Override
  void close();
}
