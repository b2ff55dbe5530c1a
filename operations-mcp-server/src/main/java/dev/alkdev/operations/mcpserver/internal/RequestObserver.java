package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.CallMetadata;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Watches each MCP request from its arrival to its answer (telemetry hangs off this). The default
 * watches nothing; {@code McpServerTelemetry} makes OpenTelemetry's MCP spans and metrics.
 */
public interface RequestObserver {
  RequestObserver NONE = info -> Observation.NONE;

  Observation start(RequestInfo info);

  /**
   * One request as it arrived.
   *
   * @param target the tool's name for tools/call; empty for methods without one
   * @param sessionId a 2025 HTTP session's id; empty otherwise
   * @param overStdio whether it came over stdio (else over HTTP)
   * @param meta the request's {@code params._meta} (trace context, among others)
   */
  record RequestInfo(
      String method,
      Optional<String> target,
      String protocolVersion,
      Optional<String> sessionId,
      JsonNode requestId,
      boolean overStdio,
      JsonNode meta) {}

  /** One request being watched. */
  interface Observation {
    Observation NONE =
        new Observation() {
          @Override
          public CallMetadata traceContext(CallMetadata fromClient) {
            return fromClient;
          }

          @Override
          public void end(ObjectNode response) {}

          @Override
          public void cancelled() {}
        };

    /** The trace context the served call continues: the client's, or the observation's own. */
    CallMetadata traceContext(CallMetadata fromClient);

    /** The request is answered with {@code response}. */
    void end(ObjectNode response);

    /** The request ended without an answer (cancelled by the client). */
    void cancelled();
  }
}
