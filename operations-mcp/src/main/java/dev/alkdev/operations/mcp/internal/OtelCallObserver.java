package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.CallMetadata;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * OpenTelemetry's semantic conventions for MCP on the client side: a CLIENT span per tool call
 * named {@code tools/call {tool}}, a child of the call's own trace context, whose context goes to
 * the server in the request's {@code _meta}; and the histogram {@code
 * mcp.client.operation.duration}. An {@code isError} result counts as a failure ({@code error.type}
 * {@code tool_error}).
 */
public final class OtelCallObserver implements CallObserver {
  private static final String SCOPE = "dev.alkdev.operations.mcp";
  private static final AttributeKey<String> METHOD = AttributeKey.stringKey("mcp.method.name");
  private static final AttributeKey<String> PROTOCOL_VERSION =
      AttributeKey.stringKey("mcp.protocol.version");
  private static final AttributeKey<String> REQUEST_ID =
      AttributeKey.stringKey("jsonrpc.request.id");
  private static final AttributeKey<String> TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");
  private static final AttributeKey<String> OPERATION_NAME =
      AttributeKey.stringKey("gen_ai.operation.name");
  private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  private static final AttributeKey<String> NETWORK_TRANSPORT =
      AttributeKey.stringKey("network.transport");
  private static final AttributeKey<String> SERVER = AttributeKey.stringKey("mcp.server.name");

  private static final TextMapGetter<CallMetadata> METADATA =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(CallMetadata metadata) {
          return metadata.asMap().keySet();
        }

        @Override
        public String get(CallMetadata metadata, String key) {
          return metadata == null ? null : metadata.get(key).orElse(null);
        }
      };

  private final Tracer tracer;
  private final DoubleHistogram duration;
  private final TextMapPropagator propagator;

  public OtelCallObserver(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer(SCOPE);
    this.duration =
        openTelemetry
            .getMeter(SCOPE)
            .histogramBuilder("mcp.client.operation.duration")
            .setUnit("s")
            .setDescription("The duration of the MCP request as observed by the client")
            .setExplicitBucketBoundariesAdvice(
                List.of(
                    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0))
            .build();
    this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
  }

  @Override
  public Observation start(
      String server,
      String tool,
      String protocolVersion,
      String requestId,
      boolean overStdio,
      CallMetadata metadata) {
    Context parent = propagator.extract(Context.current(), metadata, METADATA);
    Attributes common =
        Attributes.builder()
            .put(METHOD, "tools/call")
            .put(TOOL_NAME, tool)
            .put(OPERATION_NAME, "execute_tool")
            .put(PROTOCOL_VERSION, protocolVersion)
            .put(NETWORK_TRANSPORT, overStdio ? "pipe" : "tcp")
            .build();
    Span span =
        tracer
            .spanBuilder("tools/call " + tool)
            .setSpanKind(SpanKind.CLIENT)
            .setParent(parent)
            .setAllAttributes(common)
            .setAttribute(REQUEST_ID, requestId)
            .setAttribute(SERVER, server)
            .startSpan();
    long start = System.nanoTime();
    AtomicBoolean ended = new AtomicBoolean();
    return new Observation() {
      @Override
      public CallMetadata traceContext(CallMetadata fromCaller) {
        Map<String, String> entries = new HashMap<>();
        propagator.inject(Context.root().with(span), entries, Map::put);
        return entries.isEmpty() ? fromCaller : CallMetadata.of(entries);
      }

      @Override
      public void end(Optional<String> errorType) {
        if (!ended.compareAndSet(false, true)) {
          return;
        }
        Attributes attributes = common;
        if (errorType.isPresent()) {
          span.setAttribute(ERROR_TYPE, errorType.get());
          span.setStatus(StatusCode.ERROR, errorType.get());
          attributes = common.toBuilder().put(ERROR_TYPE, errorType.get()).build();
        }
        // The duration first: whoever sees the span ended may read the metric.
        duration.record((System.nanoTime() - start) / 1e9, attributes);
        span.end();
      }
    };
  }
}
