package dev.alkdev.operations.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * {@link CallRoundTripBenchmark}'s calls measured in CPU time: the process's CPU time per call
 * (every thread: caller, pub/sub delivery, executor, JIT and GC alike), one call in flight and 64,
 * and for one in flight the caller's thread alone (in-process delivery runs the call on it, D14;
 * its clock is finer than the process's). On a machine shared with other work, wall-clock
 * throughput says more about the neighbours than about the code; CPU time per call much less so.
 * Run two builds alternately to compare them (D75).
 *
 * <pre>java -cp operations-benchmarks/target/benchmarks.jar \
 *   dev.alkdev.operations.benchmarks.CallRoundTripCpu [rounds]</pre>
 */
public final class CallRoundTripCpu {
  private CallRoundTripCpu() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 9;
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    CallRoundTripBenchmark b = new CallRoundTripBenchmark();
    b.setUp();
    try {
      for (int i = 0; i < 20_000; i++) {
        b.oneInFlight();
      }
      for (int i = 0; i < 300; i++) {
        b.sixtyFourInFlight();
      }
      int calls = 25_000;
      int batches = 400;
      java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      double[] one = new double[rounds];
      double[] caller = new double[rounds];
      double[] many = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        long cpu = os.getProcessCpuTime();
        long own = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < calls; i++) {
          b.oneInFlight();
        }
        caller[r] = (threads.getCurrentThreadCpuTime() - own) / 1000.0 / calls;
        one[r] = (os.getProcessCpuTime() - cpu) / 1000.0 / calls;
        cpu = os.getProcessCpuTime();
        for (int i = 0; i < batches; i++) {
          b.sixtyFourInFlight();
        }
        many[r] = (os.getProcessCpuTime() - cpu) / 1000.0 / (batches * 64);
      }
      Arrays.sort(one);
      Arrays.sort(caller);
      Arrays.sort(many);
      System.out.printf(
          "CPU per call: one in flight %.2f us (quartiles %.2f-%.2f; the caller's thread alone"
              + " %.2f us, %.2f-%.2f), 64 in flight %.2f us (%.2f-%.2f)%n",
          one[rounds / 2],
          one[rounds / 4],
          one[rounds * 3 / 4],
          caller[rounds / 2],
          caller[rounds / 4],
          caller[rounds * 3 / 4],
          many[rounds / 2],
          many[rounds / 4],
          many[rounds * 3 / 4]);
    } finally {
      b.tearDown();
    }
  }
}
