package dev.alkdev.operations.mcp;

/**
 * Receives the progress of tool calls. Core has no progress channel for handlers, so progress goes
 * to a listener set on {@link McpClientOptions}; match calls by {@link McpProgress#requestId()}.
 * Called on an SDK thread; must not block.
 */
@FunctionalInterface
public interface McpProgressListener {
  void progress(McpProgress progress);
}
