package dev.alkdev.operations.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntFunction;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Keeps a number of calls in flight until stopped, each {@code {"n": n}} to an operation that
 * answers with its input, and records how each ended: answered (with its own n), or failed with
 * which code and when. For the fault tests of every transport, which kill brokers, cut connections
 * and restart servers under load, then count: every call ended once, none ran twice.
 */
public final class CallLoad implements Runnable {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** The most calls one load makes: the per-call records are arrays of this size. */
  public static final int MAX_CALLS = 2_000_000;

  private final IntFunction<CompletableFuture<ResponseEnvelope<JsonNode>>> caller;
  private final int limit;
  private final Duration deadline;
  private final Semaphore inFlight;
  public final AtomicInteger started = new AtomicInteger();
  public final AtomicInteger ended = new AtomicInteger();
  public final AtomicLong successes = new AtomicLong();
  public final AtomicLong latestPastDeadlineMs = new AtomicLong(Long.MIN_VALUE);
  public final AtomicIntegerArray endings = new AtomicIntegerArray(MAX_CALLS);
  public final AtomicLongArray failedAt = new AtomicLongArray(MAX_CALLS);
  public final Map<ErrorCode, AtomicLong> byCode = new ConcurrentHashMap<>();
  public final ConcurrentLinkedQueue<Integer> failed = new ConcurrentLinkedQueue<>();
  public final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean running = new AtomicBoolean(true);

  private CallLoad(
      IntFunction<CompletableFuture<ResponseEnvelope<JsonNode>>> caller,
      int limit,
      Duration deadline) {
    this.caller = caller;
    this.limit = limit;
    this.deadline = deadline;
    this.inFlight = new Semaphore(limit);
  }

  /**
   * Calls {@code operationId} through {@code calls}, {@code limit} at once, each with {@code
   * deadline}.
   */
  public static CallLoad of(
      PendingRequestMap calls, String operationId, int limit, Duration deadline) {
    return new CallLoad(
        n -> calls.call(operationId, input(n), CallOptions.defaults().withTimeout(deadline)),
        limit,
        deadline);
  }

  /** Makes call n with {@code caller} (whose deadline must be {@code deadline}). */
  public static CallLoad of(
      IntFunction<CompletableFuture<ResponseEnvelope<JsonNode>>> caller,
      int limit,
      Duration deadline) {
    return new CallLoad(caller, limit, deadline);
  }

  /** Call n's input: {@code {"n": n}}. */
  public static JsonNode input(int n) {
    return JSON.createObjectNode().put("n", n);
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
      caller
          .apply(n)
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

  /** Waits until {@code more} calls more have been answered. */
  public void awaitSuccesses(long more) {
    long target = successes.get() + more;
    Waits.eventually(
        more + " more calls answered", Duration.ofSeconds(30), () -> successes.get() >= target);
  }

  public void stop() {
    running.set(false);
  }

  /** Whether every call started has ended within {@code timeout}. */
  public boolean allEnded(Duration timeout) throws InterruptedException {
    return inFlight.tryAcquire(limit, timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Stops, waits for {@code loader} (the thread running this) and for every call to end. */
  public void finish(Thread loader) throws InterruptedException {
    stop();
    loader.join(10_000);
    assertThat(allEnded(Duration.ofSeconds(10))).as("every call ended").isTrue();
  }

  /**
   * Every call ended exactly once, with its own answer or a {@link CallError}, no later than {@code
   * lateToleranceMs} past its deadline; some were answered.
   */
  public void assertEveryCallEndedOnceInTime(long lateToleranceMs) {
    assertThat(problems).isEmpty();
    assertThat(ended.get()).as("calls ended").isEqualTo(started.get());
    assertThat(latestPastDeadlineMs.get())
        .as("how late the latest call ended past its deadline (ms)")
        .isLessThanOrEqualTo(lateToleranceMs);
    assertThat(successes.get()).isPositive();
  }

  /** How the calls ended: "answered" and each error code, with counts. */
  public String outcomes() {
    Map<ErrorCode, Long> failures = new EnumMap<>(ErrorCode.class);
    byCode.forEach((code, count) -> failures.put(code, count.get()));
    return "answered=" + successes.get() + ", failed=" + failures;
  }
}
