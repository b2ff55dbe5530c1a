package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.sse.SseEvent;
import dev.alkdev.operations.sse.SseLimits;
import dev.alkdev.operations.sse.SseParser;
import dev.alkdev.operations.sse.SseWriter;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
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
 * The SSE writer (issue 13) on the parser benchmark's streams: (a) 100,000 events of 100 bytes
 * ({@code event}, {@code id}, a JSON {@code data} with a non-ASCII character) and (b) one 4 MiB
 * data line, written to a sink that counts and discards bytes. Baselines in the same run: a {@code
 * BufferedWriter} over an UTF-8 {@code OutputStreamWriter} writing the same bytes from the same
 * strings (field prefixes, values, line ends), with no line splitting and no checks.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class SseWriterBenchmark {
  private static final int EVENTS = 100_000;

  private SseEvent[] smallEvents;
  private SseEvent longLine;

  @Setup
  public void setUp() throws IOException {
    smallEvents = new SseEvent[EVENTS];
    for (int i = 0; i < EVENTS; i++) {
      String id = String.format("%06d", i);
      String head = "event: update\nid: " + id + "\ndata: ";
      String json = "{\"n\":" + id + ",\"name\":\"caf\u00e9\",\"x\":\"";
      int pad = 96 - (head + json).getBytes(StandardCharsets.UTF_8).length;
      smallEvents[i] =
          SseEvent.message(json + "y".repeat(pad) + "\"}").withType("update").withId(id);
    }
    char[] xs = new char[4 << 20];
    Arrays.fill(xs, 'x');
    longLine = SseEvent.message(new String(xs));

    // Both ways must produce the same bytes, and the parser must read them back.
    for (SseEvent[] events : new SseEvent[][] {smallEvents, {longLine}}) {
      ByteArrayOutputStream ours = new ByteArrayOutputStream();
      ByteArrayOutputStream plain = new ByteArrayOutputStream();
      writeEvents(events, ours);
      writePlain(events, plain);
      byte[] bytes = ours.toByteArray();
      long[] parsed = new long[1];
      SseParser parser =
          SseParser.create(SseLimits.defaults().withMaxLineBytes(8 << 20), event -> parsed[0]++);
      parser.feed(bytes, 0, bytes.length);
      if (!Arrays.equals(bytes, plain.toByteArray()) || parsed[0] != events.length) {
        throw new IllegalStateException("benchmark output differs from the baseline's");
      }
    }
    if (new CountingSink().count(smallEvents, true) != 100L * EVENTS) {
      throw new IllegalStateException("the small events are not 100 bytes each");
    }
  }

  private static void writeEvents(SseEvent[] events, OutputStream out) {
    try (SseWriter writer = SseWriter.to(out)) {
      for (SseEvent event : events) {
        writer.write(event);
      }
    }
  }

  private static void writePlain(SseEvent[] events, OutputStream out) throws IOException {
    try (Writer writer =
        new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 8192)) {
      for (SseEvent event : events) {
        if (!event.type().equals(SseEvent.DEFAULT_TYPE)) {
          writer.write("event: ");
          writer.write(event.type());
          writer.write('\n');
        }
        if (event.id().isPresent()) {
          writer.write("id: ");
          writer.write(event.id().get());
          writer.write('\n');
        }
        writer.write("data: ");
        writer.write(event.data());
        writer.write("\n\n");
      }
    }
  }

  /** Baseline: BufferedWriter over the 100,000 events' strings. */
  @Benchmark
  public long baselineSmallEventsBufferedWriter() throws IOException {
    return new CountingSink().count(smallEvents, false);
  }

  /** SseWriter on the 100,000 events. */
  @Benchmark
  public long smallEvents() throws IOException {
    return new CountingSink().count(smallEvents, true);
  }

  /** Baseline: BufferedWriter over the 4 MiB line. */
  @Benchmark
  public long baselineLongLineBufferedWriter() throws IOException {
    return new CountingSink().count(new SseEvent[] {longLine}, false);
  }

  /** SseWriter on one 4 MiB data line. */
  @Benchmark
  public long longLine() throws IOException {
    return new CountingSink().count(new SseEvent[] {longLine}, true);
  }

  /** Counts and discards what it is given, as a socket would take it. */
  private static final class CountingSink extends OutputStream {
    private long bytes;

    long count(SseEvent[] events, boolean ours) throws IOException {
      if (ours) {
        writeEvents(events, this);
      } else {
        writePlain(events, this);
      }
      return bytes;
    }

    @Override
    public void write(int b) {
      bytes++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      bytes += len;
    }
  }
}
