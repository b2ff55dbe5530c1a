package dev.alkdev.operations;

import dev.alkdev.operations.internal.TraceIds;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Metadata that travels with a call: string keys and string values, meant for W3C trace context
 * ({@code traceparent}, {@code tracestate}) and baggage. A context carries it ({@link
 * OperationContext#metadata()}), the calls it makes inherit it, and the call protocol sends it as
 * the {@code meta} object of {@code call.requested}. It is not the response envelope's {@code meta}
 * (where a result came from); it describes the request.
 *
 * <p>Bounded, because every hop carries it: at most {@value #MAX_ENTRIES} entries, keys of 1 to
 * {@value #MAX_KEY_LENGTH} characters from {@code A-Z a-z 0-9 - _ . :}, values without control
 * characters, and at most {@value #MAX_TOTAL_BYTES} bytes of keys and values together (UTF-8).
 * Values may be relayed as HTTP headers, hence no control characters. Immutable; keys are kept
 * sorted so that equal metadata encodes alike.
 */
public final class CallMetadata {
  /** The most entries metadata may hold. */
  public static final int MAX_ENTRIES = 32;

  /** The longest key, in characters. */
  public static final int MAX_KEY_LENGTH = 128;

  /** The most bytes (UTF-8) of all keys and values together. */
  public static final int MAX_TOTAL_BYTES = 8 * 1024;

  private static final CallMetadata EMPTY =
      new CallMetadata(Collections.emptyNavigableMap(), null, 0);

  private static final String TRACEPARENT = "traceparent";
  private static final String TRACESTATE = "tracestate";

  /** The bytes of a {@code traceparent} entry, key and version-00 value. */
  private static final long TRACEPARENT_BYTES = TRACEPARENT.length() + 55;

  static {
    TraceIds.setReader(metadata -> metadata.trace);
  }

  /** The entries, without the {@code traceparent} when {@link #trace} holds it unwritten. */
  private final Map<String, String> entries;

  /**
   * The {@code traceparent} as a span's ids, written only when something reads it (D71), or null:
   * then {@link #entries} holds it, if there is one.
   */
  private final TraceIds trace;

  /** The UTF-8 bytes of all keys and values: kept so that a copy checks only what it changes. */
  private final long bytes;

  /** {@link #entries} with the written {@code traceparent}: made when first asked for. */
  private volatile Map<String, String> all;

  private CallMetadata(Map<String, String> entries, TraceIds trace, long bytes) {
    this.entries = entries;
    this.trace = trace;
    this.bytes = bytes;
  }

  /** No metadata. */
  public static CallMetadata empty() {
    return EMPTY;
  }

  /**
   * Metadata holding {@code entries}.
   *
   * @throws IllegalArgumentException if an entry or the whole breaks the limits above; the message
   *     names the entry and the limit
   */
  public static CallMetadata of(Map<String, String> entries) {
    Objects.requireNonNull(entries, "entries");
    if (entries.isEmpty()) {
      return EMPTY;
    }
    TreeMap<String, String> copy = new TreeMap<>();
    entries.forEach(
        (key, value) -> {
          Objects.requireNonNull(key, "a metadata key");
          Objects.requireNonNull(value, () -> "the metadata value of " + key);
          copy.put(key, value);
        });
    return new CallMetadata(Collections.unmodifiableNavigableMap(copy), null, check(copy));
  }

  /** Metadata holding one entry. */
  public static CallMetadata of(String key, String value) {
    return of(Map.of(key, value));
  }

  /** The value of {@code key}, if present. */
  public Optional<String> get(String key) {
    if (bytes == 0) { // no entries (keys are not empty): most in-process calls, no map to ask
      return Optional.empty();
    }
    if (trace != null && TRACEPARENT.equals(key)) {
      return Optional.of(trace.traceparent());
    }
    return Optional.ofNullable(entries.get(key));
  }

  /**
   * A copy with {@code key} set to {@code value} (replacing an earlier value).
   *
   * @throws IllegalArgumentException if the result would break the limits
   */
  public CallMetadata with(String key, String value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    if (value.equals(get(key).orElse(null))) {
      return this;
    }
    TreeMap<String, String> copy = new TreeMap<>(asMap());
    long size = bytes + put(copy, key, value);
    return checked(copy, size);
  }

  /** A copy without {@code key}. */
  public CallMetadata without(String key) {
    if (!asMap().containsKey(key)) {
      return this;
    }
    TreeMap<String, String> copy = new TreeMap<>(asMap());
    String old = copy.remove(key);
    return copy.isEmpty()
        ? EMPTY
        : new CallMetadata(
            Collections.unmodifiableNavigableMap(copy),
            null,
            bytes - key.length() - utf8Length(old));
  }

  /**
   * A copy whose W3C trace context is {@code traceparent} and {@code tracestate}, in place of the
   * one this metadata held (an empty {@code tracestate} removes the one it had): what a tracing
   * interceptor does on every call, in one copy. The values are taken as they are; a client's trace
   * context is checked before it gets here (the HTTP gateway and the MCP server drop a malformed
   * one).
   *
   * @throws IllegalArgumentException if the result would break the limits
   */
  public CallMetadata withTraceContext(String traceparent, Optional<String> tracestate) {
    Objects.requireNonNull(traceparent, "traceparent");
    Objects.requireNonNull(tracestate, "tracestate (Optional.empty() for none)");
    if (traceparent.equals(get(TRACEPARENT).orElse(null))
        && tracestate.equals(Optional.ofNullable(entries.get(TRACESTATE)))) {
      return this;
    }
    TreeMap<String, String> copy = new TreeMap<>(asMap());
    long size = bytes + put(copy, TRACEPARENT, traceparent) + replaceTracestate(copy, tracestate);
    return checked(copy, size);
  }

  /**
   * A copy whose W3C trace context is the span {@code traceId}/{@code spanId} with {@code
   * traceFlags} (bit 0: sampled), and {@code tracestate}, in place of the one this metadata held:
   * as {@link #withTraceContext(String, Optional)} with the version-00 {@code traceparent} of these
   * ids, but the string is written only when something reads it ({@link #get}, {@link #asMap}, a
   * hop that sends the metadata on), which most in-process calls never do (D71).
   *
   * @throws IllegalArgumentException if the trace id is not 32 lower-case hex digits, the span id
   *     not 16, either is all zeros, or the result would break the limits
   */
  public CallMetadata withTraceContext(
      String traceId, String spanId, byte traceFlags, Optional<String> tracestate) {
    Objects.requireNonNull(traceId, "traceId");
    Objects.requireNonNull(spanId, "spanId");
    Objects.requireNonNull(tracestate, "tracestate (Optional.empty() for none)");
    TraceIds ids = TraceIds.of(traceId, spanId, traceFlags);
    if (bytes == 0 && tracestate.isEmpty()) {
      // No entries (an in-process call's usual metadata): nothing to compare, copy or re-check.
      return new CallMetadata(entries, ids, TRACEPARENT_BYTES);
    }
    String written = trace == null ? entries.get(TRACEPARENT) : null;
    boolean sameState = tracestate.equals(Optional.ofNullable(entries.get(TRACESTATE)));
    if (sameState
        && (trace != null ? trace.sameAs(ids) : written != null && ids.matches(written))) {
      return this;
    }
    // The traceparent is counted whole (key and value) whether written or not; the entries keep
    // everything else, and are shared when nothing else changes (the usual case).
    long size = bytes + (written == null && trace == null ? TRACEPARENT_BYTES : 0);
    if (written != null) {
      size += TRACEPARENT_BYTES - TRACEPARENT.length() - utf8Length(written);
    }
    Map<String, String> rest = entries;
    if (written != null || !sameState) {
      TreeMap<String, String> copy = new TreeMap<>(entries);
      copy.remove(TRACEPARENT);
      size += replaceTracestate(copy, tracestate);
      rest = Collections.unmodifiableNavigableMap(copy);
    }
    if (rest.size() + 1 > MAX_ENTRIES) {
      throw new IllegalArgumentException(
          "metadata may hold at most " + MAX_ENTRIES + " entries, was " + (rest.size() + 1));
    }
    if (size > MAX_TOTAL_BYTES) {
      throw tooBig(size);
    }
    return new CallMetadata(rest, ids, size);
  }

  /** Puts a checked entry into {@code copy}; returns by how many bytes the whole grew. */
  /** Puts {@code tracestate} into {@code copy}, or takes it out; the change in size. */
  private static long replaceTracestate(TreeMap<String, String> copy, Optional<String> tracestate) {
    if (tracestate.isPresent()) {
      return put(copy, TRACESTATE, tracestate.get());
    }
    String old = copy.remove(TRACESTATE);
    return old == null ? 0 : -(TRACESTATE.length() + utf8Length(old));
  }

  private static long put(TreeMap<String, String> copy, String key, String value) {
    keyProblem(key).ifPresent(CallMetadata::refuse);
    valueProblem(key, value).ifPresent(CallMetadata::refuse);
    String old = copy.put(key, value);
    return utf8Length(value) - (old == null ? -key.length() : utf8Length(old));
  }

  /** {@code copy} (whose entries are checked) as metadata, once its size is checked. */
  private static CallMetadata checked(TreeMap<String, String> copy, long size) {
    if (copy.size() > MAX_ENTRIES) {
      throw new IllegalArgumentException(
          "metadata may hold at most " + MAX_ENTRIES + " entries, was " + copy.size());
    }
    if (size > MAX_TOTAL_BYTES) {
      throw tooBig(size);
    }
    return new CallMetadata(Collections.unmodifiableNavigableMap(copy), null, size);
  }

  /** Every entry, sorted by key; unmodifiable. */
  public Map<String, String> asMap() {
    if (trace == null) {
      return entries;
    }
    Map<String, String> map = all;
    if (map == null) {
      TreeMap<String, String> copy = new TreeMap<>(entries);
      copy.put(TRACEPARENT, trace.traceparent());
      map = Collections.unmodifiableNavigableMap(copy);
      all = map;
    }
    return map;
  }

  public boolean isEmpty() {
    return trace == null && entries.isEmpty();
  }

  public int size() {
    return entries.size() + (trace == null ? 0 : 1);
  }

  /**
   * Why {@code key} cannot be a metadata key, or empty if it can: 1 to {@value #MAX_KEY_LENGTH}
   * characters from {@code A-Z a-z 0-9 - _ . :}.
   */
  public static Optional<String> keyProblem(String key) {
    if (key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
      return Optional.of(
          "a metadata key must be 1 to " + MAX_KEY_LENGTH + " characters, was " + key.length());
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_'
              || c == '.'
              || c == ':';
      if (!ok) {
        return Optional.of(
            "the metadata key '"
                + key
                + "' has a character other than A-Z a-z 0-9 - _ . : at index "
                + i);
      }
    }
    return Optional.empty();
  }

  /** Why {@code value} cannot be the value of {@code key}, or empty if it can. */
  public static Optional<String> valueProblem(String key, String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        return Optional.of(
            "the metadata value of '" + key + "' has a control character at index " + i);
      }
    }
    return Optional.empty();
  }

  /** Checks every entry and the whole; returns the whole's size in bytes. */
  private static long check(Map<String, String> entries) {
    if (entries.size() > MAX_ENTRIES) {
      throw new IllegalArgumentException(
          "metadata may hold at most " + MAX_ENTRIES + " entries, was " + entries.size());
    }
    long bytes = 0;
    for (Map.Entry<String, String> entry : entries.entrySet()) {
      String key = entry.getKey();
      keyProblem(key).ifPresent(CallMetadata::refuse);
      valueProblem(key, entry.getValue()).ifPresent(CallMetadata::refuse);
      bytes += key.length() + utf8Length(entry.getValue());
    }
    if (bytes > MAX_TOTAL_BYTES) {
      throw tooBig(bytes);
    }
    return bytes;
  }

  private static IllegalArgumentException tooBig(long bytes) {
    return new IllegalArgumentException(
        "metadata may hold at most "
            + MAX_TOTAL_BYTES
            + " bytes of keys and values (UTF-8), was "
            + bytes);
  }

  private static void refuse(String problem) {
    throw new IllegalArgumentException(problem);
  }

  private static long utf8Length(String value) {
    // Trace context is ASCII: count it without encoding it.
    for (int i = 0; i < value.length(); i++) {
      if (value.charAt(i) >= 0x80) {
        return value.getBytes(StandardCharsets.UTF_8).length;
      }
    }
    return value.length();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof CallMetadata that && asMap().equals(that.asMap());
  }

  @Override
  public int hashCode() {
    return asMap().hashCode();
  }

  @Override
  public String toString() {
    return "CallMetadata" + asMap();
  }
}
