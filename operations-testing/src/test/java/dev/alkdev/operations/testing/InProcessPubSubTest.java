package dev.alkdev.operations.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.OverflowPolicy;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The in-process transport passes the pub/sub contract (with inline delivery, its default), and
 * keeps the promises only it makes: round robin in queue groups, inline delivery and its bounds, a
 * given executor, exact counts under overflow.
 */
class InProcessPubSubTest extends PubSubContractTest {
  private static final long WAIT_MS = WAIT.toMillis();

  private final InProcessPubSub bus = InProcessPubSub.create();

  @Override
  protected PubSub connect() {
    return bus; // every client of a test is a view on its one bus
  }

  @Override
  protected void severConnection(PubSub client) {
    client.close(); // there is no connection to lose in-process: closing is how it goes away
  }

  /**
   * Most tests below check the queued path (buffers, overflow, the delivery executor), so they turn
   * inline delivery off; {@link #anIdleSubscriptionHandlesAMessageOnThePublishersThread} and the
   * tests after it check the inline path.
   */
  private final InProcessPubSub pubsub = InProcessPubSub.builder().inlineDelivery(false).build();

  @AfterEach
  void close() {
    pubsub.close();
    bus.close();
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
  void payloadIdentitiesAreTrustedInProcess() throws Exception {
    assertThat(pubsub.trustsPayloadIdentity()).isTrue();
    Inbox inbox = new Inbox();
    pubsub.subscribe("t", SubscribeOptions.defaults(), inbox);
    published(pubsub.publish("t", utf8("x")));
    assertThat(inbox.next().identity()).as("no connection to authenticate").isEmpty();
  }

  @Test
  void subscribeOptionsRefuseNonsense() {
    assertThatThrownBy(() -> SubscribeOptions.defaults().withBufferSize(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(SubscribeOptions.queueGroup("g").queueGroup()).contains("g");
    assertThat(SubscribeOptions.defaults().overflow()).isEqualTo(OverflowPolicy.REJECT);
  }

  @Test
  void aMessageDroppedByAFullBufferIsNotCountedAsReceived() throws Exception {
    Gate gate = new Gate();
    pubsub.subscribe(
        "busy",
        SubscribeOptions.defaults().withBufferSize(1).withOverflow(OverflowPolicy.DROP_NEWEST),
        gate);
    assertThat(published(pubsub.publish("busy", utf8("0")))).isEqualTo(1);
    gate.awaitEntered();
    assertThat(published(pubsub.publish("busy", utf8("1")))).as("buffered").isEqualTo(1);
    Inbox idle = new Inbox();
    pubsub.subscribe("busy", SubscribeOptions.defaults(), idle);

    assertThat(published(pubsub.publish("busy", utf8("2"))))
        .as("dropped by the full subscriber, taken by the idle one")
        .isEqualTo(1);

    assertThat(text(idle.next())).isEqualTo("2");
    gate.open();
    assertThat(gate.awaitHandled(2)).containsExactly("0", "1");
  }

  @Test
  void theBuilderRefusesANonPositiveMessageLimit() {
    assertThatThrownBy(() -> InProcessPubSub.builder().maxMessageBytes(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(InProcessPubSub.builder().maxMessageBytes(100).build().maxMessageBytes())
        .isEqualTo(100);
  }

  // ------------------------------------------------------------------ helpers

  private static List<String> jobs(int n) {
    List<String> jobs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      jobs.add("job-" + i);
    }
    return jobs;
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
