package dev.alkdev.operations.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.OperationContext;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** The MDC around a handler: the call's ids while it runs, the thread's own values after. */
class HandlerMdcTest {
  static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String SPAN_ID = "00f067aa0ba902b7";

  @AfterEach
  void clear() {
    MDC.clear();
  }

  static OperationContext traced(byte flags) {
    return OperationContext.builder()
        .metadata(CallMetadata.empty().withTraceContext(TRACE_ID, SPAN_ID, flags, Optional.empty()))
        .build();
  }

  @Test
  void aSampledCallsIdsAreSetThenTheThreadsOwnRestored() {
    MDC.put("request_id", "outer-request");
    MDC.put("trace_id", "outer-trace");
    try (HandlerMdc mdc = HandlerMdc.open(traced((byte) 1))) {
      assertThat(MDC.get("trace_id")).isEqualTo(TRACE_ID);
      assertThat(MDC.get("span_id")).isEqualTo(SPAN_ID);
      // An in-process call's lazy request id is not drawn for the log (D56): the outer one goes.
      assertThat(MDC.get("request_id")).isNull();
    }
    assertThat(MDC.get("request_id")).isEqualTo("outer-request");
    assertThat(MDC.get("trace_id")).isEqualTo("outer-trace");
    assertThat(MDC.get("span_id")).isNull();
  }

  @Test
  void onAThreadWithoutIdsNothingIsLeftBehind() {
    OperationContext given = traced((byte) 1).toBuilder().requestId("given").build();
    try (HandlerMdc mdc = HandlerMdc.open(given)) {
      assertThat(MDC.get("request_id")).isEqualTo("given");
    }
    try (HandlerMdc mdc = HandlerMdc.open(traced((byte) 1))) {
      assertThat(MDC.get("request_id")).isNull();
      assertThat(MDC.get("trace_id")).isEqualTo(TRACE_ID);
    }
    assertThat(MDC.getCopyOfContextMap()).isNullOrEmpty();
  }

  @Test
  void anUnsampledCallLeavesTheMdcAlone() {
    MDC.put("trace_id", "outer-trace");
    try (HandlerMdc mdc = HandlerMdc.open(traced((byte) 0))) {
      assertThat(MDC.get("trace_id")).isEqualTo("outer-trace");
    }
    assertThat(MDC.get("trace_id")).isEqualTo("outer-trace");
  }
}
