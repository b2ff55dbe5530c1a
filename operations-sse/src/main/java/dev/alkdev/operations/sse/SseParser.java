package dev.alkdev.operations.sse;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * A push parser for the {@code text/event-stream} format, following the WHATWG HTML rules.
 *
 * <p>Feed it the stream's bytes in pieces of any size ({@link #feed(ByteBuffer)}), then call {@link
 * #end()}; it hands each dispatched event to the sink given at creation. Each byte is looked at
 * once: a line is collected as bytes and decoded as UTF-8 only when its line end arrives, so a
 * multi-byte character split across pieces decodes correctly and a long line fed in small pieces
 * costs linear time. Invalid UTF-8 decodes to U+FFFD, as the WHATWG decoder does.
 *
 * <p>Not thread-safe: feed one piece at a time. After a limit is exceeded the parser has failed and
 * every further call throws the same {@link CallError}.
 */
public final class SseParser {
  private static final byte CR = '\r';
  private static final byte LF = '\n';
  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
  private static final byte[] DATA = {'d', 'a', 't', 'a'};
  private static final byte[] EVENT = {'e', 'v', 'e', 'n', 't'};
  private static final byte[] ID = {'i', 'd'};
  private static final byte[] RETRY = {'r', 'e', 't', 'r', 'y'};
  private static final int SCRATCH_BYTES = 8192;

  private final SseLimits limits;
  private final Consumer<? super SseEvent> sink;

  // The current line's bytes (without its line end).
  private byte[] line = new byte[128];
  private int lineLength;
  // A CR ended the previous piece: an LF starting the next piece belongs to the same line end.
  private boolean afterCr;
  private boolean atStreamStart = true;

  // The data buffer: the first line alone until a second arrives, then all lines in the builder.
  private final StringBuilder data = new StringBuilder();
  private int dataLines;
  private String firstData;
  private byte[] lastTypeBytes;
  private String lastType = "";
  private long eventBytes;
  private String eventType = "";
  private long blockRetry = -1;
  private String lastEventId = "";
  private long retry = -1;
  private byte[] scratch;
  private CallError failure;

  private SseParser(SseLimits limits, Consumer<? super SseEvent> sink) {
    this.limits = Objects.requireNonNull(limits, "limits");
    this.sink = Objects.requireNonNull(sink, "sink");
  }

  /** A parser that hands every dispatched event to {@code sink}. */
  public static SseParser create(SseLimits limits, Consumer<? super SseEvent> sink) {
    return new SseParser(limits, sink);
  }

  /** Feeds the bytes remaining in {@code bytes} (consuming them). */
  public void feed(ByteBuffer bytes) {
    checkNotFailed();
    if (bytes.hasArray()) {
      int start = bytes.arrayOffset() + bytes.position();
      int length = bytes.remaining();
      bytes.position(bytes.limit());
      feedArray(bytes.array(), start, start + length);
      return;
    }
    if (scratch == null) {
      scratch = new byte[SCRATCH_BYTES];
    }
    while (bytes.hasRemaining()) {
      int length = Math.min(scratch.length, bytes.remaining());
      bytes.get(scratch, 0, length);
      feedArray(scratch, 0, length);
    }
  }

