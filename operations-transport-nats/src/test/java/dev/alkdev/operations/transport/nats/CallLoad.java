package dev.alkdev.operations.transport.nats;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import tools.jackson.databind.json.JsonMapper;

/**
 * Keeps a number of calls in flight until stopped, each {@code {"n": n}} to an operation that
 * answers with its input, and records how each ended: answered (with its own n), or failed with
 * which code and when. For the fault tests that kill servers under load.
 */
final class CallLoad implements Runnable {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** The most calls one load makes: the per-call records are arrays of this size. */
  static final int MAX_CALLS = 2_000_000;

  final PendingRequestMap calls;
  final String operationId;
  final int limit;
  final Duration deadline;
  final Semaphore inFlight;
  final AtomicInteger started = new AtomicInteger();
  final AtomicInteger ended = new AtomicInteger();
  final AtomicLong successes = new AtomicLong();
  final AtomicLong latestPastDeadlineMs = new AtomicLong(Long.MIN_VALUE);
  final AtomicIntegerArray endings = new AtomicIntegerArray(MAX_CALLS);
  final AtomicLongArray failedAt = new AtomicLongArray(MAX_CALLS);
  final Map<ErrorCode, AtomicLong> byCode = new ConcurrentHashMap<>();
  final ConcurrentLinkedQueue<Integer> failed = new ConcurrentLinkedQueue<>();
  final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
  final AtomicBoolean running = new AtomicBoolean(true);

  CallLoad(PendingRequestMap calls, String operationId, int limit, Duration deadline) {
    this.calls = calls;
    this.operationId = operationId;
    this.limit = limit;
    this.deadline = deadline;
    this.inFlight = new Semaphore(limit);
  }

  @Override
  public void run() {
    while (running.get()) {
      try {
        if (!inFlight.tryAcquire(100, TimeUnit.MILLISECONDS)) {
          continue;
        }
      } catch (InterruptedException e) {
        return;
      }
      int n = started.getAndIncrement();
      if (n >= MAX_CALLS) {
        problems.add("more than " + MAX_CALLS + " calls");
        inFlight.release();
        return;
      }
      long due = System.nanoTime() + deadline.toNanos();
      calls
          .call(
              operationId,
              JSON.createObjectNode().put("n", n),
              CallOptions.defaults().withTimeout(deadline))
          .whenComplete(
              (envelope, error) -> {
                long late = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - due);
                latestPastDeadlineMs.accumulateAndGet(late, Math::max);
                if (endings.incrementAndGet(n) != 1) {
                  problems.add("call " + n + " ended twice");
                }
                if (error == null) {
                  if (envelope.data().get("n").asInt() != n) {
                    problems.add("call " + n + " got the answer " + envelope.data());
                  }
                  successes.incrementAndGet();
                } else if (error instanceof CallError e) {
                  failedAt.set(n, System.nanoTime());
                  byCode.computeIfAbsent(e.code(), k -> new AtomicLong()).incrementAndGet();
                  failed.add(n);
                } else {
                  problems.add("call " + n + " failed with " + error);
                }
                ended.incrementAndGet();
                inFlight.release();
              });
    }
  }

  void awaitSuccesses(long more) throws InterruptedException {
    long target = successes.get() + more;
    NatsPubSubTest.eventually(more + " more calls answered", () -> successes.get() >= target);
  }

  void stop() {
    running.set(false);
  }

  /** Whether every call started has ended within {@code timeout}. */
  boolean allEnded(Duration timeout) throws InterruptedException {
    return inFlight.tryAcquire(limit, timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** How the calls ended: "answered" and each error code, with counts. */
  String outcomes() {
    Map<ErrorCode, Long> failures = new EnumMap<>(ErrorCode.class);
    byCode.forEach((code, count) -> failures.put(code, count.get()));
    return "answered=" + successes.get() + ", failed=" + failures;
  }
}
