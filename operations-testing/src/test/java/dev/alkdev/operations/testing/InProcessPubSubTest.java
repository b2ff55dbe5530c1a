package dev.alkdev.operations.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.OverflowPolicy;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The pub/sub SPI as the in-process transport implements it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InProcessPubSubTest {
  private static final long WAIT_MS = 10_000;

  /**
   * Most tests here check the queued path (buffers, overflow policies, the delivery executor), so
   * they turn inline delivery off; {@link #anIdleSubscriptionHandlesAMessageOnThePublishersThread}
   * and the tests after it check the inline path.
   */
  private final InProcessPubSub pubsub = InProcessPubSub.builder().inlineDelivery(false).build();

  @AfterEach
  void close() {
    pubsub.close();
  }

  @Test
  void aMessageReachesEveryPlainSubscriberOfItsTopicOnly() throws Exception {
    Inbox a = new Inbox();
    Inbox b = new Inbox();
    Inbox c = new Inbox();
    Inbox other = new Inbox();
    pubsub.subscribe("news", SubscribeOptions.defaults(), a);
    pubsub.subscribe("news", SubscribeOptions.defaults(), b);
    pubsub.subscribe("news", SubscribeOptions.defaults(), c);
    pubsub.subscribe("sports", SubscribeOptions.defaults(), other);

    assertThat(published(pubsub.publish("news", utf8("hello")))).isEqualTo(3);

    for (Inbox inbox : List.of(a, b, c)) {
      Message message = inbox.next();
      assertThat(message.topic()).isEqualTo("news");
      assertThat(new String(message.payload(), UTF_8)).isEqualTo("hello");
      assertThat(message.identity()).isEmpty();
    }
    assertThat(published(pubsub.publish("sports", utf8("goal")))).isEqualTo(1);
    assertThat(text(other.next())).isEqualTo("goal");
    assertThat(other.messages).isEmpty();
  }

  @Test
  void nobodyListeningIsZeroReceivers() throws Exception {
    assertThat(published(pubsub.publish("void", utf8("anyone?")))).isZero();
  }

  @Test
  void aQueueGroupSharesTheMessagesRoundRobinWhilePlainSubscribersGetThemAll() throws Exception {
    List<Inbox> workers = List.of(new Inbox(), new Inbox(), new Inbox());
    for (Inbox worker : workers) {
      pubsub.subscribe("jobs", SubscribeOptions.queueGroup("workers"), worker);
    }
    Inbox auditor = new Inbox();
    pubsub.subscribe("jobs", SubscribeOptions.defaults(), auditor);
    Inbox otherGroup = new Inbox();
    pubsub.subscribe("jobs", SubscribeOptions.queueGroup("archivers"), otherGroup);

    for (int i = 0; i < 30; i++) {
      assertThat(published(pubsub.publish("jobs", utf8("job-" + i))))
          .as("one worker, one archiver, the auditor")
          .isEqualTo(3);
    }

    List<String> done = new ArrayList<>();
    for (Inbox worker : workers) {
      for (int i = 0; i < 10; i++) {
        done.add(text(worker.next()));
      }
    }
    assertThat(done).containsExactlyInAnyOrderElementsOf(jobs(30));
    for (int i = 0; i < 30; i++) {
      assertThat(text(auditor.next())).isEqualTo("job-" + i);
      assertThat(text(otherGroup.next())).isEqualTo("job-" + i);
    }
    assertThat(workers).allSatisfy(worker -> assertThat(worker.messages).isEmpty());
  }

  @Test
  void aFullBufferWithRejectFailsThePublisherWithResourceExhausted() throws Exception {
    Gate gate = new Gate();
    pubsub.subscribe(
        "busy",
        SubscribeOptions.defaults().withBufferSize(2).withOverflow(OverflowPolicy.REJECT),
        gate);
    published(pubsub.publish("busy", utf8("0")));
    gate.awaitEntered(); // "0" is being handled, so the buffer is empty again
    published(pubsub.publish("busy", utf8("1")));
    published(pubsub.publish("busy", utf8("2")));

    CallError error = failure(pubsub.publish("busy", utf8("3")));

    assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(error.retryable()).isTrue();
    gate.open();
    assertThat(gate.awaitHandled(3)).containsExactly("0", "1", "2");
  }

  @Test
  void aFullBufferWithDropNewestDropsAndCounts() throws Exception {
    Gate gate = new Gate();
    PubSub.Subscription subscription =
        pubsub.subscribe(
            "busy",
            SubscribeOptions.defaults().withBufferSize(2).withOverflow(OverflowPolicy.DROP_NEWEST),
            gate);
    published(pubsub.publish("busy", utf8("0")));
    gate.awaitEntered();
    published(pubsub.publish("busy", utf8("1")));
    published(pubsub.publish("busy", utf8("2")));

    assertThat(published(pubsub.publish("busy", utf8("3")))).as("dropped: not received").isZero();
    assertThat(published(pubsub.publish("busy", utf8("4")))).isZero();

    assertThat(subscription.dropped()).isEqualTo(2);
    gate.open();
    assertThat(gate.awaitHandled(3)).containsExactly("0", "1", "2");
    assertThat(published(pubsub.publish("busy", utf8("5")))).as("room again").isEqualTo(1);
    assertThat(gate.awaitHandled(4)).containsExactly("0", "1", "2", "5");
  }

  @Test
  void eachSubscriptionGetsOnePublishersMessagesInOrderOneAtATime() throws Exception {
    int publishers = 4;
    int each = 5_000;
    Map<Integer, Integer> lastSeen = new ConcurrentHashMap<>();
    List<String> problems = new CopyOnWriteArrayList<>();
    AtomicInteger inHandler = new AtomicInteger();
    CountDownLatch all = new CountDownLatch(publishers * each);
    pubsub.subscribe(
        "ordered",
        SubscribeOptions.defaults().withBufferSize(publishers * each),
        message -> {
          if (inHandler.incrementAndGet() != 1) {
            problems.add("two messages handled at once");
          }
          String[] parts = text(message).split(":");
          int publisher = Integer.parseInt(parts[0]);
          int sequence = Integer.parseInt(parts[1]);
          Integer previous = lastSeen.put(publisher, sequence);
          if (sequence != (previous == null ? 0 : previous + 1)) {
            problems.add(publisher + ": " + previous + " then " + sequence);
          }
          inHandler.decrementAndGet();
          all.countDown();
        });

    ExecutorService threads = Executors.newFixedThreadPool(publishers);
    try {
      List<CompletableFuture<Void>> done = new ArrayList<>();
      for (int p = 0; p < publishers; p++) {
        int publisher = p;
        done.add(
            CompletableFuture.runAsync(
                () -> {
                  for (int i = 0; i < each; i++) {
                    pubsub.publish("ordered", utf8(publisher + ":" + i)).join();
                  }
                },
                threads));
      }
      CompletableFuture.allOf(done.toArray(CompletableFuture[]::new))
          .get(WAIT_MS, TimeUnit.MILLISECONDS);
    } finally {
      threads.shutdownNow();
    }

    assertThat(all.await(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
    assertThat(problems).isEmpty();
    assertThat(lastSeen)
        .hasSize(publishers)
        .allSatisfy((p, last) -> assertThat(last).isEqualTo(each - 1));
  }

  @Test
  void aHandlerThatThrowsDoesNotEndItsSubscription() throws Exception {
    Inbox inbox = new Inbox();
    pubsub.subscribe(
        "fragile",
        SubscribeOptions.defaults(),
        message -> {
          if (text(message).equals("bad")) {
            throw new IllegalStateException("cannot handle this one");
          }
          inbox.accept(message);
        });

    published(pubsub.publish("fragile", utf8("bad")));
    published(pubsub.publish("fragile", utf8("good")));

    assertThat(text(inbox.next())).isEqualTo("good");
  }

  @Test
  void aClosedSubscriptionReceivesNothingAndItsTopicCanBeSubscribedAgain() throws Exception {
    Inbox first = new Inbox();
    PubSub.Subscription subscription = pubsub.subscribe("t", SubscribeOptions.defaults(), first);
    assertThat(subscription.topic()).isEqualTo("t");
    subscription.close();
    subscription.close(); // twice is harmless

    assertThat(published(pubsub.publish("t", utf8("lost")))).isZero();

    Inbox second = new Inbox();
    pubsub.subscribe("t", SubscribeOptions.defaults(), second);
    assertThat(published(pubsub.publish("t", utf8("found")))).isEqualTo(1);
    assertThat(text(second.next())).isEqualTo("found");
    assertThat(first.messages).isEmpty();
  }

  @Test
  void closingASubscriptionDiscardsWhatItBuffered() throws Exception {
    ExecutorService single = Executors.newSingleThreadExecutor();
    InProcessPubSub transport =
        InProcessPubSub.builder().executor(single).inlineDelivery(false).build();
    try {
      Gate gate = new Gate();
      PubSub.Subscription subscription =
          transport.subscribe("t", SubscribeOptions.defaults(), gate);
      published(transport.publish("t", utf8("0")));
      gate.awaitEntered();
      published(transport.publish("t", utf8("1")));
      published(transport.publish("t", utf8("2")));

      subscription.close();
      gate.open();

      // One delivery thread, first in first out: once this task runs, the drain has finished.
      single.submit(() -> {}).get(WAIT_MS, TimeUnit.MILLISECONDS);
      assertThat(gate.handled).containsExactly("0");
    } finally {
      transport.close();
      single.shutdownNow();
    }
  }

  @Test
  void closingTheTransportEndsEverythingAndTellsDisconnectListenersOnce() throws Exception {
    InProcessPubSub transport = InProcessPubSub.create();
    AtomicInteger told = new AtomicInteger();
    AtomicInteger removedListener = new AtomicInteger();
    transport.onDisconnect(told::incrementAndGet);
    Registration removed = transport.onDisconnect(removedListener::incrementAndGet);
    removed.remove();
    transport.onDisconnect(
        () -> {
          throw new IllegalStateException("a faulty listener");
        });
    AtomicInteger alsoTold = new AtomicInteger();
    transport.onDisconnect(alsoTold::incrementAndGet);
    Inbox inbox = new Inbox();
    transport.subscribe("t", SubscribeOptions.defaults(), inbox);

    transport.close();
    transport.close();

    assertThat(told).hasValue(1);
    assertThat(alsoTold).as("after a listener that threw").hasValue(1);
    assertThat(removedListener).hasValue(0);
    assertThat(failure(transport.publish("t", utf8("late"))).code())
        .isEqualTo(ErrorCode.UNAVAILABLE);
    assertThatThrownBy(() -> transport.subscribe("t", SubscribeOptions.defaults(), inbox))
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
    AtomicInteger lateListener = new AtomicInteger();
    transport.onDisconnect(lateListener::incrementAndGet);
    assertThat(lateListener).as("registered after close: runs at once").hasValue(1);
    assertThat(inbox.messages).isEmpty();
  }

  @Test
  void messagesLargerThanTheLimitAreRefused() throws Exception {
    InProcessPubSub small = InProcessPubSub.builder().maxMessageBytes(100).build();
    try {
      Inbox inbox = new Inbox();
      small.subscribe("t", SubscribeOptions.defaults(), inbox);

      assertThat(small.maxMessageBytes()).isEqualTo(100);
      assertThat(published(small.publish("t", new byte[100]))).isEqualTo(1);
      CallError error = failure(small.publish("t", new byte[101]));

      assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      assertThat(error.getMessage()).contains("101").contains("100");
      assertThat(inbox.next().payload()).hasSize(100);
    } finally {
      small.close();
    }
    assertThatThrownBy(() -> InProcessPubSub.builder().maxMessageBytes(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aGivenExecutorRunsDeliveriesAndOutlivesTheTransport() throws Exception {
    ExecutorService executor =
        Executors.newSingleThreadExecutor(r -> new Thread(r, "given-delivery"));
    try {
      InProcessPubSub transport =
          InProcessPubSub.builder().executor(executor).inlineDelivery(false).build();
      BlockingQueue<String> threads = new LinkedBlockingQueue<>();
      transport.subscribe(
          "t", SubscribeOptions.defaults(), m -> threads.add(Thread.currentThread().getName()));
      published(transport.publish("t", utf8("x")));
      assertThat(threads.poll(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo("given-delivery");

      transport.close();

      assertThat(executor.isShutdown()).isFalse();
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void anIdleSubscriptionHandlesAMessageOnThePublishersThread() throws Exception {
    try (InProcessPubSub inline = InProcessPubSub.create()) {
      List<Thread> threads = new CopyOnWriteArrayList<>();
      inline.subscribe("t", SubscribeOptions.defaults(), m -> threads.add(Thread.currentThread()));
      assertThat(inline.publish("t", utf8("a")).get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo(1);
      // Handled before publish returned, here: no hand-off.
      assertThat(threads).containsExactly(Thread.currentThread());
    }
  }

  @Test
  void nestedInlineDeliveriesAreBoundedAndTheRestRunOnTheExecutor() throws Exception {
    try (InProcessPubSub inline = InProcessPubSub.create()) {
      int levels = 12;
      List<Thread> threads = new CopyOnWriteArrayList<>();
      CountDownLatch all = new CountDownLatch(levels);
      for (int i = 0; i < levels; i++) {
        String next = "t" + (i + 1);
        boolean last = i == levels - 1;
        inline.subscribe(
            "t" + i,
            SubscribeOptions.defaults(),
            m -> {
              threads.add(Thread.currentThread());
              all.countDown();
              if (!last) {
                inline.publish(next, m.payload());
              }
            });
      }
      inline.publish("t0", utf8("x")).get(WAIT_MS, TimeUnit.MILLISECONDS);
      assertThat(all.await(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
      assertThat(threads).hasSize(levels);
      assertThat(threads.get(0)).isSameAs(Thread.currentThread());
      // A chain of publishes does not grow the publisher's stack without bound.
      assertThat(threads.stream().filter(t -> t == Thread.currentThread()).count())
          .isLessThan(levels);
    }
  }

  @Test
  void aBusySubscriptionQueuesAndItsRunningDeliveryCatchesUpInOrder() throws Exception {
    try (InProcessPubSub inline = InProcessPubSub.create()) {
      Gate gate = new Gate();
      inline.subscribe("t", SubscribeOptions.defaults(), gate);
      Thread first = new Thread(() -> inline.publish("t", utf8("1")));
      first.start();
      gate.awaitEntered(); // "1" is being handled on `first`, inline
      for (int i = 2; i <= 5; i++) {
        // Queued, not handled here: publish returns while the subscription is busy.
        assertThat(inline.publish("t", utf8(String.valueOf(i))).get(WAIT_MS, TimeUnit.MILLISECONDS))
            .isEqualTo(1);
      }
      gate.open();
      assertThat(gate.awaitHandled(5)).containsExactly("1", "2", "3", "4", "5");
      first.join(WAIT_MS);
    }
  }

  @Test
  void payloadIdentitiesAreTrustedInProcess() {
    assertThat(pubsub.trustsPayloadIdentity()).isTrue();
  }

  @Test
  void subscribeOptionsRefuseNonsense() {
    assertThatThrownBy(() -> SubscribeOptions.defaults().withBufferSize(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(SubscribeOptions.queueGroup("g").queueGroup()).contains("g");
    assertThat(SubscribeOptions.defaults().overflow()).isEqualTo(OverflowPolicy.REJECT);
  }

  // ------------------------------------------------------------------ helpers

  private static byte[] utf8(String text) {
    return text.getBytes(UTF_8);
  }

  private static String text(Message message) {
    return new String(message.payload(), UTF_8);
  }

  private static List<String> jobs(int n) {
    List<String> jobs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      jobs.add("job-" + i);
    }
    return jobs;
  }

  private static int published(CompletableFuture<Integer> future) throws Exception {
    return future.get(WAIT_MS, TimeUnit.MILLISECONDS);
  }

  private static CallError failure(CompletableFuture<?> future) throws Exception {
    try {
      Object value = future.get(WAIT_MS, TimeUnit.MILLISECONDS);
      throw new AssertionError("expected a failure, got " + value);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(CallError.class);
      return (CallError) e.getCause();
    }
  }

  /** Records messages for the test to read, waiting a bounded time for each. */
  private static final class Inbox implements Consumer<Message> {
    final BlockingQueue<Message> messages = new LinkedBlockingQueue<>();

    @Override
    public void accept(Message message) {
      messages.add(message);
    }

    Message next() throws InterruptedException {
      Message message = messages.poll(WAIT_MS, TimeUnit.MILLISECONDS);
      assertThat(message).as("a message within %d ms", WAIT_MS).isNotNull();
      return message;
    }
  }

  /** A handler that holds its first message until opened, so the buffer behind it fills. */
  private static final class Gate implements Consumer<Message> {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch opened = new CountDownLatch(1);
    final List<String> handled = new CopyOnWriteArrayList<>();

    @Override
    public void accept(Message message) {
      entered.countDown();
      try {
        if (!opened.await(WAIT_MS, TimeUnit.MILLISECONDS)) {
          throw new IllegalStateException("the gate was never opened");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      handled.add(text(message));
    }

    void awaitEntered() throws InterruptedException {
      assertThat(entered.await(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
    }

    void open() {
      opened.countDown();
    }

    List<String> awaitHandled(int count) throws InterruptedException {
      long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
      while (handled.size() < count && System.nanoTime() < end) {
        Thread.sleep(1);
      }
      return List.copyOf(handled);
    }
  }
}
