package dev.alkdev.operations.transport.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.testing.CallLoad;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The NATS server killed (SIGKILL) and restarted again and again while 256 calls are in flight
 * through {@code PendingRequestMap -> NATS -> CallHandler}: every call ends, none later than its
 * deadline, and no MUTATION runs twice.
 */
class NatsFaultTest {
  private static final int RESTARTS = 20;
  private static final int IN_FLIGHT = 256;
  private static final Duration DEADLINE = Duration.ofSeconds(2);

  /** How late a call may end past its deadline: timer and thread scheduling on a loaded machine. */
  private static final long LATE_TOLERANCE_MS = 250;

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void killingTheServerTwentyTimesUnderLoadEndsEveryCallOnceByItsDeadlineAndRunsNoMutationTwice()
      throws Exception {
    try (NatsServer server = NatsServer.start()) {
      NatsOptions options =
          NatsOptions.builder(server.url()).reconnectWait(Duration.ofMillis(20)).build();
      AtomicIntegerArray executions = new AtomicIntegerArray(CallLoad.MAX_CALLS);
      AtomicLongArray executedAt = new AtomicLongArray(CallLoad.MAX_CALLS);
      try (OperationRegistry registry = OperationRegistry.create();
          NatsPubSub serving = NatsPubSub.connect(options);
          NatsPubSub calling = NatsPubSub.connect(options)) {
        registry.register(
            OperationSpec.builder("fault", "apply").type(OperationType.MUTATION).build(),
            Handler.blocking(
                (in, ctx) -> {
                  int n = in.get("n").asInt();
                  executedAt.set(n, System.nanoTime());
                  executions.incrementAndGet(n);
                  return in;
                }));
        try (CallHandler handler = CallHandler.serve(registry, serving);
            PendingRequestMap calls = PendingRequestMap.create(calling)) {
          serving.flush(Duration.ofSeconds(5));
          calling.flush(Duration.ofSeconds(5));

          ConcurrentLinkedQueue<Long> restarts = new ConcurrentLinkedQueue<>();
          CallLoad load = CallLoad.of(calls, "fault.apply", IN_FLIGHT, DEADLINE);
          Thread loader = new Thread(load, "fault-load");
          loader.start();
          for (int i = 0; i < RESTARTS; i++) {
            load.awaitSuccesses(50);
            server.kill();
            Thread.sleep(30);
            long killedAt = System.nanoTime();
            server.restart();
            restarts.add(killedAt);
            NatsPubSubTest.eventually(
                "both sides reconnected", () -> serving.isConnected() && calling.isConnected());
          }
          load.awaitSuccesses(50);
          load.stop();
          loader.join(10_000);
          assertThat(load.allEnded(Duration.ofSeconds(10))).as("every call ended").isTrue();

          int started = load.started.get();
          assertThat(load.problems).isEmpty();
          assertThat(load.ended.get()).as("calls ended").isEqualTo(started);
          assertThat(load.latestPastDeadlineMs.get())
              .as("how late the latest call ended past its deadline (ms)")
              .isLessThanOrEqualTo(LATE_TOLERANCE_MS);
          int twice = 0;
          for (int n = 0; n < started; n++) {
            if (executions.get(n) > 1) {
              twice++;
            }
          }
          assertThat(twice).as("mutations run more than once").isZero();
          assertThat(serving.stats().disconnects()).isEqualTo(RESTARTS);
          assertThat(calling.stats().reconnects()).isEqualTo(RESTARTS);
          assertThat(load.successes.get()).as("calls answered").isPositive();
          assertThat(load.byCode.keySet())
              .as("how calls may fail while the server restarts")
              .isSubsetOf(ErrorCode.UNAVAILABLE, ErrorCode.NO_RESPONDERS);
          System.out.printf(
              "NatsFaultTest: %d calls over %d restarts: %s; latest end past its deadline %d ms;"
                  + " requests that ran although their caller had been told it failed: %d, of"
                  + " them after it was told: %d, of them after the server restarted: %d%n",
              started,
              RESTARTS,
              load.outcomes(),
              load.latestPastDeadlineMs.get(),
              ranAfterFailure(load, executions),
              ranAfterTheCallerWasTold(load, executedAt),
              ranAfterARestart(load, executedAt, restarts));
        }
      }
    }
  }

  /** Requests the serving side ran whose callers ended with an error (lost replies, mostly). */
  private static int ranAfterFailure(CallLoad load, AtomicIntegerArray executions) {
    int count = 0;
    for (Integer n : load.failed) {
      if (executions.get(n) > 0) {
        count++;
      }
    }
    return count;
  }

  /** Requests the serving side ran only after their callers had been told the call failed. */
  private static int ranAfterTheCallerWasTold(CallLoad load, AtomicLongArray executedAt) {
    int count = 0;
    for (Integer n : load.failed) {
      long ran = executedAt.get(n);
      if (ran != 0 && ran - load.failedAt.get(n) > 0) {
        count++;
      }
    }
    return count;
  }

  /**
   * Requests that failed at the caller before a server restart and ran after it: carried over the
   * outage (jnats keeps what its writer had queued when the connection dropped and sends it on
   * reconnect).
   */
  private static int ranAfterARestart(
      CallLoad load, AtomicLongArray executedAt, ConcurrentLinkedQueue<Long> restarts) {
    int count = 0;
    for (Integer n : load.failed) {
      long ran = executedAt.get(n);
      long failed = load.failedAt.get(n);
      if (ran != 0 && restarts.stream().anyMatch(t -> failed - t < 0 && t - ran < 0)) {
        count++;
      }
    }
    return count;
  }
}
