package dev.alkdev.operations.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.Deadline;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Serving nodes and remote catalogs on one in-process bus, with 200 ms heartbeats: short, yet long
 * enough that a busy build machine does not make a live node look silent for three of them.
 */
class DiscoveryTest {
  static final Duration INTERVAL = Duration.ofMillis(200);

  private final List<AutoCloseable> open = new ArrayList<>();
  private InProcessPubSub bus = InProcessPubSub.create();

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

  /** A node on its own client of the bus. */
  private Node node(String id, OperationRegistry registry) {
    // Short: a cut node's held calls never end, and closing it waits this long.
    return node(id, registry, Duration.ofMillis(300));
  }

  private Node node(String id, OperationRegistry registry, Duration drainTimeout) {
    return node(id, registry, drainTimeout, INTERVAL);
  }

  private Node node(
      String id, OperationRegistry registry, Duration drainTimeout, Duration interval) {
    CuttablePubSub client = open(new CuttablePubSub(bus));
    ServingNode node =
        open(
            ServingNode.builder(registry, client)
                .nodeId(id)
                .heartbeatInterval(interval)
                .drainTimeout(drainTimeout)
                .start());
    return new Node(node, client);
  }

  record Node(ServingNode node, CuttablePubSub client) {}

  private RemoteCatalog catalog(Routing routing) {
    return open(
        RemoteCatalog.builder(open(new CuttablePubSub(bus)))
            .routing(routing)
            .defaultTimeout(Duration.ofSeconds(30))
            .build());
  }

  private OperationRegistry registry() {
    return open(OperationRegistry.create());
  }

  static final OperationSpec ECHO =
      OperationSpec.builder("demo", "echo")
          .description("Echoes its input")
          .inputSchema(
              "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},"
                  + "\"required\":[\"n\"]}")
          .outputSchema("{\"type\":\"object\"}")
          .build();

