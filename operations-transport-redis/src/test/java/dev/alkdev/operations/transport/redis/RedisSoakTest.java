package dev.alkdev.operations.transport.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * 100,000 MUTATION calls, 256 in flight, from one caller to two serving nodes, each on its own
 * connections to one redis-server: even calls through the servers' queue group (the publish script
 * picks the node), odd calls routed by the caller's catalog to a node's own topic. None lost, none
 * run twice, none answered with another call's result, each run on exactly one node, and both
 * routes share the work between both nodes.
 */
@Tag("soak")
class RedisSoakTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final int TOTAL = 100_000;
  private static final int IN_FLIGHT = 256;

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void aHundredThousandCallsAcrossTwoNodesLoseNothingDuplicateNothingMismatchNothing()
      throws Exception {
    try (RedisServer server = RedisServer.start()) {
      RedisOptions options = RedisOptions.builder(server.url()).build();
      AtomicIntegerArray onA = new AtomicIntegerArray(TOTAL);
      AtomicIntegerArray onB = new AtomicIntegerArray(TOTAL);
      AtomicIntegerArray answers = new AtomicIntegerArray(TOTAL);
      ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
      try (RedisPubSub nodeA = RedisPubSub.connect(options);
          RedisPubSub nodeB = RedisPubSub.connect(options);
          RedisPubSub caller = RedisPubSub.connect(options);
          OperationRegistry registryA = OperationRegistry.create();
          OperationRegistry registryB = OperationRegistry.create()) {
        OperationSpec spec =
            OperationSpec.builder("soak", "record").type(OperationType.MUTATION).build();
        registryA.register(spec, node(onA));
        registryB.register(spec, node(onB));
        try (ServingNode a = ServingNode.start(registryA, nodeA);
            ServingNode b = ServingNode.start(registryB, nodeB);
            PendingRequestMap calls = PendingRequestMap.create(caller);
            RemoteCatalog catalog = RemoteCatalog.create(caller)) {
          for (RedisPubSub side : new RedisPubSub[] {nodeA, nodeB, caller}) {
            side.flush(Duration.ofSeconds(5));
          }
          RedisPubSubTest.eventually(
              "the catalog knows both nodes", () -> catalog.nodes().size() == 2);
          Semaphore inFlight = new Semaphore(IN_FLIGHT);
          long start = System.nanoTime();

          for (int i = 0; i < TOTAL; i++) {
            if (!inFlight.tryAcquire(10, TimeUnit.SECONDS)) {
              throw new AssertionError("no call ended within 10 s at call " + i);
            }
            int n = i;
            String token = Integer.toHexString(n * 7919 + 13);
            JsonNode input = JSON.createObjectNode().put("n", n).put("token", token);
            CallOptions callOptions = CallOptions.defaults().withTimeout(Duration.ofSeconds(30));
            CompletableFuture<ResponseEnvelope<JsonNode>> call =
                n % 2 == 0
                    ? calls.call("soak.record", input, callOptions)
                    : catalog.call("soak.record", input, callOptions);
            call.whenComplete(
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
          int notOnExactlyOneNode = 0;
          int[] share = new int[4]; // [group on A, group on B, routed on A, routed on B]
          for (int n = 0; n < TOTAL; n++) {
            if (answers.get(n) != 1) {
              lost++;
            }
            if (onA.get(n) + onB.get(n) != 1) {
              notOnExactlyOneNode++;
            }
            share[(n % 2) * 2 + (onA.get(n) == 1 ? 0 : 1)]++;
          }
          assertThat(lost).as("calls not answered exactly once").isZero();
          assertThat(notOnExactlyOneNode).as("calls not run on exactly one node once").isZero();
          assertThat(share).as("both routes reach both nodes").doesNotContain(0);
          System.out.printf(
              "RedisSoakTest: %,d calls in %,d ms (%,d calls/s); queue group: A %,d, B %,d;"
                  + " routed by the catalog: A %,d, B %,d%n",
              TOTAL,
              millis,
              TOTAL * 1000L / Math.max(1, millis),
              share[0],
              share[1],
              share[2],
              share[3]);
        }
      }
    }
  }

  private static Handler node(AtomicIntegerArray executions) {
    return Handler.blocking(
        (in, ctx) -> {
          executions.incrementAndGet(in.get("n").asInt());
          return in;
        });
  }
}
