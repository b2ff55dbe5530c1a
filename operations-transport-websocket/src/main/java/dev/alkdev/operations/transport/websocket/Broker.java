package dev.alkdev.operations.transport.websocket;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.pubsub.SerialMailbox.Outcome;
import dev.alkdev.operations.transport.websocket.internal.Peek;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

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

  private final ConcurrentHashMap<String, Topic> topics = new ConcurrentHashMap<>();

  void add(Sub sub) {
    topics.compute(
        sub.topic,
        (name, existing) -> {
          Topic t = existing != null ? existing : new Topic();
          if (sub.group != null) {
            t.groups.computeIfAbsent(sub.group, g -> new Group()).members.add(sub);
          } else {
            t.plain.add(sub);
          }
          return t;
        });
  }

  void remove(Sub sub) {
    topics.computeIfPresent(
        sub.topic,
        (name, t) -> {
          if (sub.group != null) {
            Group group = t.groups.get(sub.group);
            if (group != null) {
              group.members.remove(sub);
              if (group.members.isEmpty()) {
                t.groups.remove(sub.group);
              }
            }
          } else {
            t.plain.remove(sub);
          }
          return t.plain.isEmpty() && t.groups.isEmpty() ? null : t;
        });
  }

  Result publish(Delivery delivery) {
    Topic target = topics.get(delivery.topic);
    if (target == null) {
      return new Result(0, false);
    }
    int receivers = 0;
    boolean rejected = false;
    for (Sub sub : target.plain) {
      switch (sub.receiver.deliver(delivery)) {
        case ACCEPTED -> receivers++;
        case REJECTED -> rejected = true;
        case DROPPED, CLOSED -> {}
      }
    }
    for (Group group : target.groups.values()) {
      switch (group.deliver(delivery)) {
        case ACCEPTED -> receivers++;
        case REJECTED -> rejected = true;
        case DROPPED, CLOSED -> {}
      }
    }
    return new Result(receivers, rejected);
  }

  int topicCount() {
    return topics.size();
  }

  private static final class Topic {
    final CopyOnWriteArrayList<Sub> plain = new CopyOnWriteArrayList<>();
    final ConcurrentHashMap<String, Group> groups = new ConcurrentHashMap<>();
  }

  private static final class Group {
    final CopyOnWriteArrayList<Sub> members = new CopyOnWriteArrayList<>();
    final AtomicInteger next = new AtomicInteger();

    Outcome deliver(Delivery delivery) {
      Object[] snapshot = members.toArray();
      int size = snapshot.length;
      if (size == 0) {
        return Outcome.CLOSED;
      }
      int start = Math.floorMod(next.getAndIncrement(), size);
      Outcome result = Outcome.CLOSED;
      for (int i = 0; i < size; i++) {
        Outcome outcome = ((Sub) snapshot[(start + i) % size]).receiver.deliver(delivery);
        if (outcome == Outcome.ACCEPTED) {
          return outcome;
        }
        if (outcome == Outcome.REJECTED) {
          result = Outcome.REJECTED;
        }
      }
      return result;
    }
  }
}
