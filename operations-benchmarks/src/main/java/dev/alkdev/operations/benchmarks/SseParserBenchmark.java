package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.sse.SseLimits;
import dev.alkdev.operations.sse.SseParser;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 5's SSE benchmark: the push parser on (a) 100,000 events of 100 bytes and (b) one 4 MiB
 * data line, both fed in 1,460-byte pieces (a TCP segment's payload), as the HTTP client would hand
 * them over. Baselines in the same run: {@code BufferedReader.readLine} over the same bytes through
 * an UTF-8 {@code InputStreamReader} - line splitting and decoding only, no SSE fields, no events.
 * The long line shows the parser stays linear when a line spans thousands of pieces.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class SseParserBenchmark {
  private static final int PIECE = 1460;

  private byte[] smallEvents;
  private byte[] longLine;
  private final SseLimits limits = SseLimits.defaults().withMaxLineBytes(8 << 20);

  @Setup
  public void setUp() {
    StringBuilder stream = new StringBuilder();
    for (int i = 0; i < 100_000; i++) {
      // 100 bytes per event: "event: update\nid: NNNNNN\ndata: {...}\n\n"
      String id = String.format("%06d", i);
      String head =
          "event: update\nid: " + id + "\ndata: {\"n\":" + id + ",\"name\":\"caf\u00e9\",\"x\":\"";
      stream
          .append(head)
          .append("y".repeat(96 - head.getBytes(StandardCharsets.UTF_8).length))
          .append("\"}\n\n");
    }
    smallEvents = stream.toString().getBytes(StandardCharsets.UTF_8);
    longLine = new byte[(4 << 20) + 8];
    Arrays.fill(longLine, (byte) 'x');
    System.arraycopy("data: ".getBytes(StandardCharsets.US_ASCII), 0, longLine, 0, 6);
    longLine[longLine.length - 2] = '\n';
    longLine[longLine.length - 1] = '\n';
    if (smallEvents.length != 100 * 100_000
        || parse(smallEvents) != 100_000
        || parse(longLine) != 1) {
      throw new IllegalStateException("benchmark input does not parse as expected");
    }
  }

  private long parse(byte[] bytes) {
    long[] events = new long[1];
    SseParser parser = SseParser.create(limits, event -> events[0]++);
    for (int i = 0; i < bytes.length; i += PIECE) {
      parser.feed(bytes, i, Math.min(PIECE, bytes.length - i));
    }
    parser.end();
    return events[0];
  }

  private static long readLines(byte[] bytes) throws IOException {
    long chars = 0;
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(new ByteArrayInputStream(bytes), StandardCharsets.UTF_8))) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        chars += line.length();
      }
    }
    return chars;
  }

  /** Baseline: readLine over the 100,000 events of 100 bytes' bytes. */
  @Benchmark
  public long baselineSmallEventsReadLine() throws IOException {
    return readLines(smallEvents);
  }

  /** The parser on the 100,000 events of 100 bytes, fed in 1,460-byte pieces. */
  @Benchmark
  public long smallEvents() {
    return parse(smallEvents);
  }

  /** Baseline: readLine over the 4 MiB line. */
  @Benchmark
  public long baselineLongLineReadLine() throws IOException {
    return readLines(longLine);
  }

  /** The parser on one 4 MiB data line, fed in 1,460-byte pieces. */
  @Benchmark
  public long longLine() {
    return parse(longLine);
  }
}
