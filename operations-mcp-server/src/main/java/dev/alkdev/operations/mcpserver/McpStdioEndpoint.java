package dev.alkdev.operations.mcpserver;

import java.time.Duration;

/**
 * MCP over a pair of streams ({@link McpServer#serveStdio}): one session, newline-delimited
 * JSON-RPC. It ends when its input ends (the host closed it) or on {@link #close()}.
 */
public interface McpStdioEndpoint extends AutoCloseable {
  /** Waits until the input has ended and every answer was written; false on timeout. */
  boolean awaitClosed(Duration timeout) throws InterruptedException;

  /** Cancels the running calls and stops reading. Idempotent. */
  @Override
  void close();
}
