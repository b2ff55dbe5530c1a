package dev.alkdev.operations.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.transport.nats.NatsOptions;
import dev.alkdev.operations.transport.nats.NatsPubSub;
import dev.alkdev.operations.transport.nats.NatsServer;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The trace across a real nats-server (started on a free loopback port): two nodes, one trace. */
@Timeout(60)
class NatsTracingTest {
  @Test
  void aCallOverNatsIsOneTrace() throws Exception {
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    try (SdkTracerProvider provider =
            SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                .build();
        NatsServer server = NatsServer.start();
        NatsPubSub callerSide = NatsPubSub.connect(NatsOptions.builder(server.url()).build());
        NatsPubSub nodeSide = NatsPubSub.connect(NatsOptions.builder(server.url()).build());
        OperationRegistry caller =
            OperationRegistry.builder()
                .interceptor(OperationTracing.create(provider.get("caller")))
                .build();
        OperationRegistry node =
            OperationRegistry.builder()
                .interceptor(OperationTracing.create(provider.get("node")))
                .build();
        PendingRequestMap calls = PendingRequestMap.create(callerSide)) {
      node.register(OperationSpec.builder("b", "echo").build(), (in, ctx) -> in);
      caller.register(
          OperationSpec.builder("a", "edge").build(),
          (in, ctx) ->
              calls.call("b.echo", in, CallOptions.of(ctx)).get(10, TimeUnit.SECONDS).data());
      try (CallHandler serving = CallHandler.serve(node, nodeSide)) {
        // The subscription must reach the server before the call, or the call finds nobody
        // (NO_RESPONDERS): failed once in CI on JDK 25.
        nodeSide.flush(Duration.ofSeconds(5));
        assertThat(caller.execute("a.edge", 3).get(10, TimeUnit.SECONDS).data().asInt())
            .isEqualTo(3);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (exporter.getFinishedSpanItems().size() < 2 && System.nanoTime() < end) {
          Thread.sleep(10);
        }
      }
      List<SpanData> spans = exporter.getFinishedSpanItems();
      SpanData edge = OperationTracingTest.span(spans, "a.edge", SpanKind.CLIENT);
      SpanData echo = OperationTracingTest.span(spans, "b.echo", SpanKind.SERVER);
      assertThat(echo.getTraceId()).isEqualTo(edge.getTraceId());
      assertThat(echo.getParentSpanId()).isEqualTo(edge.getSpanId());
      assertThat(echo.getParentSpanContext().isRemote()).isTrue();
    }
  }
}
