package dev.alkdev.operations.transport.kit;

import dev.alkdev.operations.pubsub.SerialMailbox.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Who listens where, and the delivery rule of the {@link dev.alkdev.operations.pubsub.PubSub} SPI
 * for a broker that holds its subscriptions itself (the in-process transport, the WebSocket hub): a
 * message reaches every plain subscriber of its topic and exactly one member of each queue group,
 * chosen round robin, skipping members that cannot take it. Thread-safe; publishing takes no lock.
 *
 * @param <R> a receiver: a subscription's mailbox, a spoke's connection
 */
public final class TopicTable<R> {
  /** Hands {@code message} to {@code receiver}, and says what became of it. */
  @FunctionalInterface
  public interface Deliverer<R, M> {
    Outcome deliver(R receiver, M message);
  }

  /**
   * What one publish did.
   *
   * @param receivers subscriptions that took the message (a group counts once)
   * @param dropped plain subscribers and groups whose buffers were full and dropped it
   * @param rejected whether a buffer with the REJECT policy was full: the publisher is told
   */
  public record Tally(int receivers, int dropped, boolean rejected) {
    static final Tally NONE = new Tally(0, 0, false);
  }

  private final ConcurrentHashMap<String, Topic<R>> topics = new ConcurrentHashMap<>();

  /** Adds {@code receiver} to {@code topic}, plain or as a member of {@code group}. */
  public void add(String topic, Optional<String> group, R receiver) {
    topics.compute(
        topic,
        (name, existing) -> {
          Topic<R> t = existing != null ? existing : new Topic<>();
          if (group.isPresent()) {
            t.groups.computeIfAbsent(group.get(), g -> new Group<>()).members.add(receiver);
          } else {
            t.plain.add(receiver);
          }
          return t;
        });
  }

  /** Removes what {@link #add} added; a topic left without receivers goes. */
  public void remove(String topic, Optional<String> group, R receiver) {
    topics.computeIfPresent(
        topic,
        (name, t) -> {
          if (group.isPresent()) {
            Group<R> members = t.groups.get(group.get());
            if (members != null) {
              members.members.remove(receiver);
              if (members.members.isEmpty()) {
                t.groups.remove(group.get());
              }
            }
          } else {
            t.plain.remove(receiver);
          }
          return t.plain.isEmpty() && t.groups.isEmpty() ? null : t;
        });
  }

  /** Delivers {@code message} by the rule: every plain subscriber, one member per group. */
  public <M> Tally publish(String topic, M message, Deliverer<R, M> deliverer) {
    Topic<R> target = topics.get(topic);
    if (target == null) {
      return Tally.NONE;
    }
    int receivers = 0;
    int dropped = 0;
    boolean rejected = false;
    for (R receiver : target.plain) {
      switch (deliverer.deliver(receiver, message)) {
        case ACCEPTED -> receivers++;
        case REJECTED -> rejected = true;
        case DROPPED -> dropped++;
        case CLOSED -> {}
      }
    }
    for (Group<R> group : target.groups.values()) {
      switch (group.deliver(message, deliverer)) {
        case ACCEPTED -> receivers++;
        case REJECTED -> rejected = true;
        case DROPPED -> dropped++;
        case CLOSED -> {}
      }
    }
    return new Tally(receivers, dropped, rejected);
  }

  /** How many topics have receivers. */
  public int topicCount() {
    return topics.size();
  }

  /** Every receiver, plain and grouped. */
  public List<R> receivers() {
    List<R> all = new ArrayList<>();
    for (Topic<R> topic : topics.values()) {
      all.addAll(topic.plain);
      topic.groups.values().forEach(g -> all.addAll(g.members));
    }
    return all;
  }

  public void clear() {
    topics.clear();
  }

  private static final class Topic<R> {
    final CopyOnWriteArrayList<R> plain = new CopyOnWriteArrayList<>();
    final ConcurrentHashMap<String, Group<R>> groups = new ConcurrentHashMap<>();
  }

  /** A queue group: each message goes to one member, round robin, skipping full ones. */
  private static final class Group<R> {
    final CopyOnWriteArrayList<R> members = new CopyOnWriteArrayList<>();
    final AtomicInteger next = new AtomicInteger();

    @SuppressWarnings("unchecked")
    <M> Outcome deliver(M message, Deliverer<R, M> deliverer) {
      Object[] snapshot = members.toArray();
      int size = snapshot.length;
      if (size == 0) {
        return Outcome.CLOSED;
      }
      int start = Math.floorMod(next.getAndIncrement(), size);
      Outcome result = Outcome.CLOSED;
      for (int i = 0; i < size; i++) {
        Outcome outcome = deliverer.deliver((R) snapshot[(start + i) % size], message);
        if (outcome == Outcome.ACCEPTED) {
          return outcome;
        }
        if (outcome == Outcome.REJECTED) {
          result = Outcome.REJECTED;
        } else if (outcome == Outcome.DROPPED && result == Outcome.CLOSED) {
          result = Outcome.DROPPED; // every member full: the message is lost, and counted
        }
      }
      return result;
    }
  }
}
