package dev.alkdev.operations.mcpserver.internal;

import tools.jackson.databind.node.ObjectNode;

/**
 * Where a session's messages that belong to no request go (list_changed, logs): GET stream, stdout.
 */
interface Channel {
  /** Sends {@code message}; false when the channel is closed or cannot take it now (dropped). */
  boolean send(ObjectNode message);

  void close();
}
