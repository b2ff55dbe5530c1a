package dev.alkdev.operations.mcpserver;

import dev.alkdev.operations.mcp.McpClientConfig;

/** {@link RoundTripTest} over a 2025 session: initialize, the session's GET stream, DELETE. */
class LegacyRoundTripTest extends RoundTripTest {
  @Override
  McpClientConfig.Era era() {
    return McpClientConfig.Era.LEGACY;
  }
}
