package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.tracing.OperationTracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * OpenTelemetry's MCP conventions on our server and our client: a SERVER span per request
 * continuing the client's trace from {@code _meta}, the served call's span beneath it, failures
 * (JSON-RPC errors and {@code isError} results) marked, {@code mcp.server.operation.duration}
 * recorded; and the client's CLIENT span as the server span's parent.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class McpTelemetryTest {
  static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String TRACEPARENT = "00-" + TRACE_ID + "-00f067aa0ba902b7-01";

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final InMemoryMetricReader metrics = InMemoryMetricReader.create();
  private OpenTelemetrySdk otel;
  private OperationRegistry registry;
  private OperationServer pipeline;
  private McpServer server;
  private McpHttpEndpoint http;

  @BeforeEach
  void start() {
    otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    registry = OperationRegistry.builder().interceptor(OperationTracing.create(otel)).build();
    registry.register(
        OperationSpec.builder("text", "echo").type(OperationType.QUERY).build(),
        Handler.blocking((input, context) -> input));
    registry.register(
        OperationSpec.builder("text", "fail").type(OperationType.MUTATION).build(),
        Handler.blocking(
            (input, context) -> {
              throw new IllegalStateException("broken on purpose");
            }));
    pipeline = OperationServer.create(registry);
    server = McpServer.builder(pipeline).telemetry(McpServerTelemetry.of(otel)).build();
    http = server.startHttp(0);
  }

  @AfterEach
  void stop() {
    http.close();
    server.close();
    pipeline.close();
    registry.close();
    otel.close();
  }

  private RawHttp.Response modern(String method, String name, String params) throws Exception {
    String meta =
        "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{},\"traceparent\":\""
            + TRACEPARENT
            + "\"}";
    Map<String, String> headers =
        name == null
            ? Map.of("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method)
            : Map.of("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method, "Mcp-Name", name);
    return RawHttp.post(
        http.port(),
        headers,
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\""
            + method
            + "\",\"params\":{"
            + params
            + (params.isEmpty() ? "" : ",")
            + meta
            + "}}");
  }

  @Test
  void aToolCallIsAServerSpanOverTheServedCallsSpanInTheClientsTrace() throws Exception {
    assertThat(
            modern("tools/call", "text.echo", "\"name\":\"text.echo\",\"arguments\":{\"a\":1}")
                .status())
        .isEqualTo(200);
    SpanData mcp = span("tools/call text.echo");
    assertThat(mcp.getKind()).isEqualTo(SpanKind.SERVER);
    assertThat(mcp.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(mcp.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
    assertThat(mcp.getAttributes().get(AttributeKey.stringKey("mcp.method.name")))
        .isEqualTo("tools/call");
    assertThat(mcp.getAttributes().get(AttributeKey.stringKey("gen_ai.tool.name")))
        .isEqualTo("text.echo");
    assertThat(mcp.getAttributes().get(AttributeKey.stringKey("mcp.protocol.version")))
        .isEqualTo("2026-07-28");
    assertThat(mcp.getAttributes().get(AttributeKey.stringKey("jsonrpc.request.id")))
        .isEqualTo("5");
    assertThat(mcp.getAttributes().get(AttributeKey.stringKey("error.type"))).isNull();
    // The served call's own span is the request span's child; it may end just after the answer
    // is written, so it is waited for.
    List<SpanData> children = List.of();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (children.isEmpty() && System.nanoTime() < end) {
      children =
          spans.getFinishedSpanItems().stream()
              .filter(span -> span.getParentSpanId().equals(mcp.getSpanId()))
              .toList();
      Thread.sleep(20);
    }
    assertThat(children).isNotEmpty();
    assertThat(children).allSatisfy(child -> assertThat(child.getTraceId()).isEqualTo(TRACE_ID));
  }

  @Test
  void failuresAreMarkedAndTimed() throws Exception {
    modern("tools/call", "text.fail", "\"name\":\"text.fail\",\"arguments\":{}");
    modern("no/such", null, "");
    SpanData toolError = span("tools/call text.fail");
    assertThat(toolError.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(toolError.getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo("tool_error");
    SpanData missing = span("no/such");
    assertThat(missing.getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo("-32601");
    MetricData duration =
        metrics.collectAllMetrics().stream()
            .filter(metric -> metric.getName().equals("mcp.server.operation.duration"))
            .findFirst()
            .orElseThrow();
    assertThat(duration.getUnit()).isEqualTo("s");
    assertThat(duration.getHistogramData().getPoints())
        .extracting(HistogramPointData::getAttributes)
        .anySatisfy(
            attributes ->
                assertThat(attributes.get(AttributeKey.stringKey("error.type")))
                    .isEqualTo("tool_error"));
  }

  @Test
  void theClientsCallSpanIsTheServersParent() throws Exception {
    try (dev.alkdev.operations.mcp.McpClientWrapper client =
            dev.alkdev.operations.mcp.McpClients.createMcpClient(
                "back",
                dev.alkdev.operations.mcp.McpClientConfig.streamableHttp(http.uri().toString())
                    .build(),
                dev.alkdev.operations.mcp.McpClientOptions.builder()
                    .telemetry(dev.alkdev.operations.mcp.McpClientTelemetry.of(otel))
                    .build());
        OperationRegistry back = OperationRegistry.create()) {
      client.registerInto(back);
      back.execute("back.text.echo", Map.of("a", 1)).get(10, TimeUnit.SECONDS);
      back.execute("back.text.fail", Map.of()).get(10, TimeUnit.SECONDS);
    }
    SpanData clientSpan = span("tools/call text.echo", SpanKind.CLIENT);
    SpanData serverSpan = span("tools/call text.echo", SpanKind.SERVER);
    assertThat(serverSpan.getParentSpanId()).isEqualTo(clientSpan.getSpanId());
    assertThat(serverSpan.getTraceId()).isEqualTo(clientSpan.getTraceId());
    assertThat(clientSpan.getAttributes().get(AttributeKey.stringKey("mcp.protocol.version")))
        .isEqualTo("2026-07-28");
    assertThat(
            span("tools/call text.fail", SpanKind.CLIENT)
                .getAttributes()
                .get(AttributeKey.stringKey("error.type")))
        .isEqualTo("tool_error");
    assertThat(metrics.collectAllMetrics())
        .extracting(MetricData::getName)
        .contains("mcp.client.operation.duration", "mcp.server.operation.duration");
  }

  private SpanData span(String name) throws InterruptedException {
    return span(name, SpanKind.SERVER);
  }

  private SpanData span(String name, SpanKind kind) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < end) {
      for (SpanData span : spans.getFinishedSpanItems()) {
        if (span.getName().equals(name) && span.getKind() == kind) {
          return span;
        }
      }
      Thread.sleep(20);
    }
    throw new AssertionError(
        "no span "
            + name
            + " among "
            + spans.getFinishedSpanItems().stream().map(SpanData::getName).toList());
  }
}
