package dev.alkdev.operations.serving;

import dev.alkdev.operations.ErrorCode;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * One operation's counts on one server: ended calls, errors by code, calls running, and the
 * latency of the calls that ran. Adders and atomic arrays only: the serving path never locks here.
 */
final class OperationCounters {
  private static final ErrorCode[] CODES = ErrorCode.values();

  final String operationId;
  private final LongAdder calls = new LongAdder();
  private final AtomicLongArray errors = new AtomicLongArray(CODES.length);
  private final LongAdder inFlight = new LongAdder();
  private final LatencyHistogram latency = new LatencyHistogram();

  OperationCounters(String operationId) {
    this.operationId = operationId;
  }

  void started() {
    inFlight.increment();
  }

  /**
   * A call ended. {@code ranNanos} is how long it ran, or -1 when it was refused before running (a
   * refusal is counted, with its code, but is not a latency: it would pull the percentiles down).
   *
   * @param failure the error's code, or null for success
   */
  void ended(ErrorCode failure, long ranNanos) {
    calls.increment();
    if (failure != null) {
      errors.getAndIncrement(failure.ordinal());
    }
    if (ranNanos >= 0) {
      inFlight.decrement();
      latency.record(ranNanos);
    }
  }

  long inFlight() {
    return Math.max(0, inFlight.sum());
  }

  OperationStats snapshot() {
    Map<ErrorCode, Long> byCode = new EnumMap<>(ErrorCode.class);
    long errorCount = 0;
    for (ErrorCode code : CODES) {
      long n = errors.get(code.ordinal());
      if (n > 0) {
        byCode.put(code, n);
        errorCount += n;
      }
    }
    return new OperationStats(
        operationId, calls.sum(), errorCount, byCode, inFlight(), latency.summary());
  }
}
