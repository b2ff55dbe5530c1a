package dev.alkdev.operations.serving;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The per-operation statistics a server keeps, and the histogram behind their percentiles. */
class OperationStatsTest {
  final OperationRegistry registry = OperationRegistry.create();
  final OperationServer server = OperationServer.create(registry);

  @AfterEach
  void close() {
    server.close();
    registry.close();
  }

  RecordingSink serve(CallRequest.Builder request) throws InterruptedException {
    RecordingSink sink = new RecordingSink();
    server.serve(request.build(), sink);
    return sink;
  }

  static OperationStats of(List<OperationStats> all, String id) {
    return all.stream().filter(s -> s.operationId().equals(id)).findFirst().orElseThrow();
  }

  @Test
  void callsErrorsByCodeInFlightAndLatencyAreCountedPerOperation() throws Exception {
    Instant before = Instant.now();
    CountDownLatch release = new CountDownLatch(1);
    registry.register(OperationSpec.builder("demo", "echo").build(), (in, ctx) -> in);
    registry.register(
        OperationSpec.builder("demo", "fail").build(),
        (in, ctx) -> {
          throw CallError.of(ErrorCode.INVALID_INPUT, "no");
        });
    registry.register(
        OperationSpec.builder("demo", "hold").build(),
        (in, ctx) -> {
          release.await(10, TimeUnit.SECONDS);
          return 1;
        });
    registry.register(
        OperationSpec.builder("demo", "secret").requiredScopes("admin").build(), (in, c) -> 1);

    for (int i = 0; i < 5; i++) {
      serve(CallRequest.builder("demo.echo")).awaitEnd();
    }
    serve(CallRequest.builder("demo.fail")).awaitEnd();
    serve(CallRequest.builder("demo.fail")).awaitEnd();
    serve(CallRequest.builder("demo.secret")).awaitEnd(); // UNAUTHENTICATED: refused, not run
    serve(CallRequest.builder("demo.secret").identity(Identity.of("bob"))).awaitEnd();
    serve(CallRequest.builder("demo.nothing")).awaitEnd(); // unknown ids are not kept
    RecordingSink held = serve(CallRequest.builder("demo.hold"));

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (of(server.operationStats(), "demo.hold").inFlight() == 0) {
      assertThat(System.nanoTime()).as("the held call runs").isLessThan(deadline);
      Thread.sleep(5);
    }
    List<OperationStats> stats = server.operationStats();
    assertThat(stats)
        .extracting(OperationStats::operationId)
        .containsExactly("demo.echo", "demo.fail", "demo.hold", "demo.secret");

    OperationStats echo = of(stats, "demo.echo");
    assertThat(echo.calls()).isEqualTo(5);
    assertThat(echo.errors()).isZero();
    assertThat(echo.errorsByCode()).isEmpty();
    assertThat(echo.inFlight()).isZero();
    assertThat(echo.latency().count()).isEqualTo(5);
    assertThat(echo.latency().p50Micros())
        .isLessThanOrEqualTo(echo.latency().p99Micros())
        .isLessThanOrEqualTo(echo.latency().maxMicros());

    OperationStats fail = of(stats, "demo.fail");
    assertThat(fail.calls()).isEqualTo(2);
    assertThat(fail.errors()).isEqualTo(2);
    assertThat(fail.errorsByCode()).isEqualTo(Map.of(ErrorCode.INVALID_INPUT, 2L));

    OperationStats secret = of(stats, "demo.secret");
    assertThat(secret.calls()).isEqualTo(2);
    assertThat(secret.errorsByCode())
        .isEqualTo(Map.of(ErrorCode.UNAUTHENTICATED, 1L, ErrorCode.ACCESS_DENIED, 1L));
    assertThat(secret.latency().count()).as("refusals are not latencies").isZero();

    OperationStats hold = of(stats, "demo.hold");
    assertThat(hold.inFlight()).isEqualTo(1);
    assertThat(hold.calls()).isZero();

    release.countDown();
    held.awaitEnd();
    OperationStats done = of(server.operationStats(), "demo.hold");
    assertThat(done.inFlight()).isZero();
    assertThat(done.calls()).isEqualTo(1);
    assertThat(server.startedAt()).isBeforeOrEqualTo(before);
  }

  @Test
  void aCancelledCallCountsAsCancelledAndAnOperationRemovedDropsOut() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    registry.register(
        OperationSpec.builder("demo", "hold").build(),
        (in, ctx) -> {
          never.await(10, TimeUnit.SECONDS);
          return 1;
        });
    RecordingSink sink = serve(CallRequest.builder("demo.hold"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.operationStats().isEmpty() || server.operationStats().get(0).inFlight() == 0) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(5);
    }
    sink.started.cancel(CallError.of(ErrorCode.CANCELLED, "the caller left"));
    OperationStats hold = server.operationStats().get(0);
    assertThat(hold.errorsByCode()).isEqualTo(Map.of(ErrorCode.CANCELLED, 1L));
    assertThat(hold.inFlight()).isZero();
    never.countDown();

    registry.unregister("demo.hold");
    assertThat(server.operationStats()).isEmpty();
  }

  @Test
  void aServerToldNotToKeepStatisticsReportsNone() throws Exception {
    registry.register(OperationSpec.builder("demo", "echo").build(), (in, ctx) -> in);
    try (OperationServer quiet =
        OperationServer.builder(registry).operationStatistics(false).build()) {
      RecordingSink sink = new RecordingSink();
      quiet.serve(CallRequest.builder("demo.echo").build(), sink);
      sink.awaitEnd();
      assertThat(sink.error).isNull();
      assertThat(quiet.operationStats()).isEmpty();
    }
  }

  @Test
  void histogramBucketsHoldTheirValuesWithinAnEighth() {
    int last = -1;
    for (long micros = 0; micros < 5_000_000; micros += 1 + micros / 50) {
      int bucket = LatencyHistogram.bucket(micros);
      assertThat(bucket).isGreaterThanOrEqualTo(last).isLessThan(LatencyHistogram.BUCKETS);
      long upper = LatencyHistogram.upperBound(bucket);
      assertThat(upper).isGreaterThanOrEqualTo(micros);
      assertThat(upper - micros).isLessThanOrEqualTo(Math.max(0, micros / 8));
      last = bucket;
    }
    assertThat(LatencyHistogram.bucket(Long.MAX_VALUE)).isEqualTo(LatencyHistogram.BUCKETS - 1);
  }

  @Test
  void percentilesComeFromTheBuckets() {
    LatencyHistogram histogram = new LatencyHistogram();
    for (int i = 1; i <= 1000; i++) {
      histogram.record(i * 1_000L); // 1 µs .. 1000 µs
    }
    OperationStats.Latency latency = histogram.summary();
    assertThat(latency.count()).isEqualTo(1000);
    assertThat(latency.averageMicros()).isEqualTo(500);
    assertThat(latency.maxMicros()).isEqualTo(1000);
    assertThat(latency.p50Micros()).isBetween(500L, 500L + 500 / 8);
    assertThat(latency.p90Micros()).isBetween(900L, 900L + 900 / 8);
    assertThat(latency.p99Micros()).isBetween(990L, 1000L);
    assertThat(new LatencyHistogram().summary()).isEqualTo(OperationStats.Latency.NONE);
  }
}
