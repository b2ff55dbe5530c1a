package dev.alkdev.operations.transport.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
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
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
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
 * exactly once; an observer lists nodes but cannot call. And the roles' subjects, the refusals of
 * patterns that are none, and the example of docs/nats.md.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NatsPermissionsTest {
  private static final String ECHO_NODE = "echo-node-1";
  private static final String BILLING_NODE = "billing-node-1";
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
                  NatsPermissions.observer().toConfig("watcher", "watcher-pw")));
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
          dispatcher.subscribe(subject, queue.get(), m -> received.incrementAndGet());
        } else {
          dispatcher.subscribe(subject, m -> received.incrementAndGet());
        }
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
