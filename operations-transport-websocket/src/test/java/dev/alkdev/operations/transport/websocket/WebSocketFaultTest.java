package dev.alkdev.operations.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.testing.TcpProxy;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The hub going away and coming back, and a serving spoke dropping with calls in flight. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class WebSocketFaultTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final long PROMPTLY_MS = 3000;

  private static WebSocketHub hubOn(int port) {
    return WebSocketHub.builder().port(port).permissions(SpokePermissions.allowAll()).start();
  }

  private static WebSocketSpoke spoke(URI uri) {
    return WebSocketSpoke.connect(
        SpokeOptions.builder(uri)
            .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(400))
            .build());
  }

  @Test
  void theHubRestartedWhileCallsAreInFlight() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    WebSocketHub hub = hubOn(port);
    URI uri = hub.uri();
    try (WebSocketSpoke server = spoke(uri);
        OperationRegistry registry = OperationRegistry.create();
        CallHandler handler = CallHandler.serve(registry, server);
        WebSocketSpoke caller = spoke(uri);
        PendingRequestMap calls = PendingRequestMap.create(caller)) {
      registry.register(
          OperationSpec.builder("slow", "echo").build(),
          Handler.blocking(
              (in, ctx) -> {
                // Longer than the hub takes to close: no call in flight can finish first.
                Thread.sleep(in.asInt() < 0 ? 0 : 2000);
                return in;
              }));
      server.flush(WAIT);
      caller.flush(WAIT);
      for (int round = 0; round < 3; round++) {
        List<CompletableFuture<?>> inFlight = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
          inFlight.add(calls.call("slow.echo", i));
        }
        Thread.sleep(100);
        long killed = System.nanoTime();
        hub.close();
        for (CompletableFuture<?> call : inFlight) {
          CallError error = failure(call);
          assertThat(error.code()).isIn(ErrorCode.UNAVAILABLE);
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed))
            .as("calls in flight failed at once, not at their deadlines")
            .isLessThan(PROMPTLY_MS);
        // While the hub is down, calls fail at once.
        assertThat(failure(calls.call("slow.echo", 1)).code()).isEqualTo(ErrorCode.UNAVAILABLE);

        hub = hubOn(port);
        WebSocketHubTest.Waits.eventually(
            "both spokes are back", () -> server.isConnected() && caller.isConnected());
        server.flush(WAIT);
        caller.flush(WAIT);
        assertThat(
                calls
                    .call("slow.echo", -7)
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS)
                    .data()
                    .asInt())
            .isEqualTo(-7);
      }
      assertThat(server.stats().reconnects()).isEqualTo(3);
      assertThat(server.transportStats().reconnects()).isEqualTo(3);
      assertThat(caller.stats().disconnects()).isEqualTo(3);
    } finally {
      hub.close();
    }
  }

  @Test
  void afterAHubRestartASpokesNodeIsFoundAndCalledThroughDiscoveryAgain() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    WebSocketHub hub = hubOn(port);
    URI uri = hub.uri();
    try (WebSocketSpoke nodeSide = spoke(uri);
        OperationRegistry registry = OperationRegistry.create();
        ServingNode node =
            ServingNode.builder(registry, nodeSide)
                .heartbeatInterval(Duration.ofMillis(200))
                .start();
        WebSocketSpoke callerSide = spoke(uri);
        RemoteCatalog catalog = RemoteCatalog.create(callerSide)) {
      callerSide.onReconnect(catalog::refresh);
      registry.register(
          OperationSpec.builder("spoke", "twice").build(),
          Handler.blocking((in, ctx) -> in.asInt() * 2));
      WebSocketHubTest.Waits.eventually(
          "the catalog sees the node", () -> catalog.spec("spoke.twice").isPresent());
      assertThat(catalog.call("spoke.twice", 2).get(10, TimeUnit.SECONDS).data().asInt())
          .isEqualTo(4);

      hub.close();
      hub = hubOn(port);
      WebSocketHubTest.Waits.eventually(
          "both spokes are back", () -> nodeSide.isConnected() && callerSide.isConnected());
      // The node's heartbeats and the catalog's refresh find each other again: calls route.
      WebSocketHubTest.Waits.eventually(
          "a call through discovery works again",
          () -> {
            try {
              return catalog.call("spoke.twice", 5).get(2, TimeUnit.SECONDS).data().asInt() == 10;
            } catch (Exception e) {
              return false;
            }
          });
    } finally {
      hub.close();
    }
  }

  @Test
  void theHubFailsCallsInFlightOnASpokeThatDisconnects() throws Exception {
    try (WebSocketHub hub = hubOn(0);
        TcpProxy proxy = TcpProxy.to(hub.port());
        WebSocketSpoke server = spoke(URI.create(proxy.url("ws") + "/ws"));
        OperationRegistry registry = OperationRegistry.create();
        CallHandler handler = CallHandler.serve(registry, server);
        WebSocketSpoke caller = spoke(hub.uri());
        PendingRequestMap calls = PendingRequestMap.create(caller)) {
      registry.register(
          OperationSpec.builder("slow", "forever").build(),
          Handler.blocking(
              (in, ctx) -> {
                Thread.sleep(30_000);
                return in;
              }));
      server.flush(WAIT);
      caller.flush(WAIT);
      List<CompletableFuture<?>> inFlight = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        inFlight.add(calls.call("slow.forever", i));
      }
      WebSocketHubTest.Waits.eventually(
          "the hub knows the calls are served", () -> hub.stats().servedCalls() == 20);
      long cut = System.nanoTime();
      proxy.sever();
      for (CompletableFuture<?> call : inFlight) {
        CallError error = failure(call);
        assertThat(error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(error.getMessage()).contains("disconnected");
      }
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut)).isLessThan(PROMPTLY_MS);
      assertThat(hub.stats().servedCalls()).isZero();
      assertThat(hub.stats().openCalls()).isZero();
    }
  }

  private static CallError failure(CompletableFuture<?> future) throws Exception {
    try {
      future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      return (CallError) e.getCause();
    }
    throw new AssertionError("expected a failure");
  }
}
