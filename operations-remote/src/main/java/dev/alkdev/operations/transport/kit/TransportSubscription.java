package dev.alkdev.operations.transport.kit;

import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SerialMailbox;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A subscription kept by a {@link ConnectionKeeper}: it outlives connections, and each new one gets
 * it again. Its messages wait in a bounded {@link SerialMailbox}; a transport hands each message it
 * receives to {@link #deliver}.
 *
 * @param <C> the transport's connection
 */
public final class TransportSubscription<C> implements PubSub.Subscription {
  private final ConnectionKeeper<C> keeper;
  private final long id;
  private final String topic;
  private final Optional<String> queueGroup;
  private final boolean nonBlocking;
  private final SerialMailbox mailbox;
  private final AtomicBoolean ended = new AtomicBoolean();
  private final AtomicLong droppedElsewhere = new AtomicLong();
  // The connection it is made on; guarded by this.
  private Link<C> attachedTo;

  TransportSubscription(
      ConnectionKeeper<C> keeper,
      long id,
      String topic,
      SubscribeOptions options,
      Consumer<Message> handler) {
    this.keeper = keeper;
    this.id = id;
    this.topic = topic;
    this.queueGroup = options.queueGroup();
    this.nonBlocking = options.nonBlockingHandler();
    // A handler that promised never to block starts on the thread that delivers (the transport's
    // I/O thread), saving a hand-off per message (D74); any other runs on the delivery pool.
    // Inline without a depth bound: only that thread offers, and a handler running on it cannot
    // make it deliver again before returning (a publish goes to the broker and back), so these
    // runs never nest; a busy mailbox still yields to the pool after a batch.
    this.mailbox =
        nonBlocking
            ? SerialMailbox.create(
                options.bufferSize(),
                options.overflow(),
                keeper.deliveryPool(),
                Runnable::run,
                handler)
            : SerialMailbox.create(
                options.bufferSize(), options.overflow(), keeper.deliveryPool(), handler);
  }

  /** Unique among its keeper's subscriptions. */
  public long id() {
    return id;
  }

  @Override
  public String topic() {
    return topic;
  }

  /** The queue group it is a member of, if any. */
  public Optional<String> queueGroup() {
    return queueGroup;
  }

  /** Whether its handler promised never to block, so that it may run on an I/O thread. */
  public boolean nonBlockingHandler() {
    return nonBlocking;
  }

  /**
   * Hands over a message the transport received for this subscription; never blocks. A full mailbox
   * drops and counts it (the publisher, on another connection, cannot be told), and a rate-limited
   * warning names the slow subscription.
   */
  public SerialMailbox.Outcome deliver(Message message) {
    SerialMailbox.Outcome outcome = mailbox.offer(message);
    keeper.delivered(this, message, outcome);
    return outcome;
  }

  /** Counts messages the transport's client lost for this subscription before delivering them. */
  public void countDropped(long messages) {
    droppedElsewhere.addAndGet(messages);
  }

  /** Whether it is made on {@code connection} at the moment. */
  public synchronized boolean isAttachedTo(C connection) {
    return attachedTo != null && attachedTo.connection == connection && !ended.get();
  }

  @Override
  public long dropped() {
    return mailbox.dropped() + mailbox.rejected() + droppedElsewhere.get();
  }

  boolean isEnded() {
    return ended.get();
  }

  /** Makes it on {@code link}, unless it is there already, ended, or the link dropped. */
  synchronized CompletableFuture<Void> attachTo(Link<C> link, Connector<C> connector) {
    // Not to a dropped link: a subscribe() that read the link just before a reconnection must not
    // move a subscription the reconnection already made on the new one back to the old.
    if (ended.get() || attachedTo == link || link.isDown()) {
      return null;
    }
    attachedTo = link;
    return connector.attach(link.connection, this);
  }

  /** A refused attachment: it is on no connection until tried again. */
  synchronized void detached(Link<C> link) {
    if (attachedTo == link) {
      attachedTo = null;
    }
  }

  @Override
  public void close() {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    mailbox.close();
    Link<C> from;
    synchronized (this) {
      from = attachedTo;
      attachedTo = null;
    }
    keeper.closed(this, from);
  }

  void discardBuffered() {
    mailbox.close();
  }

  @Override
  public String toString() {
    return "TransportSubscription[" + topic + queueGroup.map(g -> " in " + g).orElse("") + "]";
  }
}
