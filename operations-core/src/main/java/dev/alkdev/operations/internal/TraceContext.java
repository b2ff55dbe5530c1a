package dev.alkdev.operations.internal;

import dev.alkdev.operations.CallMetadata;
import java.util.Locale;
import java.util.Map;

/**
 * W3C Trace Context as a client sends it (the HTTP gateway's {@code traceparent}/{@code tracestate}
 * headers, an MCP request's {@code _meta}): checked here once for every server that reads it. A
 * malformed value is dropped, never an error: a client's broken trace context must not fail its
 * call, and the W3C rules say to start a new trace then (and to drop {@code tracestate} with an
 * invalid {@code traceparent}).
 */
public final class TraceContext {
  public static final String TRACEPARENT = "traceparent";
  public static final String TRACESTATE = "tracestate";

  /** W3C's limit for tracestate: 32 list members of at most 256 characters would be more. */
  public static final int MAX_TRACESTATE_LENGTH = 512;

  private TraceContext() {}

  /**
   * Puts {@code traceparent} (trimmed, lower case) and {@code tracestate} into {@code entries} when
   * {@code traceparent} is well formed; either may be null (not sent).
   */
  public static void putFromClient(
      Map<String, String> entries, String traceparent, String tracestate) {
    if (traceparent == null || traceparent.length() > 64) {
      return;
    }
    String normalised = traceparent.trim().toLowerCase(Locale.ROOT);
    // Version ff is invalid; a later version may append fields, which this reader does not know.
    if (!isTraceparent(normalised) || normalised.startsWith("ff")) {
      return;
    }
    entries.put(TRACEPARENT, normalised);
    if (tracestate != null
        && !tracestate.isBlank()
        && tracestate.length() <= MAX_TRACESTATE_LENGTH
        && CallMetadata.valueProblem(TRACESTATE, tracestate).isEmpty()) {
      entries.put(TRACESTATE, tracestate);
    }
  }

  /**
   * Whether {@code value} has the form of a version-00 traceparent: 2 hex digits, "-", 32 hex
   * digits (the trace id), "-", 16 hex digits (the parent span id), "-", 2 hex digits (flags),
   * lower case, with neither id all zeros.
   */
  public static boolean isTraceparent(String value) {
    return value.length() == 55
        && value.charAt(2) == '-'
        && value.charAt(35) == '-'
        && value.charAt(52) == '-'
        && isHex(value, 0, 2)
        && isHex(value, 3, 35)
        && isHex(value, 36, 52)
        && isHex(value, 53, 55)
        && !isZeros(value, 3, 35)
        && !isZeros(value, 36, 52);
  }

  /**
   * Whether the characters of {@code s} from {@code from} to {@code to} are all lower-case hex
   * digits. Without a branch per character: on a random id's mix of digits and letters a branchy
   * test keeps mispredicting, which cost a traced call more than the rest of its metadata (D78).
   */
  public static boolean isHex(String s, int from, int to) {
    int bad = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      bad |= (c >>> 7) | NOT_HEX[c & 0x7f];
    }
    return bad == 0;
  }

  /** 1 for the ASCII characters that are not lower-case hex digits. */
  private static final byte[] NOT_HEX = notHex();

  private static byte[] notHex() {
    byte[] table = new byte[128];
    for (int c = 0; c < table.length; c++) {
      table[c] = (byte) ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ? 0 : 1);
    }
    return table;
  }

  /** Whether the characters of {@code s} from {@code from} to {@code to} are all '0'. */
  public static boolean isZeros(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      if (s.charAt(i) != '0') {
        return false;
      }
    }
    return true;
  }
}
