package dev.alkdev.operations.serving;

import dev.alkdev.operations.ErrorCode;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * One operation's counts on one server: errors by code, calls refused, and the latency of the calls
 * that ran, from which the calls are counted (ran + refused). A successful call costs one bucket
 * increment and one adder: the serving path never locks here, and counts nothing twice. Calls
 * running are not counted here but read from the server's running calls when asked.
 */
final class OperationCounters {
  private static final ErrorCode[] CODES = ErrorCode.values();

  final String operationId;
  private final AtomicLongArray errors = new AtomicLongArray(CODES.length);
  private final LongAdder refused = new LongAdder();
  private final LatencyHistogram latency = new LatencyHistogram();

  OperationCounters(String operationId) {
    this.operationId = operationId;
  }

  /**
   * A call ended. {@code ranNanos} is how long it ran, or -1 when it was refused before running (a
   * refusal is counted, with its code, but is not a latency: it would pull the percentiles down).
   *
   * @param failure the error's code, or null for success
   */
  void ended(ErrorCode failure, long ranNanos) {
    if (failure != null) {
      errors.getAndIncrement(failure.ordinal());
    }
    if (ranNanos >= 0) {
      latency.record(ranNanos);
    } else {
      refused.increment();
    }
  }

  OperationStats snapshot(long inFlight) {
    Map<ErrorCode, Long> byCode = new EnumMap<>(ErrorCode.class);
    long errorCount = 0;
    for (ErrorCode code : CODES) {
      long n = errors.get(code.ordinal());
      if (n > 0) {
        byCode.put(code, n);
        errorCount += n;
      }
    }
    OperationStats.Latency ran = latency.summary();
    return new OperationStats(
        operationId, ran.count() + refused.sum(), errorCount, byCode, inFlight, ran);
  }
}
