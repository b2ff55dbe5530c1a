package dev.alkdev.operations.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Another process's CPU time, for the mains that count a server's work beside this JVM's. */
final class ProcessCpu {
  private ProcessCpu() {}

  /** utime + stime of process {@code pid}, from /proc (Linux; clock ticks of 10 ms). */
  static long nanos(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    // Fields after the command name, which is in parentheses and may itself hold spaces.
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
  }
}
