package dev.alkdev.operations.transport.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.discovery.NodeStats;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.PubSubFactory;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.transport.redis.internal.Groups;
import dev.alkdev.operations.transport.redis.internal.RedisPubSubFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@link RedisAcl} against a real {@code redis-server} whose ACL file holds the users it writes: a
 * server serves and a caller calls, and the server's ACL log shows nothing refused but the optional
 * CONFIG GET; a caller, a server of other operations and an observer that try to serve are refused
 * by the server and receive nothing, while every call reaches the real server exactly once; an
 * observer lists nodes but cannot call; a caller of one operation cannot reach the group members of
 * another on the same node. With private tokens, callers call as before, and none can subscribe to
 * another's inboxes. And the roles' rules, the refusals of patterns that are none, private tokens
 * and {@code and}, the factory's OPS_PRIVATE_TOKEN, and the example of docs/redis.md.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisAclTest {
  private static final String ECHO_NODE = "echo-node-1";
  private static final String BILLING_NODE = "billing-node-1";
  private static final String EVERY_NODE = "every-node-1";
  private static final String PRIVATE_NODE = "private-node-1";
  private static final int N = 40;
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Path REPO = Path.of(System.getProperty("ops.repo.dir", "..")).normalize();
  private static final String ECHO_TOPIC = "ops.req.demo.echo";
  private static final String ECHO_GROUPS = Groups.groupsKey(ECHO_TOPIC);
  private static final String ECHO_MEMBERS = Groups.membersKey("ops.servers", ECHO_TOPIC);

  @Nested
  class AgainstABroker {
    @TempDir Path dir;
    private RedisServer server;
    private Resp admin;

    @BeforeEach
    void start() throws Exception {
      server =
          RedisServer.startWithUsers(
              dir,
              List.of(
                  RedisAcl.server(List.of("demo.echo"), Optional.of(ECHO_NODE))
                      .toAclSetuser("echo-node", "echo-pw"),
                  RedisAcl.server(List.of("billing.*"), Optional.of(BILLING_NODE))
                      .toAclSetuser("billing-node", "billing-pw"),
                  RedisAcl.server(List.of("*"), Optional.of(EVERY_NODE))
                      .toAclSetuser("every-node", "every-pw"),
                  RedisAcl.caller(List.of("demo.*", "billing.*")).toAclSetuser("shop", "shop-pw"),
                  RedisAcl.caller(List.of("demo.*")).toAclSetuser("demo-shop", "demo-pw"),
                  // Every user of the private-token tests has its own token.
                  RedisAcl.server(List.of("demo.echo"), Optional.of(PRIVATE_NODE))
                      .privateTo("node-1")
                      .toAclSetuser("private-node", "node-pw"),
                  RedisAcl.caller(List.of("demo.*"))
                      .privateTo("alice")
                      .toAclSetuser("alice", "alice-pw"),
                  RedisAcl.caller(List.of("demo.*"))
                      .privateTo("bob")
                      .toAclSetuser("bob", "bob-pw")));
      admin = Resp.connect(server.port(), RedisServer.ADMIN, RedisServer.ADMIN_PASSWORD);
      // The observer through ACL SETUSER, word by word as redis-cli would send the line.
      String[] words = RedisAcl.observer().toAclSetuser("watcher", "watcher-pw").split(" ");
      assertThat(admin.call(words)).isEqualTo("OK");
    }

    @AfterEach
    void stop() throws Exception {
      admin.close();
      server.close();
    }

    private RedisPubSub connect(String name, String user, String password) {
      return RedisPubSub.connect(
          RedisOptions.builder(server.url())
              .connectionName(name)
              .credentials(user, password.toCharArray())
              .build());
    }

    /** A transport with a private token, as {@code OPS_PRIVATE_TOKEN} would give it. */
    private RedisPubSub connectPrivate(String user, String password, String token) {
      return RedisPubSub.connect(
          RedisOptions.builder(server.url())
              .connectionName(user)
              .credentials(user, password.toCharArray())
              .privateToken(token)
              .build());
    }

    /** The inbox channels somebody is subscribed to, whose names start with {@code prefix}. */
    private List<String> inboxChannels(String prefix) throws Exception {
      return ((List<?>) admin.call("PUBSUB", "CHANNELS", prefix + "*"))
          .stream().map(String.class::cast).sorted().toList();
    }

    @Test
    void aServerServesDemoEchoAndACallerCallsIt() throws Exception {
      try (Counting real = new Counting(false);
          RedisPubSub nodeSide = connect("echo-node", "echo-node", "echo-pw");
          ServingNode node =
              ServingNode.builder(real.registry, nodeSide).nodeId(ECHO_NODE).start();
          RedisPubSub callerSide = connect("shop", "shop", "shop-pw");
          RemoteCatalog catalog = RemoteCatalog.create(callerSide);
          PendingRequestMap calls = PendingRequestMap.create(callerSide)) {
        nodeSide.flush(WAIT);
        awaitNode(catalog, ECHO_NODE);
        for (int i = 0; i < 10; i++) {
          CompletableFuture<ResponseEnvelope<JsonNode>> call =
              i < 5
                  ? catalog.call("demo.echo", Map.of("n", i))
                  : calls.call("demo.echo", Map.of("n", i));
          assertThat(call.get(10, TimeUnit.SECONDS).data().get("n").asInt()).isEqualTo(i);
        }
        assertThat(real.echoed).containsExactlyInAnyOrderElementsOf(range(10));
        List<NodeStats> stats = catalog.stats(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
        assertThat(stats).singleElement().satisfies(s -> assertThat(s.answered()).isTrue());
        // Past a ping (and its CLIENT LIST), then everything the two did is in the ACL log.
        Thread.sleep(2_500);
        nodeSide.flush(WAIT);
        callerSide.flush(WAIT);
      }
      assertThat(refusals())
          .as("every command the transport sent was allowed, but the optional CONFIG GET")
          .isNotEmpty()
          .allSatisfy(r -> assertThat(r).endsWith(" command config|get"));
    }

    @Test
    void aCallerCannotServeAndEveryCallReachesTheRealServerExactlyOnce() throws Exception {
      try (Counting real = new Counting(false);
          Counting rogue = new Counting(false);
          RedisPubSub nodeSide = connect("echo-node", "echo-node", "echo-pw");
          ServingNode node =
              ServingNode.builder(real.registry, nodeSide).nodeId(ECHO_NODE).start();
          RedisPubSub rogueSide = connect("rogue", "shop", "shop-pw");
          CallHandler rogueServing = CallHandler.serve(rogue.registry, rogueSide);
          Resp raw = Resp.connect(server.port(), "shop", "shop-pw");
          RedisPubSub callerSide = connect("shop", "shop", "shop-pw");
          RemoteCatalog catalog = RemoteCatalog.create(callerSide);
          PendingRequestMap calls = PendingRequestMap.create(callerSide)) {
        // Every way a client could listen for demo.echo's requests, or join its group.
        String channel = Groups.MEMBER_CHANNEL_PREFIX + "rogue.1.1:" + ECHO_TOPIC;
        assertNoPermission(raw.call("SUBSCRIBE", ECHO_TOPIC));
        assertNoPermission(raw.call("SUBSCRIBE", channel));
        assertNoPermission(raw.call("SUBSCRIBE", "ops.node." + ECHO_NODE + ".req.demo.echo"));
        assertNoPermission(raw.call("PSUBSCRIBE", "ops.node.*.req.demo.echo"));
        assertNoPermission(raw.call("PSUBSCRIBE", "_ops.q.*"));
        assertNoPermission(raw.call("LPUSH", ECHO_MEMBERS, channel));
        assertNoPermission(raw.call("SADD", ECHO_GROUPS, "rogues"));
        // The join script itself: EVAL may run (callers run the publish script), but the commands
        // it runs are checked one by one.
        assertThat(raw.call(register(channel)))
            .isInstanceOfSatisfying(
                Resp.Error.class, e -> assertThat(e.message()).contains("can't run this command"));
        nodeSide.flush(WAIT);
        rogueSide.flush(WAIT);
        awaitNode(catalog, ECHO_NODE);
        assertThat(admin.call("LRANGE", ECHO_MEMBERS, "0", "-1"))
            .as("the group has the real server alone")
            .asInstanceOf(InstanceOfAssertFactories.LIST)
            .singleElement()
            .asString()
            .endsWith(":" + ECHO_TOPIC)
            .doesNotContain("rogue");

        List<CompletableFuture<ResponseEnvelope<JsonNode>>> sent = new ArrayList<>();
        for (int i = 0; i < N; i++) {
          // Half through the queue group, half routed to the node.
          sent.add(
              i % 2 == 0
                  ? calls.call("demo.echo", Map.of("n", i))
                  : catalog.call("demo.echo", Map.of("n", i)));
        }
        for (int i = 0; i < N; i++) {
          assertThat(sent.get(i).get(10, TimeUnit.SECONDS).data().get("n").asInt()).isEqualTo(i);
        }
        assertThat(real.echoed)
            .as("each of the %d calls ran once, on the real server", N)
            .hasSize(N)
            .containsExactlyInAnyOrderElementsOf(range(N));
        assertThat(rogue.echoed).isEmpty();
        assertThat(raw.poll(Duration.ofMillis(200))).as("pushed to the raw client").isEmpty();
        // The protocol's own serving side on the caller's credentials was refused its member
        // channel and the control channel.
        assertThat(refusals())
            .contains("shop channel ops.ctl")
            .anySatisfy(r -> assertThat(r).matches("shop channel _ops\\.q\\..*:" + ECHO_TOPIC));
      }
    }

    @Test
    void aServerOfBillingCannotServeDemoEcho() throws Exception {
      try (Counting billing = new Counting(true);
          RedisPubSub nodeSide = connect("billing-node", "billing-node", "billing-pw");
          ServingNode node =
              ServingNode.builder(billing.registry, nodeSide).nodeId(BILLING_NODE).start();
          Resp raw = Resp.connect(server.port(), "billing-node", "billing-pw");
          RedisPubSub callerSide = connect("shop", "shop", "shop-pw");
          RemoteCatalog catalog = RemoteCatalog.create(callerSide);
          PendingRequestMap calls = PendingRequestMap.create(callerSide)) {
        String channel = Groups.MEMBER_CHANNEL_PREFIX + "b.1.1:" + ECHO_TOPIC;
        assertNoPermission(raw.call("SUBSCRIBE", channel));
        assertNoPermission(raw.call("SUBSCRIBE", "ops.node." + BILLING_NODE + ".req.demo.echo"));
        assertNoPermission(raw.call(register(channel)));
        nodeSide.flush(WAIT);
        awaitNode(catalog, BILLING_NODE);
        // It may claim demo.echo in its hello (every node publishes on ops.nodes), but nothing
        // of it listens for demo.echo: the publishes reach nobody.
        assertThat(catalog.spec("demo.echo")).isPresent();
        assertThat(admin.call("EXISTS", ECHO_MEMBERS)).isEqualTo(0L);
        for (int i = 0; i < 5; i++) {
          assertThat(failure(calls.call("demo.echo", Map.of("n", i))).code())
              .isEqualTo(ErrorCode.NO_RESPONDERS);
          assertThat(failure(catalog.call("demo.echo", Map.of("n", i))).code())
              .isEqualTo(ErrorCode.NO_RESPONDERS);
        }
        assertThat(calls.call("billing.charge", Map.of("n", 1)).get(10, TimeUnit.SECONDS).data())
            .isNotNull();
        assertThat(catalog.call("billing.charge", Map.of("n", 2)).get(10, TimeUnit.SECONDS).data())
            .isNotNull();
        assertThat(billing.echoed).isEmpty();
        assertThat(billing.charged).containsExactlyInAnyOrder(1, 2);
        assertThat(refusals())
            .contains("billing-node channel ops.node." + BILLING_NODE + ".req.demo.echo")
            .anySatisfy(
                r -> assertThat(r).matches("billing-node channel _ops\\.q\\..*:" + ECHO_TOPIC));
      }
    }

    @Test
    void anObserverListsNodesButCanNeitherCallNorServe() throws Exception {
      try (Counting real = new Counting(false);
          Counting watcherServes = new Counting(false);
          RedisPubSub nodeSide = connect("echo-node", "echo-node", "echo-pw");
          ServingNode node =
              ServingNode.builder(real.registry, nodeSide).nodeId(ECHO_NODE).start();
          RedisPubSub watching = connect("watcher", "watcher", "watcher-pw");
          RemoteCatalog catalog = RemoteCatalog.create(watching);
          PendingRequestMap watcherCalls = PendingRequestMap.create(watching);
          CallHandler serving = CallHandler.serve(watcherServes.registry, watching);
          Resp raw = Resp.connect(server.port(), "watcher", "watcher-pw");
          RedisPubSub callerSide = connect("shop", "shop", "shop-pw");
          PendingRequestMap calls = PendingRequestMap.create(callerSide)) {
        // Lists: the node, its specs, its statistics.
        awaitNode(catalog, ECHO_NODE);
        assertThat(catalog.spec("demo.echo")).isPresent();
        assertThat(catalog.stats(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS))
            .singleElement()
            .satisfies(s -> assertThat(s.answered()).isTrue());

        // Cannot call: Redis refuses the publish at once, and says so.
        for (CompletableFuture<?> call :
            List.of(
                catalog.call("demo.echo", Map.of("n", -1)),
                watcherCalls.call("demo.echo", Map.of("n", -2)))) {
          CallError refused = failure(call);
          assertThat(refused.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
          assertThat(refused.retryable()).isFalse();
          assertThat(refused.getMessage()).contains("ACL refused publishing");
        }

        // Cannot serve.
        String channel = Groups.MEMBER_CHANNEL_PREFIX + "w.1.1:" + ECHO_TOPIC;
        assertNoPermission(raw.call("SUBSCRIBE", channel));
        assertNoPermission(raw.call("SUBSCRIBE", "ops.node." + ECHO_NODE + ".req.demo.echo"));
        assertNoPermission(raw.call(register(channel)));
        for (int i = 0; i < 10; i++) {
          assertThat(calls.call("demo.echo", Map.of("n", i)).get(10, TimeUnit.SECONDS).data())
              .isNotNull();
        }
        assertThat(real.echoed).containsExactlyInAnyOrderElementsOf(range(10));
        assertThat(watcherServes.echoed).isEmpty();
        assertThat(refusals())
            .contains("watcher channel ops.ctl")
            .anySatisfy(r -> assertThat(r).matches("watcher channel _ops\\.q\\..*:" + ECHO_TOPIC));
      }
    }

    /**
     * A node's group members differ in a counter only; without the topic in the member channel's
     * name, a caller that learnt one (the publish script's rotation returns it) could publish
     * straight to the member of an operation it may not call.
     */
    @Test
    void aCallerOfOneOperationCannotReachTheGroupMembersOfAnother() throws Exception {
      try (Counting every = new Counting(true);
          RedisPubSub nodeSide = connect("every-node", "every-node", "every-pw");
          CallHandler serving = CallHandler.serve(every.registry, nodeSide);
          Resp raw = Resp.connect(server.port(), "demo-shop", "demo-pw")) {
        nodeSide.flush(WAIT);
        String billingTopic = "ops.req.billing.charge";
        String billingMembers = Groups.membersKey("ops.servers", billingTopic);
        assertThat(admin.call("LLEN", billingMembers)).isEqualTo(1L);
        // What a caller of demo.* may learn: its operation's member.
        Object demoMember = raw.call("RPOPLPUSH", ECHO_MEMBERS, ECHO_MEMBERS);
        assertThat(demoMember).asString().endsWith(":" + ECHO_TOPIC);
        Object billingMember = admin.call("LRANGE", billingMembers, "0", "0");
        String request =
            "{\"v\":1,\"type\":\"call.requested\",\"requestId\":\"0123456789abcdef0123456789abcdef\","
                + "\"replyTo\":\"ops.inbox.0123456789abcdef0123456789abcdef\","
                + "\"operationId\":\"billing.charge\",\"input\":{\"n\":7}}";
        assertNoPermission(raw.call("PUBLISH", (String) ((List<?>) billingMember).get(0), request));
        assertNoPermission(raw.call("RPOPLPUSH", billingMembers, billingMembers));
        assertNoPermission(raw.call("PUBLISH", billingTopic, request));
        Thread.sleep(200);
        assertThat(every.charged).isEmpty();
      }
    }

    // ---------------------------------------------------------------- private tokens

    @Test
    void privateCallersCallThroughTheCatalogAndTheQueueGroupOnTheirOwnInboxes() throws Exception {
      try (Counting real = new Counting(false);
          RedisPubSub nodeSide = connectPrivate("private-node", "node-pw", "node-1");
          ServingNode node =
              ServingNode.builder(real.registry, nodeSide).nodeId(PRIVATE_NODE).start();
          RedisPubSub aliceSide = connectPrivate("alice", "alice-pw", "alice");
          RemoteCatalog aliceCatalog = RemoteCatalog.create(aliceSide);
          PendingRequestMap aliceCalls = PendingRequestMap.create(aliceSide);
          RedisPubSub bobSide = connectPrivate("bob", "bob-pw", "bob");
          RemoteCatalog bobCatalog = RemoteCatalog.create(bobSide);
          PendingRequestMap bobCalls = PendingRequestMap.create(bobSide)) {
        assertThat(aliceSide.inboxPrefix()).isEqualTo("ops.inbox.alice.");
        assertThat(bobSide.inboxPrefix()).isEqualTo("ops.inbox.bob.");
        nodeSide.flush(WAIT);
        awaitNode(aliceCatalog, PRIVATE_NODE);
        awaitNode(bobCatalog, PRIVATE_NODE);
        // The inboxes are the callers' own (a catalog's, the request maps'): named by their tokens.
        aliceSide.flush(WAIT);
        bobSide.flush(WAIT);
        assertThat(inboxChannels("ops.inbox."))
            .isNotEmpty()
            .allSatisfy(c -> assertThat(c).matches("ops\\.inbox\\.(alice|bob)\\.[0-9a-f]{32}"));
        assertThat(inboxChannels("ops.inbox.alice."))
            .hasSizeGreaterThanOrEqualTo(2)
            .hasSameSizeAs(inboxChannels("ops.inbox.bob."));

        List<CompletableFuture<ResponseEnvelope<JsonNode>>> sent = new ArrayList<>();
        for (int i = 0; i < N; i++) {
          // Half through the queue group, half routed to the node; alice 0.., bob 1000..
          sent.add(
              i % 2 == 0
                  ? aliceCalls.call("demo.echo", Map.of("n", i))
                  : aliceCatalog.call("demo.echo", Map.of("n", i)));
          sent.add(
              i % 2 == 0
                  ? bobCalls.call("demo.echo", Map.of("n", 1000 + i))
                  : bobCatalog.call("demo.echo", Map.of("n", 1000 + i)));
        }
        List<Integer> answered = new ArrayList<>();
        for (CompletableFuture<ResponseEnvelope<JsonNode>> call : sent) {
          answered.add(call.get(10, TimeUnit.SECONDS).data().get("n").asInt());
        }
        List<Integer> expected = new ArrayList<>(range(N));
        range(N).forEach(i -> expected.add(1000 + i));
        assertThat(answered).as("%d calls each, all answered", N).hasSize(2 * N);
        assertThat(answered).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(real.echoed).hasSize(2 * N).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(aliceCatalog.stats(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS))
            .singleElement()
            .satisfies(s -> assertThat(s.answered()).isTrue());

        // Receivers are still counted: a request nobody serves fails at once.
        for (PendingRequestMap calls : List.of(aliceCalls, bobCalls)) {
          long start = System.nanoTime();
          assertThat(failure(calls.call("demo.nobody", Map.of("n", 0))).code())
              .isEqualTo(ErrorCode.NO_RESPONDERS);
          assertThat(Duration.ofNanos(System.nanoTime() - start))
              .as("well before the 30 s deadline")
              .isLessThan(Duration.ofSeconds(3));
        }
        nodeSide.flush(WAIT);
        aliceSide.flush(WAIT);
        bobSide.flush(WAIT);
      }
      assertThat(refusals())
          .as("every command the transports sent was allowed, but the optional CONFIG GET")
          .allSatisfy(r -> assertThat(r).endsWith(" command config|get"));
    }

    @Test
    void aPrivateCallerCanNeitherSubscribeToAnotherCallersInboxesNorReadItsReplies()
        throws Exception {
      try (Counting real = new Counting(false);
          RedisPubSub nodeSide = connectPrivate("private-node", "node-pw", "node-1");
          ServingNode node =
              ServingNode.builder(real.registry, nodeSide).nodeId(PRIVATE_NODE).start();
          Resp alice = Resp.connect(server.port(), "alice", "alice-pw");
          RedisPubSub aliceSide = connectPrivate("alice", "alice-pw", "alice");
          RedisPubSub bobSide = connectPrivate("bob", "bob-pw", "bob");
          RemoteCatalog bobCatalog = RemoteCatalog.create(bobSide);
          PendingRequestMap bobCalls = PendingRequestMap.create(bobSide)) {
        nodeSide.flush(WAIT);
        bobSide.flush(WAIT);
        awaitNode(bobCatalog, PRIVATE_NODE);
        // bob's real inboxes, as PUBSUB CHANNELS shows them to an administrator.
        List<String> bobInboxes = inboxChannels("ops.inbox.bob.");
        assertThat(bobInboxes).hasSizeGreaterThanOrEqualTo(2);
        String shared = ProtocolTopics.INBOX_PREFIX + OperationContext.newRequestId();

        // Every way alice could listen on bob's inboxes, and on an inbox without a token.
        for (String inbox : bobInboxes) {
          assertNoPermission(alice.call("SUBSCRIBE", inbox));
        }
        assertNoPermission(alice.call("SUBSCRIBE", "ops.inbox.bob.x"));
        assertNoPermission(alice.call("SUBSCRIBE", shared));
        assertNoPermission(alice.call("PSUBSCRIBE", "ops.inbox.*"));
        assertNoPermission(alice.call("PSUBSCRIBE", "ops.inbox.bob.*"));
        // And through the transport itself: the server refuses, the transport ends them.
        AtomicInteger aliceGot = new AtomicInteger();
        for (String inbox : List.of(bobInboxes.get(0), shared)) {
          aliceSide.subscribe(inbox, SubscribeOptions.defaults(), m -> aliceGot.incrementAndGet());
        }
        // The transport ends a refused subscription with a warning; flush reports the refusal
        // when it is still pending, and has nothing to wait for when it came back first.
        try {
          aliceSide.flush(WAIT);
        } catch (CallError refused) {
          assertThat(refused)
              .as("the transport says what was refused")
              .hasMessageContaining("ACL refused the subscription to ops.inbox.");
        }
        assertThat(inboxChannels("ops.inbox.")).as("nobody but bob listens").isEqualTo(bobInboxes);

        List<CompletableFuture<ResponseEnvelope<JsonNode>>> sent = new ArrayList<>();
        for (int i = 0; i < N; i++) {
          sent.add(
              i % 2 == 0
                  ? bobCalls.call("demo.echo", Map.of("n", i))
                  : bobCatalog.call("demo.echo", Map.of("n", i)));
        }
        for (int i = 0; i < N; i++) {
          assertThat(sent.get(i).get(10, TimeUnit.SECONDS).data().get("n").asInt()).isEqualTo(i);
        }
        assertThat(real.echoed)
            .as("bob's %d calls", N)
            .containsExactlyInAnyOrderElementsOf(range(N));
        assertThat(alice.poll(Duration.ofMillis(200))).as("pushed to alice's raw client").isEmpty();
        assertThat(aliceGot).as("alice's transport").hasValue(0);
        List<String> refusals = refusals();
        // PSUBSCRIBE is no command of any role's.
        assertThat(refusals).contains("alice channel " + shared, "alice command psubscribe");
        bobInboxes.forEach(inbox -> assertThat(refusals).contains("alice channel " + inbox));
      }
    }

    /** What the ACL log holds: "user reason object" per entry (reason: command, key, channel). */
    private List<String> refusals() throws Exception {
      List<String> out = new ArrayList<>();
      for (Object entry : (List<?>) admin.call("ACL", "LOG")) {
        List<?> fields = (List<?>) entry;
        Map<String, Object> byName = new java.util.HashMap<>();
        for (int i = 0; i + 1 < fields.size(); i += 2) {
          byName.put((String) fields.get(i), fields.get(i + 1));
        }
        out.add(byName.get("username") + " " + byName.get("reason") + " " + byName.get("object"));
      }
      return out;
    }
  }

  // ------------------------------------------------------------------ the roles

  @Test
  void eachRoleAllowsExactlyTheseRules() {
    List<String> connection =
        List.of(
            "+ping",
            "+client|id",
            "+info",
            "+script|load",
            "+client|list",
            "+select",
            "+subscribe",
            "+unsubscribe");
    assertThat(RedisAcl.caller(List.of("billing.*")))
        .isEqualTo(
            new RedisAcl(
                new RedisAcl.Rules(connection, List.of(), List.of("&ops.inbox.*", "&ops.nodes")),
                List.of(
                    new RedisAcl.Rules(
                        List.of("+publish"),
                        List.of(),
                        List.of(
                            "&ops.req.billing.*",
                            "&_ops.q.*:ops.req.billing.*",
                            "&ops.node.*.req.billing.*",
                            "&ops.ctl",
                            "&ops.nodes",
                            "&ops.node.*.specs")),
                    new RedisAcl.Rules(
                        List.of("+evalsha", "+eval"),
                        List.of(
                            "~_ops:qg:ops.req.billing.*",
                            "~_ops:qm:11:ops.servers:ops.req.billing.*",
                            "~_ops:qg:ops.ctl",
                            "~_ops:qg:ops.nodes"),
                        List.of()),
                    new RedisAcl.Rules(
                        List.of("+smembers", "+rpoplpush", "+lrem", "+llen", "+srem"),
                        List.of(
                            "~_ops:qg:ops.req.billing.*",
                            "~_ops:qm:11:ops.servers:ops.req.billing.*",
                            "%R~_ops:qg:ops.ctl",
                            "%R~_ops:qg:ops.nodes"),
                        List.of()))));
    assertThat(RedisAcl.server(List.of("demo.echo"), Optional.of("n-1")))
        .isEqualTo(
            new RedisAcl(
                new RedisAcl.Rules(
                    connection,
                    List.of(),
                    List.of(
                        "&_ops.q.*:ops.req.demo.echo",
                        "&ops.node.n-1.req.demo.echo",
                        "&ops.ctl",
                        "&ops.nodes",
                        "&ops.node.n-1.specs")),
                List.of(
                    new RedisAcl.Rules(
                        List.of("+publish"), List.of(), List.of("&ops.inbox.*", "&ops.nodes")),
                    new RedisAcl.Rules(
                        List.of("+evalsha", "+eval"),
                        List.of(
                            "~_ops:qg:ops.req.demo.echo",
                            "~_ops:qm:11:ops.servers:ops.req.demo.echo",
                            "~_ops:qg:ops.nodes"),
                        List.of()),
                    new RedisAcl.Rules(
                        List.of(
                            "+smembers",
                            "+sadd",
                            "+lpos",
                            "+lpush",
                            "+pexpire",
                            "+lrem",
                            "+llen",
                            "+srem"),
                        List.of(
                            "~_ops:qg:ops.req.demo.echo",
                            "~_ops:qm:11:ops.servers:ops.req.demo.echo",
                            "%R~_ops:qg:ops.nodes"),
                        List.of()))));
    assertThat(RedisAcl.server(List.of("*"), Optional.empty()).root().channels())
        .containsExactly(
            "&_ops.q.*:ops.req.*",
            "&ops.node.*.req.*",
            "&ops.ctl",
            "&ops.nodes",
            "&ops.node.*.specs");
    assertThat(RedisAcl.observer().toAclSetuser("o", "pw"))
        .isEqualTo(
            "ACL SETUSER o reset on"
                + " #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 +ping"
                + " +client|id +info +script|load +client|list +select +subscribe +unsubscribe"
                + " &ops.inbox.* &ops.nodes (+publish &ops.nodes &ops.node.*.specs) (+evalsha"
                + " +eval ~_ops:qg:ops.nodes) (+smembers %R~_ops:qg:ops.nodes)");
  }

  @Test
  void theNamesTheRulesUseAreTheTransports() {
    // The member channel pattern of a topic matches the channels the transport subscribes.
    String member = Groups.memberChannel("0123456789abcdef", 3, 17, "ops.req.billing.cards.add");
    assertThat(member).isEqualTo("_ops.q.0123456789abcdef.3.17:ops.req.billing.cards.add");
    assertThat(RedisAcl.caller(List.of("billing.cards.*")).selectors().get(0).channels())
        .contains("&_ops.q.*:ops.req.billing.cards.*");
    assertThat(Groups.membersKey("ops.servers", "ops.req.billing.charge"))
        .isEqualTo("_ops:qm:11:ops.servers:ops.req.billing.charge");
  }

  @Test
  void whatIsNoOperationPatternIsRefusedSayingWhatIsExpected() {
    for (String bad :
        List.of("", "billing", "billing.*.x", "bill*", "billing.?", ".x", "a..b", "*.*", "a b.c")) {
      assertThatThrownBy(() -> RedisAcl.caller(List.of(bad)), bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + bad + "'")
          .hasMessageContaining("expected");
      assertThatThrownBy(() -> RedisAcl.server(List.of(bad), Optional.empty()), bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> RedisAcl.caller(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("observer()");
    assertThatThrownBy(() -> RedisAcl.server(List.of("a.b"), Optional.of("n*")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("node id");
    assertThatThrownBy(() -> RedisAcl.observer().toAclSetuser("two words", "pw"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("user name");
    assertThatThrownBy(() -> new RedisAcl.Rules(List.of("+publish"), List.of(), List.of("&a b")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void andKeepsEachRolesCommandsOnItsOwnKeys() {
    RedisAcl both =
        RedisAcl.server(List.of("billing.*"), Optional.of("b-1"))
            .and(RedisAcl.caller(List.of("stock.reserve")));
    // Root: what either may subscribe to.
    assertThat(both.root().channels()).contains("&_ops.q.*:ops.req.billing.*", "&ops.inbox.*");
    // PUBLISH and the scripts: what either may (same commands, joined).
    assertThat(both.selectors().get(0).commands()).containsExactly("+publish");
    assertThat(both.selectors().get(0).channels())
        .contains("&ops.inbox.*", "&ops.req.stock.reserve", "&ops.ctl");
    // The join script's commands stay on billing's keys; the publish script's on stock's.
    assertThat(both.selectors())
        .anySatisfy(
            s -> {
              assertThat(s.commands()).contains("+lpush");
              assertThat(s.keys()).noneMatch(k -> k.contains("stock"));
            })
        .anySatisfy(
            s -> {
              assertThat(s.commands()).contains("+rpoplpush").doesNotContain("+lpush");
              assertThat(s.keys()).noneMatch(k -> k.contains("billing"));
            });
  }

  @Test
  void privateToKeepsTheUserToItsOwnInboxes() {
    RedisAcl caller = RedisAcl.caller(List.of("billing.*"));
    RedisAcl alice = caller.privateTo("alice");
    assertThat(alice.root().channels()).containsExactly("&ops.inbox.alice.*", "&ops.nodes");
    assertThat(alice.root().commands()).isEqualTo(caller.root().commands());
    assertThat(alice.selectors()).as("what it publishes and runs").isEqualTo(caller.selectors());
    assertThat(alice.privateTokens()).containsExactly("alice");
    assertThat(caller.privateTokens()).isEmpty();
    // A server still answers every inbox; it may subscribe to its own (and so keeps the token).
    RedisAcl server = RedisAcl.server(List.of("demo.echo"), Optional.of("n-1"));
    RedisAcl privateServer = server.privateTo("n1");
    assertThat(privateServer.root().channels())
        .containsExactly(
            "&_ops.q.*:ops.req.demo.echo",
            "&ops.node.n-1.req.demo.echo",
            "&ops.ctl",
            "&ops.nodes",
            "&ops.node.n-1.specs",
            "&ops.inbox.n1.*");
    assertThat(privateServer.selectors()).isEqualTo(server.selectors());
    assertThat(privateServer.selectors().get(0).channels()).contains("&ops.inbox.*");
    assertThat(RedisAcl.observer().privateTo("w_1").toAclSetuser("o", "pw"))
        .isEqualTo(
            "ACL SETUSER o reset on"
                + " #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 +ping"
                + " +client|id +info +script|load +client|list +select +subscribe +unsubscribe"
                + " &ops.inbox.w_1.* &ops.nodes (+publish &ops.nodes &ops.node.*.specs) (+evalsha"
                + " +eval ~_ops:qg:ops.nodes) (+smembers %R~_ops:qg:ops.nodes)");
    // Narrowed again: to the last token only.
    assertThat(alice.privateTo("b")).isEqualTo(caller.privateTo("b"));
    // A selector that subscribes is narrowed too; one that publishes is not.
    RedisAcl handMade =
        new RedisAcl(
            new RedisAcl.Rules(List.of("+ping"), List.of(), List.of()),
            List.of(
                new RedisAcl.Rules(List.of("+subscribe"), List.of(), List.of("&ops.inbox.*")),
                new RedisAcl.Rules(List.of("+publish"), List.of(), List.of("&ops.inbox.*"))));
    assertThat(handMade.privateTo("t").selectors())
        .extracting(RedisAcl.Rules::channels)
        .containsExactly(List.of("&ops.inbox.t.*"), List.of("&ops.inbox.*"));

    for (String bad : List.of("", "a.b", "a b", "*", "a?", "[ab]", "ü", "x".repeat(65))) {
      assertThatThrownBy(() -> RedisAcl.observer().privateTo(bad), bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("private token");
      assertThatThrownBy(() -> RedisOptions.builder("redis://127.0.0.1:6379").privateToken(bad))
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(RedisOptions.builder("redis://127.0.0.1:6379").build().privateToken()).isEmpty();
    assertThat(
            RedisOptions.builder("redis://127.0.0.1:6379")
                .privateToken("x".repeat(64))
                .build()
                .privateToken())
        .contains("x".repeat(64));
  }

  @Test
  void andIsPrivateWhicheverSideWasAndInEitherOrder() {
    RedisAcl server = RedisAcl.server(List.of("billing.*"), Optional.of("b-1"));
    RedisAcl caller = RedisAcl.caller(List.of("stock.reserve"));
    List<RedisAcl> ways =
        List.of(
            server.and(caller).privateTo("t"),
            server.privateTo("t").and(caller),
            server.and(caller.privateTo("t")),
            caller.privateTo("t").and(server),
            caller.and(server.privateTo("t")),
            server.privateTo("t").and(caller.privateTo("t")));
    RedisAcl first = ways.get(0);
    for (RedisAcl way : ways) {
      assertThat(way.root().commands()).isEqualTo(first.root().commands());
      assertThat(way.root().channels())
          .containsExactlyInAnyOrderElementsOf(first.root().channels());
      assertThat(way.selectors()).hasSameSizeAs(first.selectors());
      for (RedisAcl.Rules selector : way.selectors()) {
        RedisAcl.Rules same =
            first.selectors().stream()
                .filter(f -> f.commands().equals(selector.commands()))
                .findFirst()
                .orElseThrow();
        assertThat(selector.keys()).containsExactlyInAnyOrderElementsOf(same.keys());
        assertThat(selector.channels()).containsExactlyInAnyOrderElementsOf(same.channels());
      }
      assertThat(way.privateTokens()).containsExactly("t");
    }
    assertThat(first.root().channels())
        .contains("&ops.inbox.t.*", "&_ops.q.*:ops.req.billing.*")
        .doesNotContain("&ops.inbox.*");
    assertThat(first.selectors().get(0).channels())
        .as("the server still answers every inbox")
        .contains("&ops.inbox.*", "&ops.req.stock.reserve");
    // Two tokens: the user has both.
    RedisAcl two = caller.privateTo("a").and(RedisAcl.observer().privateTo("b"));
    assertThat(two.privateTokens()).containsExactly("a", "b");
    assertThat(two.root().channels())
        .contains("&ops.inbox.a.*", "&ops.inbox.b.*")
        .doesNotContain("&ops.inbox.*");
    // Without tokens, and() is what it was.
    assertThat(server.and(caller).privateTokens()).isEmpty();
    assertThat(server.and(caller).root().channels()).contains("&ops.inbox.*");
  }

  @Test
  void theFactoryTakesOpsPrivateTokenAndWritesPrivateUsers() throws Exception {
    RedisPubSubFactory factory = new RedisPubSubFactory();
    String line =
        factory
            .brokerUser(
                new PubSubFactory.BrokerGrant(
                    "redis",
                    java.util.Set.of(
                        PubSubFactory.BrokerGrant.Role.CALLER,
                        PubSubFactory.BrokerGrant.Role.SERVER),
                    List.of("demo.*"),
                    Optional.of("n-1"),
                    Optional.of("alice"),
                    "alice",
                    "alice-pw"))
            .orElseThrow();
    assertThat(line)
        .isEqualTo(
            RedisAcl.caller(List.of("demo.*"))
                .and(RedisAcl.server(List.of("demo.*"), Optional.of("n-1")))
                .privateTo("alice")
                .toAclSetuser("alice", "alice-pw"));
    assertThatThrownBy(
            () ->
                factory.connect(
                    new PubSubFactory.Target(
                        "redis",
                        "redis://127.0.0.1:6379",
                        Duration.ofSeconds(1),
                        Map.of("OPS_PRIVATE_TOKEN", "not.one"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("OPS_PRIVATE_TOKEN: ")
        .hasMessageContaining("'not.one'");
    try (RedisServer server = RedisServer.start();
        PubSub pubsub =
            factory
                .connect(
                    new PubSubFactory.Target(
                        "redis",
                        server.url(),
                        Duration.ofSeconds(5),
                        Map.of("OPS_PRIVATE_TOKEN", "alice")))
                .orElseThrow();
        PubSub shared =
            factory
                .connect(PubSubFactory.Target.of("redis", server.url(), Duration.ofSeconds(5)))
                .orElseThrow()) {
      assertThat(pubsub.inboxPrefix()).isEqualTo("ops.inbox.alice.");
      assertThat(shared.inboxPrefix()).isEqualTo(ProtocolTopics.INBOX_PREFIX);
    }
  }

  /**
   * docs/redis.md shows the lines the example's code writes (between the markers), and redis-server
   * takes them as an ACL file.
   */
  @Test
  void theDocsExampleIsWhatTheCodeWritesAndRedisServerTakesIt(@TempDir Path dir) throws Exception {
    // snippet: acl
    String billingNode =
        RedisAcl.server(List.of("billing.*"), Optional.of("billing-1"))
            .toAclSetuser("billing-node", "node-secret");
    String shop = RedisAcl.caller(List.of("billing.charge")).toAclSetuser("shop", "shop-secret");
    // The same lines in an ACL file: "user" in place of "ACL SETUSER".
    String aclFile =
        billingNode.replaceFirst("^ACL SETUSER", "user")
            + "\n"
            + shop.replaceFirst("^ACL SETUSER", "user")
            + "\n";
    // end-snippet
    String doc = Files.readString(REPO.resolve("docs/redis.md"));
    Matcher shown =
        Pattern.compile("<!-- generated: RedisAclTest#acl -->\\s*```\\n(.*?)```", Pattern.DOTALL)
            .matcher(doc);
    assertThat(shown.find()).as("docs/redis.md has the generated block").isTrue();
    assertThat(shown.group(1)).isEqualTo(aclFile);

    Path file = dir.resolve("example.acl");
    Files.writeString(file, aclFile);
    try (RedisServer server = RedisServer.start("--aclfile", file.toString());
        RedisPubSub shopSide =
            RedisPubSub.connect(
                RedisOptions.builder(server.url())
                    .credentials("shop", "shop-secret".toCharArray())
                    .build())) {
      assertThat(shopSide.isConnected()).isTrue();
    }
  }

  /**
   * docs/redis.md's private-token example: the line is what the code writes, redis-server takes it,
   * and a transport given the token calls on its own inbox, with nothing refused.
   */
  @Test
  void theDocsPrivateTokenExampleIsWhatTheCodeWritesAndWorks(@TempDir Path dir) throws Exception {
    // snippet: private-user
    String alice =
        RedisAcl.caller(List.of("billing.charge"))
            .privateTo("alice")
            .toAclSetuser("alice", "alice-secret");
    // end-snippet
    String doc = Files.readString(REPO.resolve("docs/redis.md"));
    Matcher shown =
        Pattern.compile(
                "<!-- generated: RedisAclTest#private-user -->\\s*```\\n(.*?)```", Pattern.DOTALL)
            .matcher(doc);
    assertThat(shown.find()).as("docs/redis.md has the generated block").isTrue();
    assertThat(shown.group(1)).isEqualTo(alice + "\n");

    Path file = dir.resolve("alice.acl");
    Files.writeString(file, alice.replaceFirst("^ACL SETUSER", "user") + "\n");
    try (RedisServer server = RedisServer.start("--aclfile", file.toString())) {
      String url = server.url();
      // snippet: private-options
      RedisOptions options =
          RedisOptions.builder(url)
              .credentials("alice", "alice-secret".toCharArray())
              .privateToken("alice") // ops: OPS_PRIVATE_TOKEN=alice
              .build();
      // end-snippet
      try (RedisPubSub aliceSide = RedisPubSub.connect(options);
          PendingRequestMap calls = PendingRequestMap.create(aliceSide)) {
        aliceSide.flush(WAIT);
        assertThat(aliceSide.inboxPrefix()).isEqualTo("ops.inbox.alice.");
        // Nobody serves billing.charge here: the publish reaches nobody, and says so at once.
        assertThat(failure(calls.call("billing.charge", Map.of("n", 1))).code())
            .isEqualTo(ErrorCode.NO_RESPONDERS);
      }
    }
  }

  // ------------------------------------------------------------------ helpers

  /** The join script run by hand, registering {@code channel} in demo.echo's group. */
  private static String[] register(String channel) {
    return new String[] {
      "EVAL", Groups.REGISTER, "2", ECHO_GROUPS, ECHO_MEMBERS, "ops.servers", channel, "60000"
    };
  }

  private static void assertNoPermission(Object reply) {
    assertThat(reply)
        .isInstanceOfSatisfying(
            Resp.Error.class, e -> assertThat(e.message()).startsWith("NOPERM"));
  }

  /** A registry serving demo.echo (and billing.charge) that keeps the input n of each call run. */
  private static final class Counting implements AutoCloseable {
    final OperationRegistry registry = OperationRegistry.create();
    final ConcurrentLinkedQueue<Integer> echoed = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Integer> charged = new ConcurrentLinkedQueue<>();

    Counting(boolean withBilling) {
      registry.register(
          OperationSpec.builder("demo", "echo").type(OperationType.QUERY).build(),
          Handler.blocking(
              (in, ctx) -> {
                echoed.add(in.get("n").asInt());
                return in;
              }));
      if (withBilling) {
        registry.register(
            OperationSpec.builder("billing", "charge").type(OperationType.QUERY).build(),
            Handler.blocking(
                (in, ctx) -> {
                  charged.add(in.get("n").asInt());
                  return in;
                }));
      }
    }

    @Override
    public void close() {
      registry.close();
    }
  }

  /** Until the catalog has the node's specs (its answer to the query, or its next hello). */
  private static void awaitNode(RemoteCatalog catalog, String nodeId) throws InterruptedException {
    catalog.awaitSettled(Duration.ofMillis(250), WAIT);
    long end = System.nanoTime() + WAIT.toNanos();
    while (catalog.nodes().stream().noneMatch(n -> n.nodeId().equals(nodeId) && n.specsKnown())
        && System.nanoTime() < end) {
      Thread.sleep(20);
    }
    assertThat(catalog.nodes()).anySatisfy(n -> assertThat(n.nodeId()).isEqualTo(nodeId));
  }

  private static List<Integer> range(int n) {
    return IntStream.range(0, n).boxed().toList();
  }

  private static CallError failure(CompletableFuture<?> call) throws Exception {
    try {
      call.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(CallError.class);
      return (CallError) e.getCause();
    }
    throw new AssertionError("the call succeeded");
  }
}
