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
import dev.alkdev.operations.discovery.RemoteNode;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.discovery.TrustedNodes;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.serving.OperationServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * Who may serve an operation through the hub (docs/security.md, "Serving"; D102): a rogue spoke
 * that tries to take an operation's calls gets none of them, and is refused where the rules can say
 * so at once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WebSocketServingRulesTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final int CALLS = 40;

  private static final Map<String, Identity> TOKENS =
      Map.of(
          "billing-token", Identity.of("billing", "ops:serve:billing.*", "ops:call:*"),
          "mallory-token", Identity.of("mallory", "ops:serve:*", "ops:call:*"),
          "caller-token", Identity.of("caller", "ops:call:*"),
          "shared-token", Identity.of("shared", "ops:serve:*"));

  private static OperationSpec echo(String id) {
    int dot = id.indexOf('.');
    return OperationSpec.builder(id.substring(0, dot), id.substring(dot + 1)).build();
  }

  /** The hub `ops serve --ws` starts on loopback: anonymous spokes, every permission. */
  private static WebSocketHub.Builder loopbackHub() {
    return WebSocketHub.builder().permissions(SpokePermissions.allowAll());
  }

  private static WebSocketHub.Builder tokenHub(SpokePermissions permissions) {
    return WebSocketHub.builder()
        .authenticator(Authenticator.bearerTokens(TOKENS))
        .permissions(permissions);
  }

  private static WebSocketSpoke spoke(WebSocketHub hub) {
    return WebSocketSpoke.connect(SpokeOptions.builder(hub.uri()).build());
  }

  private static WebSocketSpoke spoke(WebSocketHub hub, String token) {
    return WebSocketSpoke.connect(SpokeOptions.builder(hub.uri()).bearerToken(token).build());
  }

  /** Subscribes {@code rogue} in the servers' group of {@code operationId}, counting requests. */
  private static PubSub.Subscription joinServers(
      PubSub rogue, String operationId, AtomicInteger received) {
    return rogue.subscribe(
        ProtocolTopics.request(operationId),
        SubscribeOptions.queueGroup(ProtocolTopics.SERVER_GROUP),
        m -> received.incrementAndGet());
  }

  /** Makes {@link #CALLS} calls and checks that each was answered by the real server, once. */
  private static void callAll(PubSub caller, String operationId, AtomicInteger ran)
      throws Exception {
    try (PendingRequestMap calls = PendingRequestMap.create(caller)) {
      List<CompletableFuture<ResponseEnvelope<JsonNode>>> all = new ArrayList<>();
      for (int i = 0; i < CALLS; i++) {
        all.add(calls.call(operationId, Map.of("n", i)));
      }
      for (int i = 0; i < CALLS; i++) {
        JsonNode data = all.get(i).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).data();
        assertThat(data.path("n").asInt()).isEqualTo(i);
        assertThat(data.path("by").asString()).isEqualTo("the real server");
      }
    }
    assertThat(ran).hasValue(CALLS);
  }

  private static Handler realServer(AtomicInteger ran) {
    return Handler.blocking(
        (in, ctx) -> {
          ran.incrementAndGet();
          return Map.of("n", in.path("n").asInt(), "by", "the real server");
        });
  }

  private static CallError refusal(Runnable attempt) {
    CallError error = catchThrowableOfType(CallError.class, attempt::run);
    assertThat(error).as("refused").isNotNull();
    return error;
  }

  @Test
  void onALoopbackHubARogueSpokeAnswersNoneOfTheCallsOfAnOperationTheHubServes() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    AtomicInteger stolen = new AtomicInteger();
    try (OperationRegistry registry = OperationRegistry.create();
        OperationServer server = OperationServer.create(registry);
        WebSocketHub hub = loopbackHub().serve(server).start();
        WebSocketSpoke rogue = spoke(hub);
        WebSocketSpoke caller = spoke(hub)) {
      registry.register(echo("demo.echo"), realServer(ran));
      // Registered after the rogue joined: the hub takes the id over, requests skip the rogue.
      joinServers(rogue, "demo.late", stolen);
      registry.register(echo("demo.late"), realServer(ran));
      WebSocketHubTest.Waits.eventually(
          "the hub serves demo.late", () -> !hub.rules.claims.spokeMayReceive("ops.req.demo.late"));

      CallError refused = refusal(() -> joinServers(rogue, "demo.echo", stolen));
      assertThat(refused.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
      assertThat(refused.getMessage()).contains("demo.echo is served by the hub itself");
      // Nor by a plain subscription, nor announced as a node's.
      assertThat(
              refusal(
                      () ->
                          rogue.subscribe(
                              ProtocolTopics.request("demo.echo"),
                              SubscribeOptions.defaults(),
                              m -> stolen.incrementAndGet()))
                  .code())
          .isEqualTo(ErrorCode.ACCESS_DENIED);
      assertThat(
              refusal(
                      () ->
                          rogue.subscribe(
                              ProtocolTopics.nodeRequest("rogue-node", "demo.echo"),
                              SubscribeOptions.defaults(),
                              m -> stolen.incrementAndGet()))
                  .code())
          .isEqualTo(ErrorCode.ACCESS_DENIED);
      assertThat(failure(rogue.publish(ProtocolTopics.NODES, hello("rogue-node", "demo.echo"))))
          .satisfies(e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED));

      callAll(caller, "demo.echo", ran);
      ran.set(0);
      callAll(caller, "demo.late", ran);
      assertThat(stolen).hasValue(0);
      assertThat(hub.stats().servingRefused()).isGreaterThanOrEqualTo(4);
    }
  }

  @Test
  void aSpokeNodeServesWhatItMayAndAnnouncesOnlyThat() throws Exception {
    AtomicInteger hubRan = new AtomicInteger();
    AtomicInteger spokeRan = new AtomicInteger();
    try (OperationRegistry hubOps = OperationRegistry.create();
        OperationServer hubServer = OperationServer.create(hubOps);
        WebSocketHub hub = loopbackHub().serve(hubServer).start();
        WebSocketSpoke spoke = spoke(hub);
        WebSocketSpoke caller = spoke(hub);
        OperationRegistry spokeOps = OperationRegistry.create()) {
      hubOps.register(echo("demo.echo"), realServer(hubRan));
      spokeOps.register(echo("demo.echo"), realServer(spokeRan)); // the hub's: refused
      spokeOps.register(echo("spoke.own"), realServer(spokeRan));
      try (ServingNode node = ServingNode.builder(spokeOps, spoke).nodeId("spoke-node").start();
          RemoteCatalog catalog = RemoteCatalog.create(caller)) {
        WebSocketHubTest.Waits.eventually(
            "the spoke's node is known with its specs",
            () ->
                catalog.nodes().stream()
                    .anyMatch(n -> n.nodeId().equals("spoke-node") && n.specsKnown()));
        assertThat(catalog.servers("spoke.own"))
            .extracting(RemoteNode::nodeId)
            .containsExactly("spoke-node");
        assertThat(catalog.servers("demo.echo"))
            .extracting(RemoteNode::nodeId)
            .doesNotContain("spoke-node");
        catalog.call("spoke.own", Map.of("n", 1)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(spokeRan).hasValue(1);
        spokeRan.set(0);
        callAll(caller, "demo.echo", hubRan);
        assertThat(spokeRan).hasValue(0);
      }
    }
  }

  @Test
  void withAnAuthenticatorASpokeWithoutTheServingPermissionIsRefused() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    AtomicInteger stolen = new AtomicInteger();
    try (WebSocketHub hub = tokenHub(SpokePermissions.byScopes()).start();
        WebSocketSpoke billing = spoke(hub, "billing-token");
        WebSocketSpoke caller = spoke(hub, "caller-token");
        OperationRegistry registry = OperationRegistry.create();
        CallHandler handler = CallHandler.serve(registry, billing)) {
      registry.register(echo("billing.charge"), realServer(ran));
      billing.flush(WAIT);
      CallError refused = refusal(() -> joinServers(caller, "billing.charge", stolen));
      assertThat(refused.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
      assertThat(refused.getMessage()).contains("caller may not serve billing.charge");
      // billing may serve its namespace only.
      assertThat(refusal(() -> joinServers(billing, "demo.echo", stolen)).getMessage())
          .contains("billing may not serve demo.echo");
      callAll(caller, "billing.charge", ran);
      assertThat(stolen).hasValue(0);
      assertThat(hub.stats().servingRefused()).isEqualTo(2);
    }
  }

  @Test
  void anOperationServedByOneIdentityIsNotServedByAnotherEvenAfterItsServerLeft() throws Exception {
    AtomicInteger ran = new AtomicInteger();
    AtomicInteger stolen = new AtomicInteger();
    try (WebSocketHub hub = tokenHub(SpokePermissions.byScopes()).start();
        WebSocketSpoke mallory = spoke(hub, "mallory-token");
        WebSocketSpoke caller = spoke(hub, "caller-token")) {
      try (WebSocketSpoke billing = spoke(hub, "billing-token");
          WebSocketSpoke billing2 = spoke(hub, "billing-token")) {
        joinServers(billing, "billing.charge", new AtomicInteger());
        // The same identity may serve it from many connections (scaling out).
        joinServers(billing2, "billing.charge", new AtomicInteger());
        CallError refused = refusal(() -> joinServers(mallory, "billing.charge", stolen));
        assertThat(refused.getMessage()).contains("billing.charge is served by billing already");
        assertThat(failure(mallory.publish(ProtocolTopics.NODES, hello("m", "billing.charge"))))
            .satisfies(e -> assertThat(e.getMessage()).contains("served by billing already"));
      }
      // billing's servers are gone; the id stays billing's for a reconnect.
      WebSocketHubTest.Waits.eventually("billing left", () -> hub.stats().connections() == 2);
      assertThat(refusal(() -> joinServers(mallory, "billing.charge", stolen)).code())
          .isEqualTo(ErrorCode.ACCESS_DENIED);
      try (WebSocketSpoke billing = spoke(hub, "billing-token");
          OperationRegistry registry = OperationRegistry.create();
          CallHandler handler = CallHandler.serve(registry, billing)) {
        registry.register(echo("billing.charge"), realServer(ran));
        billing.flush(WAIT);
        callAll(caller, "billing.charge", ran);
      }
      assertThat(stolen).hasValue(0);
    }
  }

  @Test
  void theRulesMayLetTwoIdentitiesServeOneOperation() throws Exception {
    SpokePermissions sharing =
        new SpokePermissions() {
          @Override
          public boolean mayCall(Identity identity, String operationId) {
            return SpokePermissions.byScopes().mayCall(identity, operationId);
          }

          @Override
          public boolean mayServe(Identity identity, String operationId) {
            return SpokePermissions.byScopes().mayServe(identity, operationId);
          }

          @Override
          public boolean mayServeAlongside(Identity identity, String operationId, String holder) {
            return identity.subject().equals("shared") && holder.equals("billing");
          }
        };
    AtomicInteger first = new AtomicInteger();
    AtomicInteger second = new AtomicInteger();
    try (WebSocketHub hub = tokenHub(sharing).start();
        WebSocketSpoke billing = spoke(hub, "billing-token");
        WebSocketSpoke shared = spoke(hub, "shared-token");
        WebSocketSpoke mallory = spoke(hub, "mallory-token");
        WebSocketSpoke caller = spoke(hub, "caller-token");
        PendingRequestMap calls = PendingRequestMap.create(caller)) {
      joinServers(billing, "billing.charge", first);
      joinServers(shared, "billing.charge", second);
      assertThat(refusal(() -> joinServers(mallory, "billing.charge", new AtomicInteger())).code())
          .isEqualTo(ErrorCode.ACCESS_DENIED);
      for (int i = 0; i < 4; i++) {
        calls.call("billing.charge", null, dev.alkdev.operations.protocol.CallOptions.defaults());
      }
      WebSocketHubTest.Waits.eventually(
          "both identities take calls", () -> first.get() + second.get() == 4);
      assertThat(first.get()).isPositive();
      assertThat(second.get()).isPositive();
    }
  }

  @Test
  void aCatalogRequiringVerifiedNodesRoutesOnlyToNodesTheHubAuthenticatedAsTrusted()
      throws Exception {
    AtomicInteger billingRan = new AtomicInteger();
    AtomicInteger otherRan = new AtomicInteger();
    TrustedNodes trusted = TrustedNodes.builder().brokerIdentity("billing", "demo.*").build();
    try (WebSocketHub hub = tokenHub(SpokePermissions.allowAll()).start();
        WebSocketSpoke billing = spoke(hub, "billing-token");
        WebSocketSpoke mallory = spoke(hub, "mallory-token");
        WebSocketSpoke caller = spoke(hub, "caller-token");
        OperationRegistry billingOps = OperationRegistry.create();
        OperationRegistry malloryOps = OperationRegistry.create();
        ServingNode billingNode = ServingNode.builder(billingOps, billing).nodeId("b").start();
        ServingNode malloryNode = ServingNode.builder(malloryOps, mallory).nodeId("m").start();
        RemoteCatalog catalog = RemoteCatalog.builder(caller).trustedNodes(trusted).build()) {
      billingOps.register(echo("demo.echo"), realServer(billingRan));
      // allowAll lets a second identity serve alongside: only the catalog's trust tells them apart
      malloryOps.register(echo("demo.echo"), realServer(otherRan));
      WebSocketHubTest.Waits.eventually(
          "both nodes are known", () -> catalog.servers("demo.echo").size() == 2);
      assertThat(catalog.servers("demo.echo"))
          .extracting(RemoteNode::nodeId, RemoteNode::identity, RemoteNode::verified)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("b", java.util.Optional.of("billing"), true),
              org.assertj.core.groups.Tuple.tuple("m", java.util.Optional.of("mallory"), false));
      for (int i = 0; i < CALLS; i++) {
        catalog.call("demo.echo", Map.of("n", i)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      }
      assertThat(billingRan).hasValue(CALLS);
      assertThat(otherRan).hasValue(0);
    }
  }

  private static byte[] hello(String nodeId, String operationId) {
    int dot = operationId.indexOf('.');
    String spec =
        "{\"id\":\""
            + operationId
            + "\",\"namespace\":\""
            + operationId.substring(0, dot)
            + "\",\"name\":\""
            + operationId.substring(dot + 1)
            + "\"}";
    return ("{\"v\":1,\"type\":\"node.hello\",\"nodeId\":\""
            + nodeId
            + "\",\"digest\":\"d\",\"heartbeatMs\":1000,\"specs\":["
            + spec
            + "]}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static CallError failure(CompletableFuture<?> future) throws Exception {
    try {
      future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof CallError error) {
        return error;
      }
      throw e;
    }
    throw new AssertionError("not refused");
  }
}
