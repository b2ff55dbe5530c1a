package dev.alkdev.operations.transport.nats;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.pubsub.TransportStats;
import dev.alkdev.operations.transport.kit.Backoff;
import dev.alkdev.operations.transport.kit.ConnectionKeeper;
import dev.alkdev.operations.transport.nats.internal.Subjects;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

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
 *   <li>A subscription whose handler never blocks ({@link
 *       SubscribeOptions#withNonBlockingHandler()}: the call protocol's own) is read by a second
 *       jnats dispatcher, and an idle mailbox runs its first messages on that dispatcher's thread
 *       instead of handing them to a delivery thread: one hand-off less on each side of a call.
 *       Other subscriptions never share a dispatcher with them: a burst of user messages does not
 *       queue ahead of a call's replies, and a protocol handler that blocks despite its promise
 *       does not hold up user subscriptions.
 *   <li>{@link #maxMessageBytes()} is the smaller of the configured limit and the server's {@code
 *       max_payload}.
 *   <li>While the connection is down, publishes fail at once with UNAVAILABLE (never buffered to be
 *       sent after the caller gave up), the {@link #onDisconnect} actions run, and a new connection
 *       replaces the dropped one; every subscription is made again on it before anything may
 *       publish on it.
 *   <li>Payload identities are not trusted ({@link #trustsPayloadIdentity()} is false).
 *   <li>With a private token ({@link NatsOptions.Builder#privateToken}), callers on this connection
 *       make their inboxes under {@code ops.inbox.<token>.} ({@link #inboxPrefix()}) and the
 *       receiver probes are under {@code _OPS.RCV.<token>.}: subjects that {@link
 *       NatsPermissions#privateTo} keeps to the user with that token.
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
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private final NatsOptions options;
  private final String name;
  private final ScheduledExecutorService probeTimer;
  private final NatsConnector connector;
  private final ConnectionKeeper<NatsConnector.Link> keeper;
  private final String inboxPrefix;

  private NatsPubSub(NatsOptions options) {
    this.options = options;
    this.inboxPrefix =
        options
            .privateToken()
            .map(ProtocolTopics::privateInboxPrefix)
            .orElse(ProtocolTopics.INBOX_PREFIX);
    this.name = options.connectionName().orElse("nats") + "-" + INSTANCES.incrementAndGet();
    this.probeTimer =
        Executors.newSingleThreadScheduledExecutor(daemonThreads("ops-" + name + "-probes-"));
    this.connector = new NatsConnector(options, name, probeTimer);
    try {
      // snippet: keeper
      this.keeper =
          ConnectionKeeper.builder(name, "NATS", connector)
              .maxMessageBytes(this::maxMessageBytes)
              .backoff(Backoff.fixed(options.reconnectWait()))
              .maxReconnects(options.maxReconnects())
              // Subscriptions are queued on the connection itself: restoring takes no round trip.
              .restoreTimeout(options.connectTimeout().plusSeconds(5))
              // Unbounded in threads but not in practice: a mailbox runs one drain at a time, so
              // the threads busy at once are at most the subscriptions with messages waiting. A
              // fixed pool would let a few subscribers that block (user handlers may) starve every
              // other subscription of this connection, the protocol's included (D63).
              .delivery(Executors.newCachedThreadPool(daemonThreads("ops-" + name + "-delivery-")))
              .connect();
      // end-snippet
    } catch (RuntimeException e) {
      probeTimer.shutdownNow();
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
    return new NatsPubSub(options);
  }

  @Override
  public CompletableFuture<Integer> publish(String topic, byte[] payload) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(payload, "payload");
    Optional<String> problem = Subjects.problem(topic);
    if (problem.isPresent()) {
      return CompletableFuture.failedFuture(
          CallError.of(
              ErrorCode.INVALID_INPUT,
              "Topic \"" + topic + "\" is not a NATS subject: " + problem.get()));
    }
    return keeper.publish(topic, payload);
  }

  @Override
  public Subscription subscribe(
      String topic, SubscribeOptions options, java.util.function.Consumer<Message> handler) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(handler, "handler");
    if (keeper.isClosed()) {
      throw keeper.closedError();
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
    return keeper.subscribe(topic, options, handler);
  }

  /**
   * {@code ops.inbox.<token>.} with a private token ({@link NatsOptions.Builder#privateToken}),
   * {@link ProtocolTopics#INBOX_PREFIX} without.
   */
  @Override
  public String inboxPrefix() {
    return inboxPrefix;
  }

  /** The smaller of the configured limit and the connected server's {@code max_payload}. */
  @Override
  public int maxMessageBytes() {
    long serverLimit = connector.serverMaxPayload();
    long limit = options.maxMessageBytes();
    return (int) (serverLimit > 0 ? Math.min(limit, serverLimit) : limit);
  }

  /**
   * Runs {@code action} each time the connection drops (before a new one is opened) and when the
   * transport closes; at once if it is closed already.
   */
  @Override
  public Registration onDisconnect(Runnable action) {
    return keeper.onDisconnect(action);
  }

  /**
   * Waits until the server has processed everything this connection sent so far (subscriptions
   * included): a round trip.
   *
   * @throws CallError UNAVAILABLE when the connection is down or the round trip takes longer than
   *     {@code timeout}
   */
  public void flush(Duration timeout) {
    NatsConnector.Link link =
        keeper
            .connection()
            .orElseThrow(() -> CallError.of(ErrorCode.UNAVAILABLE, "The NATS connection is down"));
    try {
      link.connection().flush(timeout);
    } catch (TimeoutException | IllegalStateException e) {
      throw CallError.of(
          ErrorCode.UNAVAILABLE, "NATS did not answer a flush: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallError.of(ErrorCode.UNAVAILABLE, "Interrupted while flushing", e);
    }
  }

  /** The URL of the server this transport is connected to, while it is connected. */
  public Optional<String> connectedServer() {
    return keeper.connection().map(link -> link.connection().getConnectedUrl());
  }

  /** Whether the connection is up at the moment. */
  @Override
  public boolean isConnected() {
    return keeper.isConnected();
  }

  /** The counters of this transport since it connected. */
  public Stats stats() {
    return new Stats(
        keeper.disconnects(),
        keeper.reconnects(),
        keeper.refusedPublishes(),
        keeper.slowConsumerEvents(),
        keeper.droppedMessages() + connector.droppedByClient(keeper.connection()));
  }

  /**
   * {@inheritDoc} Published: messages handed to the connection; received: messages a subscription's
   * buffer took; dropped, reconnects and slow-consumer events as in {@link #stats()}.
   */
  @Override
  public TransportStats transportStats() {
    return keeper.transportStats(connector.droppedByClient(keeper.connection()));
  }

  @Override
  public void close() {
    keeper.close();
    probeTimer.shutdownNow();
  }

  @Override
  public String toString() {
    return "NatsPubSub["
        + name
        + ", "
        + keeper.connection().map(link -> link.connection().getStatus().toString()).orElse("down")
        + "]";
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * What a {@link NatsPubSub} counted since it connected.
   *
   * @param disconnects times the connection dropped
   * @param reconnects times a new connection replaced a dropped one
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
