package dev.alkdev.operations.serving;

import dev.alkdev.operations.ErrorCode;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * One operation's statistics on one server since it started: what NATS's service STATS reports, per
 * operation. A call is counted when it ends, refusals included (with their code); latency and
 * in-flight count only the calls that ran (a SUBSCRIPTION's latency is its stream's duration).
 *
 * @param operationId the operation
 * @param calls calls that ended, successful or not
 * @param errors calls that ended with an error; the sum of {@code errorsByCode}
 * @param errorsByCode errors by code, only codes seen
 * @param inFlight calls running now
 * @param latency how long the calls that ran took
 */
public record OperationStats(
    String operationId,
    long calls,
    long errors,
    Map<ErrorCode, Long> errorsByCode,
    long inFlight,
    Latency latency) {

  public OperationStats {
    Objects.requireNonNull(operationId, "operationId");
    Objects.requireNonNull(latency, "latency");
    errorsByCode =
        errorsByCode.isEmpty()
            ? Map.of()
            : Collections.unmodifiableMap(new EnumMap<>(errorsByCode));
  }

  /**
   * Latency, in microseconds, of the calls counted: percentiles are read from log-linear buckets
   * (at most 12.5% above the true value, never above the maximum).
   *
   * @param count calls measured
   * @param averageMicros their mean
   * @param p50Micros the median
   * @param p90Micros the 90th percentile
   * @param p99Micros the 99th percentile
   * @param maxMicros the longest
   */
  public record Latency(
      long count,
      long averageMicros,
      long p50Micros,
      long p90Micros,
      long p99Micros,
      long maxMicros) {

    /** No call measured yet. */
    public static final Latency NONE = new Latency(0, 0, 0, 0, 0, 0);
  }
}
