package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.CallMetadata;
import java.util.Optional;

/**
 * Watches each tool call the client makes, from its request to its end (telemetry hangs off this).
 * The default watches nothing; {@code McpClientTelemetry} makes OpenTelemetry's MCP spans and
 * metrics.
 */
public interface CallObserver {
  CallObserver NONE =
      (server, tool, protocolVersion, requestId, overStdio, metadata) -> Observation.NONE;

  /**
   * @param metadata the call's metadata: its trace context is the parent
   */
  Observation start(
      String server,
      String tool,
      String protocolVersion,
      String requestId,
      boolean overStdio,
      CallMetadata metadata);

  /** One call being watched. */
  interface Observation {
    Observation NONE =
        new Observation() {
          @Override
          public CallMetadata traceContext(CallMetadata fromCaller) {
            return fromCaller;
          }

          @Override
          public void end(Optional<String> errorType) {}
        };

    /** The trace context the request carries to the server: the caller's, or the call's own. */
    CallMetadata traceContext(CallMetadata fromCaller);

    /** The call ended; with an error type when it failed (an {@code isError} result too). */
    void end(Optional<String> errorType);
  }
}
