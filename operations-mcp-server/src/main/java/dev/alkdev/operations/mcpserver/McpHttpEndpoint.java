package dev.alkdev.operations.mcpserver;

import java.net.URI;

/** A running streamable HTTP endpoint ({@link McpServer#startHttp}). Closing it stops Jetty. */
public interface McpHttpEndpoint extends AutoCloseable {
  /** The endpoint's URL, {@code http://HOST:PORT/mcp}. */
  URI uri();

  /** The port it listens on (the one picked when 0 was asked). */
  int port();

  /** How many sessions are open now. */
  int sessionCount();

  /** Ends every session (their running calls are cancelled) and stops listening. Idempotent. */
  @Override
  void close();
}
