package dev.alkdev.operations.transport.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.testing.CallSoak;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 100,000 MUTATION calls, 256 in flight, from one caller to two serving nodes, each on its own
 * connections to one redis-server: even calls through the servers' queue group (the publish script
 * picks the node), odd calls routed by the caller's catalog to a node's own topic. None lost, none
 * run twice, none answered with another call's result, each run on exactly one node, and both
 * routes share the work between both nodes.
 */
@Tag("soak")
class RedisSoakTest {
  private static final int TOTAL = 100_000;
  private static final int IN_FLIGHT = 256;

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void aHundredThousandCallsAcrossTwoNodesLoseNothingDuplicateNothingMismatchNothing()
      throws Exception {
    try (RedisServer server = RedisServer.start()) {
      RedisOptions options = RedisOptions.builder(server.url()).build();
      CallSoak soak = CallSoak.of(TOTAL, IN_FLIGHT, 2);
      try (RedisPubSub nodeA = RedisPubSub.connect(options);
          RedisPubSub nodeB = RedisPubSub.connect(options);
          RedisPubSub caller = RedisPubSub.connect(options);
          OperationRegistry registryA = OperationRegistry.create();
          OperationRegistry registryB = OperationRegistry.create()) {
        registryA.register(CallSoak.SPEC, soak.node(0));
        registryB.register(CallSoak.SPEC, soak.node(1));
        try (ServingNode a = ServingNode.start(registryA, nodeA);
            ServingNode b = ServingNode.start(registryB, nodeB);
            PendingRequestMap calls = PendingRequestMap.create(caller);
            RemoteCatalog catalog = RemoteCatalog.create(caller)) {
          for (RedisPubSub side : new RedisPubSub[] {nodeA, nodeB, caller}) {
            side.flush(Duration.ofSeconds(5));
          }
          RedisPubSubTest.eventually(
              "the catalog knows both nodes", () -> catalog.nodes().size() == 2);

          // Even calls through the servers' queue group, odd ones routed by the caller's catalog.
          soak.run(
              (n, input, callOptions) ->
                  n % 2 == 0
                      ? calls.call(CallSoak.OPERATION, input, callOptions)
                      : catalog.call(CallSoak.OPERATION, input, callOptions));

          int[] node = soak.assertClean();
          int[] share = new int[4]; // [group on A, group on B, routed on A, routed on B]
          for (int n = 0; n < TOTAL; n++) {
            share[(n % 2) * 2 + node[n]]++;
          }
          assertThat(share).as("both routes reach both nodes").doesNotContain(0);
          System.out.printf(
              "RedisSoakTest: %,d calls in %,d ms (%,d calls/s); queue group: A %,d, B %,d;"
                  + " routed by the catalog: A %,d, B %,d%n",
              TOTAL, soak.millis(), soak.callsPerSecond(), share[0], share[1], share[2], share[3]);
        }
      }
    }
  }
}
