package dev.alkdev.operations.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.protocol.CallEvent;
import dev.alkdev.operations.protocol.CallEvents;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.serving.OperationServer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.json.JsonMapper;

/**
 * Who may control a call, speak for a node and listen on an inbox (D66), and a hub that fails to
 * start leaving nothing behind: each test failed before its fix.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WebSocketClaimsTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Map<String, Identity> TOKENS =
      Map.of(
          "alice-token", Identity.of("alice"),
          "mallory-token", Identity.of("mallory"),
          "server-token", Identity.of("server"));

  private static WebSocketHub.Builder hub() {
    return WebSocketHub.builder()
        .authenticator(Authenticator.bearerTokens(TOKENS))
        .permissions(SpokePermissions.allowAll());
  }

  private static WebSocketSpoke spoke(WebSocketHub hub, String token) {
    return WebSocketSpoke.connect(SpokeOptions.builder(hub.uri()).bearerToken(token).build());
  }

  @Test
  void aSpokeCannotAbortACallTheHubsOwnCodeMade() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<String> requestId = new AtomicReference<>();
    try (WebSocketHub hub = hub().start();
        WebSocketSpoke server = spoke(hub, "server-token");
        OperationRegistry registry = OperationRegistry.create();
        CallHandler handler = CallHandler.serve(registry, server);
        PendingRequestMap hubCalls = PendingRequestMap.create(hub.pubsub());
        WebSocketSpoke mallory = spoke(hub, "mallory-token")) {
      registry.register(
          OperationSpec.builder("slow", "answer").build(),
          Handler.blocking(
              (in, ctx) -> {
                started.countDown();
                release.await(10, TimeUnit.SECONDS);
                return 42;
              }));
      server.flush(WAIT);
      // Mallory learns the request id (it listens where requests pass); here a plain listener.
      hub.pubsub()
          .subscribe(
              ProtocolTopics.request("slow.answer"),
              SubscribeOptions.defaults(),
              m ->
                  requestId.set(
                      JsonMapper.builder()
                          .build()
                          .readTree(m.payload())
                          .get("requestId")
                          .asString()));
      CompletableFuture<?> call = hubCalls.call("slow.answer", null);
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      // The listener and the serving spoke get the request on different threads.
      WebSocketHubTest.Waits.eventually(
          "the listener saw the request", () -> requestId.get() != null);
      CallError refused =
          failure(
              mallory.publish(
                  ProtocolTopics.CONTROL,
                  CallEvents.encode(
                      new CallEvent.Aborted(requestId.get(), Optional.of("not yours")))));
      assertThat(refused.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
      release.countDown();
      assertThat(call.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isNotNull();
      WebSocketHubTest.Waits.eventually(
          "the hub forgets its answered call", () -> hub.rules.hubCalls.isEmpty());
    }
  }

  @Test
  void aSpokeCannotSpeakForTheHubsNodeNorAnnounceAFleet() throws Exception {
    try (OperationRegistry hubRegistry = OperationRegistry.create();
        OperationServer hubServer = OperationServer.create(hubRegistry);
        WebSocketHub hub = hub().serve(hubServer).nodeId("hub-node").start();
        WebSocketSpoke mallory = spoke(hub, "mallory-token")) {
      byte[] bye =
          "{\"v\":1,\"type\":\"node.bye\",\"nodeId\":\"hub-node\",\"drainMs\":0}"
              .getBytes(StandardCharsets.UTF_8);
      assertThat(failure(mallory.publish(ProtocolTopics.NODES, bye)).code())
          .isEqualTo(ErrorCode.ACCESS_DENIED);
      CallError listen =
          catchThrowableOfType(
              CallError.class,
              () ->
                  mallory.subscribe(
                      "ops.node.hub-node.specs", SubscribeOptions.defaults(), m -> {}));
      assertThat(listen.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
      // A spoke announces itself, not any number of nodes.
      for (int i = 0; i < HubRules.MAX_NODE_IDS; i++) {
        mallory.publish(ProtocolTopics.NODES, bye("fake-" + i)).get(5, TimeUnit.SECONDS);
      }
      assertThat(failure(mallory.publish(ProtocolTopics.NODES, bye("fake-x"))).code())
          .isEqualTo(ErrorCode.ACCESS_DENIED);
    }
  }

  private static byte[] bye(String nodeId) {
    return ("{\"v\":1,\"type\":\"node.bye\",\"nodeId\":\"" + nodeId + "\",\"drainMs\":0}")
        .getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void anInboxOfAClosedConnectionIsKeptForItsIdentityNotTakenByAnother() throws Exception {
    String inbox = ProtocolTopics.INBOX_PREFIX + "alice-1";
    try (WebSocketHub hub = hub().start()) {
      try (WebSocketSpoke alice = spoke(hub, "alice-token")) {
        alice.subscribe(inbox, SubscribeOptions.defaults(), m -> {});
      }
      WebSocketHubTest.Waits.eventually("alice is gone", () -> hub.stats().connections() == 0);
      try (WebSocketSpoke mallory = spoke(hub, "mallory-token")) {
        CallError squat =
            catchThrowableOfType(
                CallError.class,
                () -> mallory.subscribe(inbox, SubscribeOptions.defaults(), m -> {}));
        assertThat(squat.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
      }
      // Alice reconnecting takes her inbox back, and gets what is sent there.
      try (WebSocketSpoke alice = spoke(hub, "alice-token")) {
        CompletableFuture<String> got = new CompletableFuture<>();
        alice.subscribe(
            inbox,
            SubscribeOptions.defaults(),
            m -> got.complete(new String(m.payload(), StandardCharsets.UTF_8)));
        alice.publish(inbox, "hi".getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
        assertThat(got.get(5, TimeUnit.SECONDS)).isEqualTo("hi");
      }
    }
  }

  @Test
  void aSpokeCannotListenOnTheHubsOwnInbox() throws Exception {
    try (WebSocketHub hub = hub().start();
        PendingRequestMap hubCalls = PendingRequestMap.create(hub.pubsub());
        WebSocketSpoke mallory = spoke(hub, "mallory-token")) {
      hubCalls.call("nobody.serves", null).exceptionally(e -> null).get(5, TimeUnit.SECONDS);
      CallError squat =
          catchThrowableOfType(
              CallError.class,
              () -> mallory.subscribe(hubCalls.inbox(), SubscribeOptions.defaults(), m -> {}));
      assertThat(squat.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
    }
  }

  @Test
  void aHubWhoseNodeFailsToStartReleasesItsPortAndThreads() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    long threadsBefore = hubThreads();
    try (OperationRegistry registry = OperationRegistry.create();
        OperationServer server = OperationServer.create(registry)) {
      catchThrowableOfType(
          IllegalArgumentException.class,
          () -> hub().port(port).serve(server).nodeId("not a node id").start());
    }
    // The port is free again: a hub that failed to start does not keep listening.
    try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertThat(again.getLocalPort()).isEqualTo(port);
    }
    WebSocketHubTest.Waits.eventually(
        "the hub's threads are gone", () -> hubThreads() <= threadsBefore);
  }

  private static long hubThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("ops-ws-hub"))
        .count();
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
