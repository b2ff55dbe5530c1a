package dev.alkdev.operations.source;

import dev.alkdev.operations.OperationRegistry;
import java.util.concurrent.CompletableFuture;

/**
 * Somewhere operations come from: an OpenAPI document, an MCP server, a remote catalog. A host
 * opens its sources, loads them all at once into one {@link OperationRegistry}, uses the
 * operations, then closes the sources.
 *
 * <p>A source owns what it opens (an HTTP client, a subprocess, a connection) and releases it in
 * {@link #close}, which must be safe to call whether or not {@link #load} finished, and more than
 * once.
 */
public interface OperationSource extends AutoCloseable {

  /** The source's name, as its entry gave it: the namespace of its operations. */
  String name();

  /** What kind of source this is, said for people: "OpenAPI", "MCP", "demo". */
  String kind();

  /**
   * Starts loading and registers the source's operations into {@code registry}. Does not block the
   * caller for long (fetching a document or starting a server happens on another thread); the
   * future fails with the reason the source could not be loaded, said so the user can act on it.
   */
  CompletableFuture<Void> load(OperationRegistry registry);

  /** Releases what the source holds; never throws. */
  @Override
  void close();
}
