package dev.alkdev.operations.benchmarks;

import java.util.Arrays;
import java.util.concurrent.Callable;

/**
 * {@link RedisCallBenchmark} and {@link WebSocketCallBenchmark} measured interleaved, as {@link
 * NatsCallInterleaved} does for NATS: each round runs the raw round trip and the calls one after
 * the other (alternating which goes first), so a machine whose load changes during the run weighs
 * on all alike. Prints p50 and p90 of each and the ratios against raw; for Redis also the
 * throughput of batches of 64 in flight.
 *
 * <pre>java -cp operations-benchmarks/target/benchmarks.jar \
 *   dev.alkdev.operations.benchmarks.TransportCallInterleaved redis|ws [rounds]</pre>
 */
public final class TransportCallInterleaved {
  private TransportCallInterleaved() {}

  public static void main(String[] args) throws Exception {
    String which = args.length > 0 ? args[0] : "redis";
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
    if (which.equals("redis")) {
      RedisCallBenchmark b = new RedisCallBenchmark();
      b.setUp();
      try {
        String[] names = {"raw Lettuce request", "call over Redis"};
        unary(0, rounds, names, b::baselineRawRequest, b::roundTrip);
        batches(
            Math.max(50, rounds / 10),
            names,
            b::baselineRawSixtyFourInFlight,
            b::sixtyFourInFlight);
      } finally {
        b.tearDown();
      }
    } else if (which.equals("ws")) {
      WebSocketCallBenchmark b = new WebSocketCallBenchmark();
      b.setUp();
      try {
        unary(
            WARM_UP_PAST_PINGS,
            rounds,
            new String[] {"raw Jetty echo", "spoke -> hub", "spoke -> hub -> spoke"},
            b::baselineRawEcho,
            b::roundTrip,
            b::spokeToSpoke);
      } finally {
        b.tearDown();
      }
    } else {
      throw new IllegalArgumentException("Expected redis or ws, was " + which);
    }
  }

  /**
   * The WebSocket hub's warm-up: past its discovery heartbeats and its pings, whose first frames
   * send the compiled receive loop back to the interpreter (WebSocketCallBenchmark's Javadoc).
   */
  private static final long WARM_UP_PAST_PINGS = 30_000_000_000L;

  /**
   * Runs each task once per round, rotating which goes first; the first is the baseline. Warms up
   * with 3,000 rounds, and for at least {@code warmUpNanos}.
   */
  private static void unary(long warmUpNanos, int rounds, String[] names, Callable<?>... tasks)
      throws Exception {
    long warmUntil = System.nanoTime() + warmUpNanos;
    for (int i = 0; i < 3000 || System.nanoTime() - warmUntil < 0; i++) {
      for (Callable<?> task : tasks) {
        task.call();
      }
    }
    long[][] nanos = new long[tasks.length][rounds];
    for (int i = 0; i < rounds; i++) {
      for (int k = 0; k < tasks.length; k++) {
        int t = (i + k) % tasks.length;
        long start = System.nanoTime();
        tasks[t].call();
        nanos[t][i] = System.nanoTime() - start;
      }
    }
    for (int k = 0; k < tasks.length; k++) {
      Arrays.sort(nanos[k]);
      System.out.printf(
          "unary %-22s p50 %6.1f us  p90 %6.1f us  p50 ratio %.2fx raw%n",
          names[k],
          nanos[k][rounds / 2] / 1000.0,
          nanos[k][rounds * 9 / 10] / 1000.0,
          (double) nanos[k][rounds / 2] / nanos[0][rounds / 2]);
    }
  }

  /** Batches of 64 in flight, the raw one and the calls alternated. */
  private static void batches(int batches, String[] names, Callable<?> raw, Callable<?> call)
      throws Exception {
    for (int i = 0; i < 200; i++) {
      raw.call();
      call.call();
    }
    long[][] batchNanos = new long[2][batches];
    for (int i = 0; i < batches; i++) {
      boolean rawFirst = (i & 1) == 0;
      for (int k = 0; k < 2; k++) {
        boolean isRaw = (k == 0) == rawFirst;
        long start = System.nanoTime();
        (isRaw ? raw : call).call();
        batchNanos[isRaw ? 0 : 1][i] = System.nanoTime() - start;
      }
    }
    double[] perSecond = new double[2];
    for (int k = 0; k < 2; k++) {
      perSecond[k] = 64.0 * batches * 1e9 / Arrays.stream(batchNanos[k]).sum();
      System.out.printf("64 in flight %-22s %8.0f calls/s%n", names[k], perSecond[k]);
    }
    System.out.printf(
        "64 in flight throughput ratio: %.2fx raw (target >= 0.8x)%n", perSecond[1] / perSecond[0]);
  }
}
