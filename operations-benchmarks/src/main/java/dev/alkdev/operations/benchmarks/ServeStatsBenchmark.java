package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.AsyncOperationHandler;
import dev.alkdev.operations.CallError;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.serving.CallRequest;
import dev.alkdev.operations.serving.CallSink;
import dev.alkdev.operations.serving.OperationServer;
import java.util.Arrays;
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
 * The cost of per-operation statistics on the serving path: one served call ({@link
 * OperationServer#serve}, an async handler, a sink that only records the end) on a server that
 * keeps statistics against one told not to. Same registry, same request, same sink.
 *
 * <p>{@link #main} runs both interleaved: each round serves a batch on one server, then on the
 * other, so that the load of the moment (other builds on two cores) weighs on both alike, and
 * prints the median per-call time of each and their ratio.
 *
 * <pre>java -cp operations-benchmarks/target/benchmarks.jar \
 *   dev.alkdev.operations.benchmarks.ServeStatsBenchmark [rounds] [batch]</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ServeStatsBenchmark {
  private OperationRegistry registry;
  private OperationServer counted;
  private OperationServer uncounted;
  private JsonNode input;

  /** Ends when the call does; reused, so the sink allocates nothing either. */
  private static final class EndSink implements CallSink {
    int ends;

    @Override
    public void onResult(ResponseEnvelope<JsonNode> result) {
      ends++;
    }

    @Override
    public void onItem(ResponseEnvelope<JsonNode> item) {}

    @Override
    public void onComplete() {
      ends++;
    }

    @Override
    public void onError(CallError error) {
      throw new IllegalStateException(error);
    }
  }

  private final EndSink sink = new EndSink();

  @Setup
  public void setUp() {
    input = JsonMapper.builder().build().readTree("{\"a\": 40, \"b\": 2}");
    registry = OperationRegistry.create();
    AsyncOperationHandler add =
        (in, ctx) -> CompletableFuture.completedFuture(in.get("a").asInt() + in.get("b").asInt());
    registry.register(OperationSpec.builder("bench", "add").build(), Handler.async(add));
    counted = OperationServer.builder(registry).build();
    uncounted = OperationServer.builder(registry).operationStatistics(false).build();
    serveWithStatistics();
    serveWithoutStatistics();
    if (sink.ends != 2 || counted.operationStats().get(0).calls() != 1) {
      throw new IllegalStateException("the calls did not end as expected");
    }
  }

  @TearDown
  public void tearDown() {
    counted.close();
    uncounted.close();
    registry.close();
  }

  private void serve(OperationServer server) {
    server.serve(CallRequest.builder("bench.add").input(input).build(), sink);
  }

  @Benchmark
  public int serveWithoutStatistics() {
    serve(uncounted);
    return sink.ends;
  }

  @Benchmark
  public int serveWithStatistics() {
    serve(counted);
    return sink.ends;
  }

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 400;
    int batch = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
    ServeStatsBenchmark b = new ServeStatsBenchmark();
    b.setUp();
    try {
      for (int i = 0; i < 200_000; i++) {
        b.serveWithoutStatistics();
        b.serveWithStatistics();
      }
      double[] without = new double[rounds];
      double[] with = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        // Alternate which goes first, so neither always runs on a cache the other warmed.
        boolean withFirst = (r & 1) == 1;
        if (withFirst) {
          with[r] = batch(b, true, batch);
          without[r] = batch(b, false, batch);
        } else {
          without[r] = batch(b, false, batch);
          with[r] = batch(b, true, batch);
        }
      }
      Arrays.sort(without);
      Arrays.sort(with);
      System.out.printf(
          "serve without statistics: p50 %.0f ns/call  p10 %.0f  p90 %.0f%n",
          without[rounds / 2], without[rounds / 10], without[rounds * 9 / 10]);
      System.out.printf(
          "serve with statistics:    p50 %.0f ns/call  p10 %.0f  p90 %.0f%n",
          with[rounds / 2], with[rounds / 10], with[rounds * 9 / 10]);
      System.out.printf(
          "with / without (p50): %.3f; difference %+.0f ns/call%n",
          with[rounds / 2] / without[rounds / 2], with[rounds / 2] - without[rounds / 2]);
    } finally {
      b.tearDown();
    }
  }

  private static double batch(ServeStatsBenchmark b, boolean with, int calls) {
    long start = System.nanoTime();
    if (with) {
      for (int i = 0; i < calls; i++) {
        b.serveWithStatistics();
      }
    } else {
      for (int i = 0; i < calls; i++) {
        b.serveWithoutStatistics();
      }
    }
    return (double) (System.nanoTime() - start) / calls;
  }
}
