package dev.alkdev.operations.internal;

import dev.alkdev.operations.OperationContext;
import java.util.Optional;
import org.slf4j.MDC;
import org.slf4j.helpers.NOPMDCAdapter;

/**
 * The SLF4J MDC around a handler's execution, so a handler's log lines can be found from its call
 * and its trace: {@code request_id} (when the call has one already: a served call's, or an
 * in-process call's that was given or read; a lazy one is not drawn for the log), and when the
 * call's metadata carries a W3C {@code traceparent} (a tracing interceptor puts the call's own span
 * there), {@code trace_id} and {@code span_id} (the names OpenTelemetry's log bridges use). The
 * previous values are restored on close, since the thread may be running an outer call's handler (a
 * nested call on a direct executor). Only for a sampled trace, and only when the SLF4J binding has
 * an MDC (D71).
 */
public final class HandlerMdc implements AutoCloseable {
  public static final String REQUEST_ID = "request_id";
  public static final String TRACE_ID = "trace_id";
  public static final String SPAN_ID = "span_id";

  // UNTOUCHED when this call neither put nor removed request_id: close has nothing to restore
  // then (D78). A marker rather than a flag, so the object stays as small as it was.
  private static final String UNTOUCHED = new String("untouched");

  private final String previousRequest;
  private final String previousTrace;
  private final String previousSpan;

  private HandlerMdc(OperationContext context, TraceIds ids) {
    String request = MDC.get(REQUEST_ID);
    previousTrace = MDC.get(TRACE_ID);
    previousSpan = MDC.get(SPAN_ID);
    // Not drawn here (D56): a served call's id is known; an in-process call's is drawn lazily and
    // mostly never, and its trace and span ids identify it in the log.
    Optional<String> requestId = ContextAccess.drawnRequestId(context);
    if (requestId.isPresent()) {
      MDC.put(REQUEST_ID, requestId.get());
    } else if (request != null) { // nothing to remove otherwise: one MDC call less (D71)
      MDC.remove(REQUEST_ID);
    }
    previousRequest = requestId.isPresent() || request != null ? request : UNTOUCHED;
    if (ids != null) {
      // The tracing interceptor's own span: its ids as they are, no traceparent written (D71).
      MDC.put(TRACE_ID, ids.traceId());
      MDC.put(SPAN_ID, ids.spanId());
      return;
    }
    String traceparent = context.metadata().get(TraceContext.TRACEPARENT).orElse("");
    // version "-" 32 hex trace id "-" 16 hex span id "-" flags; anything else is not trusted.
    if (TraceContext.isTraceparent(traceparent)) {
      MDC.put(TRACE_ID, traceparent.substring(3, 35));
      MDC.put(SPAN_ID, traceparent.substring(36, 52));
    } else {
      MDC.remove(TRACE_ID);
      MDC.remove(SPAN_ID);
    }
  }

  private static final HandlerMdc NONE = new HandlerMdc();

  private HandlerMdc() {
    previousRequest = null;
    previousTrace = null;
    previousSpan = null;
  }

  /**
   * Puts the call's ids into the MDC until {@link #close()}, when the call carries trace context
   * (operations-tracing puts it there); otherwise does nothing, so a registry without observability
   * pays one metadata lookup per call, not three MDC writes and a drawn request id.
   */
  public static HandlerMdc open(OperationContext context) {
    if (!MDC_PRESENT) {
      return NONE;
    }
    TraceIds ids = TraceIds.unwritten(context.metadata());
    if (ids != null) {
      return ids.sampled() ? new HandlerMdc(context, ids) : NONE;
    }
    Optional<String> traceparent = context.metadata().get(TraceContext.TRACEPARENT);
    if (traceparent.isEmpty() || !sampled(traceparent.get())) {
      return NONE;
    }
    return new HandlerMdc(context, null);
  }

  /**
   * Whether the SLF4J binding keeps an MDC at all: with none (no binding, or one whose MDC is the
   * no-op adapter) the writes and restores would cost for nothing (D71).
   */
  private static final boolean MDC_PRESENT = !(MDC.getMDCAdapter() instanceof NOPMDCAdapter);

  /**
   * Whether the call's trace is sampled (the low bit of a version-00 traceparent's flags). A trace
   * the sampler declined has no spans to find a log line from, so its ids are not worth the MDC's
   * cost on every call (D71); a malformed value is left to the constructor, which ignores it.
   */
  static boolean sampled(String traceparent) {
    if (traceparent.length() != 55) {
      return true;
    }
    return (Character.digit(traceparent.charAt(54), 16) & 1) == 1;
  }

  @Override
  public void close() {
    if (this == NONE) {
      return;
    }
    if (previousRequest != UNTOUCHED) {
      restore(REQUEST_ID, previousRequest);
    }
    restore(TRACE_ID, previousTrace);
    restore(SPAN_ID, previousSpan);
  }

  private static void restore(String key, String value) {
    if (value == null) {
      MDC.remove(key);
    } else {
      MDC.put(key, value);
    }
  }
}
