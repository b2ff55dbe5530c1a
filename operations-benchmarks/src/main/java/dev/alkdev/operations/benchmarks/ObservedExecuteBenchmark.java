package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.AsyncOperationHandler;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.metrics.OperationMetrics;
import dev.alkdev.operations.tracing.OperationTracing;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 21's benchmark: {@link ExecuteBenchmark#executeAsync} on a registry with the metrics
 * interceptor (SimpleMeterRegistry, percentile histogram on) and the tracing interceptor (an SDK
 * tracer provider with no exporter: spans are made, sampled and ended) against the same registry
 * without them. Target: at most 0.3 µs more per call.
 *
 * <p>So that the report can tell the interceptor's own cost from the SDK's, the same run measures
 * the SDK's floor ({@link #sdkSpanFloor}: one span started and ended with the same tracer, kind,
 * parent lookup and number of attributes, no registry), tracing with the SDK sampling nothing
 * ({@code Sampler.alwaysOff()}, the usual setting for high-rate internal calls) and tracing on
 * OpenTelemetry's no-op API (no SDK).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ObservedExecuteBenchmark {
  private static final AttributeKey<String> RPC_SYSTEM = AttributeKey.stringKey("rpc.system");
  private static final AttributeKey<String> RPC_SERVICE = AttributeKey.stringKey("rpc.service");
  private static final AttributeKey<String> RPC_METHOD = AttributeKey.stringKey("rpc.method");
  private static final String INPUT_SCHEMA =
      """
      {"type": "object", "required": ["a", "b", "op"],
       "properties": {"a": {"type": "integer"}, "b": {"type": "integer"},
                      "op": {"enum": ["add", "sub"]}}}""";

  private OperationRegistry plain;
  private OperationRegistry metered;
  private OperationRegistry traced;
  private OperationRegistry observed;
  private OperationRegistry tracedSampledOff;
  private OperationRegistry tracedNoop;
  private OperationRegistry passThrough;
  private OperationRegistry meteredNoHistogram;
  private OperationRegistry observedNoop;
  private SdkTracerProvider tracerProvider;
  private SdkTracerProvider sampledOffProvider;
  private Tracer floorTracer;
  private JsonNode input;

  @Setup
  public void setUp() {
    input = JsonMapper.builder().build().readTree("{\"a\": 40, \"b\": 2, \"op\": \"add\"}");
    tracerProvider = SdkTracerProvider.builder().build();
    plain = register(OperationRegistry.create());
    metered =
        register(
            OperationRegistry.builder()
                .interceptor(OperationMetrics.create(new SimpleMeterRegistry()))
                .build());
    traced =
        register(
            OperationRegistry.builder()
                .interceptor(OperationTracing.create(tracerProvider.get("bench")))
                .build());
    sampledOffProvider = SdkTracerProvider.builder().setSampler(Sampler.alwaysOff()).build();
    tracedSampledOff =
        register(
            OperationRegistry.builder()
                .interceptor(OperationTracing.create(sampledOffProvider.get("bench")))
                .build());
    tracedNoop =
        register(
            OperationRegistry.builder()
                .interceptor(OperationTracing.create(OpenTelemetry.noop()))
                .build());
    passThrough =
        register(
            OperationRegistry.builder()
                .interceptor((invocation, chain) -> chain.proceed(invocation.context()))
                .build());
    meteredNoHistogram =
        register(
            OperationRegistry.builder()
                .interceptor(
                    OperationMetrics.builder(new SimpleMeterRegistry()).histogram(false).build())
                .build());
    observedNoop =
        register(
            OperationRegistry.builder()
                .interceptor(OperationMetrics.create(new SimpleMeterRegistry()))
                .interceptor(OperationTracing.create(OpenTelemetry.noop()))
                .build());
    floorTracer = tracerProvider.get("bench-floor");
    observed =
        register(
            OperationRegistry.builder()
                .interceptor(OperationMetrics.create(new SimpleMeterRegistry()))
                .interceptor(OperationTracing.create(tracerProvider.get("bench")))
                .build());
  }

  private OperationRegistry register(OperationRegistry registry) {
    AsyncOperationHandler async = (in, ctx) -> CompletableFuture.completedFuture(compute(in));
    registry.register(
        OperationSpec.builder("bench", "add").inputSchema(INPUT_SCHEMA).build(),
        Handler.async(async));
    if (registry.execute("bench.add", input).join().data().asInt() != 42) {
      throw new IllegalStateException("wrong result");
    }
    return registry;
  }

  @TearDown
  public void tearDown() {
    plain.close();
    metered.close();
    traced.close();
    observed.close();
    tracedSampledOff.close();
    tracedNoop.close();
    passThrough.close();
    meteredNoHistogram.close();
    observedNoop.close();
    tracerProvider.close();
    sampledOffProvider.close();
  }

  private static int compute(JsonNode in) {
    int a = in.get("a").asInt();
    int b = in.get("b").asInt();
    return "add".equals(in.get("op").asString()) ? a + b : a - b;
  }

  /** Baseline: no interceptors. */
  @Benchmark
  public ResponseEnvelope<JsonNode> executePlain() {
    return plain.execute("bench.add", input).join();
  }

  @Benchmark
  public ResponseEnvelope<JsonNode> executeWithMetrics() {
    return metered.execute("bench.add", input).join();
  }

  @Benchmark
  public ResponseEnvelope<JsonNode> executeWithTracing() {
    return traced.execute("bench.add", input).join();
  }

  /**
   * The interceptor chain's own cost: one interceptor that only proceeds (what any interceptor pays
   * before doing anything).
   */
  @Benchmark
  public ResponseEnvelope<JsonNode> executeWithPassThroughInterceptor() {
    return passThrough.execute("bench.add", input).join();
  }

  /** Metrics without the percentile histogram: the share of Micrometer's histogram buckets. */
  @Benchmark
  public ResponseEnvelope<JsonNode> executeWithMetricsNoHistogram() {
    return meteredNoHistogram.execute("bench.add", input).join();
  }

  /** Tracing with the SDK sampling nothing: spans are made, not recorded. */
  @Benchmark
  public ResponseEnvelope<JsonNode> executeWithTracingSampledOff() {
    return tracedSampledOff.execute("bench.add", input).join();
  }

  /** Tracing on OpenTelemetry's no-op API (no SDK installed). */
  @Benchmark
  public ResponseEnvelope<JsonNode> executeWithTracingNoop() {
    return tracedNoop.execute("bench.add", input).join();
  }

  /**
   * The SDK's floor: what the interceptor asks of the SDK for an in-process call (a CLIENT span
   * under the current context, the same three attributes, started and ended), and nothing else.
   */
  @Benchmark
  public Span sdkSpanFloor() {
    Span span =
        floorTracer
            .spanBuilder("bench.add")
            .setSpanKind(SpanKind.CLIENT)
            .setParent(Context.current())
            .setAttribute(RPC_SYSTEM, "operations")
            .setAttribute(RPC_SERVICE, "bench")
            .setAttribute(RPC_METHOD, "add")
            .startSpan();
    span.end();
    return span;
  }

  /**
   * Metrics and the tracing module both installed, with OpenTelemetry's no-op API (no SDK): what an
   * application that has not configured an OpenTelemetry SDK pays.
   */
  @Benchmark
  public ResponseEnvelope<JsonNode> executeWithMetricsAndNoopTracing() {
    return observedNoop.execute("bench.add", input).join();
  }

  /** The target: metrics and tracing both installed. */
  @Benchmark
  public ResponseEnvelope<JsonNode> executeWithMetricsAndTracing() {
    return observed.execute("bench.add", input).join();
  }
}
