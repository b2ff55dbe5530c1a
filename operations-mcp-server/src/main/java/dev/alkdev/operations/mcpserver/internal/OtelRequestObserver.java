package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.CallMetadata;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * OpenTelemetry's semantic conventions for MCP on the server side: a SERVER span per request named
 * {@code {mcp.method.name} {target}}, continuing the client's trace from the request's {@code
 * _meta}, and the histogram {@code mcp.server.operation.duration}. A tool result with {@code
 * isError} counts as a failure ({@code error.type} {@code tool_error}), as a JSON-RPC error does
 * (its code).
 */
public final class OtelRequestObserver implements RequestObserver {
  private static final String SCOPE = "dev.alkdev.operations.mcpserver";
  static final AttributeKey<String> METHOD = AttributeKey.stringKey("mcp.method.name");
  static final AttributeKey<String> PROTOCOL_VERSION =
      AttributeKey.stringKey("mcp.protocol.version");
  static final AttributeKey<String> SESSION_ID = AttributeKey.stringKey("mcp.session.id");
  static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("jsonrpc.request.id");
  static final AttributeKey<String> TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");
  static final AttributeKey<String> OPERATION_NAME =
      AttributeKey.stringKey("gen_ai.operation.name");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> STATUS_CODE =
      AttributeKey.stringKey("rpc.response.status_code");
  static final AttributeKey<String> NETWORK_TRANSPORT = AttributeKey.stringKey("network.transport");
  static final AttributeKey<String> PROTOCOL_NAME = AttributeKey.stringKey("network.protocol.name");

  private static final TextMapGetter<JsonNode> META =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(JsonNode meta) {
          List<String> keys = new ArrayList<>();
          meta.propertyNames().forEach(keys::add);
          return keys;
        }

        @Override
        public String get(JsonNode meta, String key) {
          JsonNode value = meta == null ? null : meta.get(key);
          return value != null && value.isString() ? value.asString() : null;
        }
      };

  private final Tracer tracer;
  private final DoubleHistogram duration;
  private final TextMapPropagator propagator;

  public OtelRequestObserver(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer(SCOPE);
    this.duration =
        openTelemetry
            .getMeter(SCOPE)
            .histogramBuilder("mcp.server.operation.duration")
            .setUnit("s")
            .setDescription(
                "The duration of the MCP request or notification as observed on the server")
            .setExplicitBucketBoundariesAdvice(
                List.of(
                    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0))
            .build();
    this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
  }

  @Override
  public Observation start(RequestInfo info) {
    Context parent =
        info.meta().isObject()
            ? propagator.extract(Context.root(), info.meta(), META)
            : Context.root();
    AttributesBuilder metric = Attributes.builder();
    metric.put(METHOD, info.method());
    metric.put(PROTOCOL_VERSION, info.protocolVersion());
    metric.put(NETWORK_TRANSPORT, info.overStdio() ? "pipe" : "tcp");
    if (!info.overStdio()) {
      metric.put(PROTOCOL_NAME, "http");
    }
    info.target()
        .ifPresent(
            tool -> {
              metric.put(TOOL_NAME, tool);
              metric.put(OPERATION_NAME, "execute_tool");
            });
    Attributes common = metric.build();
    AttributesBuilder spanAttributes = common.toBuilder();
    info.sessionId().ifPresent(id -> spanAttributes.put(SESSION_ID, id));
    if (info.requestId() != null && !info.requestId().isNull()) {
      spanAttributes.put(REQUEST_ID, info.requestId().asString());
    }
    Span span =
        tracer
            .spanBuilder(info.method() + info.target().map(t -> " " + t).orElse(""))
            .setSpanKind(SpanKind.SERVER)
            .setParent(parent)
            .setAllAttributes(spanAttributes.build())
            .startSpan();
    return new Watched(span, common, System.nanoTime());
  }

  private final class Watched implements Observation {
    private final Span span;
    private final Attributes common;
    private final long startNanos;
    private final AtomicBoolean ended = new AtomicBoolean();

    Watched(Span span, Attributes common, long startNanos) {
      this.span = span;
      this.common = common;
      this.startNanos = startNanos;
    }

    @Override
    public CallMetadata traceContext(CallMetadata fromClient) {
      Map<String, String> entries = new HashMap<>();
      propagator.inject(Context.root().with(span), entries, Map::put);
      return entries.isEmpty() ? fromClient : CallMetadata.of(entries);
    }

    @Override
    public void end(ObjectNode response) {
      JsonNode error = response.get("error");
      String errorType = null;
      if (error != null) {
        errorType = error.path("code").asString("");
        span.setAttribute(STATUS_CODE, errorType);
        span.setStatus(StatusCode.ERROR, error.path("message").asString(""));
      } else if (response.path("result").path("isError").asBoolean(false)) {
        errorType = "tool_error";
        span.setStatus(StatusCode.ERROR, "the tool's result is an error");
      }
      finish(errorType);
    }

    @Override
    public void cancelled() {
      span.setStatus(StatusCode.ERROR, "cancelled by the client");
      finish("cancelled");
    }

    private void finish(String errorType) {
      if (!ended.compareAndSet(false, true)) {
        return;
      }
      Attributes attributes = common;
      if (errorType != null) {
        span.setAttribute(ERROR_TYPE, errorType);
        attributes = common.toBuilder().put(ERROR_TYPE, errorType).build();
      }
      // The duration first: whoever sees the span ended may read the metric.
      duration.record((System.nanoTime() - startNanos) / 1e9, attributes);
      span.end();
    }
  }
}
