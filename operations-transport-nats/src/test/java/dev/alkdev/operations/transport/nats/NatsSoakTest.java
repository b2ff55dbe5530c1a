package dev.alkdev.operations.transport.nats;

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
 * 100,000 MUTATION calls, 256 in flight, from one caller to two serving nodes on separate
 * connections of one nats-server: none lost, none run twice, none answered with another call's
 * result, and the queue group shares the work between both nodes.
 */
@Tag("soak")
class NatsSoakTest {
  private static final int TOTAL = 100_000;
  private static final int IN_FLIGHT = 256;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aHundredThousandCallsAcrossTwoNodesLoseNothingDuplicateNothingMismatchNothing()
      throws Exception {
    try (NatsServer server = NatsServer.start()) {
      NatsOptions options = NatsOptions.builder(server.url()).build();
      CallSoak soak = CallSoak.of(TOTAL, IN_FLIGHT, 2);
      try (NatsPubSub nodeA = NatsPubSub.connect(options);
          NatsPubSub nodeB = NatsPubSub.connect(options);
          NatsPubSub caller = NatsPubSub.connect(options);
          OperationRegistry registryA = OperationRegistry.create();
          OperationRegistry registryB = OperationRegistry.create()) {
        registryA.register(CallSoak.SPEC, soak.node(0));
        registryB.register(CallSoak.SPEC, soak.node(1));
        try (CallHandler a = CallHandler.serve(registryA, nodeA);
            CallHandler b = CallHandler.serve(registryB, nodeB);
            PendingRequestMap calls = PendingRequestMap.create(caller)) {
          for (NatsPubSub side : new NatsPubSub[] {nodeA, nodeB, caller}) {
            side.flush(Duration.ofSeconds(5));
          }

          soak.run((n, input, callOptions) -> calls.call(CallSoak.OPERATION, input, callOptions));

          int[] node = soak.assertClean();
          long onA = java.util.Arrays.stream(node).filter(i -> i == 0).count();
          System.out.printf(
              "NatsSoakTest: %,d calls in %,d ms (%,d calls/s), node A %,d, node B %,d%n",
              TOTAL, soak.millis(), soak.callsPerSecond(), onA, TOTAL - onA);
        }
      }
    }
  }
}
