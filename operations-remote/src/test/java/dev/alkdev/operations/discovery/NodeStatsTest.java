package dev.alkdev.operations.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.serving.OperationStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Statistics asked of serving nodes over the discovery protocol, on one in-process bus. */
class NodeStatsTest {
  private final List<AutoCloseable> open = new ArrayList<>();
  private final InProcessPubSub bus = InProcessPubSub.create();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    bus.close();
  }

  private <T extends AutoCloseable> T open(T closeable) {
    open.add(closeable);
    return closeable;
  }

  static final OperationSpec PUBLIC = OperationSpec.builder("demo", "echo").build();
  static final OperationSpec ADMIN =
      OperationSpec.builder("demo", "admin").requiredScopes("admin").build();

  private ServingNode node(String id, CuttablePubSub client) {
    OperationRegistry registry = open(OperationRegistry.create());
    registry.register(PUBLIC, Handler.blocking((in, c) -> in));
    registry.register(ADMIN, Handler.blocking((in, c) -> "done"));
    return open(
        ServingNode.builder(registry, client)
            .nodeId(id)
            .heartbeatInterval(Duration.ofMillis(200))
            .drainTimeout(Duration.ofMillis(100))
            .start());
  }

  private RemoteCatalog settledCatalog(int nodes) throws InterruptedException {
    RemoteCatalog catalog = open(RemoteCatalog.create(open(new CuttablePubSub(bus))));
    DiscoveryTest.await(nodes + " nodes", () -> catalog.nodes().size() == nodes);
    return catalog;
  }

  static OperationStats op(NodeStats node, String id) {
    return node.operations().stream()
        .filter(s -> s.operationId().equals(id))
        .findFirst()
        .orElseThrow(() -> new AssertionError(node.nodeId() + " reports no " + id));
  }

  @Test
  void everyNodeReportsWhatItServedAndOnlyWhatTheAskerMayCall() throws Exception {
    node("a", open(new CuttablePubSub(bus)));
    node("b", open(new CuttablePubSub(bus)));
    RemoteCatalog catalog = settledCatalog(2);
    Identity admin = Identity.of("root", "admin");
    for (int i = 0; i < 6; i++) {
      catalog.call("demo.echo", Map.of("i", i)).get(10, TimeUnit.SECONDS);
    }
    catalog
        .call("demo.admin", Map.of(), CallOptions.defaults().withIdentity(admin))
        .get(10, TimeUnit.SECONDS);
    CallError denied =
        DiscoveryTest.failure(
            catalog.call(
                "demo.admin",
                Map.of(),
                CallOptions.defaults().withIdentity(Identity.of("bob", "user"))));
    assertThat(denied.code()).isEqualTo(ErrorCode.ACCESS_DENIED);

    List<NodeStats> all = catalog.stats(admin, Duration.ofSeconds(10)).get(15, TimeUnit.SECONDS);
    assertThat(all).extracting(NodeStats::nodeId).containsExactly("a", "b");
    assertThat(all).allMatch(NodeStats::answered);
    assertThat(all).allMatch(n -> n.startedAt().isPresent() && n.omitted() == 0);
    long echoes = all.stream().mapToLong(n -> op(n, "demo.echo").calls()).sum();
    assertThat(echoes).isEqualTo(6);
    long adminCalls = all.stream().mapToLong(n -> op(n, "demo.admin").calls()).sum();
    long denials =
        all.stream()
            .mapToLong(
                n -> op(n, "demo.admin").errorsByCode().getOrDefault(ErrorCode.ACCESS_DENIED, 0L))
            .sum();
    assertThat(adminCalls).isEqualTo(2);
    assertThat(denials).isEqualTo(1);

    // An anonymous asker hears of the public operation only, on every node.
    List<NodeStats> anonymous = catalog.stats(Duration.ofSeconds(10)).get(15, TimeUnit.SECONDS);
    assertThat(anonymous).hasSize(2);
    for (NodeStats node : anonymous) {
      assertThat(node.operations())
          .extracting(OperationStats::operationId)
          .containsExactly("demo.echo");
    }

    // One node, asked alone.
    NodeStats b = catalog.stats("b", admin, Duration.ofSeconds(10)).get(15, TimeUnit.SECONDS);
    assertThat(b.nodeId()).isEqualTo("b");
    assertThat(b.answered()).isTrue();
    assertThat(b.operations()).isEqualTo(all.get(1).operations());
  }

  @Test
  void aNodeWithAFullLaneSaysItIsSaturated() throws Exception {
    OperationRegistry registry = open(OperationRegistry.create());
    java.util.concurrent.CompletableFuture<Object> hold =
        new java.util.concurrent.CompletableFuture<>();
    registry.register(PUBLIC, Handler.async((in, c) -> hold));
    OperationServer server =
        open(
            OperationServer.builder(registry).maxConcurrentCalls(1).maxCallsPerIdentity(1).build());
    open(
        ServingNode.builder(server, open(new CuttablePubSub(bus)))
            .nodeId("full")
            .heartbeatInterval(Duration.ofMillis(200))
            .drainTimeout(Duration.ofMillis(100))
            .start());
    RemoteCatalog catalog = settledCatalog(1);
    assertThat(catalog.stats(Duration.ofSeconds(10)).get(15, TimeUnit.SECONDS).get(0).saturated())
        .isFalse();
    var running = catalog.call("demo.echo", Map.of());
    DiscoveryTest.await("the call to run", () -> server.stats().calls() == 1);
    NodeStats full = catalog.stats(Duration.ofSeconds(10)).get(15, TimeUnit.SECONDS).get(0);
    assertThat(full.saturated()).isTrue();
    assertThat(full.inFlight()).isEqualTo(1);
    hold.complete("done");
    running.get(10, TimeUnit.SECONDS);
    assertThat(catalog.stats(Duration.ofSeconds(10)).get(15, TimeUnit.SECONDS).get(0).saturated())
        .isFalse();
  }

  @Test
  void aSilentNodeIsListedAsSuchWhenTheTimeoutEnds() throws Exception {
    node("a", open(new CuttablePubSub(bus)));
    CuttablePubSub silentClient = open(new CuttablePubSub(bus));
    node("z", silentClient);
    RemoteCatalog catalog = settledCatalog(2);
    silentClient.cut();

    long start = System.nanoTime();
    List<NodeStats> all = catalog.stats(Duration.ofMillis(300)).get(15, TimeUnit.SECONDS);
    assertThat(System.nanoTime() - start)
        .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(290));
    assertThat(all).extracting(NodeStats::nodeId).containsExactly("a", "z");
    assertThat(all.get(0).answered()).isTrue();
    NodeStats z = all.get(1);
    assertThat(z.answered()).isFalse();
    assertThat(z.startedAt()).isEmpty();
    assertThat(z.operations()).isEmpty();

    NodeStats alone =
        catalog.stats("z", Identity.anonymous(), Duration.ofMillis(100)).get(15, TimeUnit.SECONDS);
    assertThat(alone.answered()).isFalse();
  }

  @Test
  void aNodeWhoseStatsDoNotFitLeavesOutTheLeastCalled() {
    InProcessPubSub small = open(InProcessPubSub.builder().maxMessageBytes(8192).build());
    OperationRegistry registry = open(OperationRegistry.create());
    for (int i = 0; i < 200; i++) {
      registry.register(
          OperationSpec.builder("bulk", "op" + i).build(), Handler.blocking((in, c) -> in));
    }
    ServingNode node = open(ServingNode.builder(registry, small).nodeId("n").start());
    RemoteCatalog direct = open(RemoteCatalog.create(small));
    direct.awaitSettled(Duration.ofMillis(100), Duration.ofSeconds(10));
    for (int i = 0; i < 200; i++) {
      direct.call("bulk.op" + i, Map.of()).join();
    }
    direct.call("bulk.op199", Map.of()).join(); // the most called: kept
    NodeEvent.Stats stats =
        (NodeEvent.Stats) NodeEvents.decode(node.statsFor("r1", Identity.anonymous()), 1 << 20);
    assertThat(stats.omitted()).isPositive();
    assertThat(stats.operations().size() + stats.omitted()).isEqualTo(200);
    assertThat(stats.operations().get(0).operationId()).isEqualTo("bulk.op199");
    assertThat(NodeEvents.encode(stats).length).isLessThanOrEqualTo(8192);
  }
}
