package dev.alkdev.operations.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.serving.OperationServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * The hub as a whole: its registry and spokes' operations meet in every catalog; identities come
 * from the authenticator at the upgrade; Origins and permissions are refused by default.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WebSocketHubTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private static final Map<String, Identity> TOKENS =
      Map.of(
          "alice-token", Identity.of("alice", "ops:call:*"),
          "node-token", Identity.of("node-1", "ops:serve:spoke.*", "ops:call:*"),
          "mallory-token", Identity.of("mallory"));

  private static WebSocketHub.Builder secureHub() {
    return WebSocketHub.builder()
        .authenticator(Authenticator.bearerTokens(TOKENS))
        .permissions(SpokePermissions.byScopes())
        .heartbeatInterval(Duration.ofMillis(200));
  }

  private static WebSocketSpoke spoke(WebSocketHub hub, String token) {
    return WebSocketSpoke.connect(SpokeOptions.builder(hub.uri()).bearerToken(token).build());
  }

  private static <T> T await(CompletableFuture<T> future) throws Exception {
    return future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static CallError failure(CompletableFuture<?> future) throws Exception {
    try {
      future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      return (CallError) e.getCause();
    }
    throw new AssertionError("expected a failure");
  }

  @Test
  void hubAndSpokeOperationsAreCalledFromEverySideWithTheCallersAuthenticatedIdentity()
      throws Exception {
    AtomicReference<Identity> seenBySpoke = new AtomicReference<>();
    AtomicReference<Identity> seenByHub = new AtomicReference<>();
    try (OperationRegistry hubRegistry = OperationRegistry.create();
        OperationServer hubServer = OperationServer.create(hubRegistry)) {
      hubRegistry.register(
          OperationSpec.builder("hub", "whoami").build(),
          Handler.blocking(
              (input, ctx) -> {
                seenByHub.set(ctx.identity());
                return ctx.identity().subject();
              }));
      try (WebSocketHub hub = secureHub().serve(hubServer).start();
          WebSocketSpoke nodeSide = spoke(hub, "node-token");
          OperationRegistry spokeRegistry = OperationRegistry.create();
          ServingNode node =
              ServingNode.builder(spokeRegistry, nodeSide)
                  .heartbeatInterval(Duration.ofMillis(200))
                  .start();
          WebSocketSpoke aliceSide = spoke(hub, "alice-token");
          RemoteCatalog alice = RemoteCatalog.create(aliceSide);
          RemoteCatalog atHub = RemoteCatalog.create(hub.pubsub())) {
        spokeRegistry.register(
            OperationSpec.builder("spoke", "double").build(),
            Handler.blocking(
                (input, ctx) -> {
                  seenBySpoke.set(ctx.identity());
                  return input.asInt() * 2;
                }));
        Waits.eventually(
            "alice sees the hub's and the spoke's operations",
            () -> alice.spec("hub.whoami").isPresent() && alice.spec("spoke.double").isPresent());

        ResponseCheck.data(await(alice.call("hub.whoami", null))).isEqualTo("alice");
        assertThat(seenByHub.get().subject()).isEqualTo("alice");
        assertThat(await(alice.call("spoke.double", 21)).data().asInt()).isEqualTo(42);
        assertThat(seenBySpoke.get().subject()).isEqualTo("alice");

        // The hub's own code calls the spoke's operation too, as the identity it names.
        Waits.eventually("the hub sees the spoke", () -> atHub.spec("spoke.double").isPresent());
        assertThat(
                await(
                        atHub.call(
                            "spoke.double",
                            4,
                            dev.alkdev.operations.protocol.CallOptions.defaults()
                                .withIdentity(Identity.of("hub-admin"))))
                    .data()
                    .asInt())
            .isEqualTo(8);
        assertThat(seenBySpoke.get().subject()).isEqualTo("hub-admin");
      }
    }
  }

  @Test
  void anIdentityWrittenInAPayloadIsNotBelieved() throws Exception {
    AtomicReference<Identity> seen = new AtomicReference<>();
    try (WebSocketHub hub = secureHub().start();
        WebSocketSpoke nodeSide = spoke(hub, "node-token");
        OperationRegistry registry = OperationRegistry.create();
        var handler = dev.alkdev.operations.protocol.CallHandler.serve(registry, nodeSide);
        WebSocketSpoke aliceSide = spoke(hub, "alice-token");
        PendingRequestMap calls = PendingRequestMap.create(aliceSide)) {
      registry.register(
          OperationSpec.builder("spoke", "who").build(),
          Handler.blocking(
              (input, ctx) -> {
                seen.set(ctx.identity());
                return ctx.identity().subject();
              }));
      nodeSide.flush(WAIT);
      JsonNode answer =
          await(
                  calls.call(
                      "spoke.who",
                      null,
                      dev.alkdev.operations.protocol.CallOptions.defaults()
                          .withIdentity(Identity.of("root", "admin"))))
              .data();
      assertThat(answer.asString()).isEqualTo("alice");
      assertThat(seen.get().scopes()).containsExactly("ops:call:*");
    }
  }

  @Test
  void aForeignOriginIsRefusedAtTheHandshakeAndAnAllowedOneIsNot() {
    try (WebSocketHub hub =
        WebSocketHub.builder().allowedOrigins("https://app.example.com").start()) {
      CallError refused =
          catchThrowableOfType(
              CallError.class,
              () ->
                  WebSocketSpoke.connect(
                      SpokeOptions.builder(hub.uri())
                          .header("Origin", "https://evil.example.com")
                          .build()));
      assertThat(refused.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
      assertThat(refused.getMessage()).contains("403");
      try (WebSocketSpoke allowed =
          WebSocketSpoke.connect(
              SpokeOptions.builder(hub.uri())
                  .header("Origin", "https://app.example.com")
                  .build())) {
        assertThat(allowed.isConnected()).isTrue();
      }
      assertThat(hub.stats().refusedUpgrades()).isEqualTo(1);
    }
    // No allowed origins at all (the default): every browser page is refused.
    try (WebSocketHub hub = WebSocketHub.builder().start()) {
      CallError refused =
          catchThrowableOfType(
              CallError.class,
              () ->
                  WebSocketSpoke.connect(
                      SpokeOptions.builder(hub.uri())
                          .header("Origin", "http://127.0.0.1:" + hub.port())
                          .build()));
      assertThat(refused.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
    }
  }

  @Test
  void anUnauthenticatedUpgradeIsRefusedWhenAnAuthenticatorIsSet() {
    try (WebSocketHub hub = secureHub().start()) {
      for (SpokeOptions options :
          new SpokeOptions[] {
            SpokeOptions.builder(hub.uri()).build(),
            SpokeOptions.builder(hub.uri()).bearerToken("not-a-token").build()
          }) {
        CallError refused =
            catchThrowableOfType(CallError.class, () -> WebSocketSpoke.connect(options));
        assertThat(refused.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
        assertThat(refused.getMessage()).contains("401");
      }
      assertThat(hub.stats().refusedUpgrades()).isEqualTo(2);
      assertThat(hub.stats().connections()).isZero();
    }
  }

  @Test
  void aBrowserStyleClientAuthenticatesWithTheBearerSubprotocol() throws Exception {
    try (WebSocketHub hub = secureHub().start();
        RawSocket socket =
            RawSocket.open(hub.uri(), true, WebSocketHub.SUBPROTOCOL, "ops.bearer.alice-token")) {
      assertThat(socket.session().getUpgradeResponse().getAcceptedSubProtocol())
          .isEqualTo(WebSocketHub.SUBPROTOCOL);
      assertThat(socket.next()).startsWith("HELLO 1 ").contains("\"alice\"");
    }
  }

  @Test
  void permissionsDenyByDefault() throws Exception {
    try (WebSocketHub hub = WebSocketHub.builder().start();
        WebSocketSpoke spoke = WebSocketSpoke.connect(SpokeOptions.builder(hub.uri()).build())) {
      CallError serve =
          catchThrowableOfType(
              CallError.class,
              () -> spoke.subscribe("ops.req.demo.echo", SubscribeOptions.defaults(), m -> {}));
      assertThat(serve.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
      assertThat(failure(spoke.publish("ops.req.demo.echo", bytes("{}"))).code())
          .isEqualTo(ErrorCode.ACCESS_DENIED);
      assertThat(failure(spoke.publish("chat.room", bytes("hi"))).code())
          .isEqualTo(ErrorCode.ACCESS_DENIED);
      assertThat(failure(spoke.publish("ops.anything", bytes("hi"))).code())
          .isEqualTo(ErrorCode.ACCESS_DENIED);
      // Its own inbox, discovery and control are the protocol's plumbing: allowed.
      try (PendingRequestMap calls = PendingRequestMap.create(spoke)) {
        CallError call = failure(calls.call("demo.echo", null));
        assertThat(call.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
        assertThat(call.getMessage()).contains("may not call demo.echo");
      }
      assertThat(hub.stats().denied()).isGreaterThanOrEqualTo(5);
    }
  }

  @Test
  void scopesDecideWhoCallsAndServesWhat() throws Exception {
    try (WebSocketHub hub = secureHub().start();
        WebSocketSpoke alice = spoke(hub, "alice-token");
        WebSocketSpoke node = spoke(hub, "node-token")) {
      assertThat(
              catchThrowableOfType(
                      CallError.class,
                      () ->
                          alice.subscribe(
                              "ops.req.spoke.double", SubscribeOptions.defaults(), m -> {}))
                  .code())
          .isEqualTo(ErrorCode.ACCESS_DENIED);
      node.subscribe("ops.req.spoke.double", SubscribeOptions.defaults(), m -> {}).close();
      assertThat(
              catchThrowableOfType(
                      CallError.class,
                      () ->
                          node.subscribe(
                              "ops.req.billing.refund", SubscribeOptions.defaults(), m -> {}))
                  .code())
          .isEqualTo(ErrorCode.ACCESS_DENIED);
    }
  }

  @Test
  void anInboxBelongsToTheConnectionThatClaimedItAndRepliesGoOnlyWhereRequestsCameFrom()
      throws Exception {
    try (WebSocketHub hub = secureHub().start();
        WebSocketSpoke alice = spoke(hub, "alice-token");
        WebSocketSpoke mallory = spoke(hub, "mallory-token");
        PendingRequestMap calls = PendingRequestMap.create(alice)) {
      alice.flush(WAIT);
      // Listening on alice's inbox: refused.
      CallError hijack =
          catchThrowableOfType(
              CallError.class,
              () -> mallory.subscribe(calls.inbox(), SubscribeOptions.defaults(), m -> {}));
      assertThat(hijack.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
      // Writing into it a response to nothing mallory was asked: refused.
      String forged =
          "{\"v\":1,\"type\":\"call.responded\",\"requestId\":\"abc\","
              + "\"output\":{\"data\":1,\"meta\":{\"source\":\"local\",\"operationId\":\"x.y\","
              + "\"timestamp\":1}}}";
      assertThat(failure(mallory.publish(calls.inbox(), bytes(forged))).code())
          .isEqualTo(ErrorCode.ACCESS_DENIED);
      // Naming alice's inbox as the reply address of its own request: refused.
      String reflected =
          "{\"v\":1,\"type\":\"call.requested\",\"requestId\":\"r1\",\"replyTo\":\""
              + calls.inbox()
              + "\",\"operationId\":\"x.y\"}";
      try (WebSocketHub open =
              WebSocketHub.builder().permissions(SpokePermissions.allowAll()).start();
          WebSocketSpoke a = WebSocketSpoke.connect(SpokeOptions.builder(open.uri()).build());
          WebSocketSpoke m = WebSocketSpoke.connect(SpokeOptions.builder(open.uri()).build());
          PendingRequestMap aCalls = PendingRequestMap.create(a)) {
        a.flush(WAIT);
        String reflectedThere = reflected.replace(calls.inbox(), aCalls.inbox());
        assertThat(failure(m.publish(ProtocolTopics.request("x.y"), bytes(reflectedThere))).code())
            .isEqualTo(ErrorCode.ACCESS_DENIED);
      }
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** Bounded waits. */
  static final class Waits {
    static void eventually(String what, java.util.function.BooleanSupplier condition)
        throws InterruptedException {
      long end = System.nanoTime() + WAIT.toNanos();
      while (!condition.getAsBoolean()) {
        if (System.nanoTime() > end) {
          throw new AssertionError("timed out waiting until " + what);
        }
        Thread.sleep(20);
      }
    }
  }

  /** Reads an envelope's data as text. */
  static final class ResponseCheck {
    static org.assertj.core.api.AbstractStringAssert<?> data(
        dev.alkdev.operations.envelope.ResponseEnvelope<JsonNode> envelope) {
      return assertThat(envelope.data().asString());
    }
  }
}
