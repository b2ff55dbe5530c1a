package dev.alkdev.operations.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.protocol.CallEvent;
import dev.alkdev.operations.protocol.CallEvents;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import tools.jackson.databind.node.NullNode;

/**
 * What the pub/sub contract suite ({@link PubSubContractTest}) stands on: the hooks a transport's
 * test implements, the clients each test opens (closed when it ends), topics of its own, and the
 * helpers its tests share. Every wait is bounded ({@link #WAIT}).
 */
public abstract class PubSubFixture {
  /** The longest any one wait of the suite takes before the test fails. */
  protected static final Duration WAIT = Duration.ofSeconds(10);

  /** What "at once" means: a disconnect reaches its listeners within this. */
  protected static final Duration PROMPTLY = Duration.ofSeconds(3);

  final List<PubSub> clients = Collections.synchronizedList(new ArrayList<>());

  // Topics of this test only, so that tests sharing a broker cannot hear each other.
  final String topicPrefix =
      "pubsub-contract." + UUID.randomUUID().toString().substring(0, 8) + ".";

  PubSubFixture() {}

  // ------------------------------------------------------------------ hooks

  /**
   * Opens a client of the transport under test, connected to the bus every other client of this
   * test reaches. A remote transport opens a new connection to the same broker (or hub) each time;
   * the in-process transport returns the test's one instance. Clients that are distinct objects
   * must be independent (closing one leaves the others connected). The suite closes every client it
   * opened when the test ends, and a test may close one earlier.
   */
  protected abstract PubSub connect() throws Exception;

  /**
   * Waits until the subscriptions made and closed so far are in effect everywhere: the suite calls
   * it after subscribing (before publishing what the subscription must receive) and after closing a
   * subscription (before counting receivers). In-process subscriptions take effect at once, so the
   * default does nothing; a transport whose subscriptions reach a broker asynchronously (NATS,
   * Redis) waits here, for example by a round trip on each client it opened.
   */
  protected void awaitPropagation() throws Exception {}

  /**
   * Whether {@link PubSub#publish}'s count is exact: the number of subscriptions the message was
   * handed to, every plain subscriber plus one per queue group. A transport that cannot count (a
   * fire-and-forget publish) returns false; the tests of counts are then skipped, and the transport
   * must report NO_RESPONDERS to callers some other way.
   */
  protected boolean countsReceivers() {
    return true;
  }

  /**
   * Whether a publish fails with RESOURCE_EXHAUSTED when a receiving subscription with the REJECT
   * policy is full. True where the publisher sees the receiving buffers (in-process); a transport
   * that delivers through a broker cannot tell its publisher, returns false, and must instead drop
   * and count the message ({@link PubSub.Subscription#dropped()}), which the suite then checks.
   */
  protected boolean tellsPublisherOfRejection() {
    return true;
  }

  /**
   * Cuts {@code client} off the bus as a network failure would (close its socket, stop the broker)
   * and keeps it cut off for the rest of the test, so that its {@link PubSub#onDisconnect} actions
   * run and its publishes are refused. The default cannot, and skips the test that needs it.
   */
  protected void severConnection(PubSub client) throws Exception {
    Assumptions.abort(
        "the transport under test cannot provoke a disconnect: override severConnection");
  }

  /**
   * Cuts {@code client}'s connections of the moment, as a network failure or a broker restart
   * would, and lets it connect again: the suite's reconnection tests then check that it does, and
   * what it promises around it. A relay in front of the broker does it ({@link
   * TcpProxy#dropConnections()}). The default cannot, and skips those tests.
   */
  protected void interruptConnection(PubSub client) throws Exception {
    Assumptions.abort(
        "the transport under test cannot provoke a reconnection: override interruptConnection");
  }

  // ------------------------------------------------------------------ fixture

