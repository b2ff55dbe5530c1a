package dev.alkdev.operations.mcp;

import dev.alkdev.operations.mcp.internal.CallObserver;
import dev.alkdev.operations.mcp.internal.OtelCallObserver;
import io.opentelemetry.api.OpenTelemetry;
import java.util.Objects;

/**
 * OpenTelemetry for an MCP client's tool calls, as OpenTelemetry's semantic conventions for MCP
 * describe it: a CLIENT span per call named {@code tools/call {tool}}, a child of the call's trace
 * context (the operation's span with {@code operations-tracing}), with {@code mcp.method.name},
 * {@code gen_ai.tool.name}, {@code mcp.protocol.version}, {@code jsonrpc.request.id}, {@code
 * network.transport} and, when it failed, {@code error.type} (the error code, or {@code tool_error}
 * for a result with {@code isError}); its context goes to the server in the request's {@code
 * _meta}. And the histogram {@code mcp.client.operation.duration} in seconds. Needs {@code
 * io.opentelemetry:opentelemetry-api} on the class path (an optional dependency of this module).
 */
public final class McpClientTelemetry {
  private final CallObserver observer;

  private McpClientTelemetry(CallObserver observer) {
    this.observer = observer;
  }

  /** Spans and metrics through {@code openTelemetry}'s tracer, meter and propagators. */
  public static McpClientTelemetry of(OpenTelemetry openTelemetry) {
    Objects.requireNonNull(openTelemetry, "openTelemetry");
    return new McpClientTelemetry(new OtelCallObserver(openTelemetry));
  }

  /** The observer behind it; not API. */
  public CallObserver observer() {
    return observer;
  }
}
