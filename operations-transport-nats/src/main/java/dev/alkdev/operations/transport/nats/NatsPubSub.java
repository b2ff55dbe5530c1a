package dev.alkdev.operations.transport.nats;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SerialMailbox;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.transport.nats.internal.RateLimitedWarning;
import dev.alkdev.operations.transport.nats.internal.ReceiverProbes;
import dev.alkdev.operations.transport.nats.internal.Subjects;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Consumer;
import io.nats.client.Dispatcher;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.api.ServerInfo;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link PubSub} transport on NATS: one connection to a NATS server or cluster (jnats).
 *
 * <ul>
 *   <li>Topics are NATS subjects unchanged; topics NATS would read differently (wildcards, empty
 *       tokens, whitespace) are refused.
 *   <li>Queue groups are NATS queue subscriptions; plain subscriptions get every message.
 *   <li>{@link #publish} completes with 0 when nothing is subscribed to the subject and 1 when at
 *       least one subscription is (NATS does not count receivers), learnt from the server's
 *       no-responders status within one round trip. A call to an operation nobody serves thus fails
 *       with NO_RESPONDERS at once.
 *   <li>Each subscription's messages are handed off jnats' dispatcher thread into a bounded {@link
 *       SerialMailbox}; a full mailbox drops and counts the message (the publisher, on another
 *       connection, cannot be told), whatever the overflow policy, and a rate-limited warning names
 *       the slow subscription.
 *   <li>{@link #maxMessageBytes()} is the smaller of the configured limit and the server's {@code
 *       max_payload}.
 *   <li>While the connection is down, publishes fail at once with UNAVAILABLE (never buffered to be
 *       sent after the caller gave up), the {@link #onDisconnect} actions run, and jnats reconnects
 *       and restores the subscriptions.
 *   <li>Payload identities are not trusted ({@link #trustsPayloadIdentity()} is false).
 * </ul>
 *
 * <pre>{@code
 * try (NatsPubSub nats = NatsPubSub.connect(NatsOptions.builder("nats://127.0.0.1:4222").build())) {
 *   CallHandler server = CallHandler.serve(registry, nats);
 *   ...
 * }
 * }</pre>
 */
public final class NatsPubSub implements PubSub {
  private static final Logger LOG = LoggerFactory.getLogger(NatsPubSub.class);
  private static final Duration WARNING_INTERVAL = Duration.ofSeconds(10);
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private final NatsOptions options;
  private final String name;
  private final ExecutorService delivery;
  private final CopyOnWriteArrayList<Runnable> disconnectActions = new CopyOnWriteArrayList<>();
  private final Set<NatsSubscription> subscriptions = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean down = new AtomicBoolean();
  private final AtomicLong disconnects = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong slowConsumerEvents = new AtomicLong();
  private final AtomicLong droppedByClosedSubscriptions = new AtomicLong();
  private final RateLimitedWarning slowConsumerWarning =
      new RateLimitedWarning(LOG, WARNING_INTERVAL);
  private final Connection connection;
  private final Dispatcher dispatcher;
  private final ReceiverProbes probes;

  private NatsPubSub(NatsOptions options) throws IOException, InterruptedException {
    this.options = options;
    this.name = options.connectionName().orElse("nats") + "-" + INSTANCES.incrementAndGet();
    this.delivery = Executors.newCachedThreadPool(daemonThreads("ops-" + name + "-delivery-"));
    this.connection =
        Nats.connect(
            options
                .toJnats()
                .connectionListener(this::onConnectionEvent)
                .errorListener(new Errors())
                .build());
    try {
      this.dispatcher = connection.createDispatcher();
      this.probes = new ReceiverProbes(connection, delivery, "ops-" + name + "-probes");
    } catch (RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  /**
   * Connects to the servers {@code options} names.
   *
   * @throws CallError UNAVAILABLE when no server can be reached (or authentication fails) within
   *     the connect timeout
   */
  public static NatsPubSub connect(NatsOptions options) {
    Objects.requireNonNull(options, "options");
    try {
      return new NatsPubSub(options);
    } catch (IOException | RuntimeException e) {
      throw CallError.of(
          ErrorCode.UNAVAILABLE,
          "Cannot connect to NATS at " + options.servers() + ": " + e.getMessage(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallError.of(ErrorCode.UNAVAILABLE, "Interrupted while connecting to NATS", e);
    }
  }

  @Override
  public CompletableFuture<Integer> publish(String topic, byte[] payload) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(payload, "payload");
    if (closed.get()) {
      return CompletableFuture.failedFuture(closedError());
    }
    Optional<String> problem = Subjects.problem(topic);
    if (problem.isPresent()) {
      return CompletableFuture.failedFuture(
          CallError.of(
              ErrorCode.INVALID_INPUT,
              "Topic \"" + topic + "\" is not a NATS subject: " + problem.get()));
    }
    int limit = maxMessageBytes();
    if (payload.length > limit) {
      return CompletableFuture.failedFuture(
          CallError.builder(
                  ErrorCode.RESOURCE_EXHAUSTED,
                  "Message of "
                      + payload.length
                      + " bytes is larger than the transport's limit of "
                      + limit)
              .retryable(false) // the same message is as large next time
              .build());
    }
    if (connection.getStatus() != Connection.Status.CONNECTED) {
      return refuse(topic);
    }
    try {
      return probes.publish(topic, payload);
    } catch (IllegalStateException e) {
      // jnats refuses to queue while reconnecting (its reconnect buffer is 0) or once closed.
      return refuse(topic);
    }
  }

  @Override
  public Subscription subscribe(
      String topic, SubscribeOptions options, java.util.function.Consumer<Message> handler) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(handler, "handler");
    if (closed.get()) {
      throw closedError();
    }
    Subjects.problem(topic)
        .ifPresent(
            p -> {
              throw new IllegalArgumentException(
                  "Topic \"" + topic + "\" is not a NATS subject: " + p);
            });
    options
        .queueGroup()
        .flatMap(Subjects::queueGroupProblem)
        .ifPresent(
            p -> {
              throw new IllegalArgumentException("Not a NATS queue group name: " + p);
            });
    NatsSubscription subscription = new NatsSubscription(topic, options, handler);
    subscriptions.add(subscription);
    if (closed.get()) { // closed meanwhile: close() may have missed it
      subscription.close();
      throw closedError();
    }
    return subscription;
  }

  /** The smaller of the configured limit and the connected server's {@code max_payload}. */
  @Override
  public int maxMessageBytes() {
    long limit = options.maxMessageBytes();
    ServerInfo info = connection.getServerInfo();
    if (info != null && info.getMaxPayload() > 0) {
      limit = Math.min(limit, info.getMaxPayload());
    }
    return (int) limit;
  }

  /** False: any client of the NATS server could write any identity into a payload. */
  @Override
  public boolean trustsPayloadIdentity() {
    return false;
  }

  /**
   * Runs {@code action} each time the connection drops (before jnats tries to reconnect) and when
   * the transport closes; at once if it is closed already.
   */
  @Override
  public Registration onDisconnect(Runnable action) {
    Objects.requireNonNull(action, "action");
    disconnectActions.add(action);
    if (closed.get() && disconnectActions.remove(action)) {
      runSafely(action);
    }
    return () -> disconnectActions.remove(action);
  }

  /**
   * Waits until the server has processed everything this connection sent so far (subscriptions
   * included): a round trip.
   *
   * @throws CallError UNAVAILABLE when the connection is down or the round trip takes longer than
   *     {@code timeout}
   */
  public void flush(Duration timeout) {
    try {
      connection.flush(timeout);
    } catch (TimeoutException | IllegalStateException e) {
      throw CallError.of(
          ErrorCode.UNAVAILABLE, "NATS did not answer a flush: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallError.of(ErrorCode.UNAVAILABLE, "Interrupted while flushing", e);
    }
  }

  /** Whether the connection is up at the moment. */
  public boolean isConnected() {
    return !closed.get() && connection.getStatus() == Connection.Status.CONNECTED;
  }

  /** The counters of this transport since it connected. */
  public Stats stats() {
    long dropped = droppedByClosedSubscriptions.get();
    for (NatsSubscription subscription : subscriptions) {
      dropped += subscription.dropped();
    }
    return new Stats(
        disconnects.get(), reconnects.get(), refused.get(), slowConsumerEvents.get(), dropped);
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    for (NatsSubscription subscription : subscriptions) {
      subscription.mailbox.close();
    }
    probes.failAll(closedError());
    runDisconnectActions();
    try {
      connection.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      probes.close();
      delivery.shutdownNow();
    }
  }

  @Override
  public String toString() {
    return "NatsPubSub[" + name + ", " + connection.getStatus() + "]";
  }

  // ------------------------------------------------------------------ connection events

  private void onConnectionEvent(Connection conn, ConnectionListener.Events event) {
    switch (event) {
      case DISCONNECTED -> lost("NATS connection lost");
      case CLOSED -> {
        if (!closed.get()) {
          // jnats gave up reconnecting: this transport is over.
          LOG.warn("{}: the NATS connection closed and will not reconnect", name);
          close();
        }
      }
      case RECONNECTED -> {
        reconnects.incrementAndGet();
        down.set(false);
        LOG.info("{}: reconnected to {}", name, conn.getConnectedUrl());
      }
      case RESUBSCRIBED -> LOG.debug("{}: subscriptions restored", name);
      default -> {}
    }
  }

  private void lost(String why) {
    if (closed.get() || !down.compareAndSet(false, true)) {
      return;
    }
    disconnects.incrementAndGet();
    LOG.warn("{}: {}; publishes are refused until it is back", name, why);
    probes.failAll(
        CallError.of(
            ErrorCode.UNAVAILABLE, "The NATS connection dropped before the publish was settled"));
    runDisconnectActions();
  }

  private void runDisconnectActions() {
    for (Runnable action : disconnectActions) {
      runSafely(action);
    }
  }

  private void runSafely(Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      LOG.error("{}: a disconnect action failed", name, e);
    }
  }

  private CompletableFuture<Integer> refuse(String topic) {
    refused.incrementAndGet();
    if (closed.get()) {
      return CompletableFuture.failedFuture(closedError());
    }
    return CompletableFuture.failedFuture(
        CallError.of(
            ErrorCode.UNAVAILABLE,
            "The NATS connection is down; not publishing to " + topic + " (nothing is buffered)"));
  }

  private CallError closedError() {
    return CallError.of(ErrorCode.UNAVAILABLE, "The NATS transport is closed");
  }

  private static java.util.concurrent.ThreadFactory daemonThreads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** jnats' error reports: slow consumers counted and warned of, the rest logged. */
  private final class Errors implements ErrorListener {
    @Override
    public void slowConsumerDetected(Connection conn, Consumer consumer) {
      slowConsumerEvents.incrementAndGet();
      slowConsumerWarning.warn(
          "{}: slow consumer: jnats dropped messages it could not hand over ({} so far on this"
              + " consumer)",
          name,
          consumer.getDroppedCount());
    }

    @Override
    public void errorOccurred(Connection conn, String error) {
      LOG.warn("{}: NATS server error: {}", name, error);
    }

    @Override
    public void exceptionOccurred(Connection conn, Exception exp) {
      LOG.debug("{}: NATS connection exception", name, exp);
    }
  }

  /**
   * One subscription: jnats' dispatcher thread offers each message to the mailbox and returns at
   * once; the handler runs on the delivery executor.
   */
  private final class NatsSubscription implements Subscription {
    private final String topic;
    private final SerialMailbox mailbox;
    private final io.nats.client.Subscription nats;
    private final AtomicBoolean ended = new AtomicBoolean();

    NatsSubscription(
        String topic, SubscribeOptions options, java.util.function.Consumer<Message> handler) {
      this.topic = topic;
      this.mailbox =
          SerialMailbox.create(options.bufferSize(), options.overflow(), delivery, handler);
      io.nats.client.MessageHandler receive = this::receive;
      this.nats =
          options.queueGroup().isPresent()
              ? dispatcher.subscribe(topic, options.queueGroup().get(), receive)
              : dispatcher.subscribe(topic, receive);
    }

    private void receive(io.nats.client.Message message) {
      if (message.isStatusMessage()) {
        return;
      }
      byte[] data = message.getData();
      SerialMailbox.Outcome outcome =
          mailbox.offer(new Message(topic, data == null ? new byte[0] : data, Optional.empty()));
      if (outcome == SerialMailbox.Outcome.DROPPED || outcome == SerialMailbox.Outcome.REJECTED) {
        slowConsumerWarning.warn(
            "{}: a subscriber of {} is slower than its messages: its buffer is full, dropped {}"
                + " so far",
            name,
            topic,
            dropped());
      }
    }

    @Override
    public String topic() {
      return topic;
    }

    /** Dropped here (the mailbox was full, either policy) and by jnats (a slow consumer). */
    @Override
    public long dropped() {
      return mailbox.dropped() + mailbox.rejected() + nats.getDroppedCount();
    }

    @Override
    public void close() {
      if (!ended.compareAndSet(false, true)) {
        return;
      }
      mailbox.close();
      subscriptions.remove(this);
      droppedByClosedSubscriptions.addAndGet(dropped());
      try {
        dispatcher.unsubscribe(nats);
      } catch (IllegalStateException connectionClosed) {
        // Closing the connection ended it already.
      }
    }
  }

  /**
   * What a {@link NatsPubSub} counted since it connected.
   *
   * @param disconnects times the connection dropped
   * @param reconnects times it came back
   * @param refusedPublishes publishes refused because the connection was down or closed
   * @param slowConsumerEvents times jnats reported a slow consumer (its own buffer overflowed)
   * @param droppedMessages messages subscriptions lost: their buffer was full, or jnats dropped
   *     them
   */
  public record Stats(
      long disconnects,
      long reconnects,
      long refusedPublishes,
      long slowConsumerEvents,
      long droppedMessages) {}
}
