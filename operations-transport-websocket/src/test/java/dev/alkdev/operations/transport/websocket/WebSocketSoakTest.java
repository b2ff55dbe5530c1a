package dev.alkdev.operations.transport.websocket;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.testing.CallSoak;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 100,000 MUTATION calls, 256 in flight, from one spoke to an operation served by two other spokes
 * of one hub: none lost, none run twice, none answered with another call's result, and the queue
 * group shares the work between both spokes. The hub runs with its default rules (strict replies,
 * per-connection limits).
 */
@Tag("soak")
class WebSocketSoakTest {
  private static final int TOTAL = 100_000;
  private static final int IN_FLIGHT = 256;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aHundredThousandCallsBetweenSpokesLoseNothingDuplicateNothingMismatchNothing()
      throws Exception {
    try (WebSocketHub hub =
        WebSocketHub.builder().permissions(SpokePermissions.allowAll()).start()) {
      SpokeOptions options = SpokeOptions.builder(hub.uri()).build();
      CallSoak soak = CallSoak.of(TOTAL, IN_FLIGHT, 2);
      try (WebSocketSpoke nodeA = WebSocketSpoke.connect(options);
          WebSocketSpoke nodeB = WebSocketSpoke.connect(options);
          WebSocketSpoke caller = WebSocketSpoke.connect(options);
          OperationRegistry registryA = OperationRegistry.create();
          OperationRegistry registryB = OperationRegistry.create()) {
        registryA.register(CallSoak.SPEC, soak.node(0));
        registryB.register(CallSoak.SPEC, soak.node(1));
        try (CallHandler a = CallHandler.serve(registryA, nodeA);
            CallHandler b = CallHandler.serve(registryB, nodeB);
            PendingRequestMap calls = PendingRequestMap.create(caller)) {
          for (WebSocketSpoke side : new WebSocketSpoke[] {nodeA, nodeB, caller}) {
            side.flush(Duration.ofSeconds(5));
          }

          soak.run((n, input, callOptions) -> calls.call(CallSoak.OPERATION, input, callOptions));

          int[] node = soak.assertClean();
          WebSocketHubTest.Waits.eventually(
              "the hub forgot every answered call",
              () -> hub.stats().openCalls() == 0 && hub.stats().servedCalls() == 0);
          long onA = java.util.Arrays.stream(node).filter(i -> i == 0).count();
          System.out.printf(
              "WebSocketSoakTest: %,d calls in %,d ms (%,d calls/s), spoke A %,d, spoke B %,d%n",
              TOTAL, soak.millis(), soak.callsPerSecond(), onA, TOTAL - onA);
        }
      }
    }
  }
}
