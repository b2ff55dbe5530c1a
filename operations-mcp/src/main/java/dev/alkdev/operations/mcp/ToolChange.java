package dev.alkdev.operations.mcp;

import dev.alkdev.operations.OperationSpec;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One difference between two listings of a server's tools, found on a refresh (after {@code
 * notifications/tools/list_changed} or {@link McpClientWrapper#refresh()}).
 *
 * @param kind added, removed or changed
 * @param toolName the tool's name as the server spells it
 * @param oldSpec the spec before, empty for an added tool
 * @param newSpec the spec after, empty for a removed tool
 * @param changed what differs for a changed tool; empty otherwise
 */
public record ToolChange(
    Kind kind,
    String toolName,
    Optional<OperationSpec> oldSpec,
    Optional<OperationSpec> newSpec,
    Set<Aspect> changed) {

  /** What happened to the tool. */
  public enum Kind {
    ADDED,
    REMOVED,
    CHANGED
  }

  /**
   * What part of a tool changed. A host that approved a tool by its description and schema should
   * ask again when any of these change.
   */
  public enum Aspect {
    DESCRIPTION,
    INPUT_SCHEMA,
    OUTPUT_SCHEMA,
    TYPE
  }

  public ToolChange {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(toolName, "toolName");
    Objects.requireNonNull(oldSpec, "oldSpec");
    Objects.requireNonNull(newSpec, "newSpec");
    changed = Set.copyOf(changed);
  }
}
