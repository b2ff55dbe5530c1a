package dev.alkdev.operations.serving;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Latencies in log-linear buckets of microseconds, as HdrHistogram keeps them but fixed and small:
 * one bucket per microsecond below 16 µs, then eight buckets per power of two (a bucket is at most
 * 12.5% wide), up to 2^42 µs (50 days); longer goes in the last bucket. 320 counters, so memory is
 * bounded whatever is recorded; recording is one array increment, one adder and, rarely, a CAS on
 * the maximum: no lock, no allocation.
 */
final class LatencyHistogram {
  private static final int LINEAR = 16; // 0..15 µs, one bucket each
  private static final int SUB_BITS = 3; // 8 buckets per power of two from 16 µs on
  private static final int SUB = 1 << SUB_BITS;
  private static final int MAX_EXPONENT = 41;
  static final int BUCKETS = LINEAR + (MAX_EXPONENT - 4 + 1) * SUB;

  private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
  private final LongAdder totalMicros = new LongAdder();
  private final AtomicLong maxMicros = new AtomicLong();

  void record(long nanos) {
    long micros = Math.max(0, nanos / 1_000);
    counts.getAndIncrement(bucket(micros));
    totalMicros.add(micros);
    long max = maxMicros.get();
    while (micros > max && !maxMicros.compareAndSet(max, micros)) {
      max = maxMicros.get();
    }
  }

  static int bucket(long micros) {
    if (micros < LINEAR) {
      return (int) micros;
    }
    int exponent = 63 - Long.numberOfLeadingZeros(micros); // >= 4
    if (exponent > MAX_EXPONENT) {
      return BUCKETS - 1;
    }
    int sub = (int) (micros >>> (exponent - SUB_BITS)) & (SUB - 1);
    return LINEAR + (exponent - 4) * SUB + sub;
  }

  /** The highest value a bucket holds, in microseconds. */
  static long upperBound(int bucket) {
    if (bucket < LINEAR) {
      return bucket;
    }
    int exponent = 4 + (bucket - LINEAR) / SUB;
    int sub = (bucket - LINEAR) % SUB;
    long width = 1L << (exponent - SUB_BITS);
    return (1L << exponent) + (sub + 1) * width - 1;
  }

  /**
   * A consistent-enough summary: the buckets are read one by one while calls go on, so the
   * percentiles describe the calls counted here, give or take those that ended during the read.
   */
  OperationStats.Latency summary() {
    long[] snapshot = new long[BUCKETS];
    long n = 0;
    for (int i = 0; i < BUCKETS; i++) {
      snapshot[i] = counts.get(i);
      n += snapshot[i];
    }
    long max = maxMicros.get();
    if (n == 0) {
      return OperationStats.Latency.NONE;
    }
    // The total may include a call or two that the buckets read before it missed: negligible.
    long average = Math.min(max, totalMicros.sum() / n);
    return new OperationStats.Latency(
        n,
        average,
        percentile(snapshot, n, 0.50, max),
        percentile(snapshot, n, 0.90, max),
        percentile(snapshot, n, 0.99, max),
        max);
  }

  /** The upper bound of the bucket that holds the {@code q} quantile, at most the maximum. */
  private static long percentile(long[] buckets, long n, double q, long max) {
    long rank = Math.max(1, (long) Math.ceil(q * n));
    long seen = 0;
    for (int i = 0; i < buckets.length; i++) {
      seen += buckets[i];
      if (seen >= rank) {
        return Math.min(upperBound(i), max);
      }
    }
    return max;
  }
}
