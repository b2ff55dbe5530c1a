package dev.alkdev.operations.transport.websocket;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.pubsub.SerialMailbox.Outcome;
import dev.alkdev.operations.transport.kit.TopicTable;
import dev.alkdev.operations.transport.websocket.internal.Peek;
import java.util.Optional;

/**
 * The hub's topic table: who listens where, plain or in a queue group, whether a spoke's connection
 * or the hub's own code. Publishing hands a message to every plain subscriber and to one member of
 * each group (round robin, skipping members that cannot take it), and counts the receivers.
 */
final class Broker {
  /** Where a message goes: a spoke's connection or a hub-local subscription. */
  interface Receiver {
    Outcome deliver(Delivery delivery);
  }

  /** One message being published, and what the rules learned of it (peeked at most once). */
  static final class Delivery {
    final String topic;
    final byte[] payload;
    final HubConnection from; // null: the hub's own code
    final Optional<Identity> identity;
    private Peek peek;
    private final boolean peekIdentity;

    Delivery(String topic, byte[] payload, HubConnection from, Optional<Identity> identity) {
      this.topic = topic;
      this.payload = payload;
      this.from = from;
      this.identity = identity;
      this.peekIdentity = from == null;
    }

    /**
     * Who sent it: the spoke's authenticated identity; for the hub's own requests, the identity its
     * code wrote (the hub's code is trusted); otherwise nobody in particular.
     */
    Optional<Identity> sender() {
      if (from != null) {
        return identity;
      }
      if (HubConnection.isRequestTopic(topic)) {
        return Optional.ofNullable(peek().identity);
      }
      return Optional.empty();
    }

    Peek peek() {
      if (peek == null) {
        peek = Peek.of(payload, peekIdentity);
      }
      return peek;
    }
  }

  /** A subscription in the table. */
  static final class Sub {
    final String topic;
    final String group; // null: plain
    final Receiver receiver;

    Sub(String topic, String group, Receiver receiver) {
      this.topic = topic;
      this.group = group;
      this.receiver = receiver;
    }
  }

  /** Receivers counted, and whether a hub-local buffer refused the message. */
  record Result(int receivers, boolean rejected) {}

  private final TopicTable<Sub> table = new TopicTable<>();

  void add(Sub sub) {
    table.add(sub.topic, Optional.ofNullable(sub.group), sub);
  }

  void remove(Sub sub) {
    table.remove(sub.topic, Optional.ofNullable(sub.group), sub);
  }

  /** Every plain subscriber and one member of each queue group (TopicTable's rule). */
  Result publish(Delivery delivery) {
    TopicTable.Tally tally = table.publish(delivery.topic, delivery, Broker::deliver);
    return new Result(tally.receivers(), tally.rejected());
  }

  private static Outcome deliver(Sub sub, Delivery delivery) {
    return sub.receiver.deliver(delivery);
  }

  int topicCount() {
    return table.topicCount();
  }
}
