package dev.alkdev.operations.transport.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.testing.CallLoad;
import dev.alkdev.operations.testing.TcpProxy;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Faults under load, against real {@code redis-server} processes: subscriber connections cut with
 * {@code CLIENT KILL}, the server restarted, a serving node's process killed with SIGKILL mid-call,
 * and a subscriber too slow for the server's output-buffer limit. Every call ends exactly once, no
 * later than its deadline, and no MUTATION runs twice.
 */
class RedisFaultTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final int IN_FLIGHT = 256;
  private static final Duration DEADLINE = Duration.ofSeconds(2);
  private static final long LATE_TOLERANCE_MS = 250;
  private static final int MAX_CALLS = CallLoad.MAX_CALLS;

  private static RedisOptions options(String url) {
    return RedisOptions.builder(url).reconnectWait(Duration.ofMillis(20)).build();
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void cuttingSubscriberConnectionsFiftyTimesUnderLoadEndsEveryCallOnceAndRunsNothingTwice()
      throws Exception {
    try (RedisServer server = RedisServer.start()) {
      AtomicIntegerArray executions = new AtomicIntegerArray(MAX_CALLS);
      try (RedisPubSub nodeA = RedisPubSub.connect(options(server.url()));
          RedisPubSub nodeB = RedisPubSub.connect(options(server.url()));
          RedisPubSub caller = RedisPubSub.connect(options(server.url()));
          OperationRegistry registryA = registry(executions);
          OperationRegistry registryB = registry(executions);
          CallHandler a = CallHandler.serve(registryA, nodeA);
          CallHandler b = CallHandler.serve(registryB, nodeB);
          PendingRequestMap calls = PendingRequestMap.create(caller)) {
        for (RedisPubSub side : List.of(nodeA, nodeB, caller)) {
          side.flush(Duration.ofSeconds(5));
        }
        CallLoad load = CallLoad.of(n -> call(calls, n), IN_FLIGHT, DEADLINE);
        Thread loader = new Thread(load, "fault-load");
        loader.start();
        List<RedisPubSub> victims = List.of(nodeA, nodeB, caller);
        for (int i = 0; i < 50; i++) {
          load.awaitSuccesses(20);
          RedisPubSub victim = victims.get(i % 3);
          long id = victim.clientIds().orElseThrow().subscriber();
          assertThat(server.command("CLIENT", "KILL", "ID", String.valueOf(id))).isEqualTo(":1");
          RedisPubSubTest.eventually(
              "a new subscriber connection",
              () -> victim.clientIds().map(ids -> ids.subscriber() != id).orElse(false));
          victim.flush(Duration.ofSeconds(5));
        }
        load.awaitSuccesses(20);
        load.finish(loader);

        load.assertEveryCallEndedOnceInTime(LATE_TOLERANCE_MS);
        assertThat(twice(executions, load.started.get())).as("mutations run twice").isZero();
        assertThat(load.byCode.keySet())
            .as("how calls may fail while connections are cut")
            .isSubsetOf(
                ErrorCode.UNAVAILABLE, ErrorCode.NO_RESPONDERS, ErrorCode.DEADLINE_EXCEEDED);
        assertThat(caller.stats().disconnects()).isGreaterThanOrEqualTo(16);
        System.out.printf(
            "RedisFaultTest (CLIENT KILL x50): %d calls: %s%n",
            load.started.get(), load.outcomes());
      }
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void restartingTheServerTenTimesUnderLoadEndsEveryCallOnceAndRunsNothingTwice() throws Exception {
    try (RedisServer server = RedisServer.start()) {
      AtomicIntegerArray executions = new AtomicIntegerArray(MAX_CALLS);
      try (RedisPubSub node = RedisPubSub.connect(options(server.url()));
          RedisPubSub caller = RedisPubSub.connect(options(server.url()));
          OperationRegistry registry = registry(executions);
          CallHandler handler = CallHandler.serve(registry, node);
          PendingRequestMap calls = PendingRequestMap.create(caller)) {
        node.flush(Duration.ofSeconds(5));
        caller.flush(Duration.ofSeconds(5));
        CallLoad load = CallLoad.of(n -> call(calls, n), IN_FLIGHT, DEADLINE);
        Thread loader = new Thread(load, "fault-load");
        loader.start();
        for (int i = 0; i < 10; i++) {
          load.awaitSuccesses(50);
          server.kill();
          Thread.sleep(30);
          server.restart();
          RedisPubSubTest.eventually(
              "both sides reconnected", () -> node.isConnected() && caller.isConnected());
        }
        load.awaitSuccesses(50);
        load.finish(loader);

        load.assertEveryCallEndedOnceInTime(LATE_TOLERANCE_MS);
        assertThat(twice(executions, load.started.get())).as("mutations run twice").isZero();
        assertThat(load.byCode.keySet())
            .isSubsetOf(
                ErrorCode.UNAVAILABLE, ErrorCode.NO_RESPONDERS, ErrorCode.DEADLINE_EXCEEDED);
        assertThat(caller.stats().reconnects()).isGreaterThanOrEqualTo(20);
        System.out.printf(
            "RedisFaultTest (restart x10): %d calls: %s%n", load.started.get(), load.outcomes());
      }
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aServingNodeKilledMidCallFailsTheCallWithUnavailableWithinThreeHeartbeats()
      throws Exception {
    // Three heartbeats of silence at most, and one for the sweep, not the call's deadline.
    killMidCall(500, 4 * 500 + LATE_TOLERANCE_MS);
  }

  /**
   * At the default heartbeat (2 s) three intervals of silence would be 4 to 6 s; but Redis drops a
   * killed process's subscriptions when its connection closes, and the catalog's probe of a node
   * late by a quarter interval reaches nobody: the node is dropped then.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void atTheDefaultHeartbeatAKilledNodeIsDroppedOnceLateNotAfterThreeIntervals() throws Exception {
    killMidCall(2_000, 3_500); // at most 2.5 s after its last heartbeat, and slack
  }

  private void killMidCall(long heartbeatMs, long boundMs) throws Exception {
    try (RedisServer server = RedisServer.start();
        RedisPubSub caller = RedisPubSub.connect(options(server.url()));
        RemoteCatalog catalog = RemoteCatalog.create(caller)) {
      Process node =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  RedisNodeProcess.class.getName(),
                  server.url(),
                  String.valueOf(heartbeatMs))
              .redirectErrorStream(true)
              .start();
      try {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader =
            new Thread(
                () -> {
                  try (BufferedReader in =
                      new BufferedReader(
                          new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                      lines.add(line);
                    }
                  } catch (java.io.IOException ended) {
                    // the process died
                  }
                });
        reader.setDaemon(true);
        reader.start();
        awaitLine(lines, "READY");
        RedisPubSubTest.eventually(
            "the catalog knows the node", () -> catalog.spec("fault.hang").isPresent());

        CompletableFuture<ResponseEnvelope<JsonNode>> call =
            catalog.call(
                "fault.hang",
                JSON.createObjectNode().put("n", 1),
                CallOptions.defaults().withTimeout(Duration.ofSeconds(30)));
        awaitLine(lines, "RUNNING");
        long killed = System.nanoTime();
        node.destroyForcibly(); // SIGKILL
        CallError error = failure(call);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);

        assertThat(error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(tookMs).as("ms from the kill to UNAVAILABLE").isLessThanOrEqualTo(boundMs);
        System.out.printf(
            "RedisFaultTest (SIGKILL): the call ended %d ms after the kill (heartbeat %d ms)%n",
            tookMs, heartbeatMs);
      } finally {
        node.destroyForcibly();
        node.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aSubscriberCutForItsOutputBufferIsReportedItsCallsFailAtOnceAndItComesBack()
      throws Exception {
    try (RedisServer server =
            // No hard limit: the soft one (over 256 KiB for 1 s) cuts, so the caller's pings
            // (every 100 ms) see the backlog before the cut however loaded the machine is.
            RedisServer.start("--client-output-buffer-limit", "pubsub 0 256kb 1");
        TcpProxy proxy = TcpProxy.to(server.port())) {
      CountDownLatch release = new CountDownLatch(1);
      try (RedisPubSub node = RedisPubSub.connect(options(server.url()));
          RedisPubSub flooder = RedisPubSub.connect(options(server.url()));
          RedisPubSub caller =
              RedisPubSub.connect(
                  RedisOptions.builder(proxy.url("redis"))
                      .reconnectWait(Duration.ofMillis(20))
                      .pingInterval(Duration.ofMillis(100))
                      // Long enough that the stalled subscriber's unanswered ping does not end
                      // the connection before the server cuts it (filling the sockets' buffers
                      // takes seconds on a loaded machine).
                      .commandTimeout(Duration.ofSeconds(40))
                      .build());
          OperationRegistry registry = OperationRegistry.create()) {
        registry.register(
            OperationSpec.builder("slow", "wait").build(),
            Handler.blocking(
                (in, ctx) -> {
                  release.await(20, TimeUnit.SECONDS);
                  return in;
                }));
        try (CallHandler handler = CallHandler.serve(registry, node);
            PendingRequestMap calls = PendingRequestMap.create(caller)) {
          caller.subscribe("news", SubscribeOptions.defaults(), m -> {});
          for (RedisPubSub side : List.of(node, caller)) {
            side.flush(Duration.ofSeconds(5));
          }
          List<CompletableFuture<ResponseEnvelope<JsonNode>>> pending = new ArrayList<>();
          for (int i = 0; i < 8; i++) {
            pending.add(
                calls.call(
                    "slow.wait",
                    JSON.createObjectNode().put("n", i),
                    CallOptions.defaults().withTimeout(Duration.ofSeconds(30))));
          }
          RedisPubSubTest.eventually("the calls are running", () -> handler.stats().pending() == 8);

          proxy.pause(1); // the caller's subscriber reads nothing more: the server's buffer grows
          long start = System.nanoTime();
          byte[] chunk = new byte[16 * 1024];
          while (caller.stats().disconnects() == 0) {
            flooder.publish("news", chunk);
            // Fast until the socket buffers are full and the server holds a backlog, then slowly,
            // so the caller's pings see the backlog grow before the server cuts the connection.
            Thread.sleep(caller.stats().backlogSightings() == 0 ? 1 : 20);
            assertThat(System.nanoTime() - start)
                .as("cut within 40 s")
                .isLessThan(TimeUnit.SECONDS.toNanos(40));
          }
          for (CompletableFuture<ResponseEnvelope<JsonNode>> call : pending) {
            assertThat(failure(call).code())
                .as("failed at once, not at the deadline")
                .isEqualTo(ErrorCode.UNAVAILABLE);
          }
          proxy.resume();
          RedisPubSubTest.eventually("the caller reconnected", caller::isConnected);
          RedisPubSubTest.eventually(
              "the cut reported", () -> caller.stats().outputBufferCuts() >= 1);
          assertThat(caller.transportStats().slowConsumerEvents())
              .as("a cut is a slow-consumer event")
              .isEqualTo(caller.stats().outputBufferCuts());
          release.countDown();
          assertThat(
                  calls
                      .call("slow.wait", JSON.createObjectNode().put("n", 99))
                      .get(10, TimeUnit.SECONDS)
                      .data()
                      .get("n")
                      .asInt())
              .isEqualTo(99);
        }
      } finally {
        release.countDown();
      }
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void afterARestartTheNodesAnnouncementsAndSubscriptionsAreBack() throws Exception {
    try (RedisServer server = RedisServer.start();
        RedisPubSub nodeSide = RedisPubSub.connect(options(server.url()));
        RedisPubSub callerSide = RedisPubSub.connect(options(server.url()));
        OperationRegistry registry = OperationRegistry.create()) {
      registry.register(
          OperationSpec.builder("after", "restart").build(),
          Handler.blocking((in, ctx) -> "still here"));
      try (ServingNode node =
              ServingNode.builder(registry, nodeSide)
                  .heartbeatInterval(Duration.ofMillis(200))
                  .start();
          RemoteCatalog catalog = RemoteCatalog.create(callerSide)) {
        RedisPubSubTest.eventually(
            "the catalog knows the node", () -> catalog.spec("after.restart").isPresent());
        server.kill();
        RedisPubSubTest.eventually(
            "the node is dropped after three missed heartbeats", () -> catalog.nodes().isEmpty());
        server.restart();
        RedisPubSubTest.eventually(
            "the node is announced again", () -> catalog.spec("after.restart").isPresent());
        assertThat(
                catalog
                    .call("after.restart", JSON.createObjectNode())
                    .get(10, TimeUnit.SECONDS)
                    .data()
                    .asString())
            .isEqualTo("still here");
        assertThat(catalog.nodes())
            .singleElement()
            .satisfies(n -> assertThat(n.nodeId()).isEqualTo(node.nodeId()));
      }
    }
  }

  // ------------------------------------------------------------------ helpers

  private static OperationRegistry registry(AtomicIntegerArray executions) {
    OperationRegistry registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("fault", "apply").type(OperationType.MUTATION).build(),
        Handler.blocking(
            (in, ctx) -> {
              executions.incrementAndGet(in.get("n").asInt());
              return in;
            }));
    return registry;
  }

  private static CompletableFuture<ResponseEnvelope<JsonNode>> call(
      PendingRequestMap calls, int n) {
    return calls.call(
        "fault.apply",
        JSON.createObjectNode().put("n", n),
        CallOptions.defaults().withTimeout(DEADLINE));
  }

  private static int twice(AtomicIntegerArray executions, int started) {
    int twice = 0;
    for (int n = 0; n < started; n++) {
      if (executions.get(n) > 1) {
        twice++;
      }
    }
    return twice;
  }

  private static void awaitLine(BlockingQueue<String> lines, String prefix) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() - end < 0) {
      String line = lines.poll(100, TimeUnit.MILLISECONDS);
      if (line != null && line.startsWith(prefix)) {
        return;
      }
    }
    throw new AssertionError("the node process never printed " + prefix + ": " + lines);
  }

  private static CallError failure(CompletableFuture<?> future) throws Exception {
    try {
      future.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof CallError error) {
        return error;
      }
      throw e;
    }
    throw new AssertionError("expected the call to fail");
  }
}
