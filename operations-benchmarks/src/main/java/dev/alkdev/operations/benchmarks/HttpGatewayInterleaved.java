package dev.alkdev.operations.benchmarks;

import java.util.Arrays;

/**
 * The HTTP gateway's two benchmarks measured interleaved: each round runs the baseline and the
 * gateway one after the other, so a machine whose load changes during the run (other builds on two
 * cores) weighs on both alike; JMH runs one method after the other, and there the load of the
 * moment decides the ratio. Prints p50 and p90 of each and the ratios of the p50s.
 *
 * <pre>java -cp operations-benchmarks/target/benchmarks.jar \
 *   dev.alkdev.operations.benchmarks.HttpGatewayInterleaved [rounds]</pre>
 */
public final class HttpGatewayInterleaved {
  private static final java.time.Duration STREAM_WARM_UP = java.time.Duration.ofSeconds(5);

  private HttpGatewayInterleaved() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
    unary(rounds);
    stream(Math.max(20, rounds / 10));
    System.exit(0);
  }

  private static void unary(int rounds) throws Exception {
    HttpGatewayBenchmark b = new HttpGatewayBenchmark();
    b.setUp();
    try {
      for (int i = 0; i < 2000; i++) {
        b.baselineBareJettyHandler();
        b.gatewayGet();
        b.gatewayPost();
      }
      long[][] nanos = new long[3][rounds];
      for (int i = 0; i < rounds; i++) {
        long start = System.nanoTime();
        b.baselineBareJettyHandler();
        nanos[0][i] = System.nanoTime() - start;
        start = System.nanoTime();
        b.gatewayGet();
        nanos[1][i] = System.nanoTime() - start;
        start = System.nanoTime();
        b.gatewayPost();
        nanos[2][i] = System.nanoTime() - start;
      }
      String[] names = {"bare Jetty handler", "gateway GET", "gateway POST"};
      for (int k = 0; k < 3; k++) {
        Arrays.sort(nanos[k]);
        System.out.printf(
            "unary %-20s p50 %6d us  p90 %6d us%n",
            names[k], nanos[k][rounds / 2] / 1000, nanos[k][rounds * 9 / 10] / 1000);
      }
      System.out.printf(
          "unary p50 ratio: GET %.2fx, POST %.2fx the bare handler%n",
          (double) nanos[1][rounds / 2] / nanos[0][rounds / 2],
          (double) nanos[2][rounds / 2] / nanos[0][rounds / 2]);
    } finally {
      b.tearDown();
    }
  }

  private static void stream(int rounds) throws Exception {
    HttpStreamBenchmark b = new HttpStreamBenchmark();
    b.setUp();
    try {
      // Warmed up as JMH warms up (5 x 1 s), not by a count of rounds: 20 rounds were 0.2 s, and
      // the gateway's longer path was then still partly interpreted, so the ratio measured the
      // JIT (0.3x cold against 0.6x warm on the same machine; docs/history/benchmarks.md, HTTP
      // gateway).
      long warmUpEnd = System.nanoTime() + STREAM_WARM_UP.toNanos();
      for (int i = 0; i < 20 || System.nanoTime() < warmUpEnd; i++) {
        b.baselineBareSseWriter();
        b.gatewayStream();
      }
      long[][] nanos = new long[2][rounds];
      for (int i = 0; i < rounds; i++) {
        long start = System.nanoTime();
        b.baselineBareSseWriter();
        nanos[0][i] = System.nanoTime() - start;
        start = System.nanoTime();
        b.gatewayStream();
        nanos[1][i] = System.nanoTime() - start;
      }
      Arrays.sort(nanos[0]);
      Arrays.sort(nanos[1]);
      double bare = HttpStreamBenchmark.ITEMS * 1e9 / nanos[0][rounds / 2];
      double gateway = HttpStreamBenchmark.ITEMS * 1e9 / nanos[1][rounds / 2];
      System.out.printf(
          "stream items/s (median stream): bare SseWriter %.0f, gateway %.0f: %.2fx%n",
          bare, gateway, gateway / bare);
    } finally {
      b.tearDown();
    }
  }
}
