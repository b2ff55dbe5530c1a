package dev.alkdev.operations.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@link ObservedExecuteBenchmark}'s variants measured round after round in one JVM, each round
 * running every variant in turn, so that all of them see the same load (the machine is shared): the
 * median of the rounds' ns per call, its ratio to the plain call, and the bytes allocated per call
 * (the thread's allocation counter), and the medians of each round's ratio and difference to that
 * round's plain call. It also reports the thread's CPU time per call (median of the rounds, and
 * paired with plain): on a shared machine the wall time counts the time the thread waited for a
 * core, the CPU time does not, so it stays readable under load. Run: {@code java -cp benchmarks.jar
 * dev.alkdev.operations.benchmarks.ObservedExecuteInterleaved [rounds] [calls per round]}.
 */
public final class ObservedExecuteInterleaved {
  private ObservedExecuteInterleaved() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    int calls = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
    ObservedExecuteBenchmark bench = new ObservedExecuteBenchmark();
    bench.setUp();
    Map<String, Supplier<Object>> variants = new LinkedHashMap<>();
    variants.put("plain", bench::executePlain);
    variants.put("pass-through interceptor", bench::executeWithPassThroughInterceptor);
    variants.put("metrics", bench::executeWithMetrics);
    variants.put("metrics, no histogram", bench::executeWithMetricsNoHistogram);
    variants.put("tracing", bench::executeWithTracing);
    variants.put("metrics+tracing", bench::executeWithMetricsAndTracing);
    variants.put("tracing, sampled off", bench::executeWithTracingSampledOff);
    variants.put("tracing, no-op API", bench::executeWithTracingNoop);
    variants.put("SDK span floor", bench::sdkSpanFloor);
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long self = Thread.currentThread().getId();
    Map<String, List<Double>> nanos = new LinkedHashMap<>();
    Map<String, List<Double>> cpu = new LinkedHashMap<>();
    Map<String, Double> bytes = new LinkedHashMap<>();
    Object sink = null;
    for (int round = -5; round < rounds; round++) { // 5 rounds of warm-up
      for (Map.Entry<String, Supplier<Object>> variant : variants.entrySet()) {
        Supplier<Object> call = variant.getValue();
        long allocated = threads.getThreadAllocatedBytes(self);
        long cpuStart = threads.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        for (int i = 0; i < calls; i++) {
          sink = call.get();
        }
        long elapsed = System.nanoTime() - start;
        long cpuElapsed = threads.getCurrentThreadCpuTime() - cpuStart;
        allocated = threads.getThreadAllocatedBytes(self) - allocated;
        if (round >= 0) {
          nanos
              .computeIfAbsent(variant.getKey(), k -> new ArrayList<>())
              .add((double) elapsed / calls);
          cpu.computeIfAbsent(variant.getKey(), k -> new ArrayList<>())
              .add((double) cpuElapsed / calls);
          bytes.merge(variant.getKey(), (double) allocated / calls / rounds, Double::sum);
        }
      }
    }
    bench.tearDown();
    double plain = median(nanos.get("plain"));
    // Besides the medians' ratio, the median of each round's own ratio and difference to the plain
    // call of the same round: on a loaded machine the load drifts between rounds, less within one.
    System.out.printf(
        "%-26s %10s %8s %10s %12s %12s %10s %12s %14s%n",
        "variant",
        "ns/call",
        "ratio",
        "+ns",
        "paired ratio",
        "paired +ns",
        "B/call",
        "cpu ns/call",
        "cpu paired +ns");
    for (String name : variants.keySet()) {
      double median = median(nanos.get(name));
      List<Double> ratios = new ArrayList<>();
      List<Double> differences = new ArrayList<>();
      List<Double> cpuDifferences = new ArrayList<>();
      for (int round = 0; round < rounds; round++) {
        double base = nanos.get("plain").get(round);
        ratios.add(nanos.get(name).get(round) / base);
        differences.add(nanos.get(name).get(round) - base);
        cpuDifferences.add(cpu.get(name).get(round) - cpu.get("plain").get(round));
      }
      System.out.printf(
          "%-26s %10.0f %8.2f %10.0f %12.2f %12.0f %10.0f %12.0f %14.0f%n",
          name,
          median,
          median / plain,
          median - plain,
          median(ratios),
          median(differences),
          bytes.get(name),
          median(cpu.get(name)),
          median(cpuDifferences));
    }
    if (sink == null) {
      System.out.println();
    }
  }

  private static double median(List<Double> values) {
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return sorted[sorted.length / 2];
  }
}
