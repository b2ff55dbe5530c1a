package dev.alkdev.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.internal.TraceContext;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CallMetadataTest {
  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  static final String OTHER = "00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01";

  @Test
  void withTraceContextReplacesBothInOneCopy() {
    CallMetadata metadata =
        CallMetadata.of(Map.of("traceparent", TRACEPARENT, "tracestate", "k=v", "baggage", "a=1"));
    CallMetadata replaced = metadata.withTraceContext(OTHER, Optional.empty());
    assertThat(replaced.asMap())
        .containsOnly(Map.entry("traceparent", OTHER), Map.entry("baggage", "a=1"));
    assertThat(replaced.withTraceContext(TRACEPARENT, Optional.of("x=y")).asMap())
        .containsOnly(
            Map.entry("traceparent", TRACEPARENT),
            Map.entry("tracestate", "x=y"),
            Map.entry("baggage", "a=1"));
    assertThat(replaced.withTraceContext(OTHER, Optional.empty())).isSameAs(replaced);
    assertThat(CallMetadata.empty().withTraceContext(OTHER, Optional.empty()))
        .isEqualTo(CallMetadata.of("traceparent", OTHER));
    assertThatThrownBy(() -> metadata.withTraceContext("bad\n", Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("control character");
  }

  /**
   * Trace context given as a span's ids reads exactly like the written traceparent (get, asMap,
   * size, equality, further copies), and the limits count it whole (D71).
   */
  @Test
  void traceContextFromIdsReadsLikeTheWrittenOne() {
    String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    CallMetadata written =
        CallMetadata.of(Map.of("traceparent", TRACEPARENT, "tracestate", "k=v", "baggage", "a=1"));
    CallMetadata fromIds =
        written.withTraceContext(traceId, "b7ad6b7169203331", (byte) 1, Optional.empty());
    assertThat(fromIds.get("traceparent")).contains(OTHER);
    assertThat(fromIds.size()).isEqualTo(2);
    assertThat(fromIds.isEmpty()).isFalse();
    assertThat(fromIds.asMap())
        .containsExactly(Map.entry("baggage", "a=1"), Map.entry("traceparent", OTHER));
    assertThat(fromIds).isEqualTo(written.withTraceContext(OTHER, Optional.empty()));
    assertThat(fromIds.hashCode())
        .isEqualTo(CallMetadata.of(Map.of("traceparent", OTHER, "baggage", "a=1")).hashCode());
    // The same ids again, or the written traceparent they make: no copy.
    assertThat(fromIds.withTraceContext(traceId, "b7ad6b7169203331", (byte) 1, Optional.empty()))
        .isSameAs(fromIds);
    CallMetadata same = CallMetadata.of("traceparent", OTHER);
    assertThat(same.withTraceContext(traceId, "b7ad6b7169203331", (byte) 1, Optional.empty()))
        .isSameAs(same);
    // Unsampled flags; copies of a metadata whose traceparent is unwritten.
    CallMetadata unsampled =
        CallMetadata.empty()
            .withTraceContext(traceId, "00f067aa0ba902b7", (byte) 0, Optional.of("x=y"));
    assertThat(unsampled.asMap())
        .containsOnly(
            Map.entry("traceparent", TRACEPARENT.replace("-01", "-00")),
            Map.entry("tracestate", "x=y"));
    assertThat(unsampled.with("baggage", "b=2").get("traceparent"))
        .contains(TRACEPARENT.replace("-01", "-00"));
    assertThat(unsampled.without("traceparent").asMap())
        .containsOnly(Map.entry("tracestate", "x=y"));
    assertThat(unsampled.withTraceContext(TRACEPARENT, Optional.empty()).asMap())
        .containsOnly(Map.entry("traceparent", TRACEPARENT));
    // Bad ids are refused; the traceparent counts toward the limit.
    assertThatThrownBy(
            () ->
                CallMetadata.empty()
                    .withTraceContext("XYZ", "00f067aa0ba902b7", (byte) 1, Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("trace id");
    assertThatThrownBy(
            () ->
                CallMetadata.empty()
                    .withTraceContext(traceId, "0000000000000000", (byte) 1, Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("span id");
    CallMetadata nearlyFull =
        CallMetadata.of("a", "x".repeat(CallMetadata.MAX_TOTAL_BYTES - 1 - 60));
    assertThatThrownBy(
            () ->
                nearlyFull.withTraceContext(
                    traceId, "00f067aa0ba902b7", (byte) 1, Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bytes");
  }

  /**
   * The ids' check (a table, no branch per character: D78) refuses every character that is not a
   * lower-case hex digit, including upper case, the characters next to the digit and letter ranges,
   * and non-ASCII ones whose low seven bits are a hex digit ('\u00b0' is 0x30 plus 0x80).
   */
  @Test
  void traceIdsAreLowerCaseHexOnly() {
    String spanId = "00f067aa0ba902b7";
    String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    for (char c :
        new char[] {
          'A', 'F', 'g', '/', ':', '`', 'G', ' ', '-', '\u00b0', '\u00e1', '\u0130', '\uff10'
        }) {
      for (int at : new int[] {0, 7, 15}) {
        String bad = spanId.substring(0, at) + c + spanId.substring(at + 1);
        assertThatThrownBy(
                () ->
                    CallMetadata.empty().withTraceContext(traceId, bad, (byte) 1, Optional.empty()))
            .as("span id %s", bad)
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(TraceContext.isTraceparent("00-" + traceId + "-" + bad + "-01")).isFalse();
      }
      String badTrace = traceId.substring(0, 31) + c;
      assertThatThrownBy(
              () ->
                  CallMetadata.empty()
                      .withTraceContext(badTrace, spanId, (byte) 1, Optional.empty()))
          .isInstanceOf(IllegalArgumentException.class);
    }
    String every = "0123456789abcdef";
    assertThat(
            CallMetadata.empty()
                .withTraceContext(every + every, every, (byte) 1, Optional.empty())
                .get("traceparent"))
        .contains("00-" + every + every + "-" + every + "-01");
    assertThatThrownBy(
            () ->
                CallMetadata.empty()
                    .withTraceContext("0".repeat(32), spanId, (byte) 1, Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                CallMetadata.empty()
                    .withTraceContext(traceId + "0", spanId, (byte) 1, Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** Copies keep the size of the whole and check it as of() does. */
  @Test
  void copiesKeepTheLimitOnTheWhole() {
    String half = "x".repeat(CallMetadata.MAX_TOTAL_BYTES / 2 - 1);
    CallMetadata one = CallMetadata.of("a", half);
    CallMetadata two = one.with("b", half);
    assertThat(two.size()).isEqualTo(2);
    assertThatThrownBy(() -> two.with("c", "yy"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bytes");
    // Replacing and removing give the bytes back.
    assertThat(two.with("b", "short").with("c", "x".repeat(80)).size()).isEqualTo(3);
    assertThat(two.without("b").with("c", half).size()).isEqualTo(2);
    // Non-ASCII values count their UTF-8 bytes.
    assertThatThrownBy(() -> one.with("b", "é".repeat(CallMetadata.MAX_TOTAL_BYTES / 4 + 1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aClientsTraceContextIsCheckedAndAMalformedOneDropped() {
    Map<String, String> entries = new HashMap<>();
    TraceContext.putFromClient(entries, " " + TRACEPARENT.toUpperCase() + " ", "k=v");
    assertThat(entries)
        .containsOnly(Map.entry("traceparent", TRACEPARENT), Map.entry("tracestate", "k=v"));
    for (String bad :
        new String[] {
          "00-zz-11-01",
          "ff" + TRACEPARENT.substring(2),
          "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
          "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
          TRACEPARENT + "-extra",
        }) {
      Map<String, String> none = new HashMap<>();
      TraceContext.putFromClient(none, bad, "k=v");
      assertThat(none).as(bad).isEmpty();
    }
    Map<String, String> noState = new HashMap<>();
    TraceContext.putFromClient(noState, TRACEPARENT, "k=\u0001");
    TraceContext.putFromClient(noState, TRACEPARENT, "k=" + "v".repeat(600));
    assertThat(noState).containsOnly(Map.entry("traceparent", TRACEPARENT));
  }
}
