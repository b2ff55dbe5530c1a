package dev.alkdev.operations.benchmarks;

import java.util.Arrays;

/**
 * {@link NatsCallBenchmark} measured interleaved: each round runs the raw jnats request/reply and
 * the call one after the other (and then, for 64 in flight, a batch of each), so a machine whose
 * load changes during the run (other builds on two cores) weighs on both alike. Prints p50 and p90
 * of the single calls, the throughput of the batches, and the ratios against raw.
 *
 * <pre>java -cp operations-benchmarks/target/benchmarks.jar \
 *   dev.alkdev.operations.benchmarks.NatsCallInterleaved [rounds]</pre>
 */
public final class NatsCallInterleaved {
  private NatsCallInterleaved() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    NatsCallBenchmark b = new NatsCallBenchmark();
    b.setUp();
    try {
      for (int i = 0; i < 3000; i++) {
        b.baselineRawRequest();
        b.roundTrip();
      }
      for (int i = 0; i < 200; i++) {
        b.baselineRawSixtyFourInFlight();
        b.sixtyFourInFlight();
      }
      long[][] nanos = new long[2][rounds];
      for (int i = 0; i < rounds; i++) {
        // Alternate which goes first, so neither always follows the other's garbage.
        boolean rawFirst = (i & 1) == 0;
        for (int k = 0; k < 2; k++) {
          boolean raw = (k == 0) == rawFirst;
          long start = System.nanoTime();
          if (raw) {
            b.baselineRawRequest();
          } else {
            b.roundTrip();
          }
          nanos[raw ? 0 : 1][i] = System.nanoTime() - start;
        }
      }
      int batches = Math.max(50, rounds / 10);
      long[][] batchNanos = new long[2][batches];
      for (int i = 0; i < batches; i++) {
        boolean rawFirst = (i & 1) == 0;
        for (int k = 0; k < 2; k++) {
          boolean raw = (k == 0) == rawFirst;
          long start = System.nanoTime();
          if (raw) {
            b.baselineRawSixtyFourInFlight();
          } else {
            b.sixtyFourInFlight();
          }
          batchNanos[raw ? 0 : 1][i] = System.nanoTime() - start;
        }
      }
      String[] names = {"raw jnats request", "call over NATS"};
      for (int k = 0; k < 2; k++) {
        Arrays.sort(nanos[k]);
        System.out.printf(
            "unary %-18s p50 %6d us  p90 %6d us%n",
            names[k], nanos[k][rounds / 2] / 1000, nanos[k][rounds * 9 / 10] / 1000);
      }
      System.out.printf(
          "unary p50 ratio: %.2fx raw (target <= 1.2x)%n",
          (double) nanos[1][rounds / 2] / nanos[0][rounds / 2]);
      double[] perSecond = new double[2];
      for (int k = 0; k < 2; k++) {
        long total = Arrays.stream(batchNanos[k]).sum();
        perSecond[k] = 64.0 * batches * 1e9 / total;
        Arrays.sort(batchNanos[k]);
        System.out.printf(
            "64 in flight %-18s %8.0f calls/s (median batch %d us)%n",
            names[k], perSecond[k], batchNanos[k][batches / 2] / 1000);
      }
      System.out.printf(
          "64 in flight throughput ratio: %.2fx raw (target >= 0.8x)%n",
          perSecond[1] / perSecond[0]);
    } finally {
      b.tearDown();
    }
  }
}
