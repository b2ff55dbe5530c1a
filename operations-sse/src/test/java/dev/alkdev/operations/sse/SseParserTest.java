package dev.alkdev.operations.sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class SseParserTest {

  private static List<SseEvent> parse(String stream) {
    return parse(stream.getBytes(StandardCharsets.UTF_8));
  }

  private static List<SseEvent> parse(byte[] bytes) {
    List<SseEvent> events = new ArrayList<>();
    SseParser parser = SseParser.create(SseLimits.defaults(), events::add);
    parser.feed(bytes, 0, bytes.length);
    parser.end();
    return events;
  }

  private static List<SseEvent> parseSplit(byte[] bytes, int... cuts) {
    List<SseEvent> events = new ArrayList<>();
    SseParser parser = SseParser.create(SseLimits.defaults(), events::add);
    int from = 0;
    for (int cut : cuts) {
      parser.feed(ByteBuffer.wrap(Arrays.copyOfRange(bytes, from, cut)));
      from = cut;
    }
    parser.feed(ByteBuffer.wrap(Arrays.copyOfRange(bytes, from, bytes.length)));
    parser.end();
    return events;
  }

  private static SseEvent event(String type, String data, String id) {
    return new SseEvent(type, data, Optional.ofNullable(id), OptionalLong.empty());
  }

  @Test
  void simpleMessage() {
    assertThat(parse("data: hello\n\n")).containsExactly(SseEvent.message("hello"));
  }

  @Test
  void multiLineDataJoinedWithNewline() {
    assertThat(parse("data: a\ndata:b\ndata\n\n")).containsExactly(SseEvent.message("a\nb\n"));
  }

  @Test
  void crLfAndCrLineEnds() {
    assertThat(parse("data: a\r\n\r\ndata: b\r\rdata: c\n\n"))
        .containsExactly(SseEvent.message("a"), SseEvent.message("b"), SseEvent.message("c"));
  }

  @Test
  void crAtChunkEndAndLfAtNextChunkStartAreOneLineEnd() {
    byte[] bytes = "data: a\r\ndata: b\r\n\r\n".getBytes(StandardCharsets.UTF_8);
    // cut right after the first CR: if counted twice, "a" would dispatch alone
    assertThat(parseSplit(bytes, 8)).containsExactly(SseEvent.message("a\nb"));
    assertThat(parseSplit(bytes, 8, 17, 19)).containsExactly(SseEvent.message("a\nb"));
  }

  @Test
  void eventTypeAndDefault() {
    assertThat(parse("event: add\ndata: 1\n\ndata: 2\n\n"))
        .containsExactly(event("add", "1", null), event("message", "2", null));
  }

  @Test
  void idPersistsAcrossEventsAndEmptyIdClearsIt() {
    assertThat(parse("id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n"))
        .containsExactly(
            event("message", "a", "7"), event("message", "b", "7"), event("message", "c", null));
  }

  @Test
  void idWithNulIsIgnored() {
    assertThat(parse("id: 1\n\nid: 2\0x\ndata: a\n\n")).containsExactly(event("message", "a", "1"));
  }

  @Test
  void retryDigitsOnly() {
    List<SseEvent> events = new ArrayList<>();
    SseParser parser = SseParser.create(SseLimits.defaults(), events::add);
    byte[] bytes =
        "retry: 1500\ndata: a\n\nretry: 12x\ndata: b\n\nretry: -5\nretry:\nretry: 2 \ndata: c\n\n"
            .getBytes(StandardCharsets.UTF_8);
    parser.feed(bytes, 0, bytes.length);
    assertThat(events)
        .extracting(SseEvent::retry)
        .containsExactly(OptionalLong.of(1500), OptionalLong.empty(), OptionalLong.empty());
    assertThat(parser.retryMillis()).hasValue(1500);
    byte[] more = "retry: 99\n\n".getBytes(StandardCharsets.UTF_8);
    parser.feed(more, 0, more.length); // no data: no dispatch, but the retry still counts
    assertThat(parser.retryMillis()).hasValue(99);
    assertThat(events).hasSize(3);
  }

  @Test
  void commentsIgnored() {
    assertThat(parse(": keep-alive\ndata: a\n:another\n\n")).containsExactly(SseEvent.message("a"));
  }

  @Test
  void fieldWithoutColonHasEmptyValue() {
    assertThat(parse("data\ndata\n\n")).containsExactly(SseEvent.message("\n"));
    assertThat(parse("event\ndata: x\n\n")).containsExactly(SseEvent.message("x"));
  }

  @Test
  void onlyOneLeadingSpaceRemoved() {
    assertThat(parse("data:  two\ndata:none\n\n")).containsExactly(SseEvent.message(" two\nnone"));
  }

  @Test
  void unknownFieldsIgnored() {
    assertThat(parse("foo: bar\ndata: a\nDATA: b\n\n")).containsExactly(SseEvent.message("a"));
  }

  @Test
  void emptyDataDoesNotDispatchAndResetsType() {
    assertThat(parse("event: x\n\ndata: a\n\n")).containsExactly(SseEvent.message("a"));
  }

  @Test
  void incompleteEventAtEndDiscarded() {
    assertThat(parse("data: a\n\ndata: b\n")).containsExactly(SseEvent.message("a"));
    assertThat(parse("data: a\n\ndata: b")).containsExactly(SseEvent.message("a"));
  }

  @Test
  void bomStrippedOnceAtStart() {
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    byte[] body = "data: a\n\n".getBytes(StandardCharsets.UTF_8);
    byte[] stream = concat(bom, body);
    assertThat(parse(stream)).containsExactly(SseEvent.message("a"));
    for (int cut = 1; cut < 4; cut++) {
      assertThat(parseSplit(stream, cut)).containsExactly(SseEvent.message("a"));
    }
    // a second BOM is data: the field name becomes "\uFEFFdata", unknown, ignored
    assertThat(parse(concat(bom, concat(bom, body)))).isEmpty();
    // a BOM prefix that is not a BOM stays
    assertThat(parse(concat(new byte[] {(byte) 0xEF}, body))).isEmpty();
  }

  @Test
  void bomAgainAfterReset() {
    List<SseEvent> events = new ArrayList<>();
    SseParser parser = SseParser.create(SseLimits.defaults(), events::add);
    byte[] stream =
        concat(
            new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF},
            "id: 3\ndata: a\n\ndata: partial".getBytes(StandardCharsets.UTF_8));
    parser.feed(stream, 0, stream.length);
    parser.reset();
    parser.feed(stream, 0, stream.length);
    parser.end();
    assertThat(events).containsExactly(event("message", "a", "3"), event("message", "a", "3"));
    assertThat(parser.lastEventId()).hasValue("3");
  }

  @Test
  void multiByteUtf8SplitAcrossChunks() {
    String text = "data: h\u00e9llo \u20ac \uD83D\uDE00\n\n";
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    for (int cut = 1; cut < bytes.length; cut++) {
      assertThat(parseSplit(bytes, cut))
          .as("cut at %d", cut)
          .containsExactly(SseEvent.message("h\u00e9llo \u20ac \uD83D\uDE00"));
    }
  }

  @Test
  void invalidUtf8DecodesToReplacement() {
    byte[] bytes =
        concat("data: ".getBytes(StandardCharsets.UTF_8), new byte[] {(byte) 0xFF, '\n', '\n'});
    assertThat(parse(bytes)).containsExactly(SseEvent.message("\uFFFD"));
  }

  private static final String MIXED =
      "\uFEFF: comment\r\nevent: a\r\ndata: x\u00e9\r\ndata\r\n\r\nid: 9\rretry: 10\rdata:y\r\r"
          + "data: z\n\nfoo\nevent\ndata: \u20ac\n\ndata: tail";

  @Test
  void chunkBoundaryAtEveryPositionGivesSameEvents() {
    byte[] bytes = MIXED.getBytes(StandardCharsets.UTF_8);
    List<SseEvent> whole = parse(bytes);
    assertThat(whole).hasSize(4);
    for (int cut = 0; cut <= bytes.length; cut++) {
      assertThat(parseSplit(bytes, cut)).as("cut at %d", cut).isEqualTo(whole);
    }
  }

  @Test
  void chunkBoundariesAtEveryPairOfPositionsGiveSameEvents() {
    byte[] bytes = MIXED.getBytes(StandardCharsets.UTF_8);
    List<SseEvent> whole = parse(bytes);
    for (int a = 0; a <= bytes.length; a++) {
      for (int b = a; b <= bytes.length; b++) {
        assertThat(parseSplit(bytes, a, b)).as("cuts at %d, %d", a, b).isEqualTo(whole);
      }
    }
  }

  @Test
  void byteAtATime() {
    byte[] bytes = MIXED.getBytes(StandardCharsets.UTF_8);
    List<SseEvent> events = new ArrayList<>();
    SseParser parser = SseParser.create(SseLimits.defaults(), events::add);
    for (byte b : bytes) {
      parser.feed(ByteBuffer.allocateDirect(1).put(b).flip());
    }
    parser.end();
    assertThat(events).isEqualTo(parse(bytes));
  }

  @Test
  void lineLimit() {
    SseParser parser = SseParser.create(new SseLimits(16, 1024), e -> {});
    byte[] ok = "data: 0123456789\n".getBytes(StandardCharsets.UTF_8); // 16 bytes + LF
    parser.feed(ok, 0, ok.length);
    byte[] tooLong = "data: 0123456789A".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> parser.feed(tooLong, 0, tooLong.length))
        .isInstanceOfSatisfying(
            CallError.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
              assertThat(e.retryable()).isFalse();
            })
        .hasMessageContaining("maxLineBytes (16 bytes)")
        .hasMessageContaining("SseLimits.withMaxLineBytes");
    assertThatThrownBy(() -> parser.feed(ok, 0, 1)).isInstanceOf(CallError.class);
  }

  @Test
  void eventLimit() {
    SseParser parser = SseParser.create(new SseLimits(1024, 10), e -> {});
    byte[] bytes = "data: 12345\ndata: 6789\n\n".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> parser.feed(bytes, 0, bytes.length))
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED))
        .hasMessageContaining("maxEventBytes (10 bytes)")
        .hasMessageContaining("SseLimits.withMaxEventBytes");
  }

  @Test
  @Timeout(10)
  void longLineInSmallPiecesIsLinear() {
    byte[] bytes = new byte[4 << 20 | 8];
    Arrays.fill(bytes, (byte) 'x');
    System.arraycopy("data: ".getBytes(StandardCharsets.UTF_8), 0, bytes, 0, 6);
    bytes[bytes.length - 2] = '\n';
    bytes[bytes.length - 1] = '\n';
    List<SseEvent> events = new ArrayList<>();
    SseParser parser =
        SseParser.create(SseLimits.defaults().withMaxLineBytes(8 << 20), events::add);
    long start = System.nanoTime();
    for (int i = 0; i < bytes.length; i += 1460) {
      parser.feed(bytes, i, Math.min(1460, bytes.length - i));
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertThat(events).hasSize(1);
    assertThat(events.get(0).data()).hasSize(bytes.length - 8);
    // quadratic re-scanning would take minutes; linear takes milliseconds
    assertThat(millis).isLessThan(2_000);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] result = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, result, a.length, b.length);
    return result;
  }
}
