package dev.alkdev.operations.internal;

import dev.alkdev.operations.CallMetadata;
import java.util.function.Function;

/**
 * A span's W3C trace context held as its ids, for {@code CallMetadata}'s {@code traceparent} that
 * is written only when something reads it: most in-process calls never do, and the string costs
 * more than the rest of what a tracing interceptor adds to the metadata (D71). Immutable; the
 * rendered string is cached (a racy cache of an immutable String, safe like {@code
 * String.hashCode}).
 */
public final class TraceIds {
  private static volatile Function<CallMetadata, TraceIds> reader;

  private final String traceId;
  private final String spanId;
  private final byte flags;
  private String traceparent;

  private TraceIds(String traceId, String spanId, byte flags) {
    this.traceId = traceId;
    this.spanId = spanId;
    this.flags = flags;
  }

  /**
   * The trace context of {@code traceId}, {@code spanId} and {@code flags}.
   *
   * @throws IllegalArgumentException if the trace id is not 32 lower-case hex digits or the span id
   *     not 16, or either is all zeros (W3C Trace Context's rules for an id)
   */
  public static TraceIds of(String traceId, String spanId, byte flags) {
    checkId("trace id", traceId, 32);
    checkId("span id", spanId, 16);
    return new TraceIds(traceId, spanId, flags);
  }

  private static void checkId(String what, String id, int length) {
    boolean ok = id.length() == length && TraceContext.isHex(id, 0, length);
    boolean zeros = ok && TraceContext.isZeros(id, 0, length);
    if (!ok || zeros) {
      throw new IllegalArgumentException(
          "a W3C "
              + what
              + " is "
              + length
              + " lower-case hex digits, not all zeros; was '"
              + id
              + "'");
    }
  }

  public String traceId() {
    return traceId;
  }

  public String spanId() {
    return spanId;
  }

  /** Whether the sampled flag is set. */
  public boolean sampled() {
    return (flags & 1) == 1;
  }

  /** The version-00 {@code traceparent}: written on first use, then kept. */
  public String traceparent() {
    String value = traceparent;
    if (value == null) {
      value = "00-" + traceId + '-' + spanId + '-' + HEX[(flags >> 4) & 0xf] + HEX[flags & 0xf];
      traceparent = value;
    }
    return value;
  }

  /** Whether {@code other} holds the same ids and flags. */
  public boolean sameAs(TraceIds other) {
    return flags == other.flags && traceId.equals(other.traceId) && spanId.equals(other.spanId);
  }

  /** Whether {@code traceparent} is this trace context, without writing it. */
  public boolean matches(String traceparent) {
    return traceparent.length() == 55
        && traceparent.startsWith("00-")
        && traceparent.regionMatches(3, traceId, 0, 32)
        && traceparent.charAt(35) == '-'
        && traceparent.regionMatches(36, spanId, 0, 16)
        && traceparent.charAt(52) == '-'
        && traceparent.charAt(53) == HEX[(flags >> 4) & 0xf]
        && traceparent.charAt(54) == HEX[flags & 0xf];
  }

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** Set once, by {@code CallMetadata}: reads the ids a metadata holds unwritten. */
  public static void setReader(Function<CallMetadata, TraceIds> metadataReader) {
    if (reader != null) {
      throw new IllegalStateException("set by CallMetadata only");
    }
    reader = metadataReader;
  }

  /**
   * The trace context {@code metadata} holds as ids, not yet written as its {@code traceparent};
   * null if it holds none that way (none at all, or a written one).
   */
  public static TraceIds unwritten(CallMetadata metadata) {
    return reader.apply(metadata);
  }
}
