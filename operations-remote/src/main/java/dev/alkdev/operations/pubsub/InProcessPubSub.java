package dev.alkdev.operations.pubsub;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.protocol.CallEvents;
import dev.alkdev.operations.pubsub.SerialMailbox.Outcome;
import dev.alkdev.operations.transport.kit.InlineFirst;
import dev.alkdev.operations.transport.kit.Settings;
import dev.alkdev.operations.transport.kit.TopicTable;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-process transport: topics inside one JVM. Publishing hands the message to each receiving
 * subscription's {@link SerialMailbox} and returns at once with the number of receivers; each
 * subscription drains its mailbox one message at a time, on the publisher's thread when it was idle
 * (inline delivery, the default) or on the delivery executor. Every publisher is trusted code here,
 * so identities in payloads are believed. Thread-safe.
 */
public final class InProcessPubSub implements PubSub {
  private static final Logger LOG = LoggerFactory.getLogger(InProcessPubSub.class);

  private final TopicTable<Sub> topics = new TopicTable<>();
  private final Executor executor;
  // Where an idle subscription starts handling: on the publisher's thread when inline delivery is
  // on (no hand-off), within a bounded nesting depth; on the executor otherwise.
  private final Executor firstRun;
  private final ExecutorService ownedExecutor;
  private final int maxMessageBytes;
  private final CopyOnWriteArrayList<Runnable> disconnectActions = new CopyOnWriteArrayList<>();
  private final TransportCounters counters = TransportCounters.create();
  // Counting starts at the first transportStats(): the four adds per message are a tenth of an
  // in-process publish (docs/benchmarks.md), too much for a bus nobody observes.
  private volatile boolean counting;
  private volatile boolean closed;

  private InProcessPubSub(Builder builder) {
    if (builder.executor != null) {
      this.executor = builder.executor;
      this.ownedExecutor = null;
    } else {
      ForkJoinPool pool =
          new ForkJoinPool(
              Math.max(2, Runtime.getRuntime().availableProcessors()),
              ForkJoinPool.defaultForkJoinWorkerThreadFactory,
              null,
              true);
      this.executor = pool;
      this.ownedExecutor = pool;
    }
    this.maxMessageBytes = builder.maxMessageBytes;
    this.firstRun = builder.inlineDelivery ? new InlineFirst(executor) : executor;
  }

  /** An in-process transport with its own delivery threads and 1 MiB messages. */
  public static InProcessPubSub create() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public CompletableFuture<Integer> publish(String topic, byte[] payload) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(payload, "payload");
    if (closed) {
      return CompletableFuture.failedFuture(
          CallError.of(ErrorCode.UNAVAILABLE, "The in-process transport is closed"));
    }
    if (payload.length > maxMessageBytes) {
      return CompletableFuture.failedFuture(
          Settings.messageTooLarge(payload.length, maxMessageBytes));
    }
    boolean count = counting;
    if (count) {
      counters.published(payload.length);
    }
    Message message = new Message(topic, payload, Optional.empty());
    TopicTable.Tally tally = topics.publish(topic, message, InProcessPubSub::offer);
    int receivers = tally.receivers();
    int dropped = tally.dropped();
    boolean rejected = tally.rejected();
    if (count) {
      if (receivers > 0) {
        counters.received(receivers, (long) receivers * payload.length);
      }
      if (dropped > 0) {
        counters.dropped(dropped);
      }
    }
    if (rejected) {
      return CompletableFuture.failedFuture(
          CallError.of(
              ErrorCode.RESOURCE_EXHAUSTED,
              "A subscriber of " + topic + " is full; try again later"));
    }
    return CompletableFuture.completedFuture(receivers);
  }

  @Override
  public Subscription subscribe(String topic, SubscribeOptions options, Consumer<Message> handler) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(handler, "handler");
    if (closed) {
      throw CallError.of(ErrorCode.UNAVAILABLE, "The in-process transport is closed");
    }
    Sub sub = new Sub(topic, options, handler);
    topics.add(topic, options.queueGroup(), sub);
    return sub;
  }

  @Override
  public int maxMessageBytes() {
    return maxMessageBytes;
  }

  @Override
  public boolean trustsPayloadIdentity() {
    return true;
  }

  /**
   * {@inheritDoc} Here a message counts as received when a subscription's buffer takes it, and as
   * dropped when a full one drops it (DROP_NEWEST); a rejected one (REJECT) fails the publish
   * instead. There are no reconnects or slow-consumer events in process. Counting starts at the
   * first call of this method (binding the transport to metrics makes it): a bus nobody observes
   * pays one volatile read per publish.
   */
  @Override
  public TransportStats transportStats() {
    counting = true;
    return counters.snapshot();
  }

  @Override
  public Registration onDisconnect(Runnable action) {
    Objects.requireNonNull(action, "action");
    if (closed) {
      action.run();
      return () -> {};
    }
    disconnectActions.add(action);
    return () -> disconnectActions.remove(action);
  }

  @Override
  public boolean isConnected() {
    return !closed;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    topics.receivers().forEach(Sub::close);
    topics.clear();
    for (Runnable action : disconnectActions) {
      try {
        action.run();
      } catch (RuntimeException e) {
        LOG.warn("A disconnect listener failed", e);
      }
    }
    disconnectActions.clear();
    if (ownedExecutor != null) {
      ownedExecutor.shutdown();
    }
  }

  private static Outcome offer(Sub sub, Message message) {
    return sub.mailbox.offer(message);
  }

  /** One subscription: where it listens, and the mailbox its messages wait in. */
  private final class Sub implements Subscription {
    final String topic;
    final SubscribeOptions options;
    final SerialMailbox mailbox;

    Sub(String topic, SubscribeOptions options, Consumer<Message> handler) {
      this.topic = topic;
      this.options = options;
      this.mailbox =
          SerialMailbox.create(
              options.bufferSize(), options.overflow(), executor, firstRun, handler);
    }

    @Override
    public String topic() {
      return topic;
    }

    @Override
    public long dropped() {
      return mailbox.dropped();
    }

    @Override
    public void close() {
      if (!mailbox.isClosed()) {
        mailbox.close();
        topics.remove(topic, options.queueGroup(), this);
      }
    }
  }

  /** Configures an {@link InProcessPubSub}. */
  public static final class Builder {
    private Executor executor;
    private int maxMessageBytes = CallEvents.DEFAULT_MAX_MESSAGE_BYTES;
    private boolean inlineDelivery = true;

    private Builder() {}

    /**
     * Whether an idle subscription handles a message on the publisher's thread (true, the default:
     * no hand-off) or always on the delivery executor.
     */
    public Builder inlineDelivery(boolean inline) {
      this.inlineDelivery = inline;
      return this;
    }

    /**
     * Where deliveries run; by default a work-stealing pool of its own (daemon threads, one per
     * core, at least two), shut down on close. An executor given here is not shut down.
     */
    public Builder executor(Executor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    public Builder maxMessageBytes(int maxMessageBytes) {
      this.maxMessageBytes = Settings.positive(maxMessageBytes, "maxMessageBytes");
      return this;
    }

    public InProcessPubSub build() {
      return new InProcessPubSub(this);
    }
  }
}
