package dev.alkdev.operations.mcp;

import dev.alkdev.operations.OperationDefinition;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.Registration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One connected MCP server and its tools as operations (namespace = server name). Made by {@link
 * McpClients#createMcpClient}. Thread-safe. Closing it closes the connection (and for stdio kills
 * the server's whole process tree) and unregisters its operations from every registry it registered
 * them in.
 */
public interface McpClientWrapper extends AutoCloseable {

  /** The server's name, which is also the namespace of its operations. */
  String name();

  /** The config it was created from. */
  McpClientConfig config();

  /**
   * The MCP revision spoken with the server: {@code 2026-07-28} when the server speaks it (no
   * handshake, no session), else the 2025 revision {@code initialize} agreed on.
   */
  String protocolVersion();

  /** The current operations, one per tool, in the server's order. */
  List<OperationDefinition> operations();

  /**
   * Operation name to the tool's name, for the tools whose names core does not allow as operation
   * names (see docs/mcp.md); tools whose names are kept unchanged are not listed.
   */
  Map<String, String> renamedTools();

  /**
   * Lists the tools again (all pages), updates {@link #operations()} and every registry this
   * wrapper registered into, and reports the differences (also to the {@link ToolChangeListener}
   * when there are any). Completes exceptionally with a {@code CallError}.
   */
  CompletableFuture<List<ToolChange>> refresh();

  /**
   * Registers the operations into {@code registry} and keeps them current there as tools change.
   * Removing the registration unregisters them and stops the updates.
   */
  Registration registerInto(OperationRegistry registry);

  /** Whether the connection is open. */
  boolean isOpen();

  /** Closes the connection and unregisters the operations; does nothing when already closed. */
  @Override
  void close();
}
