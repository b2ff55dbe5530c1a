package dev.alkdev.operations.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * {@link NatsCallBenchmark}'s raw request/reply and call measured in work rather than time, so a
 * machine shared with other work says little about the figures: per call, this JVM's CPU time (all
 * threads), the {@code nats-server}'s CPU time, the context switches of this JVM's threads and of
 * the server's (each one a thread that went to sleep and had to be woken: a hand-off), and the
 * bytes this JVM allocated. One call at a time, then batches of 64 in flight; raw and call
 * alternate in rounds, and the medians of the rounds are printed. Linux only: the server's CPU time
 * and the context switches come from {@code /proc}.
 *
 * <pre>java -cp operations-benchmarks/target/benchmarks.jar \
 *   dev.alkdev.operations.benchmarks.NatsCallCpu [rounds]</pre>
 */
public final class NatsCallCpu {
  private NatsCallCpu() {}

  private static final String[] NAMES = {"raw jnats request", "call over NATS"};

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
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
      int calls = 3000;
      int batches = 150;
      double[][][] one = new double[2][5][rounds];
      double[][][] many = new double[2][5][rounds];
      for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 2; k++) {
          boolean raw = ((r + k) & 1) == 0;
          int idx = raw ? 0 : 1;
          Sample before = Sample.take(b.serverPid());
          for (int i = 0; i < calls; i++) {
            if (raw) {
              b.baselineRawRequest();
            } else {
              b.roundTrip();
            }
          }
          Sample.take(b.serverPid()).minus(before).perCall(calls, one[idx], r);
          before = Sample.take(b.serverPid());
          for (int i = 0; i < batches; i++) {
            if (raw) {
              b.baselineRawSixtyFourInFlight();
            } else {
              b.sixtyFourInFlight();
            }
          }
          Sample.take(b.serverPid()).minus(before).perCall(batches * 64, many[idx], r);
        }
      }
      print("one in flight", one);
      print("64 in flight", many);
    } finally {
      b.tearDown();
    }
  }

  private static void print(String title, double[][][] figures) {
    System.out.println(title + " (medians per call):");
    for (int k = 0; k < 2; k++) {
      double[] m = new double[5];
      for (int f = 0; f < 5; f++) {
        Arrays.sort(figures[k][f]);
        m[f] = figures[k][f][figures[k][f].length / 2];
      }
      System.out.printf(
          "  %-18s JVM CPU %6.1f us  server CPU %5.1f us  JVM switches %5.2f  server switches"
              + " %5.2f  allocated %6.0f B%n",
          NAMES[k], m[0], m[1], m[2], m[3], m[4]);
    }
  }

  /** Counters of this JVM and of the server at one moment. */
  private record Sample(
      long jvmCpuNanos,
      long serverCpuNanos,
      long jvmSwitches,
      long serverSwitches,
      long allocated) {

    static Sample take(long serverPid) throws IOException {
      com.sun.management.OperatingSystemMXBean os =
          (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      com.sun.management.ThreadMXBean threads =
          (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      long allocated = 0;
      for (long a : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
        allocated += Math.max(0, a);
      }
      return new Sample(
          os.getProcessCpuTime(),
          ProcessCpu.nanos(serverPid),
          ProcessCpu.switches(ProcessHandle.current().pid()),
          ProcessCpu.switches(serverPid),
          allocated);
    }

    Sample minus(Sample o) {
      return new Sample(
          jvmCpuNanos - o.jvmCpuNanos,
          serverCpuNanos - o.serverCpuNanos,
          jvmSwitches - o.jvmSwitches,
          serverSwitches - o.serverSwitches,
          allocated - o.allocated);
    }

    void perCall(int calls, double[][] into, int round) {
      into[0][round] = jvmCpuNanos / 1000.0 / calls;
      into[1][round] = serverCpuNanos / 1000.0 / calls;
      into[2][round] = (double) jvmSwitches / calls;
      into[3][round] = (double) serverSwitches / calls;
      into[4][round] = (double) allocated / calls;
    }
  }
}
