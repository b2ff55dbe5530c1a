package dev.alkdev.operations.pubsub;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.pubsub.SerialMailbox.Outcome;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SerialMailboxTest {
  private static final long WAIT_MS = 10_000;

  private final ExecutorService delivery =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "mailbox-delivery"));

  @AfterEach
  void stop() {
    delivery.shutdownNow();
  }

  @Test
  void messagesAreHandledInOrderOnTheExecutorNotOnTheOfferingThread() throws Exception {
    List<String> handled = new CopyOnWriteArrayList<>();
    List<String> threads = new CopyOnWriteArrayList<>();
    SerialMailbox mailbox =
        SerialMailbox.create(
            16,
            OverflowPolicy.REJECT,
            delivery,
            m -> {
              threads.add(Thread.currentThread().getName());
              handled.add(text(m));
            });

    for (int i = 0; i < 10; i++) {
      assertThat(mailbox.offer(message(String.valueOf(i)))).isEqualTo(Outcome.ACCEPTED);
    }
    drained(mailbox);

    assertThat(handled).containsExactly("0", "1", "2", "3", "4", "5", "6", "7", "8", "9");
    assertThat(threads).containsOnly("mailbox-delivery");
    assertThat(mailbox.size()).isZero();
  }

  @Test
  void anIoThreadOffersAndReturnsAtOnceWhileTheHandlerIsBusy() throws Exception {
    Gate handler = new Gate();
    SubscribeOptions options = SubscribeOptions.defaults().withBufferSize(2);
    ExecutorService io = Executors.newSingleThreadExecutor(r -> new Thread(r, "io"));
    try {
      // snippet: transport
      // Once per subscription: where its messages wait for the handler.
      SerialMailbox mailbox =
          SerialMailbox.create(options.bufferSize(), options.overflow(), delivery, handler);
      // On the I/O thread, for each message received for the subscription; never blocks:
      // REJECTED or DROPPED when full (counted), CLOSED once the subscription is closed.
      Callable<Outcome> onMessage = () -> mailbox.offer(message("0"));
      // end-snippet

      assertThat(io.submit(onMessage).get(WAIT_MS, TimeUnit.MILLISECONDS))
          .isEqualTo(Outcome.ACCEPTED);
      handler.awaitEntered(); // the handler holds "0" on the delivery thread
      List<Outcome> outcomes = new ArrayList<>();
      for (String text : List.of("1", "2", "3")) {
        outcomes.add(
            io.submit(() -> mailbox.offer(message(text))).get(WAIT_MS, TimeUnit.MILLISECONDS));
      }

      assertThat(outcomes)
          .as("the I/O thread was never held up by the busy handler")
          .containsExactly(Outcome.ACCEPTED, Outcome.ACCEPTED, Outcome.REJECTED);
      handler.open();
      drained(mailbox);
      assertThat(handler.handled).containsExactly("0", "1", "2");
    } finally {
      io.shutdownNow();
    }
  }

  @Test
  void aFullBufferWithDropNewestDropsAndCounts() throws Exception {
    Gate gate = new Gate();
    SerialMailbox mailbox = SerialMailbox.create(2, OverflowPolicy.DROP_NEWEST, delivery, gate);
    mailbox.offer(message("0"));
    gate.awaitEntered(); // "0" is being handled: the buffer is empty again

    assertThat(mailbox.offer(message("1"))).isEqualTo(Outcome.ACCEPTED);
    assertThat(mailbox.offer(message("2"))).isEqualTo(Outcome.ACCEPTED);
    assertThat(mailbox.offer(message("3"))).isEqualTo(Outcome.DROPPED);
    assertThat(mailbox.offer(message("4"))).isEqualTo(Outcome.DROPPED);

    assertThat(mailbox.size()).isEqualTo(2);
    assertThat(mailbox.dropped()).isEqualTo(2);
    assertThat(mailbox.rejected()).isZero();
    gate.open();
    drained(mailbox);
    assertThat(gate.handled).containsExactly("0", "1", "2");
    assertThat(mailbox.offer(message("5"))).as("room again").isEqualTo(Outcome.ACCEPTED);
    drained(mailbox);
    assertThat(gate.handled).containsExactly("0", "1", "2", "5");
  }

  @Test
  void aFullBufferWithRejectRefusesAndCounts() throws Exception {
    Gate gate = new Gate();
    SerialMailbox mailbox = SerialMailbox.create(1, OverflowPolicy.REJECT, delivery, gate);
    mailbox.offer(message("0"));
    gate.awaitEntered();

    assertThat(mailbox.offer(message("1"))).isEqualTo(Outcome.ACCEPTED);
    assertThat(mailbox.offer(message("2"))).isEqualTo(Outcome.REJECTED);

    assertThat(mailbox.rejected()).isEqualTo(1);
    assertThat(mailbox.dropped()).isZero();
    gate.open();
    drained(mailbox);
    assertThat(gate.handled).containsExactly("0", "1");
  }

  @Test
  void closingDiscardsWhatIsBufferedAndRefusesLaterOffers() throws Exception {
    Gate gate = new Gate();
    SerialMailbox mailbox = SerialMailbox.create(8, OverflowPolicy.REJECT, delivery, gate);
    mailbox.offer(message("0"));
    gate.awaitEntered();
    mailbox.offer(message("1"));
    mailbox.offer(message("2"));

    mailbox.close();
    mailbox.close(); // twice is harmless
    gate.open();
    drained(mailbox);

    assertThat(mailbox.isClosed()).isTrue();
    assertThat(gate.handled)
        .as("the message being handled finishes; the rest are not")
        .containsExactly("0");
    assertThat(mailbox.offer(message("3"))).isEqualTo(Outcome.CLOSED);
    assertThat(mailbox.size()).isZero();
    assertThat(mailbox.dropped() + mailbox.rejected()).as("closed is not an overflow").isZero();
  }

  @Test
  void aHandlerThatThrowsDoesNotStopDelivery() throws Exception {
    List<String> handled = new CopyOnWriteArrayList<>();
    SerialMailbox mailbox =
        SerialMailbox.create(
            8,
            OverflowPolicy.REJECT,
            delivery,
            m -> {
              if (text(m).equals("bad")) {
                throw new IllegalStateException("cannot handle this one");
              }
              handled.add(text(m));
            });

    mailbox.offer(message("bad"));
    mailbox.offer(message("good"));
    drained(mailbox);

    assertThat(handled).containsExactly("good");
  }

  @Test
  void aBusyMailboxYieldsItsThreadToOthersAfterABatch() throws Exception {
    List<String> handled = new CopyOnWriteArrayList<>();
    CountDownLatch hold = new CountDownLatch(1);
    delivery.execute(() -> awaitQuietly(hold)); // the only delivery thread is busy meanwhile
    SerialMailbox busy =
        SerialMailbox.create(1_000, OverflowPolicy.REJECT, delivery, m -> handled.add(text(m)));
    SerialMailbox other =
        SerialMailbox.create(1, OverflowPolicy.REJECT, delivery, m -> handled.add(text(m)));
    for (int i = 0; i < 500; i++) {
      busy.offer(message("busy-" + i));
    }
    other.offer(message("other")); // its drain is queued behind the busy one's

    hold.countDown();
    drained(busy, other);

    assertThat(handled).hasSize(501);
    assertThat(handled.indexOf("other"))
        .as("handled before the busy mailbox finished its 500")
        .isLessThan(500);
    assertThat(handled.stream().filter(s -> s.startsWith("busy-")).toList())
        .as("the busy mailbox's order survives the yield")
        .isEqualTo(numbered("busy-", 500));
  }

  @Test
  void manyOfferingThreadsStillGetOneMessageAtATimeInEachThreadsOrder() throws Exception {
    int threads = 4;
    int each = 5_000;
    AtomicInteger inHandler = new AtomicInteger();
    Map<Integer, Integer> lastSeen = new ConcurrentHashMap<>();
    List<String> problems = new CopyOnWriteArrayList<>();
    CountDownLatch all = new CountDownLatch(threads * each);
    SerialMailbox mailbox =
        SerialMailbox.create(
            threads * each,
            OverflowPolicy.REJECT,
            ForkJoinPool.commonPool(),
            m -> {
              if (inHandler.incrementAndGet() != 1) {
                problems.add("two messages handled at once");
              }
              String[] parts = text(m).split(":");
              int thread = Integer.parseInt(parts[0]);
              int sequence = Integer.parseInt(parts[1]);
              Integer previous = lastSeen.put(thread, sequence);
              if (sequence != (previous == null ? 0 : previous + 1)) {
                problems.add(thread + ": " + previous + " then " + sequence);
              }
              inHandler.decrementAndGet();
              all.countDown();
            });

    ExecutorService offering = Executors.newFixedThreadPool(threads);
    try {
      List<CompletableFuture<Void>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        done.add(
            CompletableFuture.runAsync(
                () -> {
                  for (int i = 0; i < each; i++) {
                    if (mailbox.offer(message(thread + ":" + i)) != Outcome.ACCEPTED) {
                      problems.add("refused " + thread + ":" + i);
                    }
                  }
                },
                offering));
      }
      CompletableFuture.allOf(done.toArray(CompletableFuture[]::new))
          .get(WAIT_MS, TimeUnit.MILLISECONDS);
    } finally {
      offering.shutdownNow();
    }

    assertThat(all.await(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
    assertThat(problems).isEmpty();
    assertThat(lastSeen)
        .hasSize(threads)
        .allSatisfy((t, last) -> assertThat(last).isEqualTo(each - 1));
  }

  @Test
  void anExecutorThatRefusesLeavesTheMailboxEmptyAndUsable() throws Exception {
    List<String> handled = new CopyOnWriteArrayList<>();
    AtomicInteger refusals = new AtomicInteger(1);
    SerialMailbox mailbox =
        SerialMailbox.create(
            8,
            OverflowPolicy.REJECT,
            task -> {
              if (refusals.getAndDecrement() > 0) {
                throw new RejectedExecutionException("shutting down");
              }
              delivery.execute(task);
            },
            m -> handled.add(text(m)));

    mailbox.offer(message("lost"));
    assertThat(mailbox.size()).as("nothing left behind to block the next drain").isZero();
    mailbox.offer(message("delivered"));
    drained(mailbox);

    assertThat(handled).containsExactly("delivered");
  }

  @Test
  void nonsenseIsRefused() {
    Consumer<Message> ignore = m -> {};
    assertThatThrownBy(() -> SerialMailbox.create(0, OverflowPolicy.REJECT, delivery, ignore))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("capacity");
    assertThatThrownBy(() -> SerialMailbox.create(1, null, delivery, ignore))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(
            () -> SerialMailbox.create(1, OverflowPolicy.REJECT, delivery, ignore).offer(null))
        .isInstanceOf(NullPointerException.class);
  }

  // ------------------------------------------------------------------ helpers

  /** Waits until the single delivery thread has handled everything offered so far. */
  private void drained(SerialMailbox... mailboxes) throws Exception {
    // The delivery thread runs tasks first in, first out, so once a no-op task ran, every drain
    // queued before it ran too. A drain that yielded after a batch queued itself again: repeat
    // until nothing is buffered, then once more for a drain that took the last message.
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
    while (Arrays.stream(mailboxes).anyMatch(m -> m.size() > 0)) {
      delivery.submit(() -> {}).get(WAIT_MS, TimeUnit.MILLISECONDS);
      assertThat(System.nanoTime() - end).as("drained within %d ms", WAIT_MS).isNegative();
    }
    delivery.submit(() -> {}).get(WAIT_MS, TimeUnit.MILLISECONDS);
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(WAIT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static List<String> numbered(String prefix, int n) {
    List<String> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      all.add(prefix + i);
    }
    return all;
  }

  private static Message message(String text) {
    return new Message("t", text.getBytes(UTF_8), Optional.empty());
  }

  private static String text(Message message) {
    return new String(message.payload(), UTF_8);
  }

  /** A handler that holds its first message until opened, so the buffer behind it fills. */
  private static final class Gate implements Consumer<Message> {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch opened = new CountDownLatch(1);
    final List<String> handled = new CopyOnWriteArrayList<>();

    @Override
    public void accept(Message message) {
      entered.countDown();
      awaitQuietly(opened);
      handled.add(text(message));
    }

    void awaitEntered() throws InterruptedException {
      assertThat(entered.await(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
    }

    void open() {
      opened.countDown();
    }
  }
}
