package dev.alkdev.operations.transport.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.discovery.NodeStats;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.serving.OperationStats;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Statistics over a real NATS server: every node answers {@code node.stats.requested}; NATS does
 * not vouch for identities, so an asker's scopes are not believed and scoped operations stay
 * unreported; a node cut off is listed as silent once the timeout ends.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NatsStatsTest {
  private static OperationRegistry registry() {
    OperationRegistry registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("svc", "echo").build(), Handler.blocking((in, ctx) -> in));
    registry.register(
        OperationSpec.builder("svc", "admin").requiredScopes("admin").build(),
        Handler.blocking((in, ctx) -> "done"));
    return registry;
  }

  private static NatsPubSub connect(NatsServer server) {
    return NatsPubSub.connect(NatsOptions.builder(server.url()).build());
  }

  @Test
  void everyNodeReportsItsCountsAndACutOffNodeIsSilent() throws Exception {
    try (NatsServer server = NatsServer.start();
        OperationRegistry one = registry();
        OperationRegistry two = registry();
        NatsPubSub servingOne = connect(server);
        NatsPubSub servingTwo = connect(server);
        NatsPubSub calling = connect(server);
        ServingNode a = ServingNode.builder(one, servingOne).nodeId("a").start();
        ServingNode b = ServingNode.builder(two, servingTwo).nodeId("b").start();
        RemoteCatalog catalog = RemoteCatalog.create(calling)) {
      assertThat(catalog.awaitSettled(Duration.ofMillis(250), Duration.ofSeconds(10))).isTrue();
      assertThat(catalog.nodes()).hasSize(2);
      for (int i = 0; i < 10; i++) {
        catalog.call("svc.echo", Map.of("i", i)).get(5, TimeUnit.SECONDS);
      }
      // NATS does not vouch for the caller: the node sees an anonymous caller.
      assertThatThrownBy(
              () ->
                  catalog
                      .call(
                          "svc.admin",
                          Map.of(),
                          CallOptions.defaults().withIdentity(Identity.of("x", "admin")))
                      .join())
          .isInstanceOf(CompletionException.class)
          .hasMessageContaining("needs an authenticated caller");

      List<NodeStats> all =
          catalog
              .stats(Identity.of("root", "admin"), Duration.ofSeconds(10))
              .get(15, TimeUnit.SECONDS);
      assertThat(all).extracting(NodeStats::nodeId).containsExactly("a", "b");
      assertThat(all).allMatch(NodeStats::answered);
      long echoes = 0;
      for (NodeStats node : all) {
        // The scoped operation is not reported: the asker's payload identity is not believed.
        assertThat(node.operations())
            .extracting(OperationStats::operationId)
            .containsExactly("svc.echo");
        OperationStats echo = node.operations().get(0);
        assertThat(echo.errors()).isZero();
        assertThat(echo.latency().count()).isEqualTo(echo.calls());
        echoes += echo.calls();
      }
      assertThat(echoes).isEqualTo(10);

      // b's connection goes; the catalog still knows b (its heartbeats have not yet been missed).
      servingTwo.close();
      long started = System.nanoTime();
      List<NodeStats> later = catalog.stats(Duration.ofMillis(500)).get(15, TimeUnit.SECONDS);
      assertThat(System.nanoTime() - started).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(450));
      assertThat(later).extracting(NodeStats::nodeId).containsExactly("a", "b");
      assertThat(later.get(0).answered()).isTrue();
      assertThat(later.get(1).answered()).isFalse();
    }
  }
}
