package dev.alkdev.operations.sse;

import java.io.Closeable;
import java.io.Flushable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes Server-Sent Events as {@code text/event-stream} (UTF-8) to an {@link OutputStream}: the
 * server side of {@link SseParser}. Every event written reads back through the parser as the same
 * event, except that line ends inside data arrive as {@code "\n"} (the format has no other) and an
 * unpaired surrogate arrives as U+FFFD.
 *
 * <p>An event is written as {@code event:} (left out for the default type {@code message}), {@code
 * id:}, {@code retry:}, one {@code data:} line per line of the data (split on CR, LF and CRLF;
 * empty data is one empty {@code data:} line, so the event is still dispatched) and a blank line.
 * The event type and id are single-line fields, so a type with CR or LF, or an id with CR, LF or
 * NUL (which the WHATWG parser would ignore), is refused with an {@link IllegalArgumentException}
 * before anything is written. Comments ({@code :} lines, each line of the text its own comment
 * line) are ignored by clients; an empty one is the usual keep-alive.
 *
 * <p>Output is buffered: nothing is guaranteed to reach the stream until {@link #flush()}. A large
 * event does not grow the buffer; it is passed on in buffer-sized pieces as it is encoded.
 *
 * <p>Thread-safe: each call writes its event or comment whole, so a keep-alive timer and the thread
 * producing events may share one writer. The lock is held while the stream is written, so a stream
 * that blocks (a slow client) blocks the other callers too. An {@link IOException} of the stream
 * (typically: the client went away) is thrown as {@link UncheckedIOException}; after {@link
 * #close()} every write throws {@link IllegalStateException}.
 */
public final class SseWriter implements Flushable, Closeable {
  private static final int BUFFER_BYTES = 8192;
  private static final int CHUNK_CHARS = 2048;
  private static final byte[] DATA = ascii("data: ");
  private static final byte[] EVENT = ascii("event: ");
  private static final byte[] ID = ascii("id: ");
  private static final byte[] RETRY = ascii("retry: ");
  private static final byte[] COMMENT = ascii(": ");

  private final OutputStream out;
  private final ReentrantLock lock = new ReentrantLock();
  private final byte[] buffer = new byte[BUFFER_BYTES];
  private final char[] chars = new char[CHUNK_CHARS];
  private int length;
  private boolean closed;

  private SseWriter(OutputStream out) {
    this.out = out;
  }

  /**
   * A writer onto {@code out}; closing the writer closes {@code out}. The caller sets the response
   * headers ({@code Content-Type: text/event-stream}, and usually {@code Cache-Control: no-cache}).
   */
  public static SseWriter to(OutputStream out) {
    return new SseWriter(Objects.requireNonNull(out, "out"));
  }

  /**
   * Writes {@code event}: its type, its id if present, its retry if present, and its data.
   *
   * @throws IllegalArgumentException if the type has CR or LF, the id has CR, LF or NUL, or the
   *     retry is negative (nothing is written then)
   */
  public void write(SseEvent event) {
    Objects.requireNonNull(event, "event");
    String type = event.type();
    if (hasLineEnd(type, false)) {
      throw new IllegalArgumentException(
          "an SSE event type must be one line: CR and LF are not allowed, in " + quoted(type));
    }
    String id = event.id().orElse(null);
    if (id != null && hasLineEnd(id, true)) {
      throw new IllegalArgumentException(
          "an SSE event id must not contain CR, LF or NUL (clients ignore such an id), in "
              + quoted(id));
    }
    long retry = event.retry().orElse(-1);
    if (event.retry().isPresent() && retry < 0) {
      throw new IllegalArgumentException("an SSE retry must not be negative, was " + retry);
    }
    lock.lock();
    try {
      checkOpen();
      if (!type.equals(SseEvent.DEFAULT_TYPE)) {
        putBytes(EVENT);
        putText(type, 0, type.length());
        putByte('\n');
      }
      if (id != null) {
        putBytes(ID);
        putText(id, 0, id.length());
        putByte('\n');
      }
      if (retry >= 0) {
        putRetry(retry);
      }
      putLines(DATA, event.data());
      putByte('\n');
    } finally {
      lock.unlock();
    }
  }

  /**
   * Writes the reconnection delay alone, without an event (clients use it from then on).
   *
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  public void retry(Duration delay) {
    Objects.requireNonNull(delay, "delay");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("an SSE retry must not be negative, was " + delay);
    }
    lock.lock();
    try {
      checkOpen();
      putRetry(delay.toMillis());
      putByte('\n');
    } finally {
      lock.unlock();
    }
  }

  /**
   * Writes a comment: one {@code :} line per line of {@code text}, so a line end in the text cannot
   * end the comment and start a field. {@code comment("")} writes a bare {@code :} line, the usual
   * keep-alive (flush after it).
   */
  public void comment(String text) {
    Objects.requireNonNull(text, "text");
    lock.lock();
    try {
      checkOpen();
      if (text.isEmpty()) {
        putByte(':');
        putByte('\n');
      } else {
        putLines(COMMENT, text);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Hands everything written so far to the stream and flushes it. */
  @Override
  public void flush() {
    lock.lock();
    try {
      checkOpen();
      drain();
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      lock.unlock();
    }
  }

  /** Flushes and closes the stream; later calls to {@code close} do nothing. */
  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      try (OutputStream stream = out) {
        drain();
        stream.flush();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      lock.unlock();
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the SSE writer is closed");
    }
  }

  // Each line of text (split on CR, LF, CRLF) as prefix + line + LF; empty text is one empty line.
  private void putLines(byte[] prefix, String text) {
    int end = text.length();
    int start = 0;
    // The next CR and LF at or after start (-1: none left); indexOf is vectorised, and each is
    // searched again only once passed, so the whole text is scanned once.
    int nextLf = text.indexOf('\n');
    int nextCr = text.indexOf('\r');
    while (true) {
      if (nextLf >= 0 && nextLf < start) {
        nextLf = text.indexOf('\n', start);
      }
      if (nextCr >= 0 && nextCr < start) {
        nextCr = text.indexOf('\r', start);
      }
      int stop = end;
      if (nextLf >= 0) {
        stop = nextLf;
      }
      if (nextCr >= 0 && nextCr < stop) {
        stop = nextCr;
      }
      putBytes(prefix);
      putText(text, start, stop);
      putByte('\n');
      if (stop == end) {
        return;
      }
      start = stop + 1;
      if (text.charAt(stop) == '\r' && start < end && text.charAt(start) == '\n') {
        start++;
      }
    }
  }

  /** Encodes {@code text} from {@code from} to {@code to} (no line ends in it) as UTF-8. */
  @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int): see the ASCII case
  private void putText(String text, int from, int to) {
    int i = from;
    while (i < to) {
      // Bulk-copy the chars first: a loop over a char[] is much faster than charAt per char.
      int n = Math.min(to - i, chars.length);
      text.getChars(i, i + n, chars, 0);
      int j = 0;
      // Once a chunk turned out to hold non-ASCII chars it is not checked again, or text with
      // many of them (CJK, say) would cost a pass over the rest of the chunk per char.
      boolean mixed = false;
      while (j < n) {
        if (BUFFER_BYTES - length < 4) {
          drain();
        }
        int limit = Math.min(n, j + (BUFFER_BYTES - length));
        byte[] bytes = buffer;
        int at = length;
        if (!mixed && isAscii(chars, j, limit)) {
          // The common case. Every char is ASCII, so its low byte is its UTF-8 encoding, and
          // String.getBytes copies those (an array copy for a Latin-1 string).
          text.getBytes(i + j, i + limit, bytes, at);
          length = at + (limit - j);
          j = limit;
          continue;
        }
        mixed = true;
        // Up to the first non-ASCII char, one byte per char.
        while (j < limit) {
          char c = chars[j];
          if (c >= 0x80) {
            break;
          }
          bytes[at++] = (byte) c;
          j++;
        }
        length = at;
        if (j < limit) {
          if (BUFFER_BYTES - length < 4) {
            drain();
          }
          // May take two chars (a surrogate pair), the second beyond this chunk: j may pass n.
          j = putNonAscii(text, i + j, to) - i;
        }
      }
      i += j;
    }
  }

  private static boolean isAscii(char[] chars, int from, int to) {
    int bits = 0;
    for (int k = from; k < to; k++) {
      bits |= chars[k];
    }
    return bits < 0x80;
  }

  private int putNonAscii(String text, int i, int end) {
    char c = text.charAt(i);
    if (c < 0x800) {
      buffer[length++] = (byte) (0xC0 | (c >> 6));
      buffer[length++] = (byte) (0x80 | (c & 0x3F));
      return i + 1;
    }
    if (Character.isHighSurrogate(c)
        && i + 1 < end
        && Character.isLowSurrogate(text.charAt(i + 1))) {
      int cp = Character.toCodePoint(c, text.charAt(i + 1));
      buffer[length++] = (byte) (0xF0 | (cp >> 18));
      buffer[length++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
      buffer[length++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
      buffer[length++] = (byte) (0x80 | (cp & 0x3F));
      return i + 2;
    }
    if (Character.isSurrogate(c)) {
      c = '\uFFFD'; // unpaired: what a UTF-8 decoder would make of it anyway
    }
    buffer[length++] = (byte) (0xE0 | (c >> 12));
    buffer[length++] = (byte) (0x80 | ((c >> 6) & 0x3F));
    buffer[length++] = (byte) (0x80 | (c & 0x3F));
    return i + 1;
  }

  private void putRetry(long millis) {
    putBytes(RETRY);
    putBytes(ascii(Long.toString(millis)));
    putByte('\n');
  }

  private void putBytes(byte[] bytes) {
    if (length + bytes.length > BUFFER_BYTES) {
      drain();
    }
    System.arraycopy(bytes, 0, buffer, length, bytes.length);
    length += bytes.length;
  }

  private void putByte(char c) {
    if (length == BUFFER_BYTES) {
      drain();
    }
    buffer[length++] = (byte) c;
  }

  private void drain() {
    if (length == 0) {
      return;
    }
    try {
      out.write(buffer, 0, length);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      // Whatever happened, these bytes are gone: keeping them would repeat half an event later.
      length = 0;
    }
  }

  private static boolean hasLineEnd(String value, boolean orNul) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\n' || c == '\r' || (orNul && c == 0)) {
        return true;
      }
    }
    return false;
  }

  private static String quoted(String value) {
    String shown = value.length() > 80 ? value.substring(0, 80) + "..." : value;
    return "\"" + shown.replace("\r", "\\r").replace("\n", "\\n").replace("\0", "\\0") + "\"";
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }
}
