package dev.alkdev.operations.mcpserver;

import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import java.util.function.Function;

/**
 * Whether a tool's call runs as a task (MCP's tasks extension, {@code
 * io.modelcontextprotocol/tasks}, 2026-07-28) for a client that declares the extension on its
 * request: the server answers at once with the task, and the client polls {@code tasks/get} for its
 * status and result, and may cancel it with {@code tasks/cancel}. See docs/mcp.md, "Tasks".
 */
public enum McpTaskMode {
  /** Always answered in the request itself. */
  FORBIDDEN,
  /**
   * A task for a client that declares the extension; answered in the request for one that does not.
   */
  OPTIONAL,
  /**
   * A task for a client that declares the extension; a 2026-07-28 client that does not is refused
   * with {@code -32021} (missing client capability). A 2025 client is answered in the request.
   */
  REQUIRED;

  /**
   * The default: no tool runs as a task, and the extension is not advertised. A SUBSCRIPTION's
   * items then reach the client as they come (as progress); in a task they come with its result.
   */
  public static Function<OperationSpec, McpTaskMode> none() {
    return spec -> FORBIDDEN;
  }

  /** SUBSCRIPTIONs may run as tasks (their items come back in the task's result). */
  public static Function<OperationSpec, McpTaskMode> subscriptionsOptional() {
    return spec -> spec.type() == OperationType.SUBSCRIPTION ? OPTIONAL : FORBIDDEN;
  }

  /** Every tool may run as a task, for clients that declare the extension. */
  public static Function<OperationSpec, McpTaskMode> allOptional() {
    return spec -> OPTIONAL;
  }
}
