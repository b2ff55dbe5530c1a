package dev.alkdev.operations.transport.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.OverflowPolicy;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/** What the Redis transport adds to the contract: its options, limits, outages and servers. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisPubSubTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static RedisServer server;

  private final List<AutoCloseable> toClose = Collections.synchronizedList(new ArrayList<>());

  @BeforeAll
  static void startServer() throws Exception {
    server = RedisServer.start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @AfterEach
  void closeAll() throws Exception {
    List<AutoCloseable> all = new ArrayList<>(toClose);
    Collections.reverse(all);
    for (AutoCloseable c : all) {
      c.close();
    }
  }

  private RedisPubSub connect(String url) {
    return closing(
        RedisPubSub.connect(
            RedisOptions.builder(url).reconnectWait(Duration.ofMillis(50)).build()));
  }

  private <T extends AutoCloseable> T closing(T resource) {
    toClose.add(resource);
    return resource;
  }

  @Nested
  class Threads {
    /**
     * D74: a subscriber that promised a non-blocking handler is run on Lettuce's event loop (no
     * hand-off), plain or in a queue group; any other handler never is, so one that blocks cannot
     * stall the connection.
     */
    @Test
    void aNonBlockingHandlerRunsOnTheEventLoopAndAnyOtherNeverDoes() throws Exception {
      RedisPubSub publisher = connect(server.url());
      RedisPubSub subscriber = connect(server.url());
      BlockingQueue<String> nonBlocking = new LinkedBlockingQueue<>();
      BlockingQueue<String> grouped = new LinkedBlockingQueue<>();
      BlockingQueue<String> normal = new LinkedBlockingQueue<>();
      subscriber.subscribe(
          "threads.t",
          SubscribeOptions.defaults().withNonBlockingHandler(),
          m -> nonBlocking.add(Thread.currentThread().getName()));
      subscriber.subscribe(
          "threads.t",
          SubscribeOptions.queueGroup("g").withNonBlockingHandler(),
          m -> grouped.add(Thread.currentThread().getName()));
      subscriber.subscribe(
          "threads.t",
          SubscribeOptions.defaults(),
          m -> normal.add(Thread.currentThread().getName()));
      subscriber.flush(WAIT);

      for (int i = 0; i < 20; i++) {
        assertThat(publisher.publish("threads.t", bytes("m" + i)).get(5, TimeUnit.SECONDS))
            .isEqualTo(2);
      }
      for (int i = 0; i < 20; i++) {
        assertThat(take(nonBlocking)).as("non-blocking, plain").matches(LETTUCE_EVENT_LOOP);
        assertThat(take(grouped)).as("non-blocking, queue group").matches(LETTUCE_EVENT_LOOP);
        assertThat(take(normal))
            .as("a handler that did not promise")
            .doesNotMatch(LETTUCE_EVENT_LOOP)
            .startsWith("ops-");
      }
    }

    private static final String LETTUCE_EVENT_LOOP = "lettuce-.*EventLoop.*";

    private String take(BlockingQueue<String> queue) throws InterruptedException {
      String name = queue.poll(10, TimeUnit.SECONDS);
      if (name == null) {
        throw new AssertionError("no message within 10 s");
      }
      return name;
    }
  }

  @Nested
  class ReceiverCounts {
    @Test
    void aPublishNobodyReceivesIsZeroAndOneSomebodyReceivesCountsThem() throws Exception {
      RedisPubSub publisher = connect(server.url());
      RedisPubSub subscriber = connect(server.url());
      assertThat(publisher.publish("counts.nobody", bytes("x")).get(5, TimeUnit.SECONDS)).isZero();
      Inbox inbox = new Inbox();
      subscriber.subscribe("counts.somebody", SubscribeOptions.defaults(), inbox);
      subscriber.subscribe("counts.somebody", SubscribeOptions.queueGroup("g"), inbox);
      subscriber.flush(WAIT);

      assertThat(publisher.publish("counts.somebody", bytes("y")).get(5, TimeUnit.SECONDS))
          .as("the subscribed connection and one group")
          .isEqualTo(2);
      assertThat(inbox.texts(2)).containsExactly("y", "y");
    }

    @Test
    void aCallToAnOperationNobodyServesFailsWithNoRespondersWithin100Ms() throws Exception {
      RedisPubSub caller = connect(server.url());
      PendingRequestMap calls = closing(PendingRequestMap.create(caller));
      caller.flush(WAIT);
      // The first call of the JVM loads and compiles the protocol's classes: not what is measured.
      assertThat(failure(calls.call("nobody.serves", JSON.createObjectNode())).code())
          .isEqualTo(ErrorCode.NO_RESPONDERS);
      long start = System.nanoTime();

      CallError error = failure(calls.call("nobody.serves", JSON.createObjectNode()));

      assertThat(error.code()).isEqualTo(ErrorCode.NO_RESPONDERS);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(100);
    }

    @Test
    void aCallReachesExactlyOneOfTwoServersOfTheQueueGroup() throws Exception {
      RedisPubSub caller = connect(server.url());
      AtomicInteger runs = new AtomicInteger();
      List<OperationRegistry> registries = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        OperationRegistry registry = closing(OperationRegistry.create());
        registry.register(
            OperationSpec.builder("once", "only").build(),
            Handler.blocking((in, ctx) -> runs.incrementAndGet()));
        RedisPubSub node = connect(server.url());
        closing(CallHandler.serve(registry, node));
        node.flush(WAIT);
        registries.add(registry);
      }
      PendingRequestMap calls = closing(PendingRequestMap.create(caller));
      caller.flush(WAIT);

      for (int i = 0; i < 50; i++) {
        calls.call("once.only", JSON.createObjectNode()).get(5, TimeUnit.SECONDS);
      }

      assertThat(runs).as("each call ran once").hasValue(50);
    }
  }

  @Nested
  class Topics {
    @Test
    void theTransportsOwnChannelsAndEmptyTopicsAreRefused() throws Exception {
      RedisPubSub client = connect(server.url());
      for (String topic : List.of("_ops.q.someone.1.1", "")) {
        CallError error = failure(client.publish(topic, bytes("x")));
        assertThat(error.code()).as(topic).isEqualTo(ErrorCode.INVALID_INPUT);
        assertThat(error.retryable()).isFalse();
        assertThatThrownBy(() -> client.subscribe(topic, SubscribeOptions.defaults(), m -> {}))
            .isInstanceOf(IllegalArgumentException.class);
      }
      assertThatThrownBy(() -> client.subscribe("t", SubscribeOptions.queueGroup(""), m -> {}))
          .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anyOtherTopicIsAChannelUnchanged() throws Exception {
      RedisPubSub publisher = connect(server.url());
      RedisPubSub subscriber = connect(server.url());
      List<String> topics = List.of("a.*", "a b", "ünï.cödé", "ops.req.billing.refund", "x:y");
      Inbox inbox = new Inbox();
      for (String topic : topics) {
        subscriber.subscribe(topic, SubscribeOptions.defaults(), inbox);
      }
      subscriber.flush(WAIT);
      for (String topic : topics) {
        assertThat(publisher.publish(topic, bytes(topic)).get(5, TimeUnit.SECONDS)).isEqualTo(1);
      }
      List<String> got = new ArrayList<>();
      for (int i = 0; i < topics.size(); i++) {
        Message m = inbox.next();
        assertThat(m.topic()).isEqualTo(new String(m.payload(), UTF_8));
        got.add(m.topic());
      }
      // Five subscriptions, each delivering on its own: no order across them.
      assertThat(got).containsExactlyInAnyOrderElementsOf(topics);
      assertThat(server.command("PUBSUB", "NUMSUB", "a b")).as("raw reply").isNotEmpty();
    }
  }

  @Nested
  class Limits {
    @Test
    void theServersHardPubSubBufferLimitWinsOverALargerConfiguredLimit() throws Exception {
      try (RedisServer small =
          RedisServer.start("--client-output-buffer-limit", "pubsub 256kb 128kb 60")) {
        RedisPubSub client = connect(small.url());
        assertThat(client.maxMessageBytes()).isEqualTo(256 * 1024);
        CallError error = failure(client.publish("big", new byte[256 * 1024 + 1]));
        assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
        assertThat(error.getMessage()).contains("262145", "262144");
      }
    }

    @Test
    void aSmallerConfiguredLimitWins() {
      RedisPubSub client =
          closing(
              RedisPubSub.connect(
                  RedisOptions.builder(server.url()).maxMessageBytes(1000).build()));
      assertThat(client.maxMessageBytes()).isEqualTo(1000);
    }
  }

  @Nested
  class Outages {
    @Test
    void aServerRestartRefusesPublishesMeanwhileAndRestoresSubscriptionsAndGroups()
        throws Exception {
      try (RedisServer own = RedisServer.start()) {
        RedisPubSub publisher = connect(own.url());
        RedisPubSub subscriber = connect(own.url());
        Inbox plain = new Inbox();
        Inbox member = new Inbox();
        subscriber.subscribe("survives", SubscribeOptions.defaults(), plain);
        subscriber.subscribe("survives", SubscribeOptions.queueGroup("workers"), member);
        subscriber.flush(WAIT);
        CountDownLatch told = new CountDownLatch(2);
        publisher.onDisconnect(told::countDown);
        subscriber.onDisconnect(told::countDown);

        own.kill();
        assertThat(told.await(3, TimeUnit.SECONDS)).as("both told of the outage").isTrue();
        CallError refused = failure(publisher.publish("survives", bytes("during")));
        assertThat(refused.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(refused.getMessage()).contains("nothing is buffered");

        own.restart(); // empty: the group registry is gone with the old process
        eventually("both reconnected", () -> publisher.isConnected() && subscriber.isConnected());
        subscriber.flush(WAIT);
        assertThat(publisher.publish("survives", bytes("after")).get(5, TimeUnit.SECONDS))
            .as("the subscription and the group membership were restored on the new server")
            .isEqualTo(2);
        assertThat(plain.texts(1)).as("what was refused never arrives").containsExactly("after");
        assertThat(member.texts(1)).containsExactly("after");
        RedisPubSub.Stats stats = publisher.stats();
        assertThat(stats.disconnects()).as("both connections").isEqualTo(2);
        assertThat(stats.reconnects()).isEqualTo(2);
        assertThat(stats.refusedPublishes()).isEqualTo(1);
      }
    }

    @Test
    void connectingToNothingFailsWithUnavailable() throws Exception {
      int nobody = RedisServer.freePort();
      assertThatThrownBy(
              () ->
                  RedisPubSub.connect(
                      RedisOptions.builder("redis://127.0.0.1:" + nobody)
                          .connectTimeout(Duration.ofMillis(500))
                          .build()))
          .isInstanceOfSatisfying(
              CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
    }

    @Test
    void reconnectionAttemptsSpentCloseTheTransport() throws Exception {
      try (RedisServer own = RedisServer.start()) {
        RedisPubSub client =
            closing(
                RedisPubSub.connect(
                    RedisOptions.builder(own.url())
                        .reconnectWait(Duration.ofMillis(20))
                        .connectTimeout(Duration.ofMillis(200))
                        .maxReconnects(2)
                        .build()));
        own.kill();
        eventually(
            "closed after two attempts",
            () -> client.publish("t", bytes("x")).isCompletedExceptionally() && closedNow(client));
        assertThatThrownBy(() -> client.subscribe("t", SubscribeOptions.defaults(), m -> {}))
            .isInstanceOf(CallError.class);
      }
    }

    private boolean closedNow(RedisPubSub client) {
      try {
        client.subscribe("probe", SubscribeOptions.defaults(), m -> {}).close();
        return false;
      } catch (CallError e) {
        return e.getMessage().contains("closed");
      }
    }
  }

  @Nested
  class SlowSubscribers {
    @Test
    void aSlowSubscriberDropsAndCountsWithoutHoldingUpTheConnection() throws Exception {
      RedisPubSub publisher = connect(server.url());
      RedisPubSub subscriber = connect(server.url());
      CountDownLatch entered = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      AtomicInteger slowGot = new AtomicInteger();
      PubSub.Subscription slow =
          subscriber.subscribe(
              "slow.topic",
              SubscribeOptions.defaults().withBufferSize(10).withOverflow(OverflowPolicy.REJECT),
              m -> {
                entered.countDown();
                await(release);
                slowGot.incrementAndGet();
              });
      Inbox fast = new Inbox();
      subscriber.subscribe("fast.topic", SubscribeOptions.defaults(), fast);
      subscriber.flush(WAIT);

      publisher.publish("slow.topic", bytes("s0"));
      assertThat(entered.await(10, TimeUnit.SECONDS)).as("the slow handler got its first").isTrue();
      List<CompletableFuture<Integer>> sent = new ArrayList<>();
      for (int i = 1; i < 500; i++) {
        sent.add(publisher.publish("slow.topic", bytes("s" + i)));
      }
      publisher.publish("fast.topic", bytes("f"));

      assertThat(fast.texts(1))
          .as("the same connection's other subscription is not held up")
          .containsExactly("f");
      eventually("the slow subscription's overflow counted", () -> slow.dropped() == 489);
      assertThat(subscriber.stats().droppedMessages()).isEqualTo(489);
      release.countDown();
      eventually("what fit in the buffer is delivered", () -> slowGot.get() == 11);
      assertThat(subscriber.isConnected()).isTrue();
      for (CompletableFuture<Integer> f : sent) {
        assertThat(f.get(5, TimeUnit.SECONDS)).as("Redis delivered it").isEqualTo(1);
      }
    }
  }

  @Nested
  class Servers {
    @Test
    void anAclUserAndPasswordAreSentAndAWrongOneIsRefusedWithoutPrintingIt() throws Exception {
      try (RedisServer secured =
          RedisServer.start(
              "--user",
              "alice",
              "on",
              ">s3cret-pw",
              "~*",
              "&*",
              "+@all",
              "--user",
              "default",
              "off")) {
        RedisPubSub inUrl = connect("redis://alice:s3cret-pw@127.0.0.1:" + secured.port());
        assertThat(inUrl.publish("t", bytes("x")).get(5, TimeUnit.SECONDS)).isZero();
        RedisPubSub given =
            closing(
                RedisPubSub.connect(
                    RedisOptions.builder(secured.url())
                        .credentials("alice", "s3cret-pw".toCharArray())
                        .build()));
        assertThat(given.publish("t", bytes("x")).get(5, TimeUnit.SECONDS)).isZero();

        RedisOptions wrong =
            RedisOptions.builder("redis://alice:wrong-pw@127.0.0.1:" + secured.port()).build();
        assertThat(wrong.toString()).doesNotContain("wrong-pw");
        assertThatThrownBy(() -> RedisPubSub.connect(wrong))
            .isInstanceOfSatisfying(
                CallError.class,
                e -> {
                  assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
                  assertThat(e.getMessage()).doesNotContain("wrong-pw");
                });
        assertThatThrownBy(() -> RedisPubSub.connect(RedisOptions.builder(secured.url()).build()))
            .isInstanceOf(CallError.class);
      }
    }

    @Test
    void theDatabaseOfTheUrlHoldsTheGroupRegistry() throws Exception {
      try (RedisServer own = RedisServer.start()) {
        RedisPubSub client = connect(own.url() + "/3");
        client.subscribe("db.topic", SubscribeOptions.queueGroup("g"), m -> {});
        client.flush(WAIT);
        assertThat(own.command("INFO", "keyspace")).contains("db3:keys=2").doesNotContain("db0:");
      }
    }

    @Test
    void aRedisClusterNodeIsRefusedWithTheReason(@TempDir Path dir) throws Exception {
      try (RedisServer clustered =
          RedisServer.start(
              "--cluster-enabled",
              "yes",
              "--cluster-config-file",
              dir.resolve("nodes.conf").toString())) {
        assertThatThrownBy(() -> RedisPubSub.connect(RedisOptions.builder(clustered.url()).build()))
            .isInstanceOfSatisfying(
                CallError.class,
                e -> {
                  assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT);
                  assertThat(e.getMessage()).contains("Redis Cluster", "not supported");
                });
      }
    }

    @Test
    void sentinelFindsTheMaster(@TempDir Path dir) throws Exception {
      try (RedisServer master = RedisServer.start()) {
        Path config = dir.resolve("sentinel.conf");
        Files.writeString(
            config,
            "sentinel monitor ops-master 127.0.0.1 "
                + master.port()
                + " 1\nsentinel down-after-milliseconds ops-master 5000\n");
        try (RedisServer sentinel = RedisServer.start(config.toString(), "--sentinel")) {
          RedisPubSub viaSentinel =
              connect("redis-sentinel://127.0.0.1:" + sentinel.port() + "#ops-master");
          RedisPubSub direct = connect(master.url());
          Inbox inbox = new Inbox();
          direct.subscribe("through.sentinel", SubscribeOptions.defaults(), inbox);
          direct.flush(WAIT);
          assertThat(viaSentinel.publish("through.sentinel", bytes("hi")).get(5, TimeUnit.SECONDS))
              .isEqualTo(1);
          assertThat(inbox.texts(1)).containsExactly("hi");
        }
      }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void afterASentinelFailoverTheTransportFollowsTheNewMaster(@TempDir Path dir) throws Exception {
      try (RedisServer master = RedisServer.start()) {
        try (RedisServer replica =
            RedisServer.start("--replicaof", "127.0.0.1", String.valueOf(master.port()))) {
          Path config = dir.resolve("sentinel.conf");
          Files.writeString(
              config,
              "sentinel monitor ops-master 127.0.0.1 "
                  + master.port()
                  + " 1\nsentinel down-after-milliseconds ops-master 1000\n"
                  + "sentinel failover-timeout ops-master 10000\n");
          try (RedisServer sentinel = RedisServer.start(config.toString(), "--sentinel")) {
            eventually(
                "the sentinel knows the replica",
                () -> {
                  try {
                    return sentinel.command("SENTINEL", "REPLICAS", "ops-master").startsWith("*1");
                  } catch (java.io.IOException e) {
                    return false;
                  }
                });
            String url = "redis-sentinel://127.0.0.1:" + sentinel.port() + "#ops-master";
            RedisPubSub publisher = connect(url);
            RedisPubSub subscriber = connect(url);
            Inbox inbox = new Inbox();
            subscriber.subscribe("follows", SubscribeOptions.defaults(), inbox);
            subscriber.flush(WAIT);
            assertThat(publisher.publish("follows", bytes("before")).get(5, TimeUnit.SECONDS))
                .isEqualTo(1);

            assertThat(inbox.texts(1)).containsExactly("before");

            master.kill(); // the sentinel promotes the replica after a second of silence

            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int receivers = 0;
            while (receivers != 1 && System.nanoTime() - end < 0) {
              Thread.sleep(200);
              if (publisher.isConnected() && subscriber.isConnected()) {
                try {
                  receivers = publisher.publish("follows", bytes("after")).get(5, TimeUnit.SECONDS);
                } catch (ExecutionException notYet) {
                  receivers = 0;
                }
              }
            }
            assertThat(receivers).as("published through the new master").isEqualTo(1);
            assertThat(replica.command("INFO", "replication"))
                .as("the replica was promoted")
                .contains("role:master");
            assertThat(inbox.texts(1)).containsExactly("after");
          }
        }
      }
    }

    @Test
    void tlsIsVerifiedAgainstTheTrustedCertificates(@TempDir Path dir) throws Exception {
      Assumptions.assumeTrue(
          Files.isExecutable(Path.of("/usr/bin/openssl")), "openssl makes the test certificates");
      openssl(
          dir,
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          "ca.key",
          "-out",
          "ca.crt",
          "-days",
          "2",
          "-subj",
          "/CN=ops-test-ca");
      openssl(
          dir,
          "req",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          "server.key",
          "-out",
          "server.csr",
          "-subj",
          "/CN=localhost");
      Files.writeString(dir.resolve("ext.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
      openssl(
          dir,
          "x509",
          "-req",
          "-in",
          "server.csr",
          "-CA",
          "ca.crt",
          "-CAkey",
          "ca.key",
          "-CAcreateserial",
          "-out",
          "server.crt",
          "-days",
          "2",
          "-extfile",
          "ext.cnf");
      int tlsPort = RedisServer.freePort();
      try (RedisServer tls =
          RedisServer.start(
              "--tls-port", String.valueOf(tlsPort),
              "--tls-cert-file", dir.resolve("server.crt").toString(),
              "--tls-key-file", dir.resolve("server.key").toString(),
              "--tls-ca-cert-file", dir.resolve("ca.crt").toString(),
              "--tls-auth-clients", "no")) {
        String url = "rediss://127.0.0.1:" + tlsPort;
        RedisPubSub secure =
            closing(
                RedisPubSub.connect(
                    RedisOptions.builder(url).trustedCertificates(dir.resolve("ca.crt")).build()));
        RedisPubSub plain = connect(tls.url());
        Inbox inbox = new Inbox();
        plain.subscribe("over.tls", SubscribeOptions.defaults(), inbox);
        plain.flush(WAIT);
        assertThat(secure.publish("over.tls", bytes("sealed")).get(5, TimeUnit.SECONDS))
            .isEqualTo(1);
        assertThat(inbox.texts(1)).containsExactly("sealed");

        assertThatThrownBy(
                () ->
                    RedisPubSub.connect(
                        RedisOptions.builder(url).connectTimeout(Duration.ofSeconds(2)).build()))
            .as("the JDK's trust store does not know the test CA")
            .isInstanceOfSatisfying(
                CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
      }
    }

    private void openssl(Path dir, String... args) throws Exception {
      List<String> command = new ArrayList<>();
      command.add("/usr/bin/openssl");
      command.addAll(List.of(args));
      Process p =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as("openssl " + args[0]).isZero();
    }

    @Test
    void urlsOfOtherSchemesAreRefused() {
      for (String url : List.of("http://127.0.0.1:6379", "127.0.0.1:6379", "nats://x:4222")) {
        assertThatThrownBy(() -> RedisOptions.builder(url))
            .as(url)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("redis://");
      }
      assertThat(RedisOptions.builder("redis://u:pw@h:1/2").build().displayUrl())
          .isEqualTo("redis://u:***@h:1/2");
      assertThat(RedisOptions.builder("redis://:pw@h:1").build().displayUrl())
          .isEqualTo("redis://:***@h:1");
      // A URL the parser refuses: its message must not quote the password back.
      assertThatThrownBy(() -> RedisOptions.builder("redis://u:s3cr:et @h^:1"))
          .isInstanceOf(IllegalArgumentException.class)
          .satisfies(
              e -> {
                assertThat(e.getMessage()).doesNotContain("s3cr").doesNotContain("et ");
                assertThat(e.getCause()).isNull();
              });
    }
  }

  // ------------------------------------------------------------------ helpers

  static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }

  static CallError failure(CompletableFuture<?> future) throws Exception {
    try {
      future.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof CallError error) {
        return error;
      }
      throw e;
    }
    throw new AssertionError("expected a failure, got a result");
  }

  static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("not released within 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("not within " + WAIT + ": " + what);
      }
      Thread.sleep(10);
    }
  }

  static final class Inbox implements Consumer<Message> {
    private final BlockingQueue<Message> messages = new LinkedBlockingQueue<>();

    @Override
    public void accept(Message message) {
      messages.add(message);
    }

    Message next() throws InterruptedException {
      Message m = messages.poll(10, TimeUnit.SECONDS);
      if (m == null) {
        throw new AssertionError("no message within 10 s");
      }
      return m;
    }

    List<String> texts(int count) throws InterruptedException {
      List<String> texts = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        texts.add(new String(next().payload(), UTF_8));
      }
      return texts;
    }
  }
}
