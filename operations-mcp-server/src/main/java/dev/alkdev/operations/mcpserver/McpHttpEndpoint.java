package dev.alkdev.operations.mcpserver;

import dev.alkdev.operations.serving.ConnectionStats;
import java.net.URI;

/** A running streamable HTTP endpoint ({@link McpServer#startHttp}). Closing it stops Jetty. */
public interface McpHttpEndpoint extends AutoCloseable {
  /** The endpoint's URL, {@code http://HOST:PORT/mcp}. */
  URI uri();

  /** The port it listens on (the one picked when 0 was asked). */
  int port();

  /** How many sessions are open now. */
  int sessionCount();

  /** The session table's counts since the endpoint started. */
  McpSessionStats sessionStats();

  /** What the endpoint's connection limits saw and did since it started. */
  ConnectionStats connectionStats();

  /** Ends every session (their running calls are cancelled) and stops listening. Idempotent. */
  @Override
  void close();
}
