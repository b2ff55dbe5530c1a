package dev.alkdev.operations.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A process's CPU time and its threads' context switches, from /proc (Linux), for the mains that
 * count work rather than time.
 */
final class ProcessCpu {
  private ProcessCpu() {}

  /** utime + stime of process {@code pid}, from /proc (Linux; clock ticks of 10 ms). */
  static long nanos(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    // Fields after the command name, which is in parentheses and may itself hold spaces.
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
  }

  /**
   * One thread's name as the kernel has it ({@code comm}: its first 15 characters; a JVM's main
   * thread is "java") and its voluntary and involuntary context switches so far: each one a thread
   * that went to sleep and had to be woken, or was preempted.
   */
  record ThreadSwitches(String name, long switches) {}

  /**
   * Every thread of process {@code pid} with its context switches; threads that end meanwhile are
   * left out.
   */
  static List<ThreadSwitches> threadSwitches(long pid) throws IOException {
    List<ThreadSwitches> threads = new ArrayList<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          long switches = 0;
          for (String line : Files.readAllLines(task.resolve("status"))) {
            if (line.startsWith("voluntary_ctxt_switches")
                || line.startsWith("nonvoluntary_ctxt_switches")) {
              switches += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
          }
          threads.add(new ThreadSwitches(Files.readString(task.resolve("comm")).trim(), switches));
        } catch (IOException threadEnded) {
          // a thread that ended meanwhile
        }
      }
    }
    return threads;
  }

  /** The context switches of every thread of process {@code pid} together. */
  static long switches(long pid) throws IOException {
    long total = 0;
    for (ThreadSwitches thread : threadSwitches(pid)) {
      total += thread.switches();
    }
    return total;
  }
}
