package dev.alkdev.operations.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class OperationTracingTest {
  final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();

  @AfterEach
  void close() {
    provider.close();
  }

  OperationRegistry traced() {
    return OperationRegistry.builder()
        .interceptor(OperationTracing.create(provider.get(OperationTracing.INSTRUMENTATION_NAME)))
        .build();
  }

  List<SpanData> awaitSpans(int count) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (exporter.getFinishedSpanItems().size() < count) {
      if (System.nanoTime() > end) {
        throw new AssertionError("spans: " + exporter.getFinishedSpanItems());
      }
      Thread.sleep(5);
    }
    return exporter.getFinishedSpanItems();
  }

  static SpanData span(List<SpanData> spans, String name, SpanKind kind) {
    return spans.stream()
        .filter(s -> s.getName().equals(name) && s.getKind() == kind)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + " span " + name + " in " + spans));
  }

  /**
   * Node A's handler calls node B over the call protocol (in-process transport); B's handler makes
   * a nested call. One trace: A's span, B's served span under it, B's nested span under that; and
   * B's handler logs with the trace id in its MDC.
   */
  @Test
  void aCallAcrossTwoRegistriesIsOneCorrectlyParentedTrace() throws Exception {
    List<String> mdcSeenByB = new CopyOnWriteArrayList<>();
    try (InProcessPubSub pubsub = InProcessPubSub.create();
        OperationRegistry nodeA = traced();
        OperationRegistry nodeB = traced();
        PendingRequestMap callsFromA = PendingRequestMap.create(pubsub)) {
      nodeB.register(
          OperationSpec.builder("b", "inner").build(),
          (in, ctx) -> {
            mdcSeenByB.add(MDC.get("trace_id") + " " + MDC.get("request_id"));
            return in;
          });
      nodeB.register(
          OperationSpec.builder("b", "outer").build(),
          (in, ctx) -> {
            mdcSeenByB.add(MDC.get("trace_id") + " " + MDC.get("request_id"));
            return ctx.env().call("b.inner", in).get(5, TimeUnit.SECONDS).data();
          });
      nodeA.register(
          OperationSpec.builder("a", "edge").build(),
          (in, ctx) ->
              callsFromA.call("b.outer", in, CallOptions.of(ctx)).get(5, TimeUnit.SECONDS).data());
      try (CallHandler servingB = CallHandler.serve(nodeB, pubsub)) {
        assertThat(nodeA.execute("a.edge", 5).get(5, TimeUnit.SECONDS).data().asInt()).isEqualTo(5);
        List<SpanData> spans = awaitSpans(3);
        SpanData edge = span(spans, "a.edge", SpanKind.CLIENT);
        SpanData outer = span(spans, "b.outer", SpanKind.SERVER);
        SpanData inner = span(spans, "b.inner", SpanKind.CLIENT);
        assertThat(edge.getParentSpanContext().isValid()).isFalse();
        assertThat(outer.getTraceId()).isEqualTo(edge.getTraceId());
        assertThat(outer.getParentSpanId()).isEqualTo(edge.getSpanId());
        assertThat(outer.getParentSpanContext().isRemote()).isTrue();
        assertThat(inner.getTraceId()).isEqualTo(edge.getTraceId());
        assertThat(inner.getParentSpanId()).isEqualTo(outer.getSpanId());
        assertThat(outer.getAttributes().get(AttributeKey.stringKey("rpc.system")))
            .isEqualTo("operations");
        assertThat(outer.getAttributes().get(AttributeKey.stringKey("rpc.service"))).isEqualTo("b");
        assertThat(outer.getAttributes().get(AttributeKey.stringKey("rpc.method")))
            .isEqualTo("outer");
        assertThat(outer.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(mdcSeenByB).hasSize(2);
        // The served call's request id is the caller's; the nested in-process call's is lazy and
        // not drawn for the log (D56): its span id is in the MDC instead.
        String servedRequestId =
            outer.getAttributes().get(AttributeKey.stringKey("operations.request_id"));
        assertThat(mdcSeenByB.get(0)).isEqualTo(edge.getTraceId() + " " + servedRequestId);
        assertThat(mdcSeenByB.get(1)).isEqualTo(edge.getTraceId() + " null");
      }
    }
  }

  @Test
  void aCallersTraceparentIsContinuedAndAFailureIsRecorded() throws Exception {
    String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    String traceparent = "00-" + traceId + "-00f067aa0ba902b7-01";
    try (InProcessPubSub pubsub = InProcessPubSub.create();
        OperationRegistry node = traced();
        PendingRequestMap client = PendingRequestMap.create(pubsub)) {
      node.register(
          OperationSpec.builder("demo", "typed").inputSchema("{\"type\": \"integer\"}").build(),
          (in, ctx) -> in);
      try (CallHandler serving = CallHandler.serve(node, pubsub)) {
        CallOptions options =
            CallOptions.defaults()
                .withMetadata(
                    CallMetadata.of(Map.of("traceparent", traceparent, "tracestate", "k=v")));
        assertThatThrownBy(() -> client.call("demo.typed", "x", options).get(5, TimeUnit.SECONDS))
            .hasCauseInstanceOf(CallError.class);
        // An unknown id gets no answer over the call protocol (no node serves its subject), so
        // it is asked in process, where the registry refuses it.
        assertThatThrownBy(() -> node.execute("nope.x", null).get(5, TimeUnit.SECONDS))
            .hasCauseInstanceOf(CallError.class);
        List<SpanData> spans = awaitSpans(2);
        SpanData typed = span(spans, "demo.typed", SpanKind.SERVER);
        assertThat(typed.getTraceId()).isEqualTo(traceId);
        assertThat(typed.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
        assertThat(typed.getSpanContext().getTraceState().get("k")).isEqualTo("v");
        assertThat(typed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(typed.getAttributes().get(AttributeKey.stringKey("error.type")))
            .isEqualTo("INVALID_INPUT");
        // A served call's request id is the caller's, known already: it is an attribute.
        assertThat(typed.getAttributes().get(AttributeKey.stringKey("operations.request_id")))
            .hasSize(32);
        SpanData unknown = span(spans, "unknown", SpanKind.CLIENT);
        assertThat(unknown.getAttributes().get(AttributeKey.stringKey("operations.operation_id")))
            .isEqualTo("nope.x");
        assertThat(unknown.getAttributes().get(AttributeKey.stringKey("error.type")))
            .isEqualTo("OPERATION_NOT_FOUND");
        // An in-process call's request id is drawn lazily; the span does not force it (D56).
        assertThat(unknown.getAttributes().get(AttributeKey.stringKey("operations.request_id")))
            .isNull();
      }
    }
  }

  @Test
  void aHandlerSeesItsOwnSpanInTheMetadataItPassesOn() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    try (OperationRegistry node = traced()) {
      node.register(
          OperationSpec.builder("demo", "echo").build(),
          (in, ctx) -> {
            seen.add(ctx.metadata().get("traceparent").orElse("none"));
            seen.add(String.valueOf(ctx.attribute(OperationTracing.OTEL_CONTEXT).isPresent()));
            return in;
          });
      node.execute("demo.echo", 1).get(5, TimeUnit.SECONDS);
      SpanData echo = span(awaitSpans(1), "demo.echo", SpanKind.CLIENT);
      assertThat(seen)
          .containsExactly("00-" + echo.getTraceId() + "-" + echo.getSpanId() + "-01", "true");
    }
  }

  @Test
  void withoutAnSdkTheCallersTraceContextPassesThroughUntouched() throws Exception {
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    List<String> seen = new CopyOnWriteArrayList<>();
    try (OperationRegistry node =
        OperationRegistry.builder()
            .interceptor(OperationTracing.create(io.opentelemetry.api.OpenTelemetry.noop()))
            .build()) {
      node.register(
          OperationSpec.builder("demo", "echo").build(),
          (in, ctx) -> {
            seen.add(ctx.metadata().get("traceparent").orElse("none"));
            return in;
          });
      node.execute(
              "demo.echo",
              1,
              dev.alkdev.operations.OperationContext.builder()
                  .metadata(CallMetadata.of("traceparent", traceparent))
                  .build())
          .get(5, TimeUnit.SECONDS);
      node.execute("demo.echo", 2).get(5, TimeUnit.SECONDS);
    }
    assertThat(seen).containsExactly(traceparent, "none");
    assertThat(exporter.getFinishedSpanItems()).isEmpty();
  }

  /**
   * A sampler that says no still makes the call carry its trace context on (flags 00, so the next
   * hops keep the decision), but ends no span and leaves the MDC alone: an unsampled trace has no
   * spans to find a log line from (D71).
   */
  @Test
  void anUnsampledCallCarriesItsDecisionButWritesNoMdc() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    try (SdkTracerProvider off =
            SdkTracerProvider.builder()
                .setSampler(Sampler.alwaysOff())
                .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                .build();
        OperationRegistry node =
            OperationRegistry.builder()
                .interceptor(OperationTracing.create(off.get("t")))
                .build()) {
      node.register(
          OperationSpec.builder("demo", "echo").build(),
          (in, ctx) -> {
            seen.add(ctx.metadata().get("traceparent").orElse("none"));
            seen.add(String.valueOf(MDC.get("trace_id")));
            return in;
          });
      node.execute("demo.echo", 1).get(5, TimeUnit.SECONDS);
    }
    assertThat(seen).hasSize(2);
    assertThat(seen.get(0)).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00");
    assertThat(seen.get(1)).isEqualTo("null");
    assertThat(exporter.getFinishedSpanItems()).isEmpty();
  }

  /**
   * With OpenTelemetry's no-op API and no trace to continue there is nothing to carry: the handler
   * gets the caller's context as it was, without an OpenTelemetry context attribute (D71).
   */
  @Test
  void withoutAnSdkOrATraceTheCallGoesOnUntouched() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    try (OperationRegistry node =
        OperationRegistry.builder()
            .interceptor(OperationTracing.create(io.opentelemetry.api.OpenTelemetry.noop()))
            .build()) {
      node.register(
          OperationSpec.builder("demo", "echo").build(),
          (in, ctx) -> {
            seen.add(String.valueOf(ctx.attribute(OperationTracing.OTEL_CONTEXT).isPresent()));
            seen.add(ctx.metadata().get("traceparent").orElse("none"));
            return in;
          });
      node.execute("demo.echo", 1).get(5, TimeUnit.SECONDS);
    }
    assertThat(seen).containsExactly("false", "none");
  }

  /**
   * The MDC holds the call's ids around a stream handler's work too: an emitter's whole run (its
   * emissions included) on its own thread, and a publisher handler's subscribe().
   */
  @Test
  void aStreamHandlerLogsWithTheCallsIds() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    try (OperationRegistry node = traced()) {
      node.register(
          OperationSpec.builder("demo", "ticks").type(OperationType.SUBSCRIPTION).build(),
          Handler.emitter(
              (in, ctx, emitter) -> {
                seen.add("emitter " + MDC.get("trace_id"));
                emitter.emit(1);
              }));
      node.register(
          OperationSpec.builder("demo", "feed").type(OperationType.SUBSCRIPTION).build(),
          Handler.publisher(
              (in, ctx) -> {
                seen.add("publisher " + MDC.get("trace_id"));
                return new SubmissionPublisherOf(2);
              }));
      for (String id : List.of("demo.ticks", "demo.feed")) {
        CountDownLatch done = new CountDownLatch(1);
        node.subscribe(id, null)
            .subscribe(
                new Flow.Subscriber<>() {
                  @Override
                  public void onSubscribe(Flow.Subscription subscription) {
                    subscription.request(Long.MAX_VALUE);
                  }

                  @Override
                  public void onNext(
                      dev.alkdev.operations.envelope.ResponseEnvelope<
                              tools.jackson.databind.JsonNode>
                          item) {}

                  @Override
                  public void onError(Throwable error) {
                    done.countDown();
                  }

                  @Override
                  public void onComplete() {
                    done.countDown();
                  }
                });
        assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
      }
      List<SpanData> spans = awaitSpans(2);
      String ticksTrace = span(spans, "demo.ticks", SpanKind.CLIENT).getTraceId();
      String feedTrace = span(spans, "demo.feed", SpanKind.CLIENT).getTraceId();
      assertThat(seen).hasSize(2);
      assertThat(seen).containsExactly("emitter " + ticksTrace, "publisher " + feedTrace);
    }
    assertThat(MDC.get("trace_id")).isNull();
  }

  /** A publisher of one item, {@code value}. */
  private static final class SubmissionPublisherOf implements Flow.Publisher<Object> {
    private final Object value;

    SubmissionPublisherOf(Object value) {
      this.value = value;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super Object> subscriber) {
      subscriber.onSubscribe(
          new Flow.Subscription() {
            private boolean done;

            @Override
            public void request(long n) {
              if (!done) {
                done = true;
                subscriber.onNext(value);
                subscriber.onComplete();
              }
            }

            @Override
            public void cancel() {
              done = true;
            }
          });
    }
  }
}
