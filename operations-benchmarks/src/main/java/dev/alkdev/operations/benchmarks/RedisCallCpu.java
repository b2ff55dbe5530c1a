package dev.alkdev.operations.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link RedisCallBenchmark}'s raw request/reply and its two call routes measured in work rather
 * than time, so a machine shared with other work says little about the figures: per call, this
 * JVM's CPU time (all threads), the {@code redis-server}'s CPU time (from {@code /proc}, 10 ms
 * ticks), and what the server ran by its own account ({@code INFO commandstats}: EVALSHA and
 * PUBLISH calls and microseconds; PUBLISHes run inside a script are counted there too, and their
 * time is also part of the script's). One call at a time, then batches of 64 in flight; the three
 * kinds alternate in rounds, and the medians of the rounds are printed. Linux only.
 *
 * <pre>java -cp operations-benchmarks/target/benchmarks.jar \
 *   dev.alkdev.operations.benchmarks.RedisCallCpu [rounds]</pre>
 */
public final class RedisCallCpu {
  private RedisCallCpu() {}

  private static final String[] NAMES = {
    "raw Lettuce request", "call, queue group", "call, discovery-routed"
  };
  private static final String[] FIGURES = {
    "JVM CPU us", "server CPU us", "EVALSHA calls", "EVALSHA us", "PUBLISH calls", "PUBLISH us"
  };
  private static final Pattern STAT =
      Pattern.compile("cmdstat_(\\w+):calls=(\\d+),usec=(\\d+),usec_per_call");

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
    RedisCallBenchmark b = new RedisCallBenchmark();
    b.setUp();
    try {
      for (int i = 0; i < 3000; i++) {
        run(b, i % 3, false);
      }
      for (int i = 0; i < 300; i++) {
        run(b, i % 3, true);
      }
      int calls = 2000;
      int batches = 100;
      double[][][] one = new double[3][FIGURES.length][rounds];
      double[][][] many = new double[3][FIGURES.length][rounds];
      for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 3; k++) {
          int kind = (r + k) % 3;
          Sample before = Sample.take(b);
          for (int i = 0; i < calls; i++) {
            run(b, kind, false);
          }
          Sample.take(b).minus(before).perCall(calls, one[kind], r);
          before = Sample.take(b);
          for (int i = 0; i < batches; i++) {
            run(b, kind, true);
          }
          Sample.take(b).minus(before).perCall(batches * 64, many[kind], r);
        }
      }
      print("one in flight", one);
      print("64 in flight", many);
    } finally {
      b.tearDown();
    }
  }

  private static void run(RedisCallBenchmark b, int kind, boolean sixtyFour) {
    switch (kind) {
      case 0 -> {
        if (sixtyFour) {
          b.baselineRawSixtyFourInFlight();
        } else {
          b.baselineRawRequest();
        }
      }
      case 1 -> {
        if (sixtyFour) {
          b.sixtyFourInFlight();
        } else {
          b.roundTrip();
        }
      }
      default -> {
        if (sixtyFour) {
          b.catalogSixtyFourInFlight();
        } else {
          b.catalogRoundTrip();
        }
      }
    }
  }

  private static void print(String title, double[][][] figures) {
    System.out.println(title + " (medians per call):");
    for (int k = 0; k < 3; k++) {
      StringBuilder line = new StringBuilder(String.format("  %-24s", NAMES[k]));
      for (int f = 0; f < FIGURES.length; f++) {
        Arrays.sort(figures[k][f]);
        line.append(
            String.format("  %s %.2f", FIGURES[f], figures[k][f][figures[k][f].length / 2]));
      }
      System.out.println(line);
    }
  }

  /** Counters of this JVM and of the server at one moment (the command stats: since a reset). */
  private record Sample(long jvmCpuNanos, long serverCpuNanos, Map<String, long[]> stats) {

    static Sample take(RedisCallBenchmark b) throws IOException {
      com.sun.management.OperatingSystemMXBean os =
          (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      Map<String, long[]> stats = new HashMap<>();
      Matcher m = STAT.matcher(b.commandStats());
      while (m.find()) {
        stats.put(m.group(1), new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(3))});
      }
      return new Sample(os.getProcessCpuTime(), ProcessCpu.nanos(b.serverPid()), stats);
    }

    Sample minus(Sample o) {
      Map<String, long[]> delta = new HashMap<>();
      stats.forEach(
          (command, now) -> {
            long[] then = o.stats.getOrDefault(command, new long[2]);
            delta.put(command, new long[] {now[0] - then[0], now[1] - then[1]});
          });
      return new Sample(jvmCpuNanos - o.jvmCpuNanos, serverCpuNanos - o.serverCpuNanos, delta);
    }

    void perCall(int calls, double[][] into, int round) {
      long[] evalsha = stats.getOrDefault("evalsha", new long[2]);
      long[] publish = stats.getOrDefault("publish", new long[2]);
      into[0][round] = jvmCpuNanos / 1000.0 / calls;
      into[1][round] = serverCpuNanos / 1000.0 / calls;
      into[2][round] = (double) evalsha[0] / calls;
      into[3][round] = (double) evalsha[1] / calls;
      into[4][round] = (double) publish[0] / calls;
      into[5][round] = (double) publish[1] / calls;
    }
  }
}
