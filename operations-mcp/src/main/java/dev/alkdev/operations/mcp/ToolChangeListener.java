package dev.alkdev.operations.mcp;

import java.util.List;

/**
 * Told when a server's tool list changed, after the wrapper re-registered its operations. A host
 * that approved tools by description and schema uses the {@link ToolChange.Kind#CHANGED} entries to
 * ask for approval again. Called on an SDK or refresh thread; must not block for long.
 */
@FunctionalInterface
public interface ToolChangeListener {
  void toolsChanged(String serverName, List<ToolChange> changes);
}
