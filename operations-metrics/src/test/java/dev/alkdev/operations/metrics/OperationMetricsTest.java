package dev.alkdev.operations.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class OperationMetricsTest {
  final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  OperationRegistry registry =
      OperationRegistry.builder().interceptor(OperationMetrics.create(meters)).build();

  @AfterEach
  void close() {
    registry.close();
  }

  static void register(OperationRegistry registry) {
    registry.register(OperationSpec.builder("demo", "echo").build(), (in, ctx) -> in);
    registry.register(
        OperationSpec.builder("demo", "typed").inputSchema("{\"type\": \"integer\"}").build(),
        (in, ctx) -> in);
    registry.register(
        OperationSpec.builder("demo", "count").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, emitter) -> {
              for (int i = 0; i < 3; i++) {
                emitter.emit(i);
              }
            }));
  }

  static void await(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("condition not met within 5 s");
      }
      Thread.sleep(5);
    }
  }

  static long count(MeterRegistry meters, String name, String... tags) {
    return meters.find(name).tags(tags).timers().stream().mapToLong(Timer::count).sum();
  }

  @Test
  void unaryCallsAreTimedByOutcomeAndUnknownIdsShareOneTag() throws Exception {
    register(registry);
    registry.execute("demo.echo", 1).join();
    registry.execute("demo.echo", 2).join();
    assertThatThrownBy(() -> registry.execute("demo.typed", "x").join())
        .hasCauseInstanceOf(CallError.class);
    for (int i = 0; i < 5; i++) {
      String id = "nope.x" + i;
      assertThatThrownBy(() -> registry.execute(id, null).join())
          .hasCauseInstanceOf(CallError.class);
    }
    await(
        () ->
            count(meters, "operations.calls", "operation", OperationMetrics.UNKNOWN_OPERATION)
                == 5);

    Timer ok =
        meters
            .get("operations.calls")
            .tags("operation", "demo.echo", "origin", "in_process", "outcome", "OK")
            .timer();
    assertThat(ok.count()).isEqualTo(2);
    assertThat(ok.totalTime(TimeUnit.NANOSECONDS)).isPositive();
    assertThat(
            count(
                meters, "operations.calls", "operation", "demo.typed", "outcome", "INVALID_INPUT"))
        .isEqualTo(1);
    assertThat(
            count(
                meters,
                "operations.calls",
                "operation",
                "unknown",
                "outcome",
                ErrorCode.OPERATION_NOT_FOUND.name()))
        .isEqualTo(5);
    // The caller's text never becomes a tag: no meter names nope.x0..4.
    assertThat(meters.getMeters())
        .noneMatch(m -> String.valueOf(m.getId().getTag("operation")).startsWith("nope."));
    // Request ids never become tags either.
    assertThat(meters.getMeters())
        .allMatch(
            m ->
                m.getId().getTags().stream()
                    .allMatch(
                        t ->
                            Set.of("operation", "origin", "outcome", "kind").contains(t.getKey())));
    assertThat(meters.get("operations.calls.active").tags("operation", "demo.echo").gauge().value())
        .isZero();
  }

  @Test
  void streamsCountTheirItemsAndTheirDuration() throws Exception {
    register(registry);
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger received = new AtomicInteger();
    registry
        .subscribe("demo.count", null)
        .subscribe(
            new Flow.Subscriber<ResponseEnvelope<JsonNode>>() {
              @Override
              public void onSubscribe(Flow.Subscription s) {
                s.request(Long.MAX_VALUE);
              }

              @Override
              public void onNext(ResponseEnvelope<JsonNode> item) {
                received.incrementAndGet();
              }

              @Override
              public void onError(Throwable t) {
                done.countDown();
              }

              @Override
              public void onComplete() {
                done.countDown();
              }
            });
    assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
    await(() -> count(meters, "operations.streams", "operation", "demo.count") == 1);
    assertThat(received).hasValue(3);
    assertThat(
            meters.get("operations.stream.items").tags("operation", "demo.count").counter().count())
        .isEqualTo(3.0);
    assertThat(count(meters, "operations.streams", "operation", "demo.count", "outcome", "OK"))
        .isEqualTo(1);
    assertThat(
            meters
                .get("operations.calls.active")
                .tags("operation", "demo.count", "kind", "stream")
                .gauge()
                .value())
        .isZero();
  }

  @Test
  void callsInFlightAreGauged() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    registry.register(
        OperationSpec.builder("demo", "slow").build(),
        (in, ctx) -> {
          started.countDown();
          release.await(5, TimeUnit.SECONDS);
          return "done";
        });
    var call = registry.execute("demo.slow", null);
    assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(meters.get("operations.calls.active").tags("operation", "demo.slow").gauge().value())
        .isEqualTo(1.0);
    release.countDown();
    call.get(5, TimeUnit.SECONDS);
    await(
        () ->
            meters.get("operations.calls.active").tags("operation", "demo.slow").gauge().value()
                == 0);
  }

  /**
   * Two registries over the in-process transport: the caller's registry counts the call (origin
   * in_process), the serving one counts it as served, and the protocol statistics are gauged.
   */
  @Test
  void aRemoteCallIsCountedOnBothSides() throws Exception {
    SimpleMeterRegistry serverMeters = new SimpleMeterRegistry();
    try (InProcessPubSub pubsub = InProcessPubSub.create();
        OperationRegistry server =
            OperationRegistry.builder().interceptor(OperationMetrics.create(serverMeters)).build();
        PendingRequestMap client = PendingRequestMap.create(pubsub)) {
      register(server);
      registry.register(
          OperationSpec.builder("edge", "echo").build(),
          (in, ctx) ->
              client.call("demo.echo", in, CallOptions.of(ctx)).get(5, TimeUnit.SECONDS).data());
      OperationMetrics.bindProtocolStats(meters, "client", client::stats);
      try (CallHandler serving = CallHandler.serve(server, pubsub)) {
        OperationMetrics.bindProtocolStats(serverMeters, "server", serving::stats);
        assertThat(registry.execute("edge.echo", 7).get(5, TimeUnit.SECONDS).data().asInt())
            .isEqualTo(7);
        assertThatThrownBy(() -> client.call("demo.typed", "x", CallOptions.defaults()).join())
            .hasCauseInstanceOf(CallError.class);
        await(() -> count(serverMeters, "operations.calls", "origin", "served") == 2);
      }
      assertThat(
              count(meters, "operations.calls", "operation", "edge.echo", "origin", "in_process"))
          .isEqualTo(1);
      assertThat(
              count(
                  serverMeters,
                  "operations.calls",
                  "operation",
                  "demo.echo",
                  "origin",
                  "served",
                  "outcome",
                  "OK"))
          .isEqualTo(1);
      assertThat(
              count(
                  serverMeters,
                  "operations.calls",
                  "operation",
                  "demo.typed",
                  "origin",
                  "served",
                  "outcome",
                  "INVALID_INPUT"))
          .isEqualTo(1);
      assertThat(
              meters.get("operations.protocol.pending").tags("endpoint", "client").gauge().value())
          .isZero();
      assertThat(serverMeters.get("operations.protocol.malformed").functionCounter().count())
          .isZero();
    }
  }

  /** The Prometheus text format, scraped and parsed: names, tags, histogram buckets, counts. */
  @Test
  void thePrometheusScrapeParses() throws Exception {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (OperationRegistry observed =
        OperationRegistry.builder()
            .interceptor(
                OperationMetrics.builder(prometheus)
                    .serviceLevelObjectives(Duration.ofMillis(100))
                    .build())
            .build()) {
      register(observed);
      for (int i = 0; i < 3; i++) {
        observed.execute("demo.echo", i).join();
      }
      await(() -> count(prometheus, "operations.calls") == 3);
      String scrape = prometheus.scrape();
      Map<String, Double> samples = parse(scrape);
      assertThat(scrape).contains("# TYPE operations_calls_seconds histogram");
      assertThat(
              samples.get(
                  "operations_calls_seconds_count{operation=\"demo.echo\",origin=\"in_process\",outcome=\"OK\"}"))
          .isEqualTo(3.0);
      assertThat(
              samples.get(
                  "operations_calls_seconds_bucket{operation=\"demo.echo\",origin=\"in_process\",outcome=\"OK\",le=\"+Inf\"}"))
          .isEqualTo(3.0);
      assertThat(
              samples.get(
                  "operations_calls_active{kind=\"unary\",operation=\"demo.echo\",origin=\"in_process\"}"))
          .isEqualTo(0.0);
    }
  }

  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\\{[^}]*\\})?) ([-+0-9.eE]+|NaN|[+-]Inf)$");

  /**
   * Prometheus text exposition: each sample line is "name{labels} value"; comments start with #.
   */
  static Map<String, Double> parse(String scrape) {
    Map<String, Double> samples = new HashMap<>();
    for (String line : scrape.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line.strip());
      assertThat(m.matches()).as("a sample line: %s", line).isTrue();
      samples.put(m.group(1), Double.parseDouble(m.group(2).replace("Inf", "Infinity")));
    }
    return samples;
  }
}