  @AfterEach
  public void closeClients() {
    List<PubSub> toClose;
    synchronized (clients) {
      toClose = new ArrayList<>(clients);
      clients.clear();
    }
    Collections.reverse(toClose);
    RuntimeException first = null;
    for (PubSub client : toClose) {
      try {
        client.close();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** A new client of the transport under test, closed when the test ends. */
  protected final PubSub client() throws Exception {
    PubSub client = Objects.requireNonNull(connect(), "connect() returned null");
    clients.add(client);
    return client;
  }

  /** A topic of this test's own, named after {@code name}. */
  protected final String topic(String name) {
    return topicPrefix + name;
  }

  /** An operation id of this test's own (the call protocol's request topics carry it). */
  String operation(String name) {
    return "contract" + topicPrefix.substring(16, 24) + "." + name;
  }

  /** A caller's inbox topic of this test's own. */
  String inbox(String name) {
    return ProtocolTopics.INBOX_PREFIX + topicPrefix.substring(16, 24) + "-" + name;
  }

  /**
   * A {@code call.requested} whose reply goes to {@code inbox}: an inbox hears only answers (a hub
   * lets a client publish to another's inbox only to answer a request it delivered to it).
   */
  static byte[] request(String requestId, String operationId, String inbox) {
    return CallEvents.encode(
        new CallEvent.Requested(
            requestId,
            operationId,
            NullNode.getInstance(),
            Optional.empty(),
            Optional.empty(),
            OptionalLong.empty(),
            Optional.of(inbox),
            OptionalLong.empty(),
            CallMetadata.empty()));
  }

  /** Answers each request it receives with a {@code call.responded} to its reply topic. */
  static Consumer<Message> answering(PubSub server) {
    return message -> {
      CallEvent.Requested request =
          (CallEvent.Requested) CallEvents.decode(message.payload(), Integer.MAX_VALUE);
      server.publish(
          request.replyTo().orElseThrow(),
          CallEvents.encode(
              new CallEvent.Responded(
                  request.requestId(),
                  Envelopes.localEnvelope(NullNode.getInstance(), request.operationId()))));
    };
  }

  /** The request id a reply answers. */
  static String replyTo(Message reply) {
    return ((CallEvent.CallScoped) CallEvents.decode(reply.payload(), Integer.MAX_VALUE))
        .requestId();
  }

  /**
   * Waits until {@code client} counted a reconnect and publishes again (a transport with more than
   * one connection may count one before the others are back), then for the subscriptions to be in
   * effect.
   */
  void awaitReconnected(PubSub client, long reconnectsBefore) throws Exception {
    eventually(
        "the client reconnected", () -> client.transportStats().reconnects() > reconnectsBefore);
    String probe = topic("probe");
    eventually(
        "the client publishes again",
        () -> {
          try {
            client.publish(probe, utf8("probe")).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            return true;
          } catch (Exception refused) {
            return false;
          }
        });
    awaitPropagation();
  }

  // ------------------------------------------------------------------ helpers

  /**
   * Publishes {@code each} messages "p:i" from each of {@code publishers} clients at once, each
   * client from a thread of its own, one message after another without waiting for the futures (as
   * the call protocol publishes), and returns every publish's count once all completed.
   */
  List<Integer> publishAtOnce(String topic, int publishers, int each) throws Exception {
    List<PubSub> senders = new ArrayList<>();
    for (int p = 0; p < publishers; p++) {
      senders.add(client());
    }
    CountDownLatch start = new CountDownLatch(1);
    List<CompletableFuture<List<CompletableFuture<Integer>>>> sending = new ArrayList<>();
    for (int p = 0; p < publishers; p++) {
      int publisher = p;
      CompletableFuture<List<CompletableFuture<Integer>>> futures = new CompletableFuture<>();
      sending.add(futures);
      Thread thread =
          new Thread(
              () -> {
                try {
                  awaitLatch(start, "the start");
                  List<CompletableFuture<Integer>> sent = new ArrayList<>(each);
                  for (int i = 0; i < each; i++) {
                    sent.add(senders.get(publisher).publish(topic, utf8(publisher + ":" + i)));
                  }
                  futures.complete(sent);
                } catch (Throwable e) {
                  futures.completeExceptionally(e);
                }
              },
              "contract-publisher-" + p);
      thread.setDaemon(true);
      thread.start();
    }
    start.countDown();
    List<Integer> counts = new ArrayList<>();
    for (CompletableFuture<List<CompletableFuture<Integer>>> futures : sending) {
      for (CompletableFuture<Integer> future : await(futures)) {
        counts.add(published(future));
      }
    }
    return counts;
  }

  /**
   * Publishes from a thread of its own: an in-process transport may run an idle subscription's
   * handler on the publisher's thread, and the tests that hold a handler must not hold themselves.
   */
  static CompletableFuture<Integer> publishElsewhere(PubSub publisher, String topic, String text) {
    return CompletableFuture.supplyAsync(() -> publisher.publish(topic, utf8(text)))
        .thenCompose(f -> f);
  }

  void assumeCounts() {
    Assumptions.assumeTrue(
        countsReceivers(), "the transport under test does not count receivers (countsReceivers)");
  }

  /** Waits for a publish to succeed and checks its count, where the transport counts receivers. */
  void assertCount(CompletableFuture<Integer> publish, int expected) {
    int count = published(publish);
    if (countsReceivers()) {
      assertThat(count).as("receivers of the message").isEqualTo(expected);
    }
  }

  /** Waits for a publish to succeed, and returns its count. */
  protected static int published(CompletableFuture<Integer> publish) {
    return await(publish);
  }

  /** Waits for a future's value; fails the test if it fails or takes longer than {@link #WAIT}. */
  protected static <T> T await(CompletableFuture<T> future) {
    return Waits.value(future, WAIT);
  }

  /** Waits for a future to fail with a {@link CallError}, and returns it. */
  protected static CallError failure(CompletableFuture<?> future) {
    return Waits.failure(future, WAIT);
  }

  protected static void awaitLatch(CountDownLatch latch, String what) {
    Waits.latch(latch, what, WAIT);
  }

  /** Polls {@code condition} until it holds, failing after {@link #WAIT}. */
  protected static void eventually(String what, BooleanSupplier condition) {
    Waits.eventually(what, WAIT, condition);
  }

  protected static byte[] utf8(String text) {
    return text.getBytes(UTF_8);
  }

  protected static String text(Message message) {
    return new String(message.payload(), UTF_8);
  }

  static byte[] patterned(int size) {
    byte[] bytes = new byte[size];
    for (int i = 0; i < size; i++) {
      bytes[i] = (byte) (i % 251);
    }
    return bytes;
  }

  /** Records messages for the test to read, waiting a bounded time for each. */
  static final class Inbox implements Consumer<Message> {
    private final BlockingQueue<Message> messages = new LinkedBlockingQueue<>();

    @Override
    public void accept(Message message) {
      messages.add(message);
    }

    Message next() throws InterruptedException {
      Message message = messages.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      if (message == null) {
        return fail("no message within " + WAIT);
      }
      return message;
    }

    List<String> texts(int count) throws InterruptedException {
      List<String> texts = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        texts.add(text(next()));
      }
      return texts;
    }

    boolean isEmpty() {
      return messages.isEmpty();
    }
  }

  /**
   * Counts deliveries of messages "p:i" across the subscriptions that share it (the members of a
   * queue group, or one plain subscriber), and waits until every distinct message arrived.
   */
  static final class Tally {
    private final Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    private final AtomicInteger deliveries = new AtomicInteger();
    private final CountDownLatch distinct;

    Tally(int expected) {
      this.distinct = new CountDownLatch(expected);
    }

    void record(String text) {
      deliveries.incrementAndGet();
      if (seen.computeIfAbsent(text, k -> new AtomicInteger()).incrementAndGet() == 1) {
        distinct.countDown();
      }
    }

    void awaitAll(String what) {
      awaitLatch(distinct, what);
    }

    int deliveries() {
      return deliveries.get();
    }

    List<String> deliveredMoreThanOnce() {
      return seen.entrySet().stream()
          .filter(e -> e.getValue().get() > 1)
          .map(Map.Entry::getKey)
          .toList();
    }
  }

  /**
   * One subscription's handler for messages "p:i": checks that it is called one message at a time
   * and that each publisher's messages come in order (gaps are allowed: a queue group's member sees
   * a share), and records each delivery in a {@link Tally}.
   */
  static final class Sequence implements Consumer<Message> {
    final Tally tally;
    final List<String> problems = new CopyOnWriteArrayList<>();
    private final Map<Integer, Integer> lastSeen = new ConcurrentHashMap<>();
    private final AtomicInteger inHandler = new AtomicInteger();
    private final AtomicInteger received = new AtomicInteger();

    Sequence(Tally tally) {
      this.tally = tally;
    }

    @Override
    public void accept(Message message) {
      if (inHandler.incrementAndGet() != 1) {
        problems.add("two messages handled at once");
      }
      try {
        String text = text(message);
        String[] parts = text.split(":");
        int publisher = Integer.parseInt(parts[0]);
        int sequence = Integer.parseInt(parts[1]);
        Integer previous = lastSeen.put(publisher, sequence);
        if (previous != null && sequence <= previous) {
          problems.add("publisher " + publisher + ": " + previous + " then " + sequence);
        }
        received.incrementAndGet();
        tally.record(text);
      } finally {
        inHandler.decrementAndGet();
      }
    }

    int received() {
      return received.get();
    }
  }

  /** A handler that holds its first message until opened, so the buffer behind it fills. */
  static final class Gate implements Consumer<Message> {
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch opened = new CountDownLatch(1);
    private final List<String> handled = new CopyOnWriteArrayList<>();

    @Override
    public void accept(Message message) {
      entered.countDown();
      try {
        if (!opened.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
          throw new IllegalStateException("the gate was never opened");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      handled.add(text(message));
    }

    void awaitEntered() {
      awaitLatch(entered, "the handler took the first message");
    }

    void open() {
      opened.countDown();
    }

    /** Waits until {@code count} messages were handled, then returns all handled so far. */
    List<String> awaitHandled(int count) {
      eventually(count + " messages handled", () -> handled.size() >= count);
      return List.copyOf(handled);
    }
  }
}
