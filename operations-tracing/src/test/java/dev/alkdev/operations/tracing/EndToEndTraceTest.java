package dev.alkdev.operations.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.http.HttpGateway;
import dev.alkdev.operations.metrics.OperationMetrics;
import dev.alkdev.operations.openapi.FromOpenApi;
import dev.alkdev.operations.openapi.HttpServiceConfig;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.transport.nats.NatsOptions;
import dev.alkdev.operations.transport.nats.NatsPubSub;
import dev.alkdev.operations.transport.nats.NatsServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 21's check: an HTTP client calls the gateway of node A, whose handler calls node B over
 * NATS (a real nats-server on a free loopback port), whose operation is an OpenAPI upstream on
 * loopback. One trace, continuing the client's: the gateway's span under the client's traceparent,
 * B's served span under it, the upstream request carrying B's span; and each node's metrics count
 * its step.
 */
@Timeout(60)
class EndToEndTraceTest {
  static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
  static final String CLIENT_SPAN = "b7ad6b7169203331";

  static final String DOC =
      """
      openapi: 3.1.0
      info: {title: items, version: '1'}
      paths:
        /items/{id}:
          get:
            operationId: getItem
            parameters:
              - {name: id, in: path, required: true, schema: {type: string}}
            responses:
              '200': {description: ok, content: {application/json: {schema: {}}}}
      """;

  @Test
  void httpToGatewayOverNatsToAnOpenApiUpstreamIsOneTrace() throws Exception {
    List<String> upstreamTraceparents = new CopyOnWriteArrayList<>();
    HttpServer upstream =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    upstream.createContext(
        "/items/",
        exchange -> {
          upstreamTraceparents.add(
              String.valueOf(exchange.getRequestHeaders().getFirst("traceparent")));
          byte[] body = "{\"id\":\"42\",\"name\":\"answer\"}".getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    upstream.start();
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    SimpleMeterRegistry metersA = new SimpleMeterRegistry();
    SimpleMeterRegistry metersB = new SimpleMeterRegistry();
    try (SdkTracerProvider provider =
            SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                .build();
        NatsServer nats = NatsServer.start();
        NatsPubSub natsA = NatsPubSub.connect(NatsOptions.builder(nats.url()).build());
        NatsPubSub natsB = NatsPubSub.connect(NatsOptions.builder(nats.url()).build());
        OperationRegistry nodeA =
            OperationRegistry.builder()
                .interceptor(OperationMetrics.create(metersA))
                .interceptor(OperationTracing.create(provider.get("node-a")))
                .build();
        OperationRegistry nodeB =
            OperationRegistry.builder()
                .interceptor(OperationMetrics.create(metersB))
                .interceptor(OperationTracing.create(provider.get("node-b")))
                .build();
        PendingRequestMap callsFromA = PendingRequestMap.create(natsA)) {
      URI base = URI.create("http://127.0.0.1:" + upstream.getAddress().getPort());
      FromOpenApi.fromString(DOC, HttpServiceConfig.builder("items").baseUrl(base).build())
          .registerAll(nodeB);
      // A's operation is B's, called over NATS with the call's context (and so its trace).
      nodeA.register(
          OperationSpec.builder("edge", "item").build(),
          (in, ctx) ->
              callsFromA
                  .call("items.getItem", in, CallOptions.of(ctx))
                  .get(20, TimeUnit.SECONDS)
                  .data());
      try (CallHandler servingB = CallHandler.serve(nodeB, natsB);
          OperationServer pipelineA = OperationServer.create(nodeA);
          HttpGateway gateway = HttpGateway.builder(pipelineA).start()) {
        natsB.flush(Duration.ofSeconds(5)); // B's subscription at the server before the call
        HttpResponse<String> response =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(gateway.uri().resolve("/ops/edge.item"))
                        .timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .header("traceparent", "00-" + TRACE_ID + "-" + CLIENT_SPAN + "-01")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"id\":\"42\"}"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.body()).contains("\"name\":\"answer\"");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (exporter.getFinishedSpanItems().size() < 2 && System.nanoTime() < end) {
          Thread.sleep(10);
        }
      }
      List<SpanData> spans = exporter.getFinishedSpanItems();
      SpanData edge = OperationTracingTest.span(spans, "edge.item", SpanKind.SERVER);
      SpanData item = OperationTracingTest.span(spans, "items.getItem", SpanKind.SERVER);
      // The gateway's span continues the HTTP client's trace; B's is its child across NATS.
      assertThat(edge.getTraceId()).isEqualTo(TRACE_ID);
      assertThat(edge.getParentSpanId()).isEqualTo(CLIENT_SPAN);
      assertThat(edge.getParentSpanContext().isRemote()).isTrue();
      assertThat(item.getTraceId()).isEqualTo(TRACE_ID);
      assertThat(item.getParentSpanId()).isEqualTo(edge.getSpanId());
      assertThat(item.getParentSpanContext().isRemote()).isTrue();
      assertThat(spans).allMatch(s -> s.getTraceId().equals(TRACE_ID));
      // The upstream request carries B's span as its parent.
      assertThat(upstreamTraceparents)
          .containsExactly("00-" + TRACE_ID + "-" + item.getSpanId() + "-01");
      // Each node's metrics count its step, as served calls that went well. A call's observers end
      // one after the other, so the spans can be finished a moment before the timers count.
      long metered = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while ((servedOk(metersA, "edge.item") < 1 || servedOk(metersB, "items.getItem") < 1)
          && System.nanoTime() < metered) {
        Thread.sleep(10);
      }
      assertThat(
              metersA
                  .get("operations.calls")
                  .tags("operation", "edge.item", "origin", "served", "outcome", "OK")
                  .timer()
                  .count())
          .isEqualTo(1);
      assertThat(
              metersB
                  .get("operations.calls")
                  .tags("operation", "items.getItem", "origin", "served", "outcome", "OK")
                  .timer()
                  .count())
          .isEqualTo(1);
    } finally {
      upstream.stop(0);
    }
  }

  private static long servedOk(
      io.micrometer.core.instrument.MeterRegistry meters, String operation) {
    io.micrometer.core.instrument.Timer timer =
        meters
            .find("operations.calls")
            .tags("operation", operation, "origin", "served", "outcome", "OK")
            .timer();
    return timer == null ? 0 : timer.count();
  }
}
