package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 4's benchmark: a call round trip through PendingRequestMap, the in-process pub/sub and
 * CallHandler (encode, publish, decode, dispatch, execute, encode, publish, decode, match) against
 * a plain CompletableFuture handed to an executor and completed. Target: p50 overhead at most 10
 * µs. Run {@code SampleTime} for the percentiles; the {@code *InFlight} methods give throughput
 * with 1 and 64 calls in flight.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class CallRoundTripBenchmark {
  private InProcessPubSub pubsub;
  private OperationRegistry registry;
  private CallHandler handler;
  private PendingRequestMap calls;
  private ExecutorService executor;
  private JsonNode input;

  @Setup(Level.Trial)
  public void setUp() {
    input = JsonMapper.builder().build().readTree("{\"message\": \"ping\", \"n\": 42}");
    executor = new ForkJoinPool(2);
    pubsub = InProcessPubSub.create();
    registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("bench", "echo")
            .inputSchema("{\"type\": \"object\", \"required\": [\"message\"]}")
            .build(),
        Handler.async((in, ctx) -> CompletableFuture.completedFuture(in)));
    handler = CallHandler.serve(registry, pubsub);
    calls = PendingRequestMap.create(pubsub);
    if (!calls.call("bench.echo", input).join().data().equals(input)) {
      throw new IllegalStateException("echo failed");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (calls.stats().pending() != 0) {
      throw new IllegalStateException("calls left pending: " + calls.stats());
    }
    calls.close();
    handler.close();
    registry.close();
    pubsub.close();
    executor.shutdownNow();
  }

  /** Baseline: hand the work to an executor and wait for the future. */
  @Benchmark
  @BenchmarkMode({Mode.SampleTime})
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public Object baselineExecutorFuture() {
    return CompletableFuture.supplyAsync(() -> input, executor).join();
  }

  @Benchmark
  @BenchmarkMode({Mode.SampleTime})
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public ResponseEnvelope<JsonNode> roundTrip() {
    return calls.call("bench.echo", input).join();
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public ResponseEnvelope<JsonNode> oneInFlight() {
    return calls.call("bench.echo", input).join();
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @OperationsPerInvocation(64)
  public Object sixtyFourInFlight() {
    @SuppressWarnings("unchecked")
    CompletableFuture<ResponseEnvelope<JsonNode>>[] inFlight = new CompletableFuture[64];
    for (int i = 0; i < inFlight.length; i++) {
      inFlight[i] = calls.call("bench.echo", input);
    }
    return CompletableFuture.allOf(inFlight).join();
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public Object baselineOneInFlight() {
    return CompletableFuture.supplyAsync(() -> input, executor).join();
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @OperationsPerInvocation(64)
  public Object baselineSixtyFourInFlight() {
    @SuppressWarnings("unchecked")
    CompletableFuture<Object>[] inFlight = new CompletableFuture[64];
    for (int i = 0; i < inFlight.length; i++) {
      inFlight[i] = CompletableFuture.supplyAsync(() -> input, executor);
    }
    return CompletableFuture.allOf(inFlight).join();
  }
}
