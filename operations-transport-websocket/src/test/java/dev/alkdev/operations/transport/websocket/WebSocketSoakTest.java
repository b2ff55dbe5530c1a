package dev.alkdev.operations.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.json.JsonMapper;

/**
 * 100,000 MUTATION calls, 256 in flight, from one spoke to an operation served by two other spokes
 * of one hub: none lost, none run twice, none answered with another call's result, and the queue
 * group shares the work between both spokes. The hub runs with its default rules (strict replies,
 * per-connection limits).
 */
@Tag("soak")
class WebSocketSoakTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final int TOTAL = 100_000;
  private static final int IN_FLIGHT = 256;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aHundredThousandCallsBetweenSpokesLoseNothingDuplicateNothingMismatchNothing()
      throws Exception {
    try (WebSocketHub hub =
        WebSocketHub.builder().permissions(SpokePermissions.allowAll()).start()) {
      SpokeOptions options = SpokeOptions.builder(hub.uri()).build();
      AtomicIntegerArray executions = new AtomicIntegerArray(TOTAL);
      AtomicIntegerArray answers = new AtomicIntegerArray(TOTAL);
      AtomicInteger[] perNode = {new AtomicInteger(), new AtomicInteger()};
      ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
      try (WebSocketSpoke nodeA = WebSocketSpoke.connect(options);
          WebSocketSpoke nodeB = WebSocketSpoke.connect(options);
          WebSocketSpoke caller = WebSocketSpoke.connect(options);
          OperationRegistry registryA = OperationRegistry.create();
          OperationRegistry registryB = OperationRegistry.create()) {
        OperationSpec spec =
            OperationSpec.builder("soak", "record").type(OperationType.MUTATION).build();
        registryA.register(spec, node(executions, perNode[0]));
        registryB.register(spec, node(executions, perNode[1]));
        try (CallHandler a = CallHandler.serve(registryA, nodeA);
            CallHandler b = CallHandler.serve(registryB, nodeB);
            PendingRequestMap calls = PendingRequestMap.create(caller)) {
          nodeA.flush(Duration.ofSeconds(5));
          nodeB.flush(Duration.ofSeconds(5));
          caller.flush(Duration.ofSeconds(5));
          Semaphore inFlight = new Semaphore(IN_FLIGHT);
          long start = System.nanoTime();

          for (int i = 0; i < TOTAL; i++) {
            if (!inFlight.tryAcquire(10, TimeUnit.SECONDS)) {
              throw new AssertionError("no call ended within 10 s at call " + i);
            }
            int n = i;
            String token = Integer.toHexString(n * 7919 + 13);
            calls
                .call(
                    "soak.record",
                    JSON.createObjectNode().put("n", n).put("token", token),
                    CallOptions.defaults().withTimeout(Duration.ofSeconds(30)))
                .whenComplete(
                    (envelope, error) -> {
                      try {
                        if (error != null) {
                          problems.add("call " + n + " failed: " + error);
                        } else if (envelope.data().get("n").asInt() != n
                            || !envelope.data().get("token").asString().equals(token)) {
                          problems.add("call " + n + " got the answer " + envelope.data());
                        } else {
                          answers.incrementAndGet(n);
                        }
                      } finally {
                        inFlight.release();
                      }
                    });
          }
          assertThat(inFlight.tryAcquire(IN_FLIGHT, 30, TimeUnit.SECONDS))
              .as("every call ended")
              .isTrue();
          long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

          assertThat(problems).as("failed or mismatched calls").isEmpty();
          int lost = 0;
          int duplicated = 0;
          for (int n = 0; n < TOTAL; n++) {
            if (answers.get(n) != 1) {
              lost++;
            }
            if (executions.get(n) != 1) {
              duplicated++;
            }
          }
          assertThat(lost).as("calls not answered exactly once").isZero();
          assertThat(duplicated).as("mutations not run exactly once").isZero();
          assertThat(perNode[0].get()).as("node A took a share").isPositive();
          assertThat(perNode[1].get()).as("node B took a share").isPositive();
          WebSocketHubTest.Waits.eventually(
              "the hub forgot every answered call",
              () -> hub.stats().openCalls() == 0 && hub.stats().servedCalls() == 0);
          System.out.printf(
              "WebSocketSoakTest: %,d calls in %,d ms (%,d calls/s), spoke A %,d, spoke B %,d%n",
              TOTAL,
              millis,
              TOTAL * 1000L / Math.max(1, millis),
              perNode[0].get(),
              perNode[1].get());
        }
      }
    }
  }

  private static Handler node(AtomicIntegerArray executions, AtomicInteger served) {
    return Handler.blocking(
        (in, ctx) -> {
          executions.incrementAndGet(in.get("n").asInt());
          served.incrementAndGet();
          return in;
        });
  }
}
