package dev.alkdev.operations.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.OverflowPolicy;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.pubsub.TransportStats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The delivery contract of the {@link PubSub} SPI, tested on the transport itself: every
 * transport's tests extend this class and say how to open a client of the transport under test
 * ({@link #connect()}). Where {@link TransportConformanceTest} checks the call protocol running on
 * a transport, this checks what the protocol relies on underneath (docs/protocol.md, section 1):
 * fan-out to every plain subscriber, exactly one member of each queue group, per-publisher order,
 * one message at a time per subscription, both overflow policies, the size limit, receiver counts,
 * closing a subscription and the transport, disconnect notification, handlers that throw, and
 * several publishers and subscribers at once.
 *
 * <p>Each test opens its clients with {@link #connect()} (a remote transport: a new connection to
 * the same broker; in-process: the one bus of the test, as often as asked), publishes on topics of
 * its own ({@link #topic}) and closes every client when it ends. A publisher and its subscribers
 * are on different clients wherever the transport could tell them apart, as they are in use. Every
 * wait is bounded ({@link #WAIT}) and each test has a timeout, so a broken transport fails the
 * suite rather than hangs it; nothing waits a fixed time to see whether something happens.
 *
 * <pre>{@code
 * class InProcessPubSubTest extends PubSubContractTest {
 *   private final InProcessPubSub bus = InProcessPubSub.create();
 *
 *   protected PubSub connect() {
 *     return bus;
 *   }
 * }
 * }</pre>
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class PubSubContractTest extends PubSubFixture {
  /** For subclasses: one per transport under test. */
  protected PubSubContractTest() {}

  // ------------------------------------------------------------------ fan-out

  /** Every plain subscriber of a topic gets each of its messages, and nobody else does. */
  @Nested
  public class FanOut {
    @Test
    public void aMessageReachesEveryPlainSubscriberOfItsTopicOnly() throws Exception {
      PubSub publisher = client();
      String news = topic("news");
      String sports = topic("sports");
      List<Inbox> readers = List.of(new Inbox(), new Inbox(), new Inbox());
      for (Inbox reader : readers) {
        client().subscribe(news, SubscribeOptions.defaults(), reader);
      }
      Inbox other = new Inbox();
      client().subscribe(sports, SubscribeOptions.defaults(), other);
      awaitPropagation();

      assertCount(publisher.publish(news, utf8("hello")), 3);

      for (Inbox reader : readers) {
        Message message = reader.next();
        assertThat(message.topic()).isEqualTo(news);
        assertThat(text(message)).isEqualTo("hello");
      }
      assertCount(publisher.publish(sports, utf8("goal")), 1);
      // Same publisher, so "hello" would have reached this subscription before "goal".
      assertThat(text(other.next())).as("the first message on the other topic").isEqualTo("goal");
    }

    @Test
    public void anyBytesArriveUnchanged() throws Exception {
      PubSub publisher = client();
      String t = topic("bytes");
      Inbox inbox = new Inbox();
      client().subscribe(t, SubscribeOptions.defaults(), inbox);
      awaitPropagation();
      byte[] everyByte = new byte[512];
      for (int i = 0; i < everyByte.length; i++) {
        everyByte[i] = (byte) (i * 7); // not UTF-8: payloads are opaque to the transport
      }

      published(publisher.publish(t, everyByte.clone()));
      published(publisher.publish(t, new byte[0]));

      assertThat(inbox.next().payload()).isEqualTo(everyByte);
      assertThat(inbox.next().payload()).as("an empty message").isEmpty();
    }
  }

  // ------------------------------------------------------------------ statistics

  /** {@link PubSub#transportStats()} counts messages and payload bytes where they go out and in. */
  @Nested
  public class Statistics {
    @Test
    public void publishedAndReceivedMessagesAndBytesAreCounted() throws Exception {
      PubSub publisher = client();
      PubSub subscriber = client();
      String t = topic("counted");
      Inbox inbox = new Inbox();
      subscriber.subscribe(t, SubscribeOptions.defaults(), inbox);
      awaitPropagation();
      TransportStats out = publisher.transportStats();
      TransportStats in = subscriber.transportStats();

      for (int i = 0; i < 3; i++) {
        published(publisher.publish(t, new byte[10 + i]));
      }
      for (int i = 0; i < 3; i++) {
        assertThat(inbox.next().payload()).hasSize(10 + i);
      }

      // In process the two clients may be one object: each count then covers both sides.
      eventually(
          "3 messages and 33 bytes counted out",
          () ->
              publisher.transportStats().published() - out.published() == 3
                  && publisher.transportStats().publishedBytes() - out.publishedBytes() == 33);
      eventually(
          "3 messages and 33 bytes counted in",
          () ->
              subscriber.transportStats().received() - in.received() == 3
                  && subscriber.transportStats().receivedBytes() - in.receivedBytes() == 33);
      TransportStats after = subscriber.transportStats();
      assertThat(after.dropped()).as("nothing dropped").isEqualTo(in.dropped());
      assertThat(after.reconnects()).as("no reconnects").isEqualTo(in.reconnects());
    }
  }

  // ------------------------------------------------------------------ queue groups

  /** Each message reaches exactly one member of each queue group subscribed to its topic. */
  @Nested
  public class QueueGroups {
    @Test
    public void eachMessageReachesExactlyOneMemberOfAQueueGroup() throws Exception {
      PubSub publisher = client();
      String t = topic("jobs");
      int total = 300;
      Tally tally = new Tally(total);
      List<Sequence> members = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Sequence member = new Sequence(tally);
        members.add(member);
        client().subscribe(t, SubscribeOptions.queueGroup("workers"), member);
      }
      awaitPropagation();

      for (int i = 0; i < total; i++) {
        assertCount(publisher.publish(t, utf8("0:" + i)), 1);
      }

      tally.awaitAll("every job reached a worker");
      assertThat(tally.deliveredMoreThanOnce()).as("jobs delivered twice").isEmpty();
      assertThat(tally.deliveries()).isEqualTo(total);
      assertThat(members).allSatisfy(m -> assertThat(m.problems).isEmpty());
    }

    @Test
    public void twoQueueGroupsEachGetEveryMessageOnceBesidePlainSubscribers() throws Exception {
      PubSub publisher = client();
      String t = topic("orders");
      int total = 200;
      Tally billing = new Tally(total);
      Tally shipping = new Tally(total);
      List<Sequence> subscriptions = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        Sequence biller = new Sequence(billing);
        Sequence shipper = new Sequence(shipping);
        subscriptions.add(biller);
        subscriptions.add(shipper);
        client().subscribe(t, SubscribeOptions.queueGroup("billing"), biller);
        client().subscribe(t, SubscribeOptions.queueGroup("shipping"), shipper);
      }
      Tally audit = new Tally(total);
      Sequence auditor = new Sequence(audit);
      subscriptions.add(auditor);
      client().subscribe(t, SubscribeOptions.defaults(), auditor);
      awaitPropagation();

      for (int i = 0; i < total; i++) {
        assertCount(publisher.publish(t, utf8("0:" + i)), 3);
      }

      for (Tally tally : List.of(billing, shipping, audit)) {
        tally.awaitAll("every order reached each group and the auditor");
        assertThat(tally.deliveredMoreThanOnce()).as("orders delivered twice").isEmpty();
        assertThat(tally.deliveries()).isEqualTo(total);
      }
      assertThat(auditor.received()).as("the plain subscriber got them all").isEqualTo(total);
      assertThat(subscriptions).allSatisfy(s -> assertThat(s.problems).isEmpty());
    }
  }

  // ------------------------------------------------------------------ order

  /** One publisher's messages reach a subscription in order, handled one at a time. */
  @Nested
  public class Order {
    @Test
    public void eachPublishersMessagesArriveInOrderOneAtATimeUnderLoad() throws Exception {
      String t = topic("ordered");
      int publishers = 4;
      int each = 2_500;
      int total = publishers * each;
      List<Sequence> subscribers = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        Sequence subscriber = new Sequence(new Tally(total));
        subscribers.add(subscriber);
        client().subscribe(t, SubscribeOptions.defaults().withBufferSize(total), subscriber);
      }
      awaitPropagation();

      publishAtOnce(t, publishers, each);

      for (Sequence subscriber : subscribers) {
        subscriber.tally.awaitAll("every message reached each subscriber");
        assertThat(subscriber.problems).isEmpty();
        assertThat(subscriber.received()).isEqualTo(total);
      }
    }
  }

  // ------------------------------------------------------------------ overflow

  /** A full buffer applies the subscription's overflow policy, and nothing arrives twice. */
  @Nested
  public class Overflow {
    @Test
    public void aFullBufferWithDropNewestDropsAndCounts() throws Exception {
      PubSub publisher = client();
      String t = topic("busy");
      Gate gate = new Gate();
      PubSub subscriber = client();
      long droppedBefore = subscriber.transportStats().dropped();
      PubSub.Subscription subscription =
          subscriber.subscribe(
              t,
              SubscribeOptions.defaults()
                  .withBufferSize(2)
                  .withOverflow(OverflowPolicy.DROP_NEWEST),
              gate);
      awaitPropagation();
      CompletableFuture<Integer> first = publishElsewhere(publisher, t, "0");
      gate.awaitEntered(); // "0" is being handled, so the buffer is empty again

      for (int i = 1; i <= 4; i++) {
        published(publisher.publish(t, utf8(String.valueOf(i))));
      }

      eventually("two messages dropped", () -> subscription.dropped() == 2);
      gate.open();
      published(first);
      assertThat(gate.awaitHandled(3)).containsExactly("0", "1", "2");
      published(publisher.publish(t, utf8("5")));
      assertThat(gate.awaitHandled(4)).as("room again").containsExactly("0", "1", "2", "5");
      assertThat(subscription.dropped()).isEqualTo(2);
      assertThat(subscriber.transportStats().dropped() - droppedBefore)
          .as("the transport's statistics count the drops too")
          .isEqualTo(2);
    }

    @Test
    public void aFullBufferWithRejectRefusesTheMessage() throws Exception {
      PubSub publisher = client();
      String t = topic("busy");
      Gate gate = new Gate();
      PubSub.Subscription subscription =
          client()
              .subscribe(
                  t,
                  SubscribeOptions.defaults().withBufferSize(2).withOverflow(OverflowPolicy.REJECT),
                  gate);
      awaitPropagation();
      CompletableFuture<Integer> first = publishElsewhere(publisher, t, "0");
      gate.awaitEntered();
      published(publisher.publish(t, utf8("1")));
      published(publisher.publish(t, utf8("2")));

      CompletableFuture<Integer> third = publisher.publish(t, utf8("3"));

      if (tellsPublisherOfRejection()) {
        CallError error = failure(third);
        assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
        assertThat(error.retryable()).as("room comes back as the subscriber catches up").isTrue();
        assertThat(subscription.dropped()).as("the publisher was told instead").isZero();
      } else {
        published(third);
        eventually("the refused message counted", () -> subscription.dropped() == 1);
      }
      gate.open();
      published(first);
      assertThat(gate.awaitHandled(3)).containsExactly("0", "1", "2");
      published(publisher.publish(t, utf8("4")));
      assertThat(gate.awaitHandled(4))
          .as("the refused message never arrives, nothing arrives twice")
          .containsExactly("0", "1", "2", "4");
    }
  }

  // ------------------------------------------------------------------ size limit

  /** {@link PubSub#maxMessageBytes()} is exact: that many bytes pass, one more is refused. */
  @Nested
  public class SizeLimit {
    @Test
    public void aMessageOfExactlyTheLimitPassesAndOneByteMoreIsRefused() throws Exception {
      PubSub publisher = client();
      int limit = publisher.maxMessageBytes();
      assertThat(limit).isPositive();
      String t = topic("sized");
      Inbox inbox = new Inbox();
      client().subscribe(t, SubscribeOptions.defaults(), inbox);
      awaitPropagation();
      byte[] largest = patterned(limit);

      assertCount(publisher.publish(t, largest), 1);
      CallError error = failure(publisher.publish(t, patterned(limit + 1)));
      published(publisher.publish(t, utf8("after")));

      assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      assertThat(error.retryable()).as("the same message is as large next time").isFalse();
      assertThat(error.getMessage())
          .as("says what was wrong and what is allowed")
          .contains(String.valueOf(limit + 1), String.valueOf(limit));
      assertThat(inbox.next().payload()).isEqualTo(largest);
      assertThat(text(inbox.next())).as("the oversized message was not sent").isEqualTo("after");
    }
  }

  // ------------------------------------------------------------------ receiver counts

  /** Publishing says how many subscriptions took the message (0: nobody listens). */
  @Nested
  public class ReceiverCounts {
    @Test
    public void nobodyListeningIsZeroReceivers() throws Exception {
      assumeCounts();
      assertCount(client().publish(topic("void"), utf8("anyone?")), 0);
    }

    @Test
    public void theCountIsEveryPlainSubscriberAndOneMemberOfEachQueueGroup() throws Exception {
      assumeCounts();
      PubSub publisher = client();
      String t = topic("counted");
      Consumer<Message> ignore = m -> {};
      PubSub.Subscription plainA = client().subscribe(t, SubscribeOptions.defaults(), ignore);
      PubSub.Subscription plainB = client().subscribe(t, SubscribeOptions.defaults(), ignore);
      List<PubSub.Subscription> workers = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        workers.add(client().subscribe(t, SubscribeOptions.queueGroup("workers"), ignore));
      }
      PubSub.Subscription archiver =
          client().subscribe(t, SubscribeOptions.queueGroup("archivers"), ignore);
      awaitPropagation();

      assertCount(publisher.publish(t, utf8("1")), 4);
      plainA.close();
      awaitPropagation();
      assertCount(publisher.publish(t, utf8("2")), 3);
      workers.get(0).close();
      workers.get(1).close();
      awaitPropagation();
      assertCount(publisher.publish(t, utf8("3")), 3);
      archiver.close();
      awaitPropagation();
      assertCount(publisher.publish(t, utf8("4")), 2);
      workers.get(2).close();
      plainB.close();
      awaitPropagation();
      assertCount(publisher.publish(t, utf8("5")), 0);
    }
  }

  // ------------------------------------------------------------------ closing

  /** Closing a subscription or the transport ends delivery, and says so. */
  @Nested
  public class Closing {
    @Test
    public void aClosedSubscriptionReceivesNothingMoreAndItsTopicCanBeSubscribedAgain()
        throws Exception {
      PubSub publisher = client();
      PubSub subscriber = client();
      String t = topic("t");
      Inbox first = new Inbox();
      PubSub.Subscription subscription =
          subscriber.subscribe(t, SubscribeOptions.defaults(), first);
      Inbox witness = new Inbox();
      client().subscribe(t, SubscribeOptions.defaults(), witness);
      awaitPropagation();
      assertThat(subscription.topic()).isEqualTo(t);
      assertCount(publisher.publish(t, utf8("before")), 2);
      assertThat(text(first.next())).isEqualTo("before");

      subscription.close();
      subscription.close(); // twice is harmless
      awaitPropagation();
      assertCount(publisher.publish(t, utf8("lost")), 1);
      Inbox second = new Inbox();
      subscriber.subscribe(t, SubscribeOptions.defaults(), second);
      awaitPropagation();
      assertCount(publisher.publish(t, utf8("found")), 2);

      assertThat(text(second.next())).isEqualTo("found");
      assertThat(witness.texts(3)).containsExactly("before", "lost", "found");
      assertThat(first.isEmpty()).as("nothing after close").isTrue();
    }

    @Test
    public void closingTheTransportFailsLaterPublishesAndRunsDisconnectActionsOnce()
        throws Exception {
      PubSub client = client();
      String t = topic("t");
      AtomicInteger told = new AtomicInteger();
      AtomicInteger removedListener = new AtomicInteger();
      AtomicInteger alsoTold = new AtomicInteger();
      client.onDisconnect(told::incrementAndGet);
      Registration removed = client.onDisconnect(removedListener::incrementAndGet);
      removed.remove();
      client.onDisconnect(
          () -> {
            throw new IllegalStateException("a faulty listener");
          });
      client.onDisconnect(alsoTold::incrementAndGet);
      Inbox inbox = new Inbox();
      client.subscribe(t, SubscribeOptions.defaults(), inbox);
      awaitPropagation();

      client.close();
      client.close();

      assertThat(told).as("ran once, before close returned").hasValue(1);
      assertThat(alsoTold).as("after a listener that threw").hasValue(1);
      assertThat(removedListener).hasValue(0);
      CallError late = failure(client.publish(t, utf8("late")));
      assertThat(late.code()).isEqualTo(ErrorCode.UNAVAILABLE);
      assertThatThrownBy(() -> client.subscribe(t, SubscribeOptions.defaults(), inbox))
          .isInstanceOfSatisfying(
              CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
      AtomicInteger lateListener = new AtomicInteger();
      client.onDisconnect(lateListener::incrementAndGet);
      assertThat(lateListener).as("registered after close: runs at once").hasValue(1);
      PubSub other = client();
      if (other != client) {
        // Separate connections: the closed client's subscription is gone from the bus too.
        awaitPropagation();
        assertCount(other.publish(t, utf8("after close")), 0);
      }
      assertThat(inbox.isEmpty()).isTrue();
    }
  }

  // ------------------------------------------------------------------ disconnect

  /** Losing the connection tells the disconnect listeners at once and refuses publishes. */
  @Nested
  public class Disconnect {
    @Test
    public void losingTheConnectionRunsDisconnectActionsAndRefusesPublishes() throws Exception {
      PubSub client = client();
      String t = topic("t");
      CountDownLatch told = new CountDownLatch(1);
      AtomicInteger removedListener = new AtomicInteger();
      client.onDisconnect(told::countDown);
      client.onDisconnect(removedListener::incrementAndGet).remove();
      client.subscribe(t, SubscribeOptions.defaults(), m -> {});
      awaitPropagation();

      severConnection(client);

      if (!told.await(PROMPTLY.toMillis(), TimeUnit.MILLISECONDS)) {
        fail("the disconnect listener did not run within " + PROMPTLY);
      }
      assertThat(removedListener).hasValue(0);
      CallError refused = failure(client.publish(t, utf8("during the outage")));
      assertThat(refused.code())
          .as("refused, not buffered to be delivered after the caller gave up")
          .isEqualTo(ErrorCode.UNAVAILABLE);
    }
  }

  // ------------------------------------------------------------------ reconnection

  /**
   * After a lost connection a transport connects again by itself, and every subscription made
   * before receives again: plain, queue-group and inbox alike. A reply to a request published right
   * after reconnecting arrives (the inbox is back before the request goes out). Nothing published
   * while the connection was down is delivered later: it was refused, not buffered. Reconnects are
   * counted.
   */
  @Nested
  public class Reconnection {
    @Test
    public void plainGroupAndInboxSubscriptionsReceiveAgain() throws Exception {
      PubSub client = client();
      PubSub other = client();
      String plain = topic("plain");
      String grouped = topic("grouped");
      String operation = operation("echo");
      String inbox = inbox("client");
      Inbox plainInbox = new Inbox();
      Inbox groupInbox = new Inbox();
      Inbox replies = new Inbox();
      client.subscribe(plain, SubscribeOptions.defaults(), plainInbox);
      client.subscribe(grouped, SubscribeOptions.queueGroup("workers"), groupInbox);
      client.subscribe(inbox, SubscribeOptions.defaults(), replies);
      other.subscribe(
          ProtocolTopics.request(operation), SubscribeOptions.defaults(), answering(other));
      CountDownLatch disconnected = new CountDownLatch(1);
      client.onDisconnect(disconnected::countDown);
      awaitPropagation();
      long reconnectsBefore = client.transportStats().reconnects();

      interruptConnection(client);

      awaitLatch(disconnected, "the disconnect actions ran");
      awaitReconnected(client, reconnectsBefore);
      published(other.publish(plain, utf8("plain again")));
      published(other.publish(grouped, utf8("group again")));
      published(client.publish(ProtocolTopics.request(operation), request("r1", operation, inbox)));
      assertThat(text(plainInbox.next())).isEqualTo("plain again");
      assertThat(text(groupInbox.next())).isEqualTo("group again");
      assertThat(replyTo(replies.next())).isEqualTo("r1");
    }

    @Test
    public void aReplyToARequestPublishedRightAfterReconnectingArrives() throws Exception {
      PubSub caller = client();
      PubSub server = client();
      String operation = operation("echo");
      String inbox = inbox("caller");
      server.subscribe(
          ProtocolTopics.request(operation), SubscribeOptions.defaults(), answering(server));
      Inbox replies = new Inbox();
      caller.subscribe(inbox, SubscribeOptions.defaults(), replies);
      awaitPropagation();

      interruptConnection(caller);

      // The first request the transport accepts after the drop must be answered: a transport that
      // let it out before the inbox was back would lose the reply.
      long end = System.nanoTime() + WAIT.toNanos();
      int attempt = 0;
      while (true) {
        attempt++;
        CompletableFuture<Integer> sent =
            caller.publish(
                ProtocolTopics.request(operation), request("r" + attempt, operation, inbox));
        CallError refused = null;
        try {
          sent.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          refused = CallError.from(e, cause -> CallError.of(ErrorCode.UNAVAILABLE, "failed"));
        }
        if (refused == null) {
          break;
        }
        assertThat(refused.code()).as("refused while down").isEqualTo(ErrorCode.UNAVAILABLE);
        if (System.nanoTime() > end) {
          fail("no publish was accepted within " + WAIT + " of the drop");
        }
        Thread.sleep(2);
      }
      assertThat(replyTo(replies.next())).isEqualTo("r" + attempt);
    }

    @Test
    public void nothingPublishedDuringTheOutageArrivesLater() throws Exception {
      PubSub publisher = client();
      PubSub subscriber = client();
      String t = topic("t");
      Inbox inbox = new Inbox();
      subscriber.subscribe(t, SubscribeOptions.defaults(), inbox);
      CountDownLatch disconnected = new CountDownLatch(1);
      publisher.onDisconnect(disconnected::countDown);
      awaitPropagation();
      long reconnectsBefore = publisher.transportStats().reconnects();

      interruptConnection(publisher);
      awaitLatch(disconnected, "the disconnect actions ran");
      List<String> refused = new ArrayList<>();
      List<String> accepted = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        String payload = "during " + i;
        try {
          publisher.publish(t, utf8(payload)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
          accepted.add(payload); // reconnected already: it must be delivered, once
        } catch (ExecutionException e) {
          refused.add(payload);
        }
      }
      awaitReconnected(publisher, reconnectsBefore);
      published(publisher.publish(t, utf8("after")));
      List<String> received = new ArrayList<>();
      String last;
      do {
        last = text(inbox.next());
        received.add(last);
      } while (!last.equals("after"));
      assertThat(refused).as("publishes refused while down").isNotEmpty();
      assertThat(received).as("what arrived").doesNotContainAnyElementsOf(refused);
      assertThat(received.subList(0, received.size() - 1))
          .as("what was accepted arrives once, in order")
          .containsExactlyElementsOf(accepted);
    }
  }

  // ------------------------------------------------------------------ handler failures

  /** A handler that throws does not end its subscription. */
  @Nested
  public class HandlerFailures {
    @Test
    public void aHandlerThatThrowsDoesNotStopDelivery() throws Exception {
      PubSub publisher = client();
      String t = topic("fragile");
      Inbox inbox = new Inbox();
      client()
          .subscribe(
              t,
              SubscribeOptions.defaults(),
              message -> {
                if (text(message).equals("bad")) {
                  throw new IllegalStateException("cannot handle this one");
                }
                inbox.accept(message);
              });
      awaitPropagation();

      published(publisher.publish(t, utf8("bad")));
      published(publisher.publish(t, utf8("good")));
      published(publisher.publish(t, utf8("also good")));

      assertThat(inbox.texts(2)).containsExactly("good", "also good");
    }
  }

  // ------------------------------------------------------------------ concurrency

  /** Several publishers and subscribers at once: nothing lost, nothing twice, order kept. */
  @Nested
  public class Concurrency {
    @Test
    public void severalPublishersAndSubscribersAtOnceLoseNothingAndDuplicateNothing()
        throws Exception {
      String t = topic("busy");
      int publishers = 4;
      int each = 1_000;
      int total = publishers * each;
      SubscribeOptions roomy = SubscribeOptions.defaults().withBufferSize(total);
      List<Sequence> subscriptions = new ArrayList<>();
      List<Tally> plainTallies = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Tally tally = new Tally(total);
        plainTallies.add(tally);
        Sequence subscriber = new Sequence(tally);
        subscriptions.add(subscriber);
        client().subscribe(t, roomy, subscriber);
      }
      Tally group = new Tally(total);
      for (int i = 0; i < 3; i++) {
        Sequence member = new Sequence(group);
        subscriptions.add(member);
        client().subscribe(t, SubscribeOptions.queueGroup("pool").withBufferSize(total), member);
      }
      awaitPropagation();

      List<Integer> counts = publishAtOnce(t, publishers, each);

      for (Tally tally : plainTallies) {
        tally.awaitAll("every message reached each plain subscriber");
        assertThat(tally.deliveries()).isEqualTo(total);
      }
      group.awaitAll("every message reached the queue group");
      assertThat(group.deliveredMoreThanOnce()).as("delivered twice in the group").isEmpty();
      assertThat(group.deliveries()).isEqualTo(total);
      assertThat(subscriptions).allSatisfy(s -> assertThat(s.problems).isEmpty());
      if (countsReceivers()) {
        assertThat(counts).as("three plain subscribers and one group member").containsOnly(4);
      }
    }
  }
}
