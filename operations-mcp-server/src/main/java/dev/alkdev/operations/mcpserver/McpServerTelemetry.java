package dev.alkdev.operations.mcpserver;

import dev.alkdev.operations.mcpserver.internal.OtelRequestObserver;
import dev.alkdev.operations.mcpserver.internal.RequestObserver;
import io.opentelemetry.api.OpenTelemetry;
import java.util.Objects;

/**
 * OpenTelemetry for an MCP server, as OpenTelemetry's semantic conventions for MCP describe it: a
 * SERVER span per request, named {@code {mcp.method.name} {target}} ({@code tools/call echo}),
 * continuing the client's trace from the request's {@code _meta}, with {@code mcp.method.name},
 * {@code mcp.protocol.version}, {@code mcp.session.id}, {@code jsonrpc.request.id}, {@code
 * gen_ai.tool.name}, {@code network.transport} and, when it failed, {@code error.type} (the
 * JSON-RPC code, or {@code tool_error} for a result with {@code isError}); and the histogram {@code
 * mcp.server.operation.duration} in seconds. The served call's own span ({@code
 * operations-tracing}) is the request span's child. Needs {@code
 * io.opentelemetry:opentelemetry-api} on the class path (an optional dependency of this module).
 */
public final class McpServerTelemetry {
  private final RequestObserver observer;

  private McpServerTelemetry(RequestObserver observer) {
    this.observer = observer;
  }

  /** Spans and metrics through {@code openTelemetry}'s tracer, meter and propagators. */
  public static McpServerTelemetry of(OpenTelemetry openTelemetry) {
    Objects.requireNonNull(openTelemetry, "openTelemetry");
    return new McpServerTelemetry(new OtelRequestObserver(openTelemetry));
  }

  RequestObserver observer() {
    return observer;
  }
}
