package dev.alkdev.operations.transport.kit;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.internal.RateLimitedLog;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SerialMailbox;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.pubsub.TransportCounters;
import dev.alkdev.operations.pubsub.TransportStats;
import dev.alkdev.operations.remote.internal.Failures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a connection-based transport connected, and owns the rules every such transport shares:
 *
 * <ul>
 *   <li>One connection at a time. One that drops is never revived (whatever its client queued for
 *       it is never sent after its caller gave up): the {@link #onDisconnect} actions run, and a
 *       new connection is opened after a {@link Backoff}, until {@code maxReconnects} tries fail.
 *   <li>Subscriptions outlive connections: each new connection gets every one again before anything
 *       may publish on it, so that a request sent on it always finds its caller's reply
 *       subscription. Publishes made meanwhile wait, in order, and go out once the subscriptions
 *       are back; a subscription the broker refuses again is tried again with the backoff for as
 *       long as the connection lasts (the broker may still hold it for the previous connection).
 *   <li>While the connection is down, publishes fail at once with UNAVAILABLE: nothing is buffered.
 *   <li>Publishes also wait for subscription changes in flight (on a transport whose subscriptions
 *       travel on another connection than its publishes), and keep their order while they do.
 *   <li>Counters (messages and bytes, drops, disconnects, reconnects, refused publishes,
 *       slow-consumer events) and rate-limited warnings.
 * </ul>
 *
 * <p>The transport supplies a {@link Connector}, reports lost connections with {@link #lost}, hands
 * what it receives to its subscriptions ({@link TransportSubscription#deliver}), and implements
 * {@link PubSub} by delegating here. Thread-safe.
 *
 * @param <C> the transport's connection
 */
public final class ConnectionKeeper<C> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionKeeper.class);
  private static final Duration WARNING_INTERVAL = Duration.ofSeconds(10);

  private final String name;
  private final String kind;
  private final Connector<C> connector;
  private final Backoff backoff;
  private final int maxReconnects;
  private final Duration restoreTimeout;
  private final Duration subscribeTimeout;
  private final BooleanSupplier mayWait;
  private final IntSupplier maxMessageBytes;
  private final ExecutorService delivery;
  private final ScheduledExecutorService control;
  private volatile Thread controlThread;
  private final Set<TransportSubscription<C>> subscriptions = ConcurrentHashMap.newKeySet();
  private final CopyOnWriteArrayList<Runnable> disconnectActions = new CopyOnWriteArrayList<>();
  private final CopyOnWriteArrayList<Runnable> reconnectActions = new CopyOnWriteArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong ids = new AtomicLong();
  private final AtomicLong disconnects = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong slowConsumerEvents = new AtomicLong();
  private final AtomicLong droppedByClosedSubscriptions = new AtomicLong();
  private final TransportCounters traffic = TransportCounters.create();
  private final ConcurrentHashMap<String, RateLimitedLog> warnings = new ConcurrentHashMap<>();
  private final Object installing = new Object();
  private volatile Link<C> link;

  private ConnectionKeeper(Builder<C> builder) {
    this.name = builder.name;
    this.kind = builder.kind;
    this.connector = builder.connector;
    this.backoff = builder.backoff;
    this.maxReconnects = builder.maxReconnects;
    this.restoreTimeout = builder.restoreTimeout;
    this.subscribeTimeout = builder.subscribeTimeout;
    this.mayWait = builder.mayWait;
    this.maxMessageBytes = builder.maxMessageBytes;
    this.delivery = builder.delivery;
    this.control =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "ops-" + name + "-control");
              t.setDaemon(true);
              controlThread = t;
              return t;
            });
  }

  public static <C> Builder<C> builder(String name, String kind, Connector<C> connector) {
    return new Builder<>(name, kind, connector);
  }

  // ------------------------------------------------------------------ publishing

  /**
   * Publishes on the current connection: at once when nothing is in flight, else after the
   * subscription changes in flight, in order. A message larger than the transport's limit fails
   * with RESOURCE_EXHAUSTED (not retryable) and nothing is sent. The transport checks the topic
   * first.
   */
  public CompletableFuture<Integer> publish(String topic, byte[] payload) {
    if (closed.get()) {
      return CompletableFuture.failedFuture(closedError());
    }
    int limit = maxMessageBytes.getAsInt();
    if (payload.length > limit) {
      return CompletableFuture.failedFuture(Settings.messageTooLarge(payload.length, limit));
    }
    Link<C> current = link;
    if (current.isDown()) {
      return refuse(topic);
    }
    if (current.isSettled()) {
      return send(current, topic, payload);
    }
    CompletableFuture<Void> dispatched = new CompletableFuture<>();
    return current
        .queueBehindChanges(dispatched)
        .handle((ok, failed) -> null) // a failed change: its connection's successor redoes it
        .thenCompose(
            ignored -> {
              try {
                return current.isDown() ? refuse(topic) : send(current, topic, payload);
              } finally {
                dispatched.complete(null); // sent (or refused): later publishes may go
              }
            });
  }

  private CompletableFuture<Integer> send(Link<C> on, String topic, byte[] payload) {
    CompletableFuture<Integer> sent;
    try {
      sent = connector.publish(on.connection, topic, payload);
    } catch (IllegalStateException connectionGoing) {
      return refuse(topic);
    }
    traffic.published(payload.length); // handed to the connection
    return sent;
  }

  private CompletableFuture<Integer> refuse(String topic) {
    refused.incrementAndGet();
    if (closed.get()) {
      return CompletableFuture.failedFuture(closedError());
    }
    return CompletableFuture.failedFuture(
        CallError.of(
            ErrorCode.UNAVAILABLE,
            "The "
                + kind
                + " connection is down; not publishing to "
                + topic
                + " (nothing is buffered)"));
  }

  /** Counts a publish refused by the transport itself (too many awaiting an answer, say). */
  public void countRefused() {
    refused.incrementAndGet();
  }

  // ------------------------------------------------------------------ subscribing

  /**
   * Subscribes {@code handler}: kept for every connection to come, and made on the current one. A
   * keeper built with {@link Builder#awaitSubscriptions} waits for the broker to accept it (not on
   * an I/O thread) and throws its refusal.
   *
   * @throws CallError UNAVAILABLE when closed; the broker's refusal
   */
  public TransportSubscription<C> subscribe(
      String topic, SubscribeOptions options, Consumer<Message> handler) {
    if (closed.get()) {
      throw closedError();
    }
    TransportSubscription<C> subscription =
        new TransportSubscription<>(this, ids.incrementAndGet(), topic, options, handler);
    // Registered before attaching: a reconnection that starts meanwhile attaches it to the new
    // connection if this thread attaches it to the old one.
    subscriptions.add(subscription);
    Link<C> current = link;
    CompletableFuture<Void> attached;
    try {
      attached = attach(current, subscription);
    } catch (RuntimeException e) {
      // A subscription the transport can never make: not kept, or every reconnection would try it.
      subscriptions.remove(subscription);
      subscription.discardBuffered();
      throw e;
    }
    if (closed.get()) { // closed meanwhile: close() may have missed it
      subscription.close();
      throw closedError();
    }
    if (attached != null) {
      if (subscribeTimeout != null && mayWait.getAsBoolean()) {
        awaitAccepted(subscription, attached, current);
      } else {
        attached.whenComplete((ok, failure) -> refusedLater(subscription, current, failure));
      }
    }
    return subscription;
  }

  private void awaitAccepted(
      TransportSubscription<C> subscription, CompletableFuture<Void> f, Link<C> on) {
    try {
      f.get(subscribeTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      CallError refusal = refusal(e.getCause());
      if (refusal != null) {
        subscription.detached(on); // nothing to end on the broker
        subscription.close();
        throw refusal;
      }
      // The connection dropped meanwhile: made again when it is back.
    } catch (TimeoutException e) {
      subscription.close();
      throw CallError.of(
          ErrorCode.UNAVAILABLE,
          "The "
              + kind
              + " broker did not confirm the subscription to "
              + subscription.topic()
              + " within "
              + subscribeTimeout.toMillis()
              + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      subscription.close();
      throw CallError.of(
          ErrorCode.CANCELLED, "Interrupted while subscribing to " + subscription.topic());
    }
  }

  /** A refusal heard without waiting (on an I/O thread): the subscription ends, and it is said. */
  private void refusedLater(TransportSubscription<C> subscription, Link<C> on, Throwable failure) {
    CallError refusal = refusal(failure);
    if (refusal != null) {
      subscription.detached(on);
      subscription.close();
      LOG.warn("{}: the broker refused a subscription to {}", name, subscription.topic(), refusal);
    }
  }

  /** The broker's refusal in {@code failure}, or null when the connection went instead. */
  private static CallError refusal(Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return cause instanceof CallError error && error.code() != ErrorCode.UNAVAILABLE ? error : null;
  }

  /** Attaches {@code subscription} on {@code on} and tracks the change; null when not sent. */
  private CompletableFuture<Void> attach(Link<C> on, TransportSubscription<C> subscription) {
    CompletableFuture<Void> change = subscription.attachTo(on, connector);
    if (change != null) {
      on.track(change);
    }
    return change;
  }

  /** A subscription closed: forgotten, its drops kept, and ended on its connection. */
  void closed(TransportSubscription<C> subscription, Link<C> on) {
    subscriptions.remove(subscription);
    droppedByClosedSubscriptions.addAndGet(subscription.dropped());
    if (on == null || closed.get()) {
      return;
    }
    try {
      // Also on a connection that is down: the transport forgets it there (and sends nothing).
      on.track(connector.detach(on.connection, subscription));
    } catch (RuntimeException e) {
      LOG.debug("{}: ending the subscription to {} failed", name, subscription.topic(), e);
    }
  }

  void delivered(
      TransportSubscription<C> subscription, Message message, SerialMailbox.Outcome outcome) {
    if (outcome == SerialMailbox.Outcome.ACCEPTED) {
      traffic.received(message.payload().length);
    } else if (outcome == SerialMailbox.Outcome.DROPPED
        || outcome == SerialMailbox.Outcome.REJECTED) {
      warn(
          "{}: a subscriber of {} is slower than its messages: its buffer is full, dropped {}"
              + " so far",
          name,
          subscription.topic(),
          subscription.dropped());
    }
  }

  ExecutorService deliveryPool() {
    return delivery;
  }

  /** The subscriptions kept now. */
  public Set<TransportSubscription<C>> subscriptions() {
    return Collections.unmodifiableSet(subscriptions);
  }

  // ------------------------------------------------------------------ the connection

  /** The connection in use, unless it is down or the keeper closed. */
  public Optional<C> connection() {
    Link<C> current = link;
    return current == null || current.isDown() || closed.get()
        ? Optional.empty()
        : Optional.of(current.connection);
  }

  /** Whether the connection is up and its subscriptions are back. */
  public boolean isConnected() {
    Link<C> current = link;
    return current != null && !closed.get() && !current.isDown() && current.isRestored();
  }

  /**
   * Waits until every subscription change made so far is in effect.
   *
   * @throws CallError UNAVAILABLE when they are not within {@code timeout}
   */
  public void awaitChanges(Duration timeout) {
    long end = System.nanoTime() + timeout.toNanos();
    try {
      for (CompletableFuture<?> change : link.changesInFlight()) {
        change.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
    } catch (TimeoutException | ExecutionException e) {
      throw CallError.of(
          ErrorCode.UNAVAILABLE,
          "The " + kind + " subscription changes did not complete: " + e.getMessage(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallError.of(ErrorCode.CANCELLED, "Interrupted while flushing");
    }
  }

  /**
   * {@code connection} is lost: publishes are refused from now on, what waits on it fails, the
   * disconnect actions run, and a new connection is opened after the backoff. A report about a
   * connection no longer in use, or told already, is ignored.
   */
  public void lost(C connection, String why) {
    Link<C> current = link;
    if (closed.get()
        || current == null // the first connection, not in use yet: checked once it is
        || current.connection != connection
        || !current.markDown()) {
      return;
    }
    disconnects.incrementAndGet();
    LOG.warn(
        "{}: the {} connection dropped ({}); publishes are refused until it is back",
        name,
        kind,
        why);
    connector.dropped(
        connection, CallError.of(ErrorCode.UNAVAILABLE, "The " + kind + " connection dropped"));
    runOnControl(this::runDisconnectActions);
    runOnControl(() -> discard(connection));
    scheduleReconnect(1);
  }

  /**
   * Runs {@code action} each time the connection drops (before a new one is opened) and when the
   * keeper closes; at once if it is closed already.
   */
  public Registration onDisconnect(Runnable action) {
    Objects.requireNonNull(action, "action");
    disconnectActions.add(action);
    if (closed.get() && disconnectActions.remove(action)) {
      runSafely(action);
    }
    return () -> disconnectActions.remove(action);
  }

  /** Runs {@code action} each time a new connection replaced a dropped one, once restored. */
  public Registration onReconnect(Runnable action) {
    Objects.requireNonNull(action, "action");
    reconnectActions.add(action);
    return () -> reconnectActions.remove(action);
  }

  /** Runs {@code task} once after {@code delay} on the keeper's thread, unless it closes first. */
  public void after(Duration delay, Runnable task) {
    try {
      control.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      // closed meanwhile
    }
  }

  /**
   * Makes publishes wait for {@code change} (a subscription change the transport makes on its own,
   * on another connection than the one it receives on), as for the keeper's own.
   */
  public void track(CompletableFuture<?> change) {
    link.track(change);
  }

  /** Runs {@code task} every {@code interval} on the keeper's thread until it closes. */
  public Registration every(Duration interval, Runnable task) {
    long nanos = interval.toNanos();
    ScheduledFuture<?> scheduled =
        control.scheduleWithFixedDelay(
            () -> {
              try {
                task.run();
              } catch (RuntimeException e) {
                LOG.warn("{}: a periodic task failed", name, e);
              }
            },
            nanos,
            nanos,
            TimeUnit.NANOSECONDS);
    return () -> scheduled.cancel(false);
  }

  private void scheduleReconnect(int attempt) {
    long delay = backoff.delayNanos(attempt, ThreadLocalRandom.current().nextDouble());
    try {
      control.schedule(() -> reconnect(attempt), delay, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      // closed meanwhile: nothing to reconnect
    }
  }

  private void reconnect(int attempt) {
    if (closed.get()) {
      return;
    }
    C fresh;
    try {
      fresh = connector.connect();
    } catch (RuntimeException e) {
      if (maxReconnects >= 0 && attempt >= maxReconnects) {
        LOG.error("{}: gave up reconnecting to {} after {} attempts", name, kind, attempt, e);
        close();
      } else {
        LOG.debug("{}: reconnection attempt {} failed: {}", name, attempt, e.toString());
        scheduleReconnect(attempt + 1);
      }
      return;
    }
    Link<C> next = new Link<>(fresh, false);
    // Publishes wait for the subscriptions (callers' inboxes among them) to be back; the link is in
    // use meanwhile, so that a handler answering a request the new connection brought publishes on
    // it too, once they are.
    CompletableFuture<Void> restored = new CompletableFuture<>();
    next.track(restored);
    synchronized (installing) {
      if (closed.get()) {
        discard(fresh);
        return;
      }
      link = next;
    }
    if (!connector.isOpen(fresh)) {
      // It dropped before it was installed: its report was taken for an old connection's.
      lost(fresh, "dropped while reconnecting");
    }
    List<CompletableFuture<Void>> restoring = new ArrayList<>();
    for (TransportSubscription<C> subscription : subscriptions) {
      try {
        CompletableFuture<Void> attached = attach(next, subscription);
        if (attached != null) {
          restoring.add(
              attached.handle(
                  (ok, failure) -> {
                    if (failure != null && !retriedIfRefused(next, subscription, 1, failure)) {
                      throw new CompletionException(failure); // the connection went
                    }
                    return null;
                  }));
        }
      } catch (RuntimeException e) {
        LOG.error("{}: could not subscribe to {} again", name, subscription.topic(), e);
      }
    }
    CompletableFuture.allOf(restoring.toArray(CompletableFuture[]::new))
        .orTimeout(restoreTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete(
            (ok, failure) -> {
              if (failure != null) {
                lost(fresh, "restoring its subscriptions failed: " + Failures.rootMessage(failure));
                restored.complete(null); // the publishes waiting on it are refused
                return;
              }
              next.markRestored();
              restored.complete(null);
              if (next.isDown()) {
                return;
              }
              reconnects.incrementAndGet();
              LOG.info("{}: reconnected with {} subscriptions", name, subscriptions.size());
              runOnControl(() -> runAll(reconnectActions));
            });
  }

  /**
   * When {@code failure} is the broker's refusal of {@code subscription} on {@code on}, takes the
   * subscription off that connection and tries it again later; says whether it was one.
   */
  private boolean retriedIfRefused(
      Link<C> on, TransportSubscription<C> subscription, int attempt, Throwable failure) {
    CallError refusal = refusal(failure);
    if (refusal == null) {
      return false;
    }
    subscription.detached(on);
    retryRefused(on, subscription, attempt, refusal);
    return true;
  }

  /**
   * A subscription the broker accepted before and refuses after a reconnect is tried again, with
   * the backoff, for as long as this connection lasts. The usual cause is the broker still holding
   * it (an inbox, a node id) for the previous connection, which it has not yet seen die; once it
   * does, the next try takes it back. Without this the transport would stay connected but deaf on
   * that topic.
   */
  private void retryRefused(
      Link<C> on, TransportSubscription<C> subscription, int attempt, CallError refusal) {
    if (closed.get() || on.isDown() || subscription.isEnded()) {
      return;
    }
    if (attempt == 1) {
      LOG.warn(
          "{}: the broker refused the subscription to {} again ({}); retrying, as it may still"
              + " hold it for the previous connection",
          name,
          subscription.topic(),
          refusal.getMessage());
    } else {
      LOG.debug("{}: subscription to {} refused again (attempt {})", name, subscription, attempt);
    }
    long delay = backoff.delayNanos(attempt, ThreadLocalRandom.current().nextDouble());
    try {
      control.schedule(
          () -> {
            if (on != link || on.isDown() || subscription.isEnded()) {
              return;
            }
            CompletableFuture<Void> again;
            try {
              again = attach(on, subscription);
            } catch (RuntimeException e) {
              LOG.error("{}: could not subscribe to {} again", name, subscription.topic(), e);
              return;
            }
            if (again != null) {
              again.whenComplete(
                  (ok, failure) -> {
                    if (failure != null) {
                      retriedIfRefused(on, subscription, attempt + 1, failure);
                    }
                  });
            }
          },
          delay,
          TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      // closed meanwhile
    }
  }

  private void discard(C connection) {
    try {
      connector.discard(connection);
    } catch (RuntimeException e) {
      LOG.debug("{}: closing a dropped connection failed", name, e);
    }
  }

  // ------------------------------------------------------------------ counting and warning

  /** Counts a slow-consumer event the transport's client reported, and warns (rate-limited). */
  public void slowConsumer(String format, Object... args) {
    slowConsumerEvents.incrementAndGet();
    warn(format, args);
  }

  /**
   * Logs a warning at most once per 10 s for each {@code format}, with the count of those held
   * back: a peer that floods must not flood the log.
   */
  public void warn(String format, Object... args) {
    warnings
        .computeIfAbsent(format, f -> RateLimitedLog.of(LOG, 1, WARNING_INTERVAL))
        .warn(format, args);
  }

  public long disconnects() {
    return disconnects.get();
  }

  public long reconnects() {
    return reconnects.get();
  }

  public long refusedPublishes() {
    return refused.get();
  }

  public long slowConsumerEvents() {
    return slowConsumerEvents.get();
  }

  /** Messages the subscriptions lost, those closed since included. */
  public long droppedMessages() {
    long dropped = droppedByClosedSubscriptions.get();
    for (TransportSubscription<C> subscription : subscriptions) {
      dropped += subscription.dropped();
    }
    return dropped;
  }

  /**
   * The transport's statistics: messages and bytes handed to the connection and taken by the
   * subscriptions' buffers, {@link #droppedMessages()} plus {@code moreDropped}, reconnects and
   * slow-consumer events.
   */
  public TransportStats transportStats(long moreDropped) {
    return transportStats(moreDropped, 0);
  }

  /** {@link #transportStats(long)}, with reconnects of the transport's own connections too. */
  public TransportStats transportStats(long moreDropped, long moreReconnects) {
    TransportStats t = traffic.snapshot();
    return new TransportStats(
        t.published(),
        t.publishedBytes(),
        t.received(),
        t.receivedBytes(),
        droppedMessages() + moreDropped,
        reconnects.get() + moreReconnects,
        slowConsumerEvents.get());
  }

  // ------------------------------------------------------------------ closing

  public boolean isClosed() {
    return closed.get();
  }

  public CallError closedError() {
    return CallError.of(ErrorCode.UNAVAILABLE, "The " + kind + " transport is closed");
  }

  /**
   * Closes: subscriptions end, later publishes fail with UNAVAILABLE, the disconnect actions run
   * once, the last connection closes and no reconnection follows. Closing twice is harmless.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    for (TransportSubscription<C> subscription : subscriptions) {
      subscription.discardBuffered();
    }
    Link<C> last;
    // A reconnection checks closed and installs its link under this lock: either it installed it
    // before (and it is closed here), or it sees closed and discards its connection itself.
    synchronized (installing) {
      last = link;
    }
    if (!last.isDown()) {
      try {
        connector.closing(last.connection);
      } catch (RuntimeException e) {
        LOG.debug("{}: saying goodbye failed", name, e);
      }
    }
    last.markDown();
    connector.dropped(last.connection, closedError());
    runDisconnectActions();
    control.shutdownNow();
    if (Thread.currentThread() != controlThread) {
      // A connection attempt under way finishes first (it sees the keeper closed and discards
      // what it opened), rather than failing half-way.
      try {
        control.awaitTermination(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    discard(last.connection);
    delivery.shutdownNow();
  }

  @Override
  public String toString() {
    return name;
  }

  private void runOnControl(Runnable task) {
    try {
      control.execute(task);
    } catch (RejectedExecutionException closing) {
      // closed meanwhile: close() runs what must run
    }
  }

  private void runDisconnectActions() {
    runAll(disconnectActions);
  }

  private void runAll(List<Runnable> actions) {
    for (Runnable action : actions) {
      runSafely(action);
    }
  }

  private void runSafely(Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      LOG.error("{}: a connection listener failed", name, e);
    }
  }

  /** Configures a {@link ConnectionKeeper}. */
  public static final class Builder<C> {
    private final String name;
    private final String kind;
    private final Connector<C> connector;
    private Backoff backoff = Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(5));
    private int maxReconnects = -1;
    private Duration restoreTimeout = Duration.ofSeconds(5);
    private Duration subscribeTimeout;
    private BooleanSupplier mayWait = () -> true;
    private IntSupplier maxMessageBytes = () -> Integer.MAX_VALUE;
    private ExecutorService delivery;

    private Builder(String name, String kind, Connector<C> connector) {
      this.name = Objects.requireNonNull(name, "name");
      this.kind = Objects.requireNonNull(kind, "kind");
      this.connector = Objects.requireNonNull(connector, "connector");
    }

    /** The waits between reconnection attempts (100 ms doubled up to 5 s, jittered, by default). */
    public Builder<C> backoff(Backoff backoff) {
      this.backoff = Objects.requireNonNull(backoff, "backoff");
      return this;
    }

    /** Attempts before giving up and closing; -1 (the default) never gives up. */
    public Builder<C> maxReconnects(int attempts) {
      this.maxReconnects = attempts;
      return this;
    }

    /** How long a new connection may take to get its subscriptions back (5 s by default). */
    public Builder<C> restoreTimeout(Duration timeout) {
      this.restoreTimeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * Makes {@code subscribe} wait up to {@code timeout} for the broker to accept, unless {@code
     * mayWait} says the calling thread must not (the transport's own reader, which would read the
     * answer only once it returns).
     */
    public Builder<C> awaitSubscriptions(Duration timeout, BooleanSupplier mayWait) {
      this.subscribeTimeout = Objects.requireNonNull(timeout, "timeout");
      this.mayWait = Objects.requireNonNull(mayWait, "mayWait");
      return this;
    }

    /** The largest payload the transport carries now (it may learn it from its broker). */
    public Builder<C> maxMessageBytes(IntSupplier limit) {
      this.maxMessageBytes = Objects.requireNonNull(limit, "limit");
      return this;
    }

    /** Where handlers run; the keeper shuts it down when it closes. Required. */
    public Builder<C> delivery(ExecutorService pool) {
      this.delivery = Objects.requireNonNull(pool, "pool");
      return this;
    }

    /**
     * Opens the first connection and returns the keeper.
     *
     * @throws CallError what {@link Connector#connect()} threw; nothing is left running
     */
    public ConnectionKeeper<C> connect() {
      if (delivery == null) {
        throw new IllegalStateException("delivery(pool) is required");
      }
      ConnectionKeeper<C> keeper = new ConnectionKeeper<>(this);
      C first;
      try {
        connector.keptBy(keeper);
        first = connector.connect();
      } catch (RuntimeException e) {
        keeper.control.shutdownNow();
        keeper.delivery.shutdownNow();
        throw e;
      }
      keeper.link = new Link<>(first, true); // nothing to restore yet
      if (!connector.isOpen(first)) {
        // It dropped as it opened: its report came before it was in use.
        keeper.lost(first, "dropped as it opened");
      }
      return keeper;
    }
  }
}
