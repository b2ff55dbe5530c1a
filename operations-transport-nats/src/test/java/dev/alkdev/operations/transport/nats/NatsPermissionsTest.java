package dev.alkdev.operations.transport.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
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
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.PubSubFactory;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.transport.nats.internal.NatsPubSubFactory;
import dev.alkdev.operations.transport.nats.internal.ReceiverProbes;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * {@link NatsPermissions} against a real {@code nats-server} configured with the users it writes: a
 * server serves and a caller calls; a caller, a server of other operations and an observer that try
 * to serve are refused by the server and receive nothing, while every call reaches the real server
 * exactly once; an observer lists nodes but cannot call. With private tokens, callers call as
 * before, and none can read another's replies or forge another's receiver probes. And the roles'
 * subjects, the refusals of patterns that are none, private tokens and {@code and}, the factory's
 * OPS_PRIVATE_TOKEN, and the example of docs/nats.md.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NatsPermissionsTest {
  private static final String ECHO_NODE = "echo-node-1";
  private static final String BILLING_NODE = "billing-node-1";
  private static final String PRIVATE_NODE = "private-node-1";
  // Quotes, a backslash and a dollar sign: the configuration must carry them as they are.
  private static final String ECHO_PASSWORD = "echo \"pw\" \\ $x";
  private static final int N = 40;
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Path REPO = Path.of(System.getProperty("ops.repo.dir", "..")).normalize();

  @Nested
  class AgainstABroker {
    @TempDir Path dir;
    private NatsServer server;
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private Logger connectorLog;

    @BeforeEach
    void start() throws Exception {
      server =
          NatsServer.startWithUsers(
              dir,
              List.of(
                  NatsPermissions.server(List.of("demo.echo"), Optional.of(ECHO_NODE))
                      .toConfig("echo-node", ECHO_PASSWORD),
                  NatsPermissions.server(List.of("billing.*"), Optional.of(BILLING_NODE))
                      .toConfig("billing-node", "billing-pw"),
                  NatsPermissions.caller(List.of("demo.*", "billing.*"))
                      .toConfig("shop", "shop-pw"),
                  NatsPermissions.observer().toConfig("watcher", "watcher-pw"),
                  // Every user of the private-token tests has its own token.
                  NatsPermissions.server(List.of("demo.echo"), Optional.of(PRIVATE_NODE))
                      .privateTo("node-1")
                      .toConfig("private-node", "node-pw"),
                  NatsPermissions.caller(List.of("demo.*"))
                      .privateTo("alice")
                      .toConfig("alice", "alice-pw"),
                  NatsPermissions.caller(List.of("demo.*"))
                      .privateTo("bob")
                      .toConfig("bob", "bob-pw"),
                  // Everything allowed: watches subjects, as a test's eyes.
                  "{ user: \"admin\", password: \"admin-pw\" }"));
      // The transport logs what the server refuses it ("NATS server error: ..."), by connection.
      connectorLog = (Logger) LoggerFactory.getLogger(NatsConnector.class);
      log.start();
      connectorLog.addAppender(log);
    }

    @AfterEach
    void stop() throws Exception {
      connectorLog.detachAppender(log);
      server.close();
    }

    private NatsPubSub connect(String name, String user, String password) {
      return NatsPubSub.connect(
          NatsOptions.builder(server.url())
              .connectionName(name)
              .userPassword(user, password.toCharArray())
              .build());
    }

    /** A transport with a private token, as {@code OPS_PRIVATE_TOKEN} would give it. */
    private NatsPubSub connectPrivate(String user, String password, String token) {
      return NatsPubSub.connect(
          NatsOptions.builder(server.url())
              .connectionName(user)
              .userPassword(user, password.toCharArray())
              .privateToken(token)
              .build());
    }

    @Test
    void aServerServesDemoEchoAndACallerCallsIt() throws Exception {
      try (Counting real = new Counting(false);
          NatsPubSub nodeSide = connect("echo-node", "echo-node", ECHO_PASSWORD);
          ServingNode node =
              ServingNode.builder(real.registry, nodeSide).nodeId(ECHO_NODE).start();
          NatsPubSub callerSide = connect("shop", "shop", "shop-pw");
          RemoteCatalog catalog = RemoteCatalog.create(callerSide);
          PendingRequestMap calls = PendingRequestMap.create(callerSide)) {
        awaitNode(catalog, ECHO_NODE);
        // Routed to the node by the catalog, and through the queue group.
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
        callerSide.flush(WAIT);
        nodeSide.flush(WAIT);
        assertThat(lines("Permissions Violation"))
            .as("the roles allow everything these connections did")
            .isEmpty();
      }
    }

    @Test
    void aCallerCannotServeAndEveryCallReachesTheRealServerExactlyOnce() throws Exception {
      try (Counting real = new Counting(false);
          Counting rogue = new Counting(false);
          NatsPubSub nodeSide = connect("echo-node", "echo-node", ECHO_PASSWORD);
          ServingNode node =
              ServingNode.builder(real.registry, nodeSide).nodeId(ECHO_NODE).start();
          NatsPubSub rogueSide = connect("rogue", "shop", "shop-pw");
          CallHandler rogueServing = CallHandler.serve(rogue.registry, rogueSide);
          Raw raw = new Raw("shop", "shop-pw");
          NatsPubSub callerSide = connect("shop", "shop", "shop-pw");
          RemoteCatalog catalog = RemoteCatalog.create(callerSide);
          PendingRequestMap calls = PendingRequestMap.create(callerSide)) {
        // Every way a client could listen for demo.echo's requests.
        raw.subscribe("ops.req.demo.echo", Optional.empty());
        raw.subscribe("ops.req.demo.echo", Optional.of("ops.servers"));
        raw.subscribe("ops.req.>", Optional.empty());
        raw.subscribe("ops.node.*.req.demo.echo", Optional.empty());
        raw.subscribe("ops.node." + ECHO_NODE + ".req.demo.echo", Optional.empty());
        assertThat(raw.awaitErrors(5))
            .hasSize(5)
            .allSatisfy(e -> assertThat(e).contains("Permissions Violation for Subscription"));
        // The protocol's own serving side, on the caller's credentials: its queue subscription and
        // the control topic are refused.
        assertThat(awaitLines("rogue-", 2))
            .anySatisfy(l -> assertThat(l).contains("\"ops.req.demo.echo\" using queue"))
            .anySatisfy(l -> assertThat(l).contains("\"ops.ctl\""));
        awaitNode(catalog, ECHO_NODE);

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
        assertThat(raw.received).hasValue(0);
      }
    }

    @Test
    void aServerOfBillingCannotServeDemoEcho() throws Exception {
      try (Counting billing = new Counting(true);
          NatsPubSub nodeSide = connect("billing-node", "billing-node", "billing-pw");
          ServingNode node =
              ServingNode.builder(billing.registry, nodeSide).nodeId(BILLING_NODE).start();
          Raw raw = new Raw("billing-node", "billing-pw");
          NatsPubSub callerSide = connect("shop", "shop", "shop-pw");
          RemoteCatalog catalog = RemoteCatalog.create(callerSide);
          PendingRequestMap calls = PendingRequestMap.create(callerSide)) {
        raw.subscribe("ops.req.demo.echo", Optional.of("ops.servers"));
        raw.subscribe("ops.node." + BILLING_NODE + ".req.demo.echo", Optional.empty());
        assertThat(raw.awaitErrors(2))
            .hasSize(2)
            .allSatisfy(e -> assertThat(e).contains("Permissions Violation for Subscription"));
        // The node registered demo.echo: the server refused both its subscriptions for it.
        assertThat(awaitLines("billing-node-", 2))
            .anySatisfy(l -> assertThat(l).contains("\"ops.req.demo.echo\" using queue"))
            .anySatisfy(
                l -> assertThat(l).contains("\"ops.node." + BILLING_NODE + ".req.demo.echo\""));
        awaitNode(catalog, BILLING_NODE);
        // It may claim demo.echo in its hello (every node publishes on ops.nodes), but it gets no
        // request for it: nothing is subscribed, so NATS answers no-responders at once.
        assertThat(catalog.spec("demo.echo")).isPresent();
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
        assertThat(raw.received).hasValue(0);
      }
    }

    @Test
    void anObserverListsNodesButCanNeitherCallNorServe() throws Exception {
      try (Counting real = new Counting(false);
          Counting watcherServes = new Counting(false);
          NatsPubSub nodeSide = connect("echo-node", "echo-node", ECHO_PASSWORD);
          ServingNode node =
              ServingNode.builder(real.registry, nodeSide).nodeId(ECHO_NODE).start();
          NatsPubSub watching = connect("watcher", "watcher", "watcher-pw");
          RemoteCatalog catalog = RemoteCatalog.create(watching);
          PendingRequestMap watcherCalls = PendingRequestMap.create(watching);
          CallHandler serving = CallHandler.serve(watcherServes.registry, watching);
          Raw raw = new Raw("watcher", "watcher-pw");
          NatsPubSub callerSide = connect("shop", "shop", "shop-pw");
          PendingRequestMap calls = PendingRequestMap.create(callerSide)) {
        // Lists: the node, its specs, its statistics.
        awaitNode(catalog, ECHO_NODE);
        assertThat(catalog.spec("demo.echo")).isPresent();
        assertThat(catalog.stats(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS))
            .singleElement()
            .satisfies(s -> assertThat(s.answered()).isTrue());

        // Cannot call: the server drops the requests. NATS tells the publisher nothing (its
        // receiver probe reads "delivered"), so the calls end at their deadlines.
        assertThat(failure(catalog.call("demo.echo", Map.of("n", -1), shortly())).code())
            .isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
        assertThat(failure(watcherCalls.call("demo.echo", Map.of("n", -2), shortly())).code())
            .isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
        assertThat(awaitLines("watcher-", 4))
            .anySatisfy(l -> assertThat(l).contains("Publish to \"ops.req.demo.echo\""))
            .anySatisfy(
                l ->
                    assertThat(l)
                        .contains("Publish to \"ops.node." + ECHO_NODE + ".req.demo.echo\""))
            .anySatisfy(l -> assertThat(l).contains("Subscription to \"ops.req.demo.echo\" using"))
            .anySatisfy(l -> assertThat(l).contains("Subscription to \"ops.ctl\""));

        // Cannot serve.
        raw.subscribe("ops.req.demo.echo", Optional.of("ops.servers"));
        raw.subscribe("ops.node.*.req.demo.echo", Optional.empty());
        assertThat(raw.awaitErrors(2))
            .hasSize(2)
            .allSatisfy(e -> assertThat(e).contains("Permissions Violation for Subscription"));
        for (int i = 0; i < 10; i++) {
          assertThat(calls.call("demo.echo", Map.of("n", i)).get(10, TimeUnit.SECONDS).data())
              .isNotNull();
        }
        assertThat(real.echoed).containsExactlyInAnyOrderElementsOf(range(10));
        assertThat(watcherServes.echoed).isEmpty();
        assertThat(raw.received).hasValue(0);
      }
    }

    // ---------------------------------------------------------------- private tokens

    @Test
    void privateCallersCallThroughTheCatalogAndTheQueueGroupOnTheirOwnInboxes() throws Exception {
      try (Counting real = new Counting(false);
          NatsPubSub nodeSide = connectPrivate("private-node", "node-pw", "node-1");
          ServingNode node =
              ServingNode.builder(real.registry, nodeSide).nodeId(PRIVATE_NODE).start();
          Raw admin = new Raw("admin", "admin-pw");
          NatsPubSub aliceSide = connectPrivate("alice", "alice-pw", "alice");
          RemoteCatalog aliceCatalog = RemoteCatalog.create(aliceSide);
          PendingRequestMap aliceCalls = PendingRequestMap.create(aliceSide);
          NatsPubSub bobSide = connectPrivate("bob", "bob-pw", "bob");
          RemoteCatalog bobCatalog = RemoteCatalog.create(bobSide);
          PendingRequestMap bobCalls = PendingRequestMap.create(bobSide)) {
        assertThat(aliceSide.inboxPrefix()).isEqualTo("ops.inbox.alice.");
        assertThat(bobSide.inboxPrefix()).isEqualTo("ops.inbox.bob.");
        admin.subscribe("ops.inbox.>", Optional.empty());
        admin.flush();
        awaitNode(aliceCatalog, PRIVATE_NODE);
        awaitNode(bobCatalog, PRIVATE_NODE);

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

        // Every reply, hello and statistic went to an inbox of its caller's token.
        admin.flush();
        List<String> inboxes = admin.messages.stream().map(m -> m.getSubject()).toList();
        assertThat(inboxes)
            .allSatisfy(t -> assertThat(t).matches("ops\\.inbox\\.(alice|bob)\\.[0-9a-f]{32}"));
        assertThat(inboxes.stream().filter(t -> t.startsWith("ops.inbox.alice.")).count())
            .isGreaterThanOrEqualTo(N);
        assertThat(inboxes.stream().filter(t -> t.startsWith("ops.inbox.bob.")).count())
            .isGreaterThanOrEqualTo(N);
        nodeSide.flush(WAIT);
        aliceSide.flush(WAIT);
        bobSide.flush(WAIT);
        assertThat(lines("Permissions Violation"))
            .as("the private roles allow everything these connections did")
            .isEmpty();
      }
    }

    @Test
    void aPrivateCallerCanNeitherSubscribeToAnotherCallersInboxesNorReadItsReplies()
        throws Exception {
      try (Counting real = new Counting(false);
          NatsPubSub nodeSide = connectPrivate("private-node", "node-pw", "node-1");
          ServingNode node =
              ServingNode.builder(real.registry, nodeSide).nodeId(PRIVATE_NODE).start();
          Raw admin = new Raw("admin", "admin-pw");
          Raw alice = new Raw("alice", "alice-pw");
          NatsPubSub aliceSide = connectPrivate("alice", "alice-pw", "alice");
          NatsPubSub bobSide = connectPrivate("bob", "bob-pw", "bob");
          RemoteCatalog bobCatalog = RemoteCatalog.create(bobSide);
          PendingRequestMap bobCalls = PendingRequestMap.create(bobSide)) {
        admin.subscribe("ops.inbox.bob.>", Optional.empty());
        admin.flush();
        awaitNode(bobCatalog, PRIVATE_NODE);
        assertThat(bobCalls.call("demo.echo", Map.of("n", -1)).get(10, TimeUnit.SECONDS).data())
            .isNotNull();
        // One of bob's real inboxes, as a server (or a watcher of the broker) would see it. The
        // reply reaches bob's connection and the watcher's on their own threads: wait for it.
        admin.flush();
        long until = System.nanoTime() + WAIT.toNanos();
        while (admin.messages.isEmpty() && System.nanoTime() < until) {
          Thread.sleep(10);
        }
        String bobInbox = admin.messages.stream().findFirst().orElseThrow().getSubject();
        assertThat(bobInbox).startsWith("ops.inbox.bob.");
        String shared = ProtocolTopics.INBOX_PREFIX + OperationContext.newRequestId();

        // Every way alice could listen on bob's inboxes, and on an inbox without a token.
        List<String> refused =
            List.of("ops.inbox.bob.>", "ops.inbox.>", "ops.inbox.*", bobInbox, shared);
        refused.forEach(subject -> alice.subscribe(subject, Optional.empty()));
        assertThat(alice.awaitErrors(refused.size()))
            .hasSize(refused.size())
            .allSatisfy(e -> assertThat(e).contains("Permissions Violation for Subscription"));
        // And through the transport itself.
        AtomicInteger aliceGot = new AtomicInteger();
        for (String subject : List.of(bobInbox, shared)) {
          aliceSide.subscribe(
              subject, SubscribeOptions.defaults(), m -> aliceGot.incrementAndGet());
        }
        assertThat(awaitLines("alice-", 2))
            .anySatisfy(l -> assertThat(l).contains("Subscription to \"" + bobInbox + "\""))
            .anySatisfy(l -> assertThat(l).contains("Subscription to \"" + shared + "\""));

        int seenBefore = admin.messages.size();
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
        admin.flush();
        assertThat(admin.messages.size() - seenBefore)
            .as("bob's %d replies went to bob's inboxes", N)
            .isGreaterThanOrEqualTo(N);
        alice.flush();
        aliceSide.flush(WAIT);
        assertThat(alice.received).as("alice's plain connection").hasValue(0);
        assertThat(aliceGot).as("alice's transport").hasValue(0);
      }
    }

    @Test
    void aPrivateCallerCannotForgeAnotherConnectionsProbesAndCountingStillWorks() throws Exception {
      try (Counting real = new Counting(false);
          NatsPubSub nodeSide = connectPrivate("private-node", "node-pw", "node-1");
          ServingNode node =
              ServingNode.builder(real.registry, nodeSide).nodeId(PRIVATE_NODE).start();
          Raw requests = new Raw("admin", "admin-pw");
          Raw probes = new Raw("admin", "admin-pw");
          Raw alice = new Raw("alice", "alice-pw");
          Wire aliceWire = new Wire("alice", "alice-pw");
          Wire shopWire = new Wire("shop", "shop-pw");
          NatsPubSub aliceSide = connectPrivate("alice", "alice-pw", "alice");
          PendingRequestMap aliceCalls = PendingRequestMap.create(aliceSide);
          NatsPubSub bobSide = connectPrivate("bob", "bob-pw", "bob");
          PendingRequestMap bobCalls = PendingRequestMap.create(bobSide)) {
        nodeSide.flush(WAIT);
        // A copy of each request, to read its reply subject: the probe of that publish.
        requests.subscribe("ops.req.demo.echo", Optional.empty());
        probes.subscribe("_OPS.RCV.bob.>", Optional.empty());
        requests.flush();
        probes.flush();
        assertThat(bobCalls.call("demo.echo", Map.of("n", -1)).get(10, TimeUnit.SECONDS).data())
            .isNotNull();
        String probe = requests.messages.stream().findFirst().orElseThrow().getReplyTo();
        assertThat(probe).matches("_OPS\\.RCV\\.bob\\.[A-Za-z0-9]+\\.p\\.\\d+");

        // alice cannot publish there: not a no-responders status, not a marker.
        assertThat(aliceWire.noResponders(probe))
            .singleElement()
            .asString()
            .contains("Permissions Violation for Publish to \"" + probe + "\"");
        alice.publish("_OPS.RCV.bob.x.m.1");
        assertThat(alice.awaitErrors(1))
            .singleElement()
            .asString()
            .contains("Permissions Violation for Publish to \"_OPS.RCV.bob.x.m.1\"");
        // What alice is spared: a user with the shared _OPS.RCV.> can, and the status arrives on
        // bob's probe subject as the server's own would.
        assertThat(shopWire.noResponders(probe)).isEmpty();
        long end = System.nanoTime() + WAIT.toNanos();
        while (onSubject(probes, probe).isEmpty() && System.nanoTime() < end) {
          Thread.sleep(10);
        }
        probes.flush();
        assertThat(onSubject(probes, probe))
            .as("the forged status of shop only; alice's never left the server")
            .singleElement()
            .satisfies(
                m -> {
                  assertThat(m.isStatusMessage()).isTrue();
                  assertThat(m.getStatus().getCode()).isEqualTo(503);
                });

        // The transport's own receiver counting works for both: a request nobody serves fails at
        // once with NO_RESPONDERS, a served one is answered.
        for (PendingRequestMap calls : List.of(aliceCalls, bobCalls)) {
          long start = System.nanoTime();
          assertThat(failure(calls.call("demo.nobody", Map.of("n", 0))).code())
              .isEqualTo(ErrorCode.NO_RESPONDERS);
          assertThat(Duration.ofNanos(System.nanoTime() - start))
              .as("well before the 30 s deadline")
              .isLessThan(Duration.ofSeconds(3));
          for (int i = 0; i < 10; i++) {
            assertThat(calls.call("demo.echo", Map.of("n", i)).get(10, TimeUnit.SECONDS).data())
                .isNotNull();
          }
        }
        assertThat(real.echoed).as("bob's first call and 10 each").hasSize(21);
      }
    }

    private static List<io.nats.client.Message> onSubject(Raw raw, String subject) {
      return raw.messages.stream().filter(m -> m.getSubject().equals(subject)).toList();
    }

    /**
     * The NATS protocol spoken by hand, to publish what jnats would not: a no-responders status
     * ({@code NATS/1.0 503}), as nats-server sends a requester nobody answers.
     */
    private final class Wire implements AutoCloseable {
      private final Socket socket;
      private final BufferedReader in;
      private final OutputStream out;

      Wire(String user, String password) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 2_000);
        socket.setSoTimeout((int) WAIT.toMillis());
        in =
            new BufferedReader(
                new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
        out = socket.getOutputStream();
        assertThat(in.readLine()).startsWith("INFO ");
        send(
            "CONNECT {\"verbose\":false,\"pedantic\":false,\"headers\":true,\"protocol\":1,"
                + "\"user\":\""
                + user
                + "\",\"pass\":\""
                + password
                + "\"}\r\n");
        assertThat(roundTrip()).as("connected as %s", user).isEmpty();
      }

      /** Publishes a no-responders status to {@code subject}; the server's errors meanwhile. */
      List<String> noResponders(String subject) throws IOException {
        String headers = "NATS/1.0 503\r\n\r\n";
        send(
            "HPUB "
                + subject
                + " "
                + headers.length()
                + " "
                + headers.length()
                + "\r\n"
                + headers
                + "\r\n");
        return roundTrip();
      }

      /** A PING, and the server's errors until its PONG. */
      private List<String> roundTrip() throws IOException {
        send("PING\r\n");
        List<String> errors = new ArrayList<>();
        String line;
        while ((line = in.readLine()) != null) {
          if (line.equals("PONG")) {
            return errors;
          } else if (line.startsWith("-ERR")) {
            errors.add(line);
          } else if (line.equals("PING")) {
            send("PONG\r\n");
          }
        }
        throw new IOException("the server closed the connection; errors: " + errors);
      }

      private void send(String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
      }

      @Override
      public void close() throws IOException {
        socket.close();
      }
    }

    /** The transport's log lines about the server's errors, of connections named so. */
    private List<String> lines(String containing) {
      synchronized (log) {
        return log.list.stream()
            .map(ILoggingEvent::getFormattedMessage)
            .filter(m -> m.contains(containing))
            .toList();
      }
    }

    /** The permission violations logged for connections whose name starts with {@code prefix}. */
    private List<String> awaitLines(String prefix, int count) throws InterruptedException {
      long end = System.nanoTime() + WAIT.toNanos();
      List<String> found;
      do {
        found = lines("Permissions Violation").stream().filter(l -> l.startsWith(prefix)).toList();
        if (found.size() >= count) {
          return found;
        }
        Thread.sleep(20);
      } while (System.nanoTime() < end);
      return found;
    }

    /** A plain jnats connection that keeps the server's errors and counts what it receives. */
    private final class Raw implements AutoCloseable {
      final LinkedBlockingQueue<String> errors = new LinkedBlockingQueue<>();
      final AtomicInteger received = new AtomicInteger();
      final ConcurrentLinkedQueue<io.nats.client.Message> messages = new ConcurrentLinkedQueue<>();
      private final Connection connection;
      private final Dispatcher dispatcher;

      Raw(String user, String password) throws Exception {
        connection =
            Nats.connect(
                new Options.Builder()
                    .server(server.url())
                    .userInfo(user, password)
                    .maxReconnects(0)
                    .errorListener(
                        new ErrorListener() {
                          @Override
                          public void errorOccurred(Connection conn, String error) {
                            errors.add(error);
                          }
                        })
                    .build());
        dispatcher = connection.createDispatcher();
      }

      void subscribe(String subject, Optional<String> queue) {
        // With a handler of its own each time: jnats keeps one default-handler subscription per
        // subject, and would not send a second one (a queue one) for the same subject.
        if (queue.isPresent()) {
          dispatcher.subscribe(subject, queue.get(), this::receive);
        } else {
          dispatcher.subscribe(subject, this::receive);
        }
      }

      private void receive(io.nats.client.Message message) {
        messages.add(message);
        received.incrementAndGet();
      }

      void publish(String subject) {
        connection.publish(subject, new byte[0]);
      }

      /** A round trip: the server has handled everything sent before, and delivered to us. */
      void flush() throws Exception {
        connection.flush(WAIT);
      }

      /** The errors heard, once {@code count} have come or the wait is over. */
      List<String> awaitErrors(int count) throws InterruptedException {
        List<String> out = new ArrayList<>();
        long end = System.nanoTime() + WAIT.toNanos();
        while (out.size() < count) {
          String error = errors.poll(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS);
          if (error == null) {
            break;
          }
          out.add(error);
        }
        return out;
      }

      @Override
      public void close() throws InterruptedException {
        connection.close();
      }
    }
  }

  // ------------------------------------------------------------------ the roles

  @Test
  void eachRoleAllowsExactlyTheseSubjects() {
    assertThat(NatsPermissions.caller(List.of("billing.*", "demo.echo")))
        .isEqualTo(
            new NatsPermissions(
                List.of(
                    "ops.req.billing.>",
                    "ops.node.*.req.billing.>",
                    "ops.req.demo.echo",
                    "ops.node.*.req.demo.echo",
                    "ops.ctl",
                    "ops.nodes",
                    "ops.node.*.specs",
                    "_OPS.RCV.>"),
                List.of("ops.inbox.>", "ops.nodes", "_OPS.RCV.>")));
    assertThat(NatsPermissions.server(List.of("billing.*"), Optional.of("b-1")))
        .isEqualTo(
            new NatsPermissions(
                List.of("ops.inbox.>", "ops.nodes", "_OPS.RCV.>"),
                List.of(
                    "ops.req.billing.> ops.servers",
                    "ops.node.b-1.req.billing.>",
                    "ops.ctl",
                    "ops.nodes",
                    "ops.node.b-1.specs",
                    "_OPS.RCV.>")));
    assertThat(NatsPermissions.server(List.of("*"), Optional.empty()).subscribeAllow())
        .containsExactly(
            "ops.req.> ops.servers",
            "ops.node.*.req.>",
            "ops.ctl",
            "ops.nodes",
            "ops.node.*.specs",
            "_OPS.RCV.>");
    assertThat(NatsPermissions.observer())
        .isEqualTo(
            new NatsPermissions(
                List.of("ops.nodes", "ops.node.*.specs", "_OPS.RCV.>"),
                List.of("ops.inbox.>", "ops.nodes", "_OPS.RCV.>")));
  }

  @Test
  void patternsBecomeSubjectsAndRepeatsAreDropped() {
    assertThat(NatsPermissions.caller(List.of("*")).publishAllow())
        .startsWith("ops.req.>", "ops.node.*.req.>");
    assertThat(NatsPermissions.caller(List.of("billing.cards.*")).publishAllow())
        .startsWith("ops.req.billing.cards.>", "ops.node.*.req.billing.cards.>");
    assertThat(NatsPermissions.caller(List.of("a.b", "a.b")).publishAllow())
        .startsWith("ops.req.a.b", "ops.node.*.req.a.b", "ops.ctl");
  }

  @Test
  void whatIsNoOperationPatternIsRefusedSayingWhatIsExpected() {
    for (String bad :
        List.of("", "billing", "billing.*.x", "bill*", "billing.>", ".x", "a..b", "*.*", "a b.c")) {
      assertThatThrownBy(() -> NatsPermissions.caller(List.of(bad)), bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + bad + "'")
          .hasMessageContaining("expected");
      assertThatThrownBy(() -> NatsPermissions.server(List.of(bad), Optional.empty()), bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> NatsPermissions.caller(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("observer()");
    assertThatThrownBy(() -> NatsPermissions.server(List.of("a.b"), Optional.of("n.1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("node id");
    assertThatThrownBy(() -> new NatsPermissions(List.of("a b c"), List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> NatsPermissions.observer().toConfig("u", "line\nbreak"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("line");
  }

  @Test
  void andAllowsWhatEitherAllows() {
    NatsPermissions both =
        NatsPermissions.server(List.of("billing.*"), Optional.of("b-1"))
            .and(NatsPermissions.caller(List.of("stock.reserve")));
    assertThat(both.publishAllow())
        .containsExactly(
            "ops.inbox.>",
            "ops.nodes",
            "_OPS.RCV.>",
            "ops.req.stock.reserve",
            "ops.node.*.req.stock.reserve",
            "ops.ctl",
            "ops.node.*.specs");
    assertThat(both.subscribeAllow()).contains("ops.req.billing.> ops.servers", "ops.inbox.>");
  }

  @Test
  void privateToKeepsTheUserToItsOwnInboxesAndProbes() {
    assertThat(NatsPermissions.caller(List.of("billing.*")).privateTo("alice"))
        .isEqualTo(
            new NatsPermissions(
                List.of(
                    "ops.req.billing.>",
                    "ops.node.*.req.billing.>",
                    "ops.ctl",
                    "ops.nodes",
                    "ops.node.*.specs",
                    "_OPS.RCV.alice.>"),
                List.of("ops.inbox.alice.>", "ops.nodes", "_OPS.RCV.alice.>")));
    // A server still answers every inbox; it may read its own (and so keeps the token).
    assertThat(NatsPermissions.server(List.of("billing.*"), Optional.of("b-1")).privateTo("b1"))
        .isEqualTo(
            new NatsPermissions(
                List.of("ops.inbox.>", "ops.nodes", "_OPS.RCV.b1.>"),
                List.of(
                    "ops.req.billing.> ops.servers",
                    "ops.node.b-1.req.billing.>",
                    "ops.ctl",
                    "ops.nodes",
                    "ops.node.b-1.specs",
                    "_OPS.RCV.b1.>",
                    "ops.inbox.b1.>")));
    assertThat(NatsPermissions.observer().privateTo("w_1"))
        .isEqualTo(
            new NatsPermissions(
                List.of("ops.nodes", "ops.node.*.specs", "_OPS.RCV.w_1.>"),
                List.of("ops.inbox.w_1.>", "ops.nodes", "_OPS.RCV.w_1.>")));
    assertThat(NatsPermissions.observer().privateTokens()).isEmpty();
    assertThat(NatsPermissions.observer().privateTo("a").privateTokens()).containsExactly("a");
    // Narrowed again: to the last token only.
    assertThat(NatsPermissions.observer().privateTo("a").privateTo("b"))
        .isEqualTo(NatsPermissions.observer().privateTo("b"));
    // The transport's own names.
    assertThat(ProtocolTopics.privateInboxPrefix("alice") + ">").isEqualTo("ops.inbox.alice.>");
    assertThat(ReceiverProbes.privatePrefix("alice") + ">").isEqualTo("_OPS.RCV.alice.>");

    for (String bad : List.of("", "a.b", "a b", "*", ">", "a>", "ü", "x".repeat(65))) {
      assertThatThrownBy(() -> NatsPermissions.observer().privateTo(bad), bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("private token");
      assertThatThrownBy(() -> NatsOptions.builder("nats://127.0.0.1:4222").privateToken(bad), bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(NatsOptions.builder("nats://127.0.0.1:4222").build().privateToken()).isEmpty();
    assertThat(NatsOptions.builder("nats://127.0.0.1:4222").privateToken("x".repeat(64)).build())
        .satisfies(o -> assertThat(o.privateToken()).contains("x".repeat(64)));
  }

  @Test
  void andIsPrivateWhicheverSideWasAndInEitherOrder() {
    NatsPermissions server = NatsPermissions.server(List.of("billing.*"), Optional.of("b-1"));
    NatsPermissions caller = NatsPermissions.caller(List.of("stock.reserve"));
    List<NatsPermissions> ways =
        List.of(
            server.and(caller).privateTo("t"),
            server.privateTo("t").and(caller),
            server.and(caller.privateTo("t")),
            caller.privateTo("t").and(server),
            caller.and(server.privateTo("t")),
            server.privateTo("t").and(caller.privateTo("t")));
    NatsPermissions first = ways.get(0);
    for (NatsPermissions way : ways) {
      assertThat(way.publishAllow()).containsExactlyInAnyOrderElementsOf(first.publishAllow());
      assertThat(way.subscribeAllow()).containsExactlyInAnyOrderElementsOf(first.subscribeAllow());
      assertThat(way.privateTokens()).containsExactly("t");
    }
    assertThat(first.subscribeAllow())
        .contains("ops.inbox.t.>", "_OPS.RCV.t.>", "ops.req.billing.> ops.servers")
        .doesNotContain("ops.inbox.>", "_OPS.RCV.>");
    assertThat(first.publishAllow())
        .as("the server still answers every inbox")
        .contains("ops.inbox.>", "_OPS.RCV.t.>", "ops.req.stock.reserve")
        .doesNotContain("_OPS.RCV.>");
    // Two tokens: the user has both.
    NatsPermissions two = caller.privateTo("a").and(NatsPermissions.observer().privateTo("b"));
    assertThat(two.privateTokens()).containsExactly("a", "b");
    assertThat(two.subscribeAllow())
        .contains("ops.inbox.a.>", "ops.inbox.b.>", "_OPS.RCV.a.>", "_OPS.RCV.b.>")
        .doesNotContain("ops.inbox.>", "_OPS.RCV.>");
    // Without tokens, and() is what it was.
    assertThat(server.and(caller).privateTokens()).isEmpty();
    assertThat(server.and(caller).subscribeAllow()).contains("ops.inbox.>", "_OPS.RCV.>");
  }

  @Test
  void theFactoryTakesOpsPrivateTokenAndWritesPrivateUsers() throws Exception {
    NatsPubSubFactory factory = new NatsPubSubFactory();
    String config =
        factory
            .brokerUser(
                new PubSubFactory.BrokerGrant(
                    "nats",
                    java.util.Set.of(PubSubFactory.BrokerGrant.Role.CALLER),
                    List.of("demo.*"),
                    Optional.empty(),
                    Optional.of("alice"),
                    "alice",
                    "alice-pw"))
            .orElseThrow();
    assertThat(config)
        .isEqualTo(
            NatsPermissions.caller(List.of("demo.*"))
                .privateTo("alice")
                .toConfig("alice", "alice-pw"));
    assertThatThrownBy(
            () ->
                factory.connect(
                    new PubSubFactory.Target(
                        "nats",
                        "nats://127.0.0.1:4222",
                        Duration.ofSeconds(1),
                        Map.of("OPS_PRIVATE_TOKEN", "not.one"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("OPS_PRIVATE_TOKEN: ")
        .hasMessageContaining("'not.one'");
    try (NatsServer server = NatsServer.start();
        PubSub pubsub =
            factory
                .connect(
                    new PubSubFactory.Target(
                        "nats",
                        server.url(),
                        Duration.ofSeconds(5),
                        Map.of("OPS_PRIVATE_TOKEN", "alice")))
                .orElseThrow();
        PubSub shared =
            factory
                .connect(PubSubFactory.Target.of("nats", server.url(), Duration.ofSeconds(5)))
                .orElseThrow()) {
      assertThat(pubsub.inboxPrefix()).isEqualTo("ops.inbox.alice.");
      assertThat(shared.inboxPrefix()).isEqualTo(ProtocolTopics.INBOX_PREFIX);
    }
  }

  /**
   * docs/nats.md shows the configuration the example's code writes (between the markers), and
   * nats-server takes it.
   */
  @Test
  void theDocsExampleIsWhatTheCodeWritesAndNatsServerTakesIt(@TempDir Path dir) throws Exception {
    // snippet: config
    String billingNode =
        NatsPermissions.server(List.of("billing.*"), Optional.of("billing-1"))
            .toConfig("billing-node", "node-secret");
    String shop = NatsPermissions.caller(List.of("billing.charge")).toConfig("shop", "shop-secret");
    String config = "authorization { users = [\n" + billingNode + ",\n" + shop + "\n] }\n";
    // end-snippet
    String doc = Files.readString(REPO.resolve("docs/nats.md"));
    Matcher shown =
        Pattern.compile(
                "<!-- generated: NatsPermissionsTest#config -->\\s*```\\n(.*?)```", Pattern.DOTALL)
            .matcher(doc);
    assertThat(shown.find()).as("docs/nats.md has the generated block").isTrue();
    assertThat(shown.group(1)).isEqualTo(config);

    Path file = dir.resolve("example.conf");
    Files.writeString(file, config);
    try (NatsServer server = NatsServer.start("-c", file.toString());
        NatsPubSub shopSide =
            NatsPubSub.connect(
                NatsOptions.builder(server.url())
                    .userPassword("shop", "shop-secret".toCharArray())
                    .build())) {
      assertThat(shopSide.isConnected()).isTrue();
    }
  }

  /**
   * docs/nats.md's private-token example: the user entry is what the code writes, nats-server takes
   * it, and a connection given the token calls on its own inbox and probes, with no violation.
   */
  @Test
  void theDocsPrivateTokenExampleIsWhatTheCodeWritesAndWorks(@TempDir Path dir) throws Exception {
    // snippet: private-user
    String alice =
        NatsPermissions.caller(List.of("billing.charge"))
            .privateTo("alice")
            .toConfig("alice", "alice-secret");
    // end-snippet
    String doc = Files.readString(REPO.resolve("docs/nats.md"));
    Matcher shown =
        Pattern.compile(
                "<!-- generated: NatsPermissionsTest#private-user -->\\s*```\\n(.*?)```",
                Pattern.DOTALL)
            .matcher(doc);
    assertThat(shown.find()).as("docs/nats.md has the generated block").isTrue();
    assertThat(shown.group(1)).isEqualTo(alice + "\n");

    try (NatsServer server = NatsServer.startWithUsers(dir, List.of(alice))) {
      String url = server.url();
      // snippet: private-options
      NatsOptions options =
          NatsOptions.builder(url)
              .userPassword("alice", "alice-secret".toCharArray())
              .privateToken("alice") // ops: OPS_PRIVATE_TOKEN=alice
              .build();
      // end-snippet
      try (NatsPubSub aliceSide = NatsPubSub.connect(options);
          PendingRequestMap calls = PendingRequestMap.create(aliceSide)) {
        assertThat(aliceSide.inboxPrefix()).isEqualTo("ops.inbox.alice.");
        // Nobody serves billing.charge here: the probe says so at once, on alice's own subject.
        assertThat(failure(calls.call("billing.charge", Map.of("n", 1))).code())
            .isEqualTo(ErrorCode.NO_RESPONDERS);
      }
    }
  }

  // ------------------------------------------------------------------ helpers

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

  /** Half a second from now (a timeout in call options is a deadline, fixed when made). */
  private static CallOptions shortly() {
    return CallOptions.defaults().withTimeout(Duration.ofMillis(500));
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