  /** Feeds {@code length} bytes of {@code bytes} from {@code offset}. */
  public void feed(byte[] bytes, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, bytes.length);
    checkNotFailed();
    feedArray(bytes, offset, offset + length);
  }

  /**
   * Ends the stream: a line or event not ended by a blank line is discarded, as the WHATWG rules
   * say. The parser can then be {@link #reset()} for the next connection.
   */
  public void end() {
    checkNotFailed();
    clearStreamState();
  }

  /**
   * Starts a new stream (a reconnection): partial lines and events are dropped, a byte-order mark
   * is stripped again, and the last event id and reconnection time are kept.
   */
  public void reset() {
    checkNotFailed();
    clearStreamState();
  }

  /** The last event id seen on the stream (it persists across events and resets). */
  public Optional<String> lastEventId() {
    return lastEventId.isEmpty() ? Optional.empty() : Optional.of(lastEventId);
  }

  /** The last valid {@code retry} value seen, in milliseconds, even in a block never dispatched. */
  public OptionalLong retryMillis() {
    return retry < 0 ? OptionalLong.empty() : OptionalLong.of(retry);
  }

  private void clearStreamState() {
    lineLength = 0;
    afterCr = false;
    atStreamStart = true;
    clearEvent();
  }

  private void checkNotFailed() {
    if (failure != null) {
      throw failure;
    }
  }

  private void feedArray(byte[] bytes, int from, int to) {
    int i = from;
    if (atStreamStart) {
      i = skipBom(bytes, i, to);
      if (atStreamStart) {
        return; // the piece was a prefix of the mark; wait for more
      }
    }
    if (afterCr && i < to) {
      afterCr = false;
      if (bytes[i] == LF) {
        i++;
      }
    }
    while (i < to) {
      int end = i;
      while (end < to && bytes[end] != LF && bytes[end] != CR) {
        end++;
      }
      append(bytes, i, end - i);
      if (end == to) {
        return;
      }
      if (bytes[end] == CR) {
        if (end + 1 < to) {
          if (bytes[end + 1] == LF) {
            end++;
          }
        } else {
          afterCr = true;
        }
      }
      i = end + 1;
      processLine();
    }
  }

  // Collects the stream's first bytes in the line buffer while they may still be a BOM; a prefix
  // that turns out not to be one stays in the buffer as ordinary line bytes.
  private int skipBom(byte[] bytes, int from, int to) {
    int i = from;
    while (i < to) {
      if (bytes[i] != BOM[lineLength]) {
        atStreamStart = false;
        return i;
      }
      append(bytes, i, 1);
      i++;
      if (lineLength == BOM.length) {
        lineLength = 0;
        atStreamStart = false;
        return i;
      }
    }
    return i;
  }

  private void append(byte[] bytes, int from, int length) {
    if (length == 0) {
      return;
    }
    int needed = lineLength + length;
    if (needed > limits.maxLineBytes()) {
      fail(
          "an SSE line is longer than maxLineBytes ("
              + limits.maxLineBytes()
              + " bytes); raise it with SseLimits.withMaxLineBytes");
    }
    if (needed > line.length) {
      int grown = (int) Math.min(Math.max((long) line.length * 2, needed), Integer.MAX_VALUE - 8);
      line = Arrays.copyOf(line, grown);
    }
    System.arraycopy(bytes, from, line, lineLength, length);
    lineLength = needed;
  }

  private void processLine() {
    int length = lineLength;
    lineLength = 0;
    if (length == 0) {
      dispatch();
      return;
    }
    if (line[0] == ':') {
      return; // a comment
    }
    int colon = 0;
    while (colon < length && line[colon] != ':') {
      colon++;
    }
    int valueStart = colon < length ? colon + 1 : length;
    if (valueStart < length && line[valueStart] == ' ') {
      valueStart++;
    }
    int valueLength = length - valueStart;
    if (fieldIs(DATA, colon)) {
      eventBytes += valueLength + 1L;
      if (eventBytes > limits.maxEventBytes()) {
        fail(
            "an SSE event's data is larger than maxEventBytes ("
                + limits.maxEventBytes()
                + " bytes); raise it with SseLimits.withMaxEventBytes");
      }
      String value = decode(valueStart, valueLength);
      // Most events have one data line: keep it as it is instead of copying it through the builder.
      if (dataLines == 0) {
        firstData = value;
      } else {
        if (dataLines == 1) {
          data.append(firstData);
        }
        data.append('\n').append(value);
      }
      dataLines++;
    } else if (fieldIs(EVENT, colon)) {
      eventType = typeOf(valueStart, valueLength);
    } else if (fieldIs(ID, colon)) {
      for (int i = valueStart; i < length; i++) {
        if (line[i] == 0) {
          return; // an id with NUL is ignored
        }
      }
      lastEventId = decode(valueStart, valueLength);
    } else if (fieldIs(RETRY, colon)) {
      parseRetry(valueStart, length);
    }
  }

  private void parseRetry(int from, int to) {
    if (from == to) {
      return;
    }
    long value = 0;
    for (int i = from; i < to; i++) {
      byte b = line[i];
      if (b < '0' || b > '9') {
        return;
      }
      // Saturate rather than overflow: the event source caps the delay anyway.
      value = value > (Long.MAX_VALUE - 9) / 10 ? Long.MAX_VALUE : value * 10 + (b - '0');
    }
    retry = value;
    blockRetry = value;
  }

  private boolean fieldIs(byte[] name, int length) {
    return length == name.length && Arrays.equals(line, 0, length, name, 0, length);
  }

  private String decode(int from, int length) {
    return new String(line, from, length, StandardCharsets.UTF_8);
  }

  // Streams repeat a few event types: reuse the last one's string when the bytes are the same.
  private String typeOf(int from, int length) {
    if (lastTypeBytes != null
        && Arrays.equals(line, from, from + length, lastTypeBytes, 0, lastTypeBytes.length)) {
      return lastType;
    }
    lastTypeBytes = Arrays.copyOfRange(line, from, from + length);
    lastType = decode(from, length);
    return lastType;
  }

  private void dispatch() {
    if (dataLines == 0) {
      clearEvent();
      return;
    }
    String eventData = dataLines == 1 ? firstData : data.toString();
    SseEvent event =
        new SseEvent(
            eventType,
            eventData,
            lastEventId(),
            blockRetry < 0 ? OptionalLong.empty() : OptionalLong.of(blockRetry));
    clearEvent();
    sink.accept(event);
  }

  private void clearEvent() {
    data.setLength(0);
    dataLines = 0;
    firstData = null;
    eventBytes = 0;
    eventType = "";
    blockRetry = -1;
  }

  private void fail(String message) {
    // Retrying the same stream would hit the same limit.
    failure = CallError.builder(ErrorCode.RESOURCE_EXHAUSTED, message).retryable(false).build();
    clearStreamState();
    throw failure;
  }
}
