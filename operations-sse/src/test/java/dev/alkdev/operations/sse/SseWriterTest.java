package dev.alkdev.operations.sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class SseWriterTest {

  // Pieces that break naive writers: line ends of every kind, spaces and colons where a field's
  // syntax has them, NUL, a BOM, multi-byte characters (2, 3 and 4 bytes), and text near the
  // writer's 8 KiB buffer size so characters straddle its boundary.
  private static final String[] PIECES = {
    "",
    "a",
    "hello world",
    "\n",
    "\r",
    "\r\n",
    "\n\r",
    "\r\r\n",
    " ",
    " leading space",
    ":",
    ": not a comment",
    "data: nested",
    "\0",
    "\uFEFF",
    "caf\u00e9",
    "\u65e5\u672c\u8a9e",
    "\uD83D\uDE00",
    "x".repeat(8190),
    "\u00e9".repeat(5000),
    "\uD83D\uDE80".repeat(3000),
  };

  private static final String[] TYPES = {"message", "update", "caf\u00e9", " x", "a:b", "\0"};
  private static final String[] IDS = {"1", "42", " 7", "caf\u00e9", "id:with:colons", ""};

  @Test
  void writesTheFieldsOfAnEvent() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    SseWriter writer = SseWriter.to(bytes);
    writer.write(
        SseEvent.message("a\r\nb").withType("update").withId("7").withRetry(Duration.ofSeconds(1)));
    writer.write(SseEvent.message(""));
    writer.flush();
    assertThat(bytes.toString(StandardCharsets.UTF_8))
        .isEqualTo("event: update\nid: 7\nretry: 1000\ndata: a\ndata: b\n\ndata: \n\n");
  }

  @RepeatedTest(25)
  void everyEventReadsBackAsWritten(RepetitionInfo repetition) {
    long seed = 0x5EE_0000L + repetition.getCurrentRepetition();
    Random random = new Random(seed);
    List<SseEvent> written = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      SseEvent event = SseEvent.message(text(random)).withType(pick(random, TYPES));
      if (random.nextInt(3) == 0) {
        // Mostly unique ids; now and then an empty one, which clears the id in effect.
        event = event.withId(pick(random, IDS) + (random.nextInt(4) == 0 ? "" : i));
      }
      if (random.nextInt(5) == 0) {
        event = event.withRetry(Duration.ofMillis(random.nextInt(100_000)));
      }
      written.add(event);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (SseWriter writer = SseWriter.to(bytes)) {
      for (SseEvent event : written) {
        if (random.nextInt(4) == 0) {
          writer.comment(text(random));
        }
        writer.write(event);
      }
    }

    List<SseEvent> read = parseInRandomPieces(bytes.toByteArray(), random);

    assertThat(read).as("seed %d", seed).isEqualTo(expected(written));
  }

  @Test
  void unpairedSurrogatesArriveAsReplacementCharacters() {
    assertThat(roundTrip(SseEvent.message("a\uD800b\uDC00c\uD83D")))
        .containsExactly(SseEvent.message("a\uFFFDb\uFFFDc\uFFFD"));
  }

  @Test
  void multiByteCharactersAcrossEveryInternalBoundaryReadBack() {
    // Shifting the start by 0..5 chars puts a surrogate pair, and 2- and 3-byte characters, across
    // each of the writer's internal boundaries (its char chunk and its byte buffer) somewhere.
    for (int shift = 0; shift < 6; shift++) {
      String data = "a".repeat(shift) + "\uD83D\uDE80\u00e9\u65e5".repeat(4000);
      assertThat(roundTrip(SseEvent.message(data))).containsExactly(SseEvent.message(data));
    }
  }

  @Test
  void commentsAreIgnoredByTheParserEvenWithLineEnds() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (SseWriter writer = SseWriter.to(bytes)) {
      writer.comment("");
      writer.comment("keep-alive");
      writer.comment("two\nlines\r\ndata: smuggled\r\rid: 9\n\n");
      writer.write(SseEvent.message("real"));
      writer.comment("after\n\ndata: x\n\n");
    }
    String text = bytes.toString(StandardCharsets.UTF_8);
    assertThat(text).startsWith(":\n: keep-alive\n: two\n: lines\n: data: smuggled\n: \n: id: 9\n");
    assertThat(parse(bytes.toByteArray())).containsExactly(SseEvent.message("real"));
  }

  @Test
  void retryAloneSetsTheReconnectionDelayWithoutAnEvent() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (SseWriter writer = SseWriter.to(bytes)) {
      writer.retry(Duration.ofMillis(2500));
    }
    List<SseEvent> events = new ArrayList<>();
    SseParser parser = SseParser.create(SseLimits.defaults(), events::add);
    byte[] written = bytes.toByteArray();
    parser.feed(written, 0, written.length);
    assertThat(events).isEmpty();
    assertThat(parser.retryMillis()).hasValue(2500);
  }

  @Test
  void refusesFieldsThatWouldBreakTheFramingAndWritesNothing() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    SseWriter writer = SseWriter.to(bytes);
    for (String id : List.of("a\nb", "a\rb", "a\0b")) {
      assertThatThrownBy(() -> writer.write(SseEvent.message("x").withId(id)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("id must not contain CR, LF or NUL");
    }
    for (String type : List.of("a\nb", "a\r")) {
      assertThatThrownBy(() -> writer.write(SseEvent.message("x").withType(type)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("type must be one line");
    }
    assertThatThrownBy(
            () -> writer.write(new SseEvent("message", "x", Optional.empty(), OptionalLong.of(-1))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retry must not be negative");
    assertThatThrownBy(() -> writer.retry(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    writer.flush();
    assertThat(bytes.size()).isZero();
  }

  @Test
  void nothingReachesTheStreamBeforeFlush() {
    RecordingStream stream = new RecordingStream();
    SseWriter writer = SseWriter.to(stream);
    writer.write(SseEvent.message("a"));
    writer.comment("");
    assertThat(stream.bytes.size()).isZero();
    writer.flush();
    assertThat(stream.bytes.toString(StandardCharsets.UTF_8)).isEqualTo("data: a\n\n:\n");
    assertThat(stream.flushes).isEqualTo(1);
  }

  @Test
  void aLargeEventGoesOutInBufferSizedPiecesAndReadsBack() {
    RecordingStream stream = new RecordingStream();
    String data = "\u00e9\uD83D\uDE00x".repeat(300_000); // 2.1 MB, characters straddle pieces
    try (SseWriter writer = SseWriter.to(stream)) {
      writer.write(SseEvent.message(data));
    }
    assertThat(stream.largestWrite).isLessThanOrEqualTo(8192);
    assertThat(stream.closed).isTrue();
    List<SseEvent> events = new ArrayList<>();
    SseParser parser =
        SseParser.create(
            SseLimits.defaults().withMaxLineBytes(4 << 20).withMaxEventBytes(4 << 20), events::add);
    byte[] written = stream.bytes.toByteArray();
    parser.feed(written, 0, written.length);
    assertThat(events).containsExactly(SseEvent.message(data));
  }

  @Test
  void closeFlushesClosesOnceAndRefusesLaterWrites() {
    RecordingStream stream = new RecordingStream();
    SseWriter writer = SseWriter.to(stream);
    writer.write(SseEvent.message("last"));
    writer.close();
    writer.close();
    assertThat(stream.closed).isTrue();
    assertThat(stream.bytes.toString(StandardCharsets.UTF_8)).isEqualTo("data: last\n\n");
    assertThatThrownBy(() -> writer.write(SseEvent.message("late")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the SSE writer is closed");
    assertThatThrownBy(() -> writer.comment("")).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(writer::flush).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aFailingStreamSurfacesAsUncheckedIoException() {
    OutputStream gone =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            throw new IOException("client went away");
          }

          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            throw new IOException("client went away");
          }
        };
    SseWriter writer = SseWriter.to(gone);
    writer.write(SseEvent.message("a"));
    assertThatThrownBy(writer::flush)
        .isInstanceOf(UncheckedIOException.class)
        .hasRootCauseMessage("client went away");
  }

  @Test
  void concurrentWritersNeverInterleaveWithinAnEvent() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int threads = 4;
    int perThread = 2_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
    CountDownLatch start = new CountDownLatch(1);
    try (SseWriter writer = SseWriter.to(bytes)) {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String name = "t" + t;
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < perThread; i++) {
                    // Multi-line, multi-byte data longer than a few buffer fills now and then.
                    String data = name + "\n" + i + "\n" + "\u00e9".repeat(i % 7 == 0 ? 5000 : 3);
                    writer.write(SseEvent.message(data).withType(name).withId(name + "-" + i));
                  }
                  return null;
                }));
      }
      done.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < 500; i++) {
                  writer.comment("keep-alive " + i);
                  writer.flush();
                }
                return null;
              }));
      start.countDown();
      for (Future<?> f : done) {
        f.get(20, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    List<SseEvent> events = parse(bytes.toByteArray());
    assertThat(events).hasSize(threads * perThread);
    int[] next = new int[threads];
    for (SseEvent event : events) {
      int t = Integer.parseInt(event.type().substring(1));
      int i = next[t]++;
      assertThat(event.id()).hasValue(event.type() + "-" + i); // in order per thread
      assertThat(event.data())
          .isEqualTo(event.type() + "\n" + i + "\n" + "\u00e9".repeat(i % 7 == 0 ? 5000 : 3));
    }
  }

  /** What the parser must give back: data line ends as LF, the id in effect persisting. */
  private static List<SseEvent> expected(List<SseEvent> written) {
    List<SseEvent> expected = new ArrayList<>();
    Optional<String> idInEffect = Optional.empty();
    for (SseEvent event : written) {
      if (event.id().isPresent()) {
        idInEffect = event.id().filter(id -> !id.isEmpty());
      }
      String data = event.data().replace("\r\n", "\n").replace('\r', '\n');
      expected.add(new SseEvent(event.type(), data, idInEffect, event.retry()));
    }
    return expected;
  }

  private static String text(Random random) {
    StringBuilder text = new StringBuilder();
    int pieces = random.nextInt(6);
    for (int i = 0; i < pieces; i++) {
      text.append(pick(random, PIECES));
    }
    return text.toString();
  }

  private static String pick(Random random, String[] values) {
    return values[random.nextInt(values.length)];
  }

  private static List<SseEvent> roundTrip(SseEvent event) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (SseWriter writer = SseWriter.to(bytes)) {
      writer.write(event);
    }
    return parse(bytes.toByteArray());
  }

  private static List<SseEvent> parse(byte[] bytes) {
    List<SseEvent> events = new ArrayList<>();
    SseParser parser = SseParser.create(SseLimits.defaults(), events::add);
    parser.feed(bytes, 0, bytes.length);
    parser.end();
    return events;
  }

  // Pieces of 1 byte to 2 KiB, so line ends and multi-byte characters fall across pieces.
  private static List<SseEvent> parseInRandomPieces(byte[] bytes, Random random) {
    List<SseEvent> events = new ArrayList<>();
    SseParser parser = SseParser.create(SseLimits.defaults(), events::add);
    int i = 0;
    while (i < bytes.length) {
      int n =
          Math.min(
              bytes.length - i,
              random.nextBoolean() ? 1 + random.nextInt(3) : 1 + random.nextInt(2048));
      parser.feed(bytes, i, n);
      i += n;
    }
    parser.end();
    return events;
  }

  /** Records the bytes, the largest single write, flushes and close. */
  private static final class RecordingStream extends OutputStream {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int largestWrite;
    int flushes;
    boolean closed;

    @Override
    public void write(int b) {
      bytes.write(b);
      largestWrite = Math.max(largestWrite, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      bytes.write(b, off, len);
      largestWrite = Math.max(largestWrite, len);
    }

    @Override
    public void flush() {
      flushes++;
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
