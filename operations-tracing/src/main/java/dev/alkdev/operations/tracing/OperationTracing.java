package dev.alkdev.operations.tracing;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.CallObserver;
import dev.alkdev.operations.ContextKey;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationInterceptor;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * A span per call, on the calling side and on the serving side, linked across every hop through the
 * call's {@link CallMetadata} ({@code traceparent}, {@code tracestate}: W3C Trace Context). Install
 * it on the registry's builder of every node:
 *
 * <pre>{@code
 * OperationRegistry registry = OperationRegistry.builder()
 *     .interceptor(OperationTracing.create(openTelemetry))
 *     .build();
 * }</pre>
 *
 * <p>A call made in this process ({@code IN_PROCESS}) gets a {@link SpanKind#CLIENT} span whose
 * parent is, in order: the span of the call whose handler makes it (a nested call), the trace
 * context in the call's metadata (a caller that set {@code traceparent}), or the current
 * OpenTelemetry context. A served call ({@code SERVED}) gets a {@link SpanKind#SERVER} span whose
 * parent is the trace context in its metadata, which the caller's side put there. The span's own
 * context then replaces {@code traceparent}/{@code tracestate} in the metadata the call carries on,
 * so the next hop (the call protocol, an HTTP upstream that sends it, an MCP upstream's {@code
 * _meta}) continues the trace, and the handler's log lines carry its trace id (MDC).
 *
 * <p>Names and attributes follow OpenTelemetry's RPC conventions: the span is named after the
 * operation id ({@code rpc.service}/{@code rpc.method} are its namespace and name; {@code
 * rpc.system} is {@code operations}); a failed call has status ERROR and {@code error.type} set to
 * its error code. A call for an operation the registry does not have is named {@code unknown} (its
 * id is the caller's text, kept in {@code operations.operation_id}). Only the API is used; with no
 * SDK installed the spans are no-ops and cost little.
 */
public final class OperationTracing implements OperationInterceptor {
  /** The instrumentation scope name. */
  public static final String INSTRUMENTATION_NAME = "dev.alkdev.operations";

  /**
   * The OpenTelemetry context of the call a handler runs in: a handler that starts spans of its own
   * (or calls other code that does) can parent them with {@code ctx.attribute(OTEL_CONTEXT)}.
   */
  public static final ContextKey<Context> OTEL_CONTEXT = ContextKey.of("otel.context");

  static final AttributeKey<String> RPC_SYSTEM = AttributeKey.stringKey("rpc.system");
  static final AttributeKey<String> RPC_SERVICE = AttributeKey.stringKey("rpc.service");
  static final AttributeKey<String> RPC_METHOD = AttributeKey.stringKey("rpc.method");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> OPERATION_ID =
      AttributeKey.stringKey("operations.operation_id");
  static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("operations.request_id");
  static final AttributeKey<Boolean> STREAM = AttributeKey.booleanKey("operations.stream");
  static final AttributeKey<Long> STREAM_ITEMS = AttributeKey.longKey("operations.stream.items");

  private static final String TRACEPARENT = "traceparent";
  private static final String TRACESTATE = "tracestate";
  private static final TextMapPropagator W3C = W3CTraceContextPropagator.getInstance();
  private static final TextMapGetter<CallMetadata> FROM_METADATA =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(CallMetadata carrier) {
          return carrier.asMap().keySet();
        }

        @Override
        public String get(CallMetadata carrier, String key) {
          return carrier == null ? null : carrier.get(key).orElse(null);
        }
      };

  private final Tracer tracer;

  private OperationTracing(Tracer tracer) {
    this.tracer = tracer;
  }

  /** Tracing with {@code openTelemetry}'s tracer for this library. */
  public static OperationTracing create(OpenTelemetry openTelemetry) {
    return new OperationTracing(
        Objects.requireNonNull(openTelemetry, "openTelemetry").getTracer(INSTRUMENTATION_NAME));
  }

  /** Tracing with {@code tracer}. */
  public static OperationTracing create(Tracer tracer) {
    return new OperationTracing(Objects.requireNonNull(tracer, "tracer"));
  }

  @Override
  public void intercept(Invocation invocation, Chain chain) {
    OperationContext context = invocation.context();
    Optional<OperationSpec> spec = invocation.spec();
    boolean served = invocation.origin() == Origin.SERVED;
    // Few attributes, none of which costs work to compute: the operation id is the span's name
    // unless the registry does not know it; the request id is a served call's (the caller sent
    // it), not an in-process call's, whose id is drawn lazily and mostly never (D56).
    SpanBuilder builder =
        tracer
            .spanBuilder(spec.isPresent() ? spec.get().id() : "unknown")
            .setSpanKind(served ? SpanKind.SERVER : SpanKind.CLIENT)
            .setParent(parent(context, served))
            .setAttribute(RPC_SYSTEM, "operations");
    if (spec.isPresent()) {
      builder.setAttribute(RPC_SERVICE, spec.get().namespace());
      builder.setAttribute(RPC_METHOD, spec.get().name());
    } else {
      builder.setAttribute(OPERATION_ID, invocation.operationId());
    }
    if (served) {
      builder.setAttribute(REQUEST_ID, context.requestId());
    }
    if (invocation.stream()) {
      builder.setAttribute(STREAM, true);
    }
    Span span = builder.startSpan();
    SpanContext spanContext = span.getSpanContext();
    boolean recording = span.isRecording();
    if (!recording && !spanContext.isValid()) {
      // OpenTelemetry's no-op API (no SDK) with no trace to continue: there is no span to end and
      // no trace context to carry, so the call goes on as it came (D71).
      chain.proceed(context);
      return;
    }
    Context otel = Context.root().with(span);
    // One copy of the metadata and one attribute, in one context copy. A span that does not record
    // (the sampler said no, or the no-op API continuing a caller's trace) still carries its context
    // on, so that the next hops know the decision, but has nothing to end (D71).
    OperationContext traced =
        context.toBuilder()
            .attribute(OTEL_CONTEXT, otel)
            .metadata(withTraceContext(context.metadata(), spanContext, otel))
            .build();
    // Current while the chain starts the call, for code that runs on this thread and reads
    // Context.current() (an instrumented client in an async handler, say).
    try (Scope scope = otel.makeCurrent()) {
      if (recording) {
        chain.proceed(traced, new Ended(span, invocation.stream()));
      } else {
        chain.proceed(traced);
      }
    }
  }

  private static Context parent(OperationContext context, boolean served) {
    if (!served) {
      Optional<Context> outer = context.attribute(OTEL_CONTEXT);
      if (outer.isPresent()) {
        return outer.get();
      }
    }
    if (context.metadata().get(TRACEPARENT).isPresent()) {
      return W3C.extract(Context.root(), context.metadata(), FROM_METADATA);
    }
    // A served call without trace context starts a trace; an in-process one joins the caller's.
    return served ? Context.root() : Context.current();
  }

  /** {@code metadata} with the span's trace context in place of the one it had. */
  private static CallMetadata withTraceContext(
      CallMetadata metadata, SpanContext span, Context otel) {
    // The ids as they are (the SDK's hex strings): the metadata writes the traceparent only if a
    // hop or a handler reads it (D71), which an in-process call mostly never does; the
    // propagator's setter would need a map copy per call.
    Optional<String> tracestate = Optional.empty();
    if (!span.getTraceState().isEmpty()) {
      // Rare (a vendor's entries): the propagator encodes them.
      Map<String, String> w3c = new HashMap<>(4);
      W3C.inject(otel, w3c, (carrier, key, value) -> carrier.put(key, value));
      tracestate = Optional.ofNullable(w3c.get(TRACESTATE));
    }
    return metadata.withTraceContext(
        span.getTraceId(), span.getSpanId(), span.getTraceFlags().asByte(), tracestate);
  }

  /** Ends the span with the call's outcome. */
  private static final class Ended implements CallObserver {
    private final Span span;
    private final boolean stream;
    private long items;

    Ended(Span span, boolean stream) {
      this.span = span;
      this.stream = stream;
    }

    @Override
    public void onItem(ResponseEnvelope<JsonNode> item) {
      items++;
    }

    @Override
    public void onEnd(Optional<CallError> failure) {
      if (stream) {
        span.setAttribute(STREAM_ITEMS, items);
      }
      if (failure.isPresent()) {
        CallError error = failure.get();
        span.setAttribute(ERROR_TYPE, error.code().name());
        span.setStatus(StatusCode.ERROR, error.getMessage());
      }
      span.end();
    }
  }
}
