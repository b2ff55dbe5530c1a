package dev.alkdev.operations.transport.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the transport takes from Redis and how it uses the server: oversized messages dropped, a
 * bounded delivery pool, and scripts that touch only the keys they declare (D67). Each test failed
 * before its fix.
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
  void thePublishScriptTouchesOnlyTheKeysItDeclares() throws Exception {
    // MONITOR shows each script call with its declared keys, then the commands it ran: every key
    // a script command uses must be among the keys of the call that ran it.
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
    Set<String> declared = new HashSet<>();
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
        assertThat(declared).as("%s in a script declaring %s", line, declared).contains(key);
        checked++;
      }
    }
    assertThat(checked).isPositive();
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