  /** A stream that never says anything. */
  static final Flow.Publisher<Object> NEVER =
      s ->
          s.onSubscribe(
              new Flow.Subscription() {
                @Override
                public void request(long n) {}

                @Override
                public void cancel() {}
              });

  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("Timed out waiting for " + what);
      }
      Thread.sleep(5);
    }
  }

  static CallError failure(CompletableFuture<?> future) {
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
    assertThat(e.getCause()).isInstanceOf(CallError.class);
    return (CallError) e.getCause();
  }

  // ------------------------------------------------------------------ discovery

  /**
   * Heartbeats of nodes known with their specs are not news: a caller settles among nodes whose
   * heartbeats, together, come far more often than its quiet period (here one every ~3 ms against
   * 150 ms), as `ops list` must among many nodes or on a loaded machine.
   */
  @Test
  void aCatalogSettlesAmongNodesThatHeartbeatMoreOftenThanItsQuietPeriod() throws Exception {
    for (int i = 0; i < 3; i++) {
      OperationRegistry registry = registry();
      registry.register(ECHO, Handler.blocking((in, ctx) -> in));
      node("fast-" + i, registry, Duration.ofMillis(300), Duration.ofMillis(10));
    }
    RemoteCatalog catalog = catalog(Routing.ROUND_ROBIN);
    assertThat(catalog.awaitSettled(Duration.ofMillis(150), Duration.ofSeconds(10)))
        .as("settled within 10 s")
        .isTrue();
    assertThat(catalog.nodes()).hasSize(3).allMatch(RemoteNode::specsKnown);
    assertThat(catalog.list()).extracting(OperationSpec::id).contains("demo.echo");
  }

  @Test
  void nodesAppearWithTheirFullSpecsWhetherTheCallerCameFirstOrLast() throws Exception {
    RemoteCatalog early = catalog(Routing.LEAST_IN_FLIGHT);
    OperationRegistry registry = registry();
    OperationSpec mutation =
        OperationSpec.builder("demo", "put")
            .type(OperationType.MUTATION)
            .idempotent(true)
            .requiredScopes("writer")
            .build();
    registry.register(ECHO, Handler.blocking((in, c) -> in));
    registry.register(mutation, Handler.blocking((in, c) -> "ok"));
    registry.registerSpec(OperationSpec.builder("demo", "nohandler").build()); // not callable
    Node node = node("node-a", registry);

    RemoteCatalog late = catalog(Routing.LEAST_IN_FLIGHT); // learns by node.query
    for (RemoteCatalog catalog : List.of(early, late)) {
      await("the node's specs", () -> catalog.list().size() == 2);
      assertThat(catalog.spec("demo.echo")).contains(ECHO); // schemas, description and all
      assertThat(catalog.spec("demo.put")).contains(mutation);
      assertThat(catalog.spec("demo.put").orElseThrow().idempotent()).isTrue();
      assertThat(catalog.nodes())
          .singleElement()
          .satisfies(
              n -> {
                assertThat(n.nodeId()).isEqualTo("node-a");
                assertThat(n.operations()).containsExactly("demo.echo", "demo.put");
                assertThat(n.specsKnown()).isTrue();
                assertThat(n.leaving()).isFalse();
                assertThat(n.heartbeatInterval()).isEqualTo(INTERVAL);
              });
    }
    assertThat(node.node().specs()).containsExactly(ECHO, mutation);
    assertThat(
            late.call("demo.echo", java.util.Map.of("n", 4))
                .get(5, TimeUnit.SECONDS)
                .data()
                .get("n")
                .asInt())
        .isEqualTo(4);
  }

  @Test
  void aRegistryChangeIsAnnouncedAndHeardByListeners() throws Exception {
    RemoteCatalog catalog = catalog(Routing.LEAST_IN_FLIGHT);
    List<String> heard = new CopyOnWriteArrayList<>();
    catalog.addListener(
        new OperationRegistry.Listener() {
          @Override
          public void added(OperationSpec spec) {
            heard.add("+" + spec.id());
          }

          @Override
          public void removed(OperationSpec spec) {
            heard.add("-" + spec.id());
          }
        });
    OperationRegistry registry = registry();
    registry.register(ECHO, Handler.blocking((in, c) -> in));
    node("node-a", registry);
    await("the first operation", () -> heard.contains("+demo.echo"));

    OperationSpec later = OperationSpec.builder("demo", "later").build();
    registry.register(later, Handler.blocking((in, c) -> 1));
    await("the new operation", () -> heard.contains("+demo.later"));
    assertThat(catalog.spec("demo.later")).contains(later);

    registry.unregister("demo.echo");
    await("the removal", () -> heard.contains("-demo.echo"));
    assertThat(catalog.list()).containsExactly(later);
    assertThat(heard).containsExactly("+demo.echo", "+demo.later", "-demo.echo");
  }

  @Test
  void aNodeHeardOfOnlyByItsHeartbeatIsAskedForItsSpecs() throws Exception {
    OperationRegistry registry = registry();
    registry.register(ECHO, Handler.blocking((in, c) -> in));
    node("node-a", registry);
    // A caller whose query and the node's hello both went unheard: only heartbeats reach it.
    CuttablePubSub client = open(new CuttablePubSub(bus));
    client.cut();
    RemoteCatalog catalog = open(RemoteCatalog.create(client));
    Thread.sleep(50);
    client.uncut();
    await("the specs, by request", () -> catalog.spec("demo.echo").isPresent());
  }

  @Test
  void largeSpecsGoByDigestAndRequestInParts() throws Exception {
    bus.close();
    bus = InProcessPubSub.builder().maxMessageBytes(8 * 1024).build();
    OperationRegistry registry = registry();
    List<OperationSpec> specs = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      OperationSpec spec =
          OperationSpec.builder("big", "op" + i)
              .description("x".repeat(1000) + i)
              .inputSchema("{\"type\":\"object\",\"description\":\"" + "y".repeat(500) + "\"}")
              .build();
      specs.add(spec);
      registry.register(spec, Handler.blocking((in, c) -> 1));
    }
    // One spec too large for any message: served, but not announced.
    registry.register(
        OperationSpec.builder("big", "huge").description("z".repeat(9000)).build(),
        Handler.blocking((in, c) -> 1));
    AtomicInteger parts = new AtomicInteger();
    open(bus.subscribe(ProtocolTopics.INBOX_PREFIX + "spy", SubscribeOptions.defaults(), m -> {}));
    RemoteCatalog catalog = catalog(Routing.LEAST_IN_FLIGHT);
    open(
        bus.subscribe(
            ProtocolTopics.nodeSpecs("node-a"),
            SubscribeOptions.defaults(),
            m -> parts.incrementAndGet()));
    node("node-a", registry);
    await("every announceable spec", () -> catalog.list().size() == 30);
    assertThat(catalog.list()).containsExactlyInAnyOrderElementsOf(specs);
    assertThat(parts.get()).isPositive(); // the catalog asked
    assertThat(SpecParts.split("node-a", new SpecParts.Source(specs, "d"), bus))
        .hasSizeGreaterThan(3);
  }

  @Test
  void listingIsFilteredByTheCallersScopes() throws Exception {
    OperationRegistry registry = registry();
    OperationSpec admin = OperationSpec.builder("demo", "admin").requiredScopes("admin").build();
    registry.register(ECHO, Handler.blocking((in, c) -> in));
    registry.register(admin, Handler.blocking((in, c) -> 1));
    node("node-a", registry);
    RemoteCatalog catalog = catalog(Routing.LEAST_IN_FLIGHT);
    await("both specs", () -> catalog.list().size() == 2);
    assertThat(catalog.list(Identity.anonymous())).containsExactly(ECHO);
    assertThat(catalog.list(Identity.of("ann", "admin"))).containsExactly(admin, ECHO);
  }

  // ------------------------------------------------------------------ before sending

  @Test
  void badInputAndCallsWithNoTimeLeftAreRefusedBeforeAnythingIsSent() throws Exception {
    OperationRegistry registry = registry();
    registry.register(ECHO, Handler.blocking((in, c) -> in));
    node("node-a", registry);
    RemoteCatalog catalog = catalog(Routing.LEAST_IN_FLIGHT);
    await("the spec", () -> catalog.spec("demo.echo").isPresent());
    AtomicInteger sent = new AtomicInteger();
    open(
        bus.subscribe(
            ProtocolTopics.nodeRequest("node-a", "demo.echo"),
            SubscribeOptions.defaults(),
            m -> sent.incrementAndGet()));

    CallError invalid = failure(catalog.call("demo.echo", java.util.Map.of("n", "four")));
    assertThat(invalid.code()).isEqualTo(ErrorCode.INVALID_INPUT);

    // A nested call whose parent's deadline has passed.
    CallOptions noTimeLeft = CallOptions.defaults().withDeadline(Deadline.afterMillis(0));
    CallError late = failure(catalog.call("demo.echo", java.util.Map.of("n", 1), noTimeLeft));
    assertThat(late.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
    assertThat(late.getMessage()).contains("nothing was sent");

    CallError unknown = failure(catalog.call("demo.nobody", null));
    assertThat(unknown.code()).isEqualTo(ErrorCode.NO_RESPONDERS);

    Thread.sleep(100);
    assertThat(sent.get()).isZero();
    catalog.call("demo.echo", java.util.Map.of("n", 1)).get(5, TimeUnit.SECONDS);
    assertThat(sent.get()).isEqualTo(1);
  }

  // ------------------------------------------------------------------ node loss

  @Test
  void aSilentNodeIsDroppedWithinThreeIntervalsAndItsCallsFailThen() throws Exception {
    OperationRegistry registry = registry();
    OperationSpec hold = OperationSpec.builder("demo", "hold").type(OperationType.MUTATION).build();
    registry.register(hold, Handler.async((in, c) -> new CompletableFuture<>()));
    Node node = node("node-a", registry);
    RemoteCatalog catalog = catalog(Routing.LEAST_IN_FLIGHT);
    await("the spec", () -> catalog.spec("demo.hold").isPresent());
    List<String> removed = new CopyOnWriteArrayList<>();
    catalog.addListener(
        new OperationRegistry.Listener() {
          @Override
          public void added(OperationSpec spec) {}

          @Override
          public void removed(OperationSpec spec) {
            removed.add(spec.id());
          }
        });

    CompletableFuture<ResponseEnvelope<JsonNode>> call =
        catalog.call("demo.hold", null, CallOptions.defaults().withTimeout(Duration.ofSeconds(30)));
    await("the call to run", () -> node.node().stats().pending() == 1);
    long cutAt = System.nanoTime();
    node.client().cut(); // killed: no bye, no heartbeats, no replies
    CallError lost = failure(call);
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutAt);
    assertThat(lost.code()).isEqualTo(ErrorCode.UNAVAILABLE);
    assertThat(lost.getMessage()).contains("node-a");
    assertThat(millis).isBetween(300L, 3000L); // three 200 ms intervals, not the 30 s deadline
    assertThat(catalog.nodes()).isEmpty();
    assertThat(removed).containsExactly("demo.hold");
  }

  @Test
  void aKilledNodeWhoseConnectionIsGoneIsDroppedOnceLateNotAfterThreeIntervals() throws Exception {
    OperationRegistry registry = registry();
    registry.register(
        OperationSpec.builder("demo", "hold").build(),
        Handler.async((in, c) -> new CompletableFuture<>()));
    // Long intervals, so that three of them (3 s) and one and a quarter (1.25 s) are far apart.
    Node node = node("node-a", registry, Duration.ofMillis(300), Duration.ofSeconds(1));
    RemoteCatalog catalog = catalog(Routing.LEAST_IN_FLIGHT);
    await("the spec", () -> catalog.spec("demo.hold").isPresent());
    CompletableFuture<ResponseEnvelope<JsonNode>> call =
        catalog.call("demo.hold", null, CallOptions.defaults().withTimeout(Duration.ofSeconds(30)));
    await("the call to run", () -> node.node().stats().pending() == 1);
    long killedAt = System.nanoTime();
    node.client().kill(); // no bye, no heartbeats, and nothing listens on its topics any more
    CallError lost = failure(call);
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
    assertThat(lost.code()).isEqualTo(ErrorCode.UNAVAILABLE);
    assertThat(lost.getMessage()).contains("node-a").contains("connection is gone");
    assertThat(millis).isLessThan(2_600L); // at most 1.25 intervals after its last heartbeat
    assertThat(catalog.nodes()).isEmpty();
  }

  @Test
  void aLateNodeThatStillListensIsKeptUntilItsSilenceEnds() throws Exception {
    Node node = node("node-a", registry(), Duration.ofMillis(300), Duration.ofMillis(400));
    RemoteCatalog catalog = catalog(Routing.LEAST_IN_FLIGHT);
    await("the node", () -> !catalog.nodes().isEmpty());
    long cutAt = System.nanoTime();
    node.client().cut(); // silent, but its subscriptions stay: probes reach it
    await("the node to be dropped", () -> catalog.nodes().isEmpty());
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutAt);
    assertThat(millis).isGreaterThanOrEqualTo(750L); // three 400 ms intervals after its last beat
  }

  @Test
  void aStreamOnALostNodeFailsAtOnce() throws Exception {
    OperationRegistry registry = registry();
    OperationSpec ticks =
        OperationSpec.builder("demo", "ticks").type(OperationType.SUBSCRIPTION).build();
    registry.register(ticks, Handler.publisher((in, c) -> NEVER));
    Node node = node("node-a", registry);
    RemoteCatalog catalog = catalog(Routing.LEAST_IN_FLIGHT);
    await("the spec", () -> catalog.spec("demo.ticks").isPresent());
    CompletableFuture<Throwable> ended = new CompletableFuture<>();
    catalog
        .subscribe("demo.ticks", null)
        .subscribe(
            new Flow.Subscriber<ResponseEnvelope<JsonNode>>() {
              @Override
              public void onSubscribe(Flow.Subscription s) {
                s.request(1);
              }

              @Override
              public void onNext(ResponseEnvelope<JsonNode> item) {}

              @Override
              public void onError(Throwable t) {
                ended.complete(t);
              }

              @Override
              public void onComplete() {
                ended.complete(null);
              }
            });
    await("the stream to run", () -> node.node().stats().pending() == 1);
    node.client().cut();
    Throwable error = ended.get(5, TimeUnit.SECONDS);
    assertThat(error).isInstanceOf(CallError.class);
    assertThat(((CallError) error).code()).isEqualTo(ErrorCode.UNAVAILABLE);
  }

  // ------------------------------------------------------------------ retries

  /** Two nodes serving {@code spec}; node-a holds every call, node-b answers and counts. */
  private AtomicInteger twoNodes(OperationSpec spec) {
    OperationRegistry a = registry();
    a.register(spec, Handler.async((in, c) -> new CompletableFuture<>()));
    AtomicInteger onB = new AtomicInteger();
    OperationRegistry b = registry();
    b.register(spec, Handler.blocking((in, c) -> "b" + onB.incrementAndGet()));
    nodeA = node("node-a", a);
    node("node-b", b);
    return onB;
  }

  private CompletableFuture<ResponseEnvelope<JsonNode>> callOnNodeA(
      RemoteCatalog catalog, String operationId) throws Exception {
    await(
        "both nodes",
        () ->
            catalog.nodes().size() == 2
                && catalog.spec(operationId).isPresent()
                && catalog.nodes().stream().allMatch(RemoteNode::specsKnown));
    // Round robin starts with the first node by id.
    CompletableFuture<ResponseEnvelope<JsonNode>> call =
        catalog.call(operationId, null, CallOptions.defaults().withTimeout(Duration.ofSeconds(30)));
    await("the call on node-a", () -> !call.isDone() && nodeA().node().stats().pending() == 1);
    return call;
  }

  private Node nodeA;

  private Node nodeA() {
    return nodeA;
  }

  private CompletableFuture<ResponseEnvelope<JsonNode>> loseNodeAMidCall(OperationSpec spec)
      throws Exception {
    AtomicInteger onB = twoNodes(spec);
    RemoteCatalog catalog = catalog(Routing.ROUND_ROBIN);
    CompletableFuture<ResponseEnvelope<JsonNode>> call = callOnNodeA(catalog, spec.id());
    nodeA.client().cut();
    lastOnB = onB;
    return call;
  }

  private AtomicInteger lastOnB;

  @Test
  void aQueryMovesToAnotherNodeWhenItsNodeIsLost() throws Exception {
    OperationSpec query = OperationSpec.builder("demo", "who").build();
    long start = System.nanoTime();
    CompletableFuture<ResponseEnvelope<JsonNode>> call = loseNodeAMidCall(query);
    assertThat(call.get(5, TimeUnit.SECONDS).data().asString()).isEqualTo("b1");
    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(5);
  }

  @Test
  void aMutationThatIsNotIdempotentIsNotRetried() throws Exception {
    OperationSpec mutation =
        OperationSpec.builder("demo", "charge").type(OperationType.MUTATION).build();
    CompletableFuture<ResponseEnvelope<JsonNode>> call = loseNodeAMidCall(mutation);
    assertThat(failure(call).code()).isEqualTo(ErrorCode.UNAVAILABLE);
    Thread.sleep(100);
    assertThat(lastOnB.get()).isZero();
  }

  @Test
  void anIdempotentMutationIsRetried() throws Exception {
    OperationSpec mutation =
        OperationSpec.builder("demo", "put").type(OperationType.MUTATION).idempotent(true).build();
    CompletableFuture<ResponseEnvelope<JsonNode>> call = loseNodeAMidCall(mutation);
    assertThat(call.get(5, TimeUnit.SECONDS).data().asString()).isEqualTo("b1");
  }

  @Test
  void aQueryWaitsForANodeToAppearWithinItsAttempts() throws Exception {
    RemoteCatalog catalog =
        open(
            RemoteCatalog.builder(open(new CuttablePubSub(bus)))
                .retry(new RetryPolicy(10, Duration.ofMillis(50), Duration.ofMillis(50)))
                .build());
    CompletableFuture<ResponseEnvelope<JsonNode>> call =
        catalog.call("demo.echo", java.util.Map.of("n", 2));
    Thread.sleep(60);
    OperationRegistry registry = registry();
    registry.register(ECHO, Handler.blocking((in, c) -> in));
    node("node-a", registry);
    assertThat(call.get(5, TimeUnit.SECONDS).data().get("n").asInt()).isEqualTo(2);
  }

  @Test
  void manyCallsOnALostNodeEachEndOnceAndNoMutationRunsTwice() throws Exception {
    OperationSpec query = OperationSpec.builder("demo", "q").build();
    OperationSpec mutation =
        OperationSpec.builder("demo", "m").type(OperationType.MUTATION).build();
    AtomicInteger ranOnA = new AtomicInteger();
    OperationRegistry a = registry();
    a.register(query, Handler.async((in, c) -> new CompletableFuture<>()));
    a.register(
        mutation,
        Handler.async(
            (in, c) -> {
              ranOnA.incrementAndGet();
              return new CompletableFuture<>();
            }));
    AtomicInteger ranOnB = new AtomicInteger();
    OperationRegistry b = registry();
    b.register(query, Handler.blocking((in, c) -> "b"));
    b.register(
        mutation,
        Handler.blocking(
            (in, c) -> {
              ranOnB.incrementAndGet();
              return "b";
            }));
    // Longer intervals: 200 calls at once on a busy machine must not look like a silent node-b.
    Duration interval = Duration.ofMillis(300);
    Node onA = node("node-a", a, Duration.ofMillis(300), interval);
    node("node-b", b, Duration.ofMillis(300), interval);
    RemoteCatalog catalog = catalog(Routing.ROUND_ROBIN);
    await("both nodes", () -> catalog.nodes().stream().filter(RemoteNode::specsKnown).count() == 2);
    List<CompletableFuture<ResponseEnvelope<JsonNode>>> queries = new ArrayList<>();
    List<CompletableFuture<ResponseEnvelope<JsonNode>>> mutations = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      queries.add(catalog.call("demo.q", i));
      mutations.add(catalog.call("demo.m", i));
    }
    await("the calls on node-a", () -> onA.node().stats().pending() >= 100);
    onA.client().cut();
    for (var q : queries) {
      assertThat(q.get(10, TimeUnit.SECONDS).data().asString()).isEqualTo("b");
    }
    int failed = 0;
    for (var m : mutations) {
      try {
        m.get(10, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        assertThat(((CallError) e.getCause()).code()).isEqualTo(ErrorCode.UNAVAILABLE);
        failed++;
      }
    }
    // Half of the mutations ran on node-a and were lost with it; none was sent again.
    assertThat(ranOnA.get()).isEqualTo(failed).isEqualTo(50);
    assertThat(ranOnB.get()).isEqualTo(50);
  }

  // ------------------------------------------------------------------ drain

  @Test
  void aDrainingNodeFinishesItsCallsRefusesNewOnesAndCallersGoElsewhere() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    OperationSpec work = OperationSpec.builder("demo", "work").build();
    OperationRegistry a = registry();
    a.register(
        work,
        Handler.blocking(
            (in, c) -> {
              release.await();
              return "a";
            }));
    OperationRegistry b = registry();
    b.register(work, Handler.blocking((in, c) -> "b"));
    Node nodeOnA = node("node-a", a, Duration.ofSeconds(5));
    node("node-b", b);
    RemoteCatalog catalog = catalog(Routing.ROUND_ROBIN);
    await("both nodes", () -> catalog.nodes().stream().filter(RemoteNode::specsKnown).count() == 2);
    CompletableFuture<ResponseEnvelope<JsonNode>> running = catalog.call("demo.work", null);
    await("the call on node-a", () -> nodeOnA.node().stats().pending() == 1);

    CompletableFuture<Void> closed = CompletableFuture.runAsync(nodeOnA.node()::close);
    await("node-a to leave", () -> catalog.nodes().stream().anyMatch(RemoteNode::leaving));
    assertThat(nodeOnA.node().isDraining()).isTrue();
    for (int i = 0; i < 4; i++) {
      assertThat(catalog.call("demo.work", null).get(5, TimeUnit.SECONDS).data().asString())
          .isEqualTo("b");
    }
    // A caller that sends to node-a anyway is refused, retryably.
    PendingRequestMap direct = open(PendingRequestMap.create(open(new CuttablePubSub(bus))));
    CallError refused =
        failure(direct.call("demo.work", null, CallOptions.defaults().withNode("node-a")));
    assertThat(refused.code()).isEqualTo(ErrorCode.UNAVAILABLE);
    assertThat(refused.retryable()).isTrue();

    assertThat(closed).isNotDone();
    release.countDown();
    assertThat(running.get(5, TimeUnit.SECONDS).data().asString()).isEqualTo("a");
    closed.get(5, TimeUnit.SECONDS);
    await("node-a to be gone", () -> catalog.nodes().size() == 1);
  }

  @Test
  void aDrainThatRunsOutOfTimeCancelsWhatIsLeft() throws Exception {
    OperationRegistry registry = registry();
    OperationSpec hold = OperationSpec.builder("demo", "hold").build();
    registry.register(hold, Handler.async((in, c) -> new CompletableFuture<>()));
    CuttablePubSub client = open(new CuttablePubSub(bus));
    ServingNode node =
        open(
            ServingNode.builder(registry, client)
                .heartbeatInterval(INTERVAL)
                .drainTimeout(Duration.ofMillis(200))
                .start());
    RemoteCatalog catalog = catalog(Routing.LEAST_IN_FLIGHT);
    await("the spec", () -> catalog.spec("demo.hold").isPresent());
    CompletableFuture<ResponseEnvelope<JsonNode>> call = catalog.call("demo.hold", null);
    await("the call to run", () -> node.stats().pending() == 1);
    long start = System.nanoTime();
    node.close();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(150L, 2000L);
    assertThat(failure(call).code()).isEqualTo(ErrorCode.UNAVAILABLE);
    await("the node to be gone", () -> catalog.nodes().isEmpty());
  }

  // ------------------------------------------------------------------ a local registry

  @Test
  void remoteOperationsRunThroughALocalRegistryAndFollowTheNodes() throws Exception {
    OperationRegistry remote = registry();
    remote.register(ECHO, Handler.blocking((in, c) -> in));
    OperationSpec ticks =
        OperationSpec.builder("demo", "ticks").type(OperationType.SUBSCRIPTION).build();
    remote.register(ticks, Handler.publisher((in, c) -> NEVER));
    Node node = node("node-a", remote);
    RemoteCatalog catalog = catalog(Routing.LEAST_IN_FLIGHT);
    OperationRegistry local = registry();
    OperationSpec own = OperationSpec.builder("demo", "echo").description("mine").build();
    OperationRegistry withOwn = registry();
    withOwn.register(own, Handler.blocking((in, c) -> "local"));

    var proxies = catalog.registerInto(local);
    catalog.registerInto(withOwn);
    await("the proxies", () -> local.list().size() == 2);
    assertThat(local.getSpec("demo.echo")).contains(ECHO);
    assertThat(
            local
                .execute("demo.echo", java.util.Map.of("n", 7))
                .get(5, TimeUnit.SECONDS)
                .data()
                .get("n")
                .asInt())
        .isEqualTo(7);
    assertThat(withOwn.getSpec("demo.echo")).contains(own); // the local one stays
    assertThat(withOwn.execute("demo.echo", null).get(5, TimeUnit.SECONDS).data().asString())
        .isEqualTo("local");
    await(
        "the remote stream in the other registry", () -> withOwn.getSpec("demo.ticks").isPresent());

    node.node().close();
    await("the proxies to go", () -> local.list().isEmpty());
    proxies.remove();
  }
}
