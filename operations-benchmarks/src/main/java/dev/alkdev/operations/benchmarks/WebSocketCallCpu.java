package dev.alkdev.operations.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * {@link WebSocketCallBenchmark}'s raw echo and spoke → hub call measured in work rather than time:
 * per call, the CPU time of the caller's thread, of the hub's threads ({@code ops-ws-hub}), of the
 * spokes' threads ({@code ops-ws-spoke}), of the other Java threads (the raw echo's client and
 * server are among them), and of the whole JVM (with the garbage collector and the compilers); the
 * context switches of this JVM's threads; the bytes allocated. Raw and call alternate in rounds,
 * and the medians of the rounds are printed. Everything runs in this JVM, so which threads spend
 * the time says which end does the work. Linux only: the context switches come from {@code /proc}.
 *
 * <pre>java -cp operations-benchmarks/target/benchmarks.jar \
 *   dev.alkdev.operations.benchmarks.WebSocketCallCpu [rounds]</pre>
 */
public final class WebSocketCallCpu {
  private WebSocketCallCpu() {}

  private static final String[] NAMES = {"raw Jetty echo", "spoke -> hub call"};
  private static final String[] GROUPS = {"caller", "hub", "spokes", "other", "whole JVM"};

  // Where each figure sits after the CPU times of GROUPS.
  private static final int SWITCHES = GROUPS.length;
  private static final int ALLOCATED = SWITCHES + 1;
  private static final int WALL = ALLOCATED + 1;
  private static final int GROUP_SWITCHES = WALL + 1; // hub, spokes, other threads
  private static final int FIGURES = GROUP_SWITCHES + 3;

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
    WebSocketCallBenchmark b = new WebSocketCallBenchmark();
    b.setUp();
    try {
      // Past the hub's heartbeats and pings, as the JMH benchmark's warm-up (its Javadoc).
      long warmUntil = System.nanoTime() + 30_000_000_000L;
      while (System.nanoTime() - warmUntil < 0) {
        for (int i = 0; i < 500; i++) {
          b.baselineRawEcho();
          b.roundTrip();
        }
      }
      int calls = 5000;
      double[][][] per = new double[2][FIGURES][rounds];
      for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 2; k++) {
          boolean raw = ((r + k) & 1) == 0;
          int idx = raw ? 0 : 1;
          Sample before = Sample.take();
          long start = System.nanoTime();
          for (int i = 0; i < calls; i++) {
            if (raw) {
              b.baselineRawEcho();
            } else {
              b.roundTrip();
            }
          }
          long wall = System.nanoTime() - start;
          Sample after = Sample.take();
          for (int g = 0; g < GROUPS.length; g++) {
            per[idx][g][r] = (after.cpu[g] - before.cpu[g]) / 1000.0 / calls;
          }
          per[idx][SWITCHES][r] = (double) (after.switches - before.switches) / calls;
          per[idx][ALLOCATED][r] = (double) (after.allocated - before.allocated) / calls;
          per[idx][WALL][r] = wall / 1000.0 / calls;
          for (int g = 0; g < 3; g++) {
            per[idx][GROUP_SWITCHES + g][r] =
                (double) (after.groupSwitches[g] - before.groupSwitches[g]) / calls;
          }
        }
      }
      System.out.println("one call at a time (medians per call; CPU in us):");
      for (int k = 0; k < 2; k++) {
        double[] m = new double[FIGURES];
        for (int f = 0; f < FIGURES; f++) {
          Arrays.sort(per[k][f]);
          m[f] = per[k][f][rounds / 2];
        }
        System.out.printf(
            "  %-18s caller %5.1f  hub %5.1f  spokes %5.1f  other threads %5.1f  whole JVM %5.1f"
                + "  switches %5.2f (hub %4.2f, spokes %4.2f, other threads %4.2f)  allocated %6.0f B"
                + "  wall %6.1f us%n",
            NAMES[k],
            m[0],
            m[1],
            m[2],
            m[3],
            m[4],
            m[SWITCHES],
            m[GROUP_SWITCHES],
            m[GROUP_SWITCHES + 1],
            m[GROUP_SWITCHES + 2],
            m[ALLOCATED],
            m[WALL]);
      }
    } finally {
      b.tearDown();
    }
  }

  /** CPU time per thread group, context switches and allocation of this JVM at one moment. */
  private static final class Sample {
    final long[] cpu = new long[GROUPS.length];
    long switches;
    final long[] groupSwitches = new long[3]; // hub, spokes, the rest but the caller
    long allocated;

    static Sample take() throws IOException {
      com.sun.management.ThreadMXBean threads =
          (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      Sample s = new Sample();
      long self = Thread.currentThread().getId();
      Map<Long, String> names = new HashMap<>();
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        names.put(t.getId(), t.getName());
      }
      s.cpu[4] =
          ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
              .getProcessCpuTime();
      for (long id : threads.getAllThreadIds()) {
        long cpu = threads.getThreadCpuTime(id);
        long bytes = threads.getThreadAllocatedBytes(id);
        if (cpu < 0) {
          continue;
        }
        s.allocated += Math.max(0, bytes);
        s.cpu[id == self ? 0 : groupOf(names.getOrDefault(id, ""))] += cpu;
      }
      for (ProcessCpu.ThreadSwitches thread :
          ProcessCpu.threadSwitches(ProcessHandle.current().pid())) {
        s.switches += thread.switches();
        if (!thread.name().equals("java")) { // the kernel's name of the main thread: the caller
          s.groupSwitches[groupOf(thread.name()) - 1] += thread.switches();
        }
      }
      return s;
    }

    /**
     * 1 the hub's threads, 2 the spokes', 3 any other; by name, which also holds for the kernel's
     * names of them (their first 15 characters).
     */
    private static int groupOf(String threadName) {
      if (threadName.startsWith("ops-ws-hub")) {
        return 1;
      }
      return threadName.startsWith("ops-ws-spoke") ? 2 : 3;
    }
  }
}
