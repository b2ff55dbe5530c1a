package dev.alkdev.operations.transport.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the transport takes from Redis and how it uses the server: oversized messages dropped, a
 * bounded delivery pool, scripts that touch only the keys they declare once the publisher knows the
 * topic's groups (D67, D85), and one publisher's messages in order while it learns them (D85). Each
 * test failed before its fix.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisHardeningTest {
  private static RedisServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = RedisServer.start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  private static RedisOptions.Builder options() {
    return RedisOptions.builder(server.url()).reconnectWait(Duration.ofMillis(50));
  }

  @Test
  void aMessageLargerThanTheLimitIsDroppedAndCounted() throws Exception {
    try (RedisPubSub pubsub = RedisPubSub.connect(options().maxMessageBytes(1024).build())) {
      List<Integer> received = new CopyOnWriteArrayList<>();
      pubsub.subscribe("sized", SubscribeOptions.defaults(), m -> received.add(m.payload().length));
      pubsub.flush(Duration.ofSeconds(10));
      // Any client of the server may publish; this one ignores the transport's limit.
      server.command("PUBLISH", "sized", "x".repeat(2000));
      server.command("PUBLISH", "sized", "y".repeat(10));
      RedisWaits.eventually("the small one arrives", () -> received.contains(10));
      assertThat(received).containsExactly(10);
      assertThat(pubsub.stats().oversizedMessages()).isEqualTo(1);
    }
  }

  @Test
  void handlersThatBlockDoNotGrowTheDeliveryThreadsWithoutBound() throws Exception {
    int topics = 100;
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger handled = new AtomicInteger();
    try (RedisPubSub pubsub = RedisPubSub.connect(options().connectionName("bounded").build())) {
      for (int i = 0; i < topics; i++) {
        pubsub.subscribe(
            "blocking." + i,
            SubscribeOptions.defaults(),
            m -> {
              try {
                release.await(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              handled.incrementAndGet();
            });
      }
      pubsub.flush(Duration.ofSeconds(10)); // every subscription in place
      for (int i = 0; i < topics; i++) {
        assertThat(pubsub.publish("blocking." + i, "x".getBytes(UTF_8)).get(10, TimeUnit.SECONDS))
            .isEqualTo(1);
      }
      Thread.sleep(1000); // a cached pool would have started a thread per waiting handler by now
      long threads =
          Thread.getAllStackTraces().keySet().stream()
              .filter(t -> t.isAlive() && t.getName().startsWith("ops-bounded-"))
              .filter(t -> t.getName().contains("-delivery-"))
              .count();
      assertThat(threads).isLessThanOrEqualTo(RedisPubSub.MAX_DELIVERY_THREADS);
      release.countDown();
      RedisWaits.eventually("every handler ran", () -> handled.get() == topics);
    }
  }

  @Test
  void thePublishScriptTouchesOnlyTheKeysItDeclaresOnceThePublisherKnowsTheGroups()
      throws Exception {
    // MONITOR shows each script call with its declared keys, then the commands it ran. The first
    // publish of a new publisher does not know the topic's group: it may read that group's members
    // list without declaring it (D85), and nothing else; every later one declares every key.
    List<String> lines = new CopyOnWriteArrayList<>();
    try (Socket monitor = new Socket(InetAddress.getLoopbackAddress(), server.port());
        RedisPubSub serving = RedisPubSub.connect(options().build());
        RedisPubSub publishing = RedisPubSub.connect(options().build())) {
      OutputStream out = monitor.getOutputStream();
      out.write("MONITOR\r\n".getBytes(UTF_8));
      out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(monitor.getInputStream(), UTF_8));
      assertThat(in.readLine()).isEqualTo("+OK");
      Thread reader =
          new Thread(
              () -> {
                try {
                  String line;
                  while ((line = in.readLine()) != null) {
                    lines.add(line);
                  }
                } catch (Exception e) {
                  // closed
                }
              });
      reader.setDaemon(true);
      reader.start();
      AtomicInteger got = new AtomicInteger();
      serving.subscribe("jobs", SubscribeOptions.queueGroup("workers"), m -> got.incrementAndGet());
      serving.flush(Duration.ofSeconds(10));
      for (int i = 0; i < 3; i++) {
        assertThat(publishing.publish("jobs", "x".getBytes(UTF_8)).get(10, TimeUnit.SECONDS))
            .isEqualTo(1);
      }
      RedisWaits.eventually("three delivered", () -> got.get() == 3);
      RedisWaits.eventually(
          "the monitor saw the publishes",
          () -> lines.stream().filter(l -> l.contains("[0 lua] \"RPOPLPUSH\"")).count() >= 3);
    }
    String workersOfJobs = "_ops:qm:7:workers:jobs";
    Set<String> declared = new HashSet<>();
    boolean publishing = false;
    List<Integer> undeclaredReadsPerPublish = new ArrayList<>();
    int checked = 0;
    for (String line : lines) {
      List<String> words = words(line);
      if (words.isEmpty()) {
        continue;
      }
      String command = words.get(0).toUpperCase(Locale.ROOT);
      if (!line.contains("[0 lua]")) {
        if (command.equals("EVAL") || command.equals("EVALSHA")) {
          int count = Integer.parseInt(words.get(2));
          declared = new HashSet<>(words.subList(3, 3 + count));
          // The publish script's first argument is the topic; the others' is a group.
          publishing = words.size() > 3 + count && words.get(3 + count).equals("jobs");
          if (publishing) {
            undeclaredReadsPerPublish.add(0);
          }
        }
        continue;
      }
      List<String> keys = new ArrayList<>();
      switch (command) {
        case "PUBLISH" -> {} // a channel, not a key
        case "RPOPLPUSH" -> keys.addAll(words.subList(1, 3));
        default -> keys.add(words.get(1));
      }
      for (String key : keys) {
        checked++;
        if (declared.contains(key)) {
          continue;
        }
        // Only a publish that did not know the group, and only that group's members list.
        assertThat(publishing).as("%s in a script declaring %s", line, declared).isTrue();
        assertThat(key).as("%s in a script declaring %s", line, declared).isEqualTo(workersOfJobs);
        int last = undeclaredReadsPerPublish.size() - 1;
        undeclaredReadsPerPublish.set(last, undeclaredReadsPerPublish.get(last) + 1);
      }
    }
    assertThat(checked).isPositive();
    assertThat(undeclaredReadsPerPublish).as("publishes seen").hasSize(3);
    assertThat(undeclaredReadsPerPublish.get(0)).as("the first publish read the list").isPositive();
    assertThat(undeclaredReadsPerPublish.subList(1, 3)).as("later publishes").containsOnly(0);
  }

  /**
   * A publisher sends its messages without waiting for each one's answer. When a publish named
   * fewer groups than the topic has, the script used to publish nothing and the publisher ran it
   * again: the publishes sent in the meantime went out ahead of it (PubSubContractTest saw "999
   * then 1" in CI). Now the script delivers and tells the publisher the groups (D85). Checked with
   * fresh publishers on a topic with a group, and with a second group joining while they publish.
   */
  @Test
  void aPublishersMessagesArriveInOrderWhileItLearnsTheTopicsGroups() throws Exception {
    int publishers = 3;
    int each = 2_000;
    try (RedisPubSub serving = RedisPubSub.connect(options().build())) {
      List<InOrder> receivers = new ArrayList<>();
      for (String group : new String[] {null, "first"}) {
        InOrder receiver = new InOrder(publishers);
        receivers.add(receiver);
        serving.subscribe(
            "ordered",
            (group == null ? SubscribeOptions.defaults() : SubscribeOptions.queueGroup(group))
                .withBufferSize(publishers * each),
            receiver);
      }
      serving.flush(Duration.ofSeconds(10));
      List<RedisPubSub> senders = new ArrayList<>();
      try {
        for (int p = 0; p < publishers; p++) {
          senders.add(RedisPubSub.connect(options().build()));
        }
        InOrder late = new InOrder(publishers);
        List<Thread> threads = new ArrayList<>();
        List<CompletableFuture<Integer>> sent = new CopyOnWriteArrayList<>();
        for (int p = 0; p < publishers; p++) {
          RedisPubSub sender = senders.get(p);
          int id = p;
          Thread thread =
              new Thread(
                  () -> {
                    for (int i = 0; i < each; i++) {
                      sent.add(sender.publish("ordered", (id + ":" + i).getBytes(UTF_8)));
                    }
                  });
          threads.add(thread);
          thread.start();
        }
        // A second group joins while the publishers are at it: their known groups go stale again.
        serving.subscribe(
            "ordered",
            SubscribeOptions.queueGroup("second").withBufferSize(publishers * each),
            late);
        for (Thread thread : threads) {
          thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        for (var future : sent) {
          future.get(10, TimeUnit.SECONDS);
        }
        for (InOrder receiver : receivers) {
          RedisWaits.eventually(
              "every message reached " + receiver, () -> receiver.count() == publishers * each);
        }
        for (InOrder receiver : receivers) {
          assertThat(receiver.problems).as("out of order").isEmpty();
        }
        assertThat(late.problems).as("out of order in the group that joined late").isEmpty();
      } finally {
        for (RedisPubSub sender : senders) {
          sender.close();
        }
      }
    }
  }

  /** Records, per publisher, any message that does not follow the one before it. */
  private static final class InOrder implements Consumer<Message> {
    final List<String> problems = new CopyOnWriteArrayList<>();
    private final int[] last;
    private final AtomicInteger count = new AtomicInteger();

    InOrder(int publishers) {
      last = new int[publishers];
      Arrays.fill(last, -1);
    }

    @Override
    public synchronized void accept(Message message) {
      String[] parts = new String(message.payload(), UTF_8).split(":");
      int publisher = Integer.parseInt(parts[0]);
      int index = Integer.parseInt(parts[1]);
      if (index <= last[publisher]) {
        problems.add("publisher " + publisher + ": " + last[publisher] + " then " + index);
      }
      last[publisher] = index;
      count.incrementAndGet();
    }

    int count() {
      return count.get();
    }
  }

  private static final Pattern QUOTED = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");

  private static List<String> words(String monitorLine) {
    List<String> words = new ArrayList<>();
    Matcher m = QUOTED.matcher(monitorLine.substring(Math.max(0, monitorLine.indexOf(']') + 1)));
    while (m.find()) {
      words.add(m.group(1));
    }
    return words;
  }

  /** Bounded waits. */
  static final class RedisWaits {
    static void eventually(String what, java.util.function.BooleanSupplier condition)
        throws InterruptedException {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!condition.getAsBoolean()) {
        if (System.nanoTime() - end > 0) {
          throw new AssertionError("timed out waiting until " + what);
        }
        Thread.sleep(20);
      }
    }
  }

  /**
   * A subscription goes out on the subscriber connection and a publish on the command connection:
   * without ordering, Redis could run a request published right after subscribing to its reply
   * inbox before the SUBSCRIBE, and the answer was lost (a remote catalog's first query found no
   * node now and then). Every answer here must arrive, with no flush between subscribe and publish.
   */
  @Test
  void anAnswerToAPublishMadeRightAfterSubscribingToItsInboxIsNeverLost() throws Exception {
    int rounds = 300;
    try (RedisPubSub responder = RedisPubSub.connect(options().build());
        RedisPubSub asker = RedisPubSub.connect(options().build())) {
      try (var served =
          responder.subscribe(
              "order.ask",
              SubscribeOptions.defaults(),
              message -> responder.publish(new String(message.payload(), UTF_8), new byte[] {1}))) {
        responder.flush(Duration.ofSeconds(5));
        AtomicInteger answered = new AtomicInteger();
        for (int i = 0; i < rounds; i++) {
          String inbox = "order.inbox." + i;
          CountDownLatch got = new CountDownLatch(1);
          try (var listening =
              asker.subscribe(
                  inbox,
                  SubscribeOptions.defaults(),
                  message -> {
                    answered.incrementAndGet();
                    got.countDown();
                  })) {
            asker.publish("order.ask", inbox.getBytes(UTF_8)).get(5, TimeUnit.SECONDS);
            got.await(2, TimeUnit.SECONDS);
          }
        }
        assertThat(answered.get()).as("answers received of " + rounds).isEqualTo(rounds);
      }
    }
  }
}
