package dev.alkdev.operations.transport.nats;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.pubsub.DeliveryBatch;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.PubSubFactory;
import dev.alkdev.operations.pubsub.SerialMailbox;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.pubsub.TransportCounters;
import dev.alkdev.operations.pubsub.TransportStats;
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
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
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
  private final ScheduledExecutorService control;
  private final CopyOnWriteArrayList<Runnable> disconnectActions = new CopyOnWriteArrayList<>();
  private final Set<NatsSubscription> subscriptions = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong disconnects = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong slowConsumerEvents = new AtomicLong();
  // Messages and bytes out and in; drops, reconnects and slow consumers are the counters below.
  private final TransportCounters traffic = TransportCounters.create();
  private final AtomicLong droppedByClosedSubscriptions = new AtomicLong();
  private final RateLimitedWarning slowConsumerWarning =
      new RateLimitedWarning(LOG, WARNING_INTERVAL);
  private final Object reconnecting = new Object();
  // The connection in use; replaced by a new one after each drop, never reconnected in place.
  private volatile Link link;

  private NatsPubSub(NatsOptions options) throws IOException, InterruptedException {
    this.options = options;
    this.name = options.connectionName().orElse("nats") + "-" + INSTANCES.incrementAndGet();
    // Unbounded in threads but not in practice: a mailbox runs one drain at a time, so the threads
    // busy at once are at most the subscriptions with messages waiting. A fixed pool would let a
    // few subscribers that block (user handlers may) starve every other subscription of this
    // connection, the protocol's included when they run behind one (D63).
    this.delivery = Executors.newCachedThreadPool(daemonThreads("ops-" + name + "-delivery-"));
    this.control =
        Executors.newSingleThreadScheduledExecutor(daemonThreads("ops-" + name + "-control-"));
    try {
      this.link = open();
      this.link.markRestored(); // nothing is subscribed yet
    } catch (IOException | InterruptedException | RuntimeException e) {
      control.shutdownNow();
      delivery.shutdownNow();
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
          "Cannot connect to NATS at "
              + options.servers().stream().map(PubSubFactory.Target::redacted).toList()
              + ": "
              + redacted(String.valueOf(e.getMessage()), options.servers()),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallError.of(ErrorCode.UNAVAILABLE, "Interrupted while connecting to NATS", e);
    }
  }

  /** jnats names the servers in its messages, credentials included: those go. */
  private static String redacted(String message, List<String> servers) {
    String out = message;
    for (String server : servers) {
      out = out.replace(server, PubSubFactory.Target.redacted(server));
    }
    return out;
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
    Link current = link;
    if (!current.isUp()) {
      return refuse(topic);
    }
    current.awaitRestored();
    try {
      CompletableFuture<Integer> sent = current.probes.publish(topic, payload);
      traffic.published(payload.length); // handed to the connection's outgoing queue
      return sent;
    } catch (IllegalStateException e) {
      // jnats refuses to queue once the connection is closing, closed or reconnecting.
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
    // Registered before attaching: a reconnection that starts meanwhile attaches it to the new
    // connection if this thread attaches it to the old one.
    subscriptions.add(subscription);
    try {
      subscription.attach(link);
    } catch (RuntimeException e) {
      // jnats refused it (a subject its protocol cannot carry, say): not kept, or every
      // reconnection would try it again.
      subscriptions.remove(subscription);
      subscription.mailbox.close();
      throw e;
    }
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
    ServerInfo info = link.connection.getServerInfo();
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
   * Runs {@code action} each time the connection drops (before a new one is opened) and when the
   * transport closes; at once if it is closed already.
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
      link.connection.flush(timeout);
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
    Link current = link;
    return current.isUp() && !closed.get()
        ? Optional.ofNullable(current.connection.getConnectedUrl())
        : Optional.empty();
  }

  /** Whether the connection is up at the moment. */
  public boolean isConnected() {
    Link current = link;
    return !closed.get() && current.isUp() && current.isRestored();
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

  /**
   * {@inheritDoc} Published: messages handed to the connection; received: messages a subscription's
   * buffer took; dropped, reconnects and slow-consumer events as in {@link #stats()}.
   */
  @Override
  public TransportStats transportStats() {
    TransportStats t = traffic.snapshot();
    Stats s = stats();
    return new TransportStats(
        t.published(),
        t.publishedBytes(),
        t.received(),
        t.receivedBytes(),
        s.droppedMessages(),
        s.reconnects(),
        s.slowConsumerEvents());
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    for (NatsSubscription subscription : subscriptions) {
      subscription.mailbox.close();
    }
    Link last;
    // A reconnection checks closed and installs its link under this lock: either it installed it
    // before (and it is closed here), or it sees closed and discards its connection itself.
    synchronized (reconnecting) {
      last = link;
    }
    last.probes.failAll(closedError());
    runDisconnectActions();
    control.shutdownNow();
    try {
      last.connection.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      delivery.shutdownNow();
    }
  }

  @Override
  public String toString() {
    return "NatsPubSub[" + name + ", " + link.connection.getStatus() + "]";
  }

  // ------------------------------------------------------------------ the connection

  /**
   * Opens a connection to one of the servers, with jnats' own reconnection off: a connection that
   * drops is replaced, not revived, so what jnats had queued for it is never sent.
   */
  private Link open() throws IOException, InterruptedException {
    Link fresh = new Link();
    Connection connection =
        Nats.connect(
            options
                .toJnats()
                .maxReconnects(0)
                .connectionListener((conn, event) -> onConnectionEvent(fresh, event))
                .errorListener(new Errors())
                .build());
    try {
      fresh.attach(connection, new ReceiverProbes(connection, control));
    } catch (RuntimeException e) {
      connection.close();
      throw e;
    }
    return fresh;
  }

  private void onConnectionEvent(Link source, ConnectionListener.Events event) {
    if (event == ConnectionListener.Events.DISCONNECTED
        || event == ConnectionListener.Events.CLOSED) {
      lost(source);
    }
  }

  /** The connection {@code source} dropped: tell everyone, then replace it. */
  private void lost(Link source) {
    if (closed.get() || source != link || !source.markDown()) {
      return; // an old connection's late event, or told already
    }
    disconnects.incrementAndGet();
    LOG.warn("{}: the NATS connection dropped; publishes are refused until it is back", name);
    source.probes.failAll(
        CallError.of(
            ErrorCode.UNAVAILABLE, "The NATS connection dropped before the publish was settled"));
    runDisconnectActions();
    schedule(() -> discard(source), Duration.ZERO);
    schedule(() -> reconnect(1), options.reconnectWait());
  }

  private void reconnect(int attempt) {
    if (closed.get()) {
      return;
    }
    Link fresh;
    try {
      fresh = open();
    } catch (IOException | RuntimeException e) {
      if (options.maxReconnects() >= 0 && attempt >= options.maxReconnects()) {
        LOG.error("{}: gave up reconnecting to NATS after {} attempts", name, attempt, e);
        close();
      } else {
        LOG.debug("{}: reconnection attempt {} failed", name, attempt, e);
        schedule(() -> reconnect(attempt + 1), options.reconnectWait());
      }
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    // Every subscription is made again on the new connection before anything publishes on it: the
    // server reads a connection in order, so a request sent on it always finds its caller's reply
    // subscription there (published first, the answer could come before the inbox was back and be
    // dropped). The link is in use meanwhile, so a handler that answers a request the new
    // connection brought publishes on it too, once the subscriptions are queued (no round trip).
    boolean inUse =
        fresh.restoring(
            () -> {
              synchronized (reconnecting) {
                if (closed.get()) {
                  discard(fresh);
                  return false;
                }
                link = fresh;
              }
              // Also those made meanwhile: they read the link after registering; attaching is
              // idempotent per link.
              for (NatsSubscription subscription : subscriptions) {
                try {
                  subscription.attach(fresh);
                } catch (RuntimeException e) {
                  LOG.error("{}: could not subscribe to {} again", name, subscription.topic(), e);
                }
              }
              return true;
            });
    if (!inUse) {
      return;
    }
    if (fresh.connection.getStatus() != Connection.Status.CONNECTED) {
      // It dropped before it was installed: its event was taken for an old connection's.
      lost(fresh);
    }
    reconnects.incrementAndGet();
    LOG.info(
        "{}: reconnected to {} with {} subscriptions",
        name,
        fresh.connection.getConnectedUrl(),
        subscriptions.size());
  }

  private void discard(Link old) {
    try {
      old.connection.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.debug("{}: closing a dropped connection failed", name, e);
    }
  }

  private void schedule(Runnable task, Duration delay) {
    try {
      control.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      // closed meanwhile: nothing to reconnect
    }
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

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * One jnats connection with its dispatchers and receiver probes: one dispatcher (one thread) for
   * the subscriptions whose handlers never block, one for the others.
   */
  private static final class Link {
    private final AtomicBoolean down = new AtomicBoolean();
    // Held while the subscriptions are made again on this connection; publishes wait for it.
    private final Object restoring = new Object();
    private volatile boolean restored;
    private volatile Connection connection;
    private volatile Dispatcher dispatcher;
    private volatile Dispatcher nonBlockingDispatcher;
    private volatile ReceiverProbes probes;

    void attach(Connection connection, ReceiverProbes probes) {
      this.connection = connection;
      this.dispatcher = connection.createDispatcher();
      this.nonBlockingDispatcher = connection.createDispatcher();
      this.probes = probes;
    }

    Dispatcher dispatcher(boolean nonBlocking) {
      return nonBlocking ? nonBlockingDispatcher : dispatcher;
    }

    boolean isUp() {
      return !down.get() && connection.getStatus() == Connection.Status.CONNECTED;
    }

    /**
     * Runs {@code restore} with publishes on this link held back until it returns, and returns its
     * answer. False from it leaves the link unrestored: it was never used.
     */
    boolean restoring(java.util.function.BooleanSupplier restore) {
      synchronized (restoring) {
        restored = restore.getAsBoolean();
        return restored;
      }
    }

    /** Marks a link whose connection had no subscriptions to restore. */
    void markRestored() {
      restored = true;
    }

    boolean isRestored() {
      return restored;
    }

    /**
     * Returns once this link's subscriptions are made again: at once in the steady state, else
     * after queueing them (milliseconds, no network round trip).
     */
    void awaitRestored() {
      if (!restored) {
        synchronized (restoring) {
          // nothing: entering the monitor waits for the restoration to end
        }
      }
    }

    /** Whether this link's connection dropped (it is being, or has been, replaced). */
    boolean isDropped() {
      return down.get();
    }

    /** True the first time only. */
    boolean markDown() {
      return down.compareAndSet(false, true);
    }
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
   * once; the handler runs on the delivery executor, or, for a non-blocking handler whose mailbox
   * is idle, on the dispatcher's thread itself. It outlives connections: each new one gets the
   * subscription again.
   */
  private final class NatsSubscription implements Subscription {
    private final String topic;
    private final Optional<String> queueGroup;
    private final boolean nonBlocking;
    private final SerialMailbox mailbox;
    private final AtomicBoolean ended = new AtomicBoolean();
    private final AtomicLong droppedOnOldConnections = new AtomicLong();
    private Link attachedTo;
    private io.nats.client.Subscription nats;

    NatsSubscription(
        String topic, SubscribeOptions options, java.util.function.Consumer<Message> handler) {
      this.topic = topic;
      this.queueGroup = options.queueGroup();
      this.nonBlocking = options.nonBlockingHandler();
      // Inline without a depth bound: only the dispatcher offers, and a handler running on it
      // cannot make it offer again before returning (a publish goes to the server and back), so
      // these runs never nest. A busy mailbox still yields to the delivery pool after a batch.
      this.mailbox =
          nonBlocking
              ? SerialMailbox.create(
                  options.bufferSize(), options.overflow(), delivery, Runnable::run, handler)
              : SerialMailbox.create(options.bufferSize(), options.overflow(), delivery, handler);
    }

    /** Subscribes on {@code target}'s connection, unless it is there already or ended. */
    synchronized void attach(Link target) {
      // Not to a dropped link: a subscribe() that read the link just before a reconnection must
      // not move a subscription the reconnection already made on the new one back to the old.
      if (ended.get() || attachedTo == target || target.isDropped()) {
        return;
      }
      if (nats != null) {
        droppedOnOldConnections.addAndGet(nats.getDroppedCount());
      }
      try {
        Dispatcher dispatcher = target.dispatcher(nonBlocking);
        // A non-blocking handler runs on the dispatcher's thread: it says when messages are
        // queued behind this one, so replies settle once per run of them (D86).
        io.nats.client.MessageHandler receive =
            nonBlocking
                ? message ->
                    DeliveryBatch.deliver(
                        () -> receive(message), dispatcher.getPendingMessageCount() > 0)
                : this::receive;
        nats =
            queueGroup.isPresent()
                ? dispatcher.subscribe(topic, queueGroup.get(), receive)
                : dispatcher.subscribe(topic, receive);
        attachedTo = target;
      } catch (IllegalStateException connectionGone) {
        // That connection dropped meanwhile; the next one attaches this subscription.
        nats = null;
      }
    }

    private void receive(io.nats.client.Message message) {
      if (message.isStatusMessage()) {
        return;
      }
      byte[] data = message.getData();
      byte[] payload = data == null ? new byte[0] : data;
      SerialMailbox.Outcome outcome = mailbox.offer(new Message(topic, payload, Optional.empty()));
      if (outcome == SerialMailbox.Outcome.ACCEPTED) {
        traffic.received(payload.length);
      }
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
    public synchronized long dropped() {
      return mailbox.dropped()
          + mailbox.rejected()
          + droppedOnOldConnections.get()
          + (nats == null ? 0 : nats.getDroppedCount());
    }

    @Override
    public void close() {
      if (!ended.compareAndSet(false, true)) {
        return;
      }
      mailbox.close();
      subscriptions.remove(this);
      droppedByClosedSubscriptions.addAndGet(dropped());
      synchronized (this) {
        if (nats != null && attachedTo != null) {
          try {
            attachedTo.dispatcher(nonBlocking).unsubscribe(nats);
          } catch (IllegalStateException connectionGone) {
            // Closing or losing the connection ended it already.
          }
        }
      }
    }
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
