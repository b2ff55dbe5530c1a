package dev.alkdev.operations.transport.websocket;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.protocol.CallEvents;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SerialMailbox;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.pubsub.TransportCounters;
import dev.alkdev.operations.pubsub.TransportStats;
import dev.alkdev.operations.transport.websocket.internal.Endpoint;
import dev.alkdev.operations.transport.websocket.internal.Frames;
import dev.alkdev.operations.transport.websocket.internal.Liveness;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.exceptions.UpgradeException;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A spoke: the {@link PubSub} SPI over one WebSocket connection to a {@link WebSocketHub}. A {@code
 * CallHandler} or {@code ServingNode} on it serves operations through the hub; a {@code
 * PendingRequestMap} or {@code RemoteCatalog} on it calls the hub's operations and other spokes'.
 *
 * <pre>{@code
 * try (WebSocketSpoke spoke = WebSocketSpoke.connect(SpokeOptions.builder(hubUri).build());
 *     RemoteCatalog catalog = RemoteCatalog.create(spoke)) {
 *   catalog.call("billing.refund", Map.of("amount", 5)).join();
 * }
 * }</pre>
 *
 * <p>Each publish is confirmed by the hub with the exact number of subscriptions it reached (or
 * refused, with the reason: a permission, a limit); each subscribe waits for the hub to accept it.
 * Messages carry the identity the hub authenticated their sender as ({@link Message#identity()});
 * identities in payloads are not believed. When the connection drops, publishes in flight fail with
 * UNAVAILABLE at once, the {@link #onDisconnect} actions run (a {@code PendingRequestMap} fails its
 * calls), and the spoke reconnects with backoff and jitter, subscribes again and runs its {@link
 * #onReconnect} actions.
 */
public final class WebSocketSpoke implements PubSub {
  private static final Logger LOG = LoggerFactory.getLogger(WebSocketSpoke.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final SpokeOptions options;
  private final WebSocketClient client;
  private final ForkJoinPool deliveries;
  private final ScheduledThreadPoolExecutor timer;
  private final ConcurrentHashMap<Long, SpokeSub> subs = new ConcurrentHashMap<>();
  private final AtomicLong nextSid = new AtomicLong();
  private final AtomicLong nextPid = new AtomicLong();
  private final CopyOnWriteArrayList<Runnable> disconnectActions = new CopyOnWriteArrayList<>();
  private final CopyOnWriteArrayList<Runnable> reconnectActions = new CopyOnWriteArrayList<>();
  private final ConcurrentHashMap<String, Optional<Identity>> identities =
      new ConcurrentHashMap<>();
  private final AtomicLong reconnects = new AtomicLong();
  private final TransportCounters traffic = TransportCounters.create();
  private final AtomicLong disconnects = new AtomicLong();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Object linking = new Object();
  // True while a spoke's reader thread handles a frame (and the handlers run inline from it).
  private static final ThreadLocal<Boolean> ON_READER = ThreadLocal.withInitial(() -> false);
  private volatile Link link; // the connection in use; null while disconnected
  private volatile Identity identity = Identity.anonymous();
  private volatile int maxMessageBytes;
  private volatile String lastGoodbye = "";
  private final long silenceLimitNanos; // see Liveness
  private final ScheduledFuture<?> pinger;

  private WebSocketSpoke(SpokeOptions options) {
    this.options = options;
    this.silenceLimitNanos = Liveness.limitNanos(options.idleTimeout, options.pingInterval);
    this.maxMessageBytes = Math.min(options.maxMessageBytes, CallEvents.DEFAULT_MAX_MESSAGE_BYTES);
    this.deliveries =
        new ForkJoinPool(
            Math.max(2, Runtime.getRuntime().availableProcessors()),
            ForkJoinPool.defaultForkJoinWorkerThreadFactory,
            null,
            true);
    this.timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "ops-ws-spoke-timer");
              t.setDaemon(true);
              return t;
            });
    timer.setRemoveOnCancelPolicy(true);
    QueuedThreadPool threads = new QueuedThreadPool(16, 2);
    threads.setName("ops-ws-spoke");
    threads.setDaemon(true);
    HttpClient http = new HttpClient();
    http.setExecutor(threads);
    http.setScheduler(new ScheduledExecutorScheduler("ops-ws-spoke-scheduler", true));
    http.setConnectTimeout(options.connectTimeout.toMillis());
    this.client = new WebSocketClient(http);
    client.setIdleTimeout(options.idleTimeout);
    client.setMaxOutgoingFrames(options.maxQueuedFrames);
    long maxFrame = Integer.MAX_VALUE; // the hub's limit applies; it cuts what is larger
    client.setMaxBinaryMessageSize(maxFrame);
    client.setMaxTextMessageSize(maxFrame);
    client.setStopAtShutdown(false);
    try {
      client.start();
    } catch (Exception e) {
      shutDownThreads();
      throw CallError.builder(ErrorCode.UNAVAILABLE, "The WebSocket client did not start")
          .cause(e)
          .build();
    }
    long ping = options.pingInterval.toMillis();
    this.pinger = timer.scheduleWithFixedDelay(this::ping, ping, ping, TimeUnit.MILLISECONDS);
    long check = Math.max(20, Math.min(1000, options.requestTimeout.toMillis() / 4));
    timer.scheduleWithFixedDelay(this::expireAcks, check, check, TimeUnit.MILLISECONDS);
  }

  /** A publish (or SYNC) waiting for the hub's answer, and when it was sent. */
  private static final class Ack extends CompletableFuture<Integer> {
    final long sentAt;

    Ack(long sentAt) {
      this.sentAt = sentAt;
    }
  }

  /**
   * Fails publishes the hub has not answered within the request timeout: a hub that stopped
   * answering on a connection that still looks open (no drop, no close) must not leave them waiting
   * forever.
   */
  private void expireAcks() {
    Link current = link;
    if (current == null) {
      return; // a dropped link failed its own
    }
    long now = System.nanoTime();
    long timeout = options.requestTimeout.toNanos();
    for (var entry : current.publishes.entrySet()) {
      Ack ack = entry.getValue();
      if (now - ack.sentAt > timeout && current.publishes.remove(entry.getKey(), ack)) {
        ack.completeExceptionally(
            CallError.of(
                ErrorCode.UNAVAILABLE,
                "The hub "
                    + options.uri
                    + " did not acknowledge a publish within "
                    + options.requestTimeout.toMillis()
                    + " ms; it may or may not have been relayed"));
      }
    }
  }

  /**
   * Connects to the hub and waits for its greeting.
   *
   * @throws CallError ACCESS_DENIED when the hub refuses the upgrade (401, 403), UNAVAILABLE when
   *     it cannot be reached within the connect timeout
   */
  public static WebSocketSpoke connect(SpokeOptions options) {
    Objects.requireNonNull(options, "options");
    WebSocketSpoke spoke = new WebSocketSpoke(options);
    try {
      Link first = spoke.open();
      synchronized (spoke.linking) {
        spoke.link = first;
      }
      return spoke;
    } catch (RuntimeException e) {
      spoke.close();
      throw e;
    }
  }

  // ------------------------------------------------------------------ PubSub

  @Override
  public CompletableFuture<Integer> publish(String topic, byte[] payload) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(payload, "payload");
    if (payload.length > maxMessageBytes) {
      return CompletableFuture.failedFuture(
          CallError.builder(
                  ErrorCode.RESOURCE_EXHAUSTED,
                  "Message of "
                      + payload.length
                      + " bytes is larger than the transport's limit of "
                      + maxMessageBytes)
              .retryable(false)
              .build());
    }
    if (!CallEvents.isValidTopic(topic)) {
      return CompletableFuture.failedFuture(
          CallError.of(ErrorCode.INVALID_INPUT, "Not a topic the hub accepts: " + topic));
    }
    Link current = link;
    if (current == null) {
      return CompletableFuture.failedFuture(unavailable());
    }
    long pid = nextPid.incrementAndGet();
    Ack acked = new Ack(System.nanoTime());
    current.publishes.put(pid, acked);
    if (!current.send(Frames.of("PUB " + pid + " " + topic, payload))) {
      current.publishes.remove(pid);
      acked.completeExceptionally(unavailable());
      return acked;
    }
    traffic.published(payload.length); // queued to the hub's connection
    if (current.lost.get() && current.publishes.remove(pid) != null) {
      // The connection dropped while this was being sent: nobody would answer it.
      acked.completeExceptionally(unavailable());
    }
    return acked;
  }

  @Override
  public Subscription subscribe(
      String topic, SubscribeOptions subscribeOptions, Consumer<Message> handler) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(subscribeOptions, "options");
    Objects.requireNonNull(handler, "handler");
    if (!CallEvents.isValidTopic(topic)) {
      throw new IllegalArgumentException("Not a topic the hub accepts: " + topic);
    }
    if (subscribeOptions.queueGroup().isPresent()
        && !CallEvents.isValidTopic(subscribeOptions.queueGroup().get())) {
      throw new IllegalArgumentException(
          "Not a queue group name the hub accepts: " + subscribeOptions.queueGroup().get());
    }
    if (closed.get()) {
      throw CallError.of(ErrorCode.UNAVAILABLE, "The WebSocket spoke is closed");
    }
    long sid = nextSid.incrementAndGet();
    SpokeSub sub = new SpokeSub(sid, topic, subscribeOptions, handler);
    subs.put(sid, sub);
    Link current = link;
    if (current == null) {
      return sub; // subscribed when the connection is back
    }
    CompletableFuture<Void> accepted = current.subscribe(sub);
    if (ON_READER.get()) {
      // A non-blocking handler subscribing on the reader's thread: the hub's SUBOK could only be
      // read once this returns, so waiting would stall the connection until the timeout. It takes
      // effect when the hub reads it, as after a reconnect; a refusal is logged.
      accepted.whenComplete(
          (ok, failure) -> {
            if (failure instanceof CallError error && error.code() != ErrorCode.UNAVAILABLE) {
              subs.remove(sid);
              LOG.warn("{}: the hub refused a subscription to {}", this, topic, error);
            }
          });
      return sub;
    }
    try {
      accepted.get(options.requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
      return sub;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof CallError error && error.code() != ErrorCode.UNAVAILABLE) {
        subs.remove(sid);
        throw error;
      }
      return sub; // the connection dropped meanwhile: subscribed again when it is back
    } catch (TimeoutException e) {
      sub.close();
      throw CallError.of(
          ErrorCode.UNAVAILABLE,
          "The hub did not confirm the subscription to "
              + topic
              + " within "
              + options.requestTimeout.toMillis()
              + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      sub.close();
      throw CallError.of(ErrorCode.CANCELLED, "Interrupted while subscribing to " + topic);
    }
  }

  /** The smaller of the hub's limit (learned when it greets) and {@link SpokeOptions}' own. */
  @Override
  public int maxMessageBytes() {
    return maxMessageBytes;
  }

  @Override
  public boolean trustsPayloadIdentity() {
    return false;
  }

  @Override
  public Registration onDisconnect(Runnable action) {
    Objects.requireNonNull(action, "action");
    disconnectActions.add(action);
    if (closed.get() && disconnectActions.remove(action)) {
      action.run();
      return () -> {};
    }
    return () -> disconnectActions.remove(action);
  }

  /**
   * Runs {@code action} each time the spoke is connected again after a drop, once its subscriptions
   * are back: a {@code RemoteCatalog} refreshes there, a node re-announces.
   */
  public Registration onReconnect(Runnable action) {
    Objects.requireNonNull(action, "action");
    reconnectActions.add(action);
    return () -> reconnectActions.remove(action);
  }

  /**
   * Waits until the hub has handled everything this spoke sent before (subscribes, unsubscribes,
   * publishes): one round trip.
   *
   * @throws CallError UNAVAILABLE when not connected or the hub does not answer in time
   */
  public void flush(Duration timeout) {
    Link current = link;
    if (current == null) {
      throw unavailable();
    }
    long id = nextPid.incrementAndGet();
    Ack synced = new Ack(System.nanoTime());
    current.publishes.put(id, synced);
    if (!current.send(Frames.of("SYNC " + id))) {
      current.publishes.remove(id);
      throw unavailable();
    }
    try {
      synced.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw unavailable();
    } catch (TimeoutException e) {
      current.publishes.remove(id);
      throw CallError.of(
          ErrorCode.UNAVAILABLE, "The hub did not answer within " + timeout.toMillis() + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallError.of(ErrorCode.CANCELLED, "Interrupted while flushing");
    }
  }

  /** The identity the hub authenticated this spoke as. */
  public Identity identity() {
    return identity;
  }

  public boolean isConnected() {
    Link current = link;
    return current != null && !current.lost.get();
  }

  /**
   * {@inheritDoc} Published: PUB frames queued to the hub; received: messages a subscription's
   * buffer took; dropped: messages a full buffer lost; reconnects as in {@link #stats()}. The hub
   * cuts a spoke that does not read: that is counted on the hub's side, not here.
   */
  @Override
  public TransportStats transportStats() {
    TransportStats t = traffic.snapshot();
    return new TransportStats(
        t.published(),
        t.publishedBytes(),
        t.received(),
        t.receivedBytes(),
        t.dropped(),
        reconnects.get(),
        0);
  }

  /** Counts since the spoke was opened. */
  public SpokeStats stats() {
    long dropped = 0;
    for (SpokeSub sub : subs.values()) {
      dropped += sub.dropped();
    }
    return new SpokeStats(disconnects.get(), reconnects.get(), subs.size(), dropped);
  }

  /**
   * Closes the spoke: subscriptions end, publishes in flight fail with UNAVAILABLE, the disconnect
   * actions run once, the connection closes and no reconnection follows.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    pinger.cancel(false);
    Link current;
    synchronized (linking) {
      current = link;
      link = null;
    }
    subs.values().forEach(sub -> sub.mailbox.close());
    subs.clear();
    if (current != null) {
      current.fail(CallError.of(ErrorCode.UNAVAILABLE, "The WebSocket spoke is closed"));
      current.close();
    }
    runAll(disconnectActions);
    disconnectActions.clear();
    try {
      client.stop();
    } catch (Exception e) {
      LOG.debug("The WebSocket client failed to stop", e);
    }
    shutDownThreads();
  }

  @Override
  public String toString() {
    return "WebSocketSpoke[" + options.uri + "]";
  }

  // ------------------------------------------------------------------ connection

  private CallError unavailable() {
    return CallError.of(
        ErrorCode.UNAVAILABLE,
        closed.get()
            ? "The WebSocket spoke is closed"
            : "Not connected to the hub " + options.uri + lastGoodbye);
  }

  /** Opens a connection, waits for the hub's greeting and subscribes everything again. */
  private Link open() {
    Link fresh = new Link();
    ClientUpgradeRequest request = new ClientUpgradeRequest(options.uri);
    options.headers.forEach(request::setHeader);
    request.setSubProtocols(WebSocketHub.SUBPROTOCOL);
    request.setTimeout(options.connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
    long timeout = options.connectTimeout.toMillis();
    CompletableFuture<Session> connecting = null;
    try {
      connecting = client.connect(new Endpoint(fresh), request);
      connecting.get(timeout, TimeUnit.MILLISECONDS);
      fresh.greeted.get(timeout, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      fresh.abandon();
      Throwable cause = e.getCause();
      if (cause instanceof UpgradeException upgrade
          && (upgrade.getResponseStatusCode() == 401 || upgrade.getResponseStatusCode() == 403)) {
        throw CallError.builder(
                ErrorCode.ACCESS_DENIED,
                "The hub "
                    + options.uri
                    + " refused the connection ("
                    + upgrade.getResponseStatusCode()
                    + ")")
            .retryable(false)
            .build();
      }
      throw CallError.builder(ErrorCode.UNAVAILABLE, "Cannot connect to the hub " + options.uri)
          .cause(cause)
          .build();
    } catch (TimeoutException e) {
      // The upgrade may still complete: the abandoned link closes whatever opens later.
      fresh.abandon();
      connecting.cancel(true);
      throw CallError.of(
          ErrorCode.UNAVAILABLE,
          "The hub " + options.uri + " did not answer within " + timeout + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fresh.abandon();
      if (connecting != null) {
        connecting.cancel(true);
      }
      throw CallError.of(ErrorCode.CANCELLED, "Interrupted while connecting to " + options.uri);
    } catch (java.io.IOException e) {
      fresh.abandon();
      throw CallError.builder(ErrorCode.UNAVAILABLE, "Cannot connect to the hub " + options.uri)
          .cause(e)
          .build();
    }
    List<CompletableFuture<Void>> resubscribed = new ArrayList<>();
    for (SpokeSub sub : subs.values()) {
      resubscribed.add(
          fresh
              .subscribe(sub)
              .exceptionally(
                  error -> {
                    retryRefused(fresh, sub, 1, error);
                    return null;
                  }));
    }
    try {
      CompletableFuture.allOf(resubscribed.toArray(CompletableFuture[]::new))
          .get(options.requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("{}: not every subscription was confirmed after connecting", this);
    }
    return fresh;
  }

  /**
   * A subscription the hub accepted before and refuses after a reconnect is tried again, with
   * backoff, for as long as this connection lasts. The usual cause is the hub still holding the
   * inbox or node id for this spoke's previous connection, which it has not yet seen die (a
   * half-open TCP connection lasts until the hub's idle timeout); once the hub cuts it, the key is
   * kept for this identity and the next try takes it back. Without the retry the spoke would stay
   * connected but deaf on that topic.
   */
  private void retryRefused(Link on, SpokeSub sub, int attempt, Throwable error) {
    Throwable cause = error instanceof CompletionException ? error.getCause() : error;
    if (closed.get()
        || subs.get(sub.sid) != sub
        || (cause instanceof CallError e && e.code() == ErrorCode.UNAVAILABLE)) {
      return; // closed, unsubscribed, or the connection dropped (the next one subscribes again)
    }
    if (attempt == 1) {
      LOG.warn(
          "{}: the hub refused the subscription to {} again ({}); retrying, as it may still hold"
              + " it for this spoke's previous connection",
          this,
          sub.topic,
          cause == null ? "no reason" : cause.getMessage());
    } else {
      LOG.debug("{}: subscription to {} refused again (attempt {})", this, sub.topic, attempt);
    }
    long base = options.reconnectInitial.toMillis();
    long delay = Math.min(options.reconnectMax.toMillis(), base << Math.min(20, attempt - 1));
    try {
      timer.schedule(
          () ->
              deliveries.execute(
                  () -> {
                    if (on.lost.get() || closed.get() || subs.get(sub.sid) != sub) {
                      return;
                    }
                    on.subscribe(sub)
                        .exceptionally(
                            again -> {
                              retryRefused(on, sub, attempt + 1, again);
                              return null;
                            });
                  }),
          delay,
          TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  private void lost(Link dropped, String why) {
    synchronized (linking) {
      if (link != dropped) {
        return; // an older connection, or closed
      }
      link = null;
    }
    disconnects.incrementAndGet();
    LOG.warn("{}: connection to the hub lost ({}); reconnecting", this, why);
    dropped.fail(CallError.of(ErrorCode.UNAVAILABLE, "The connection to the hub dropped: " + why));
    deliveries.execute(() -> runAll(disconnectActions));
    scheduleReconnect(1);
  }

  private void scheduleReconnect(int attempt) {
    if (closed.get()) {
      return;
    }
    if (options.maxReconnects >= 0 && attempt > options.maxReconnects) {
      LOG.error("{}: gave up reconnecting after {} attempts", this, attempt - 1);
      close();
      return;
    }
    long base = options.reconnectInitial.toMillis();
    long max = options.reconnectMax.toMillis();
    long backoff = Math.min(max, base << Math.min(20, attempt - 1));
    long delay = backoff / 2 + ThreadLocalRandom.current().nextLong(backoff / 2 + 1);
    try {
      timer.schedule(
          () -> deliveries.execute(() -> reconnect(attempt)), delay, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  private void reconnect(int attempt) {
    if (closed.get()) {
      return;
    }
    Link fresh;
    try {
      fresh = open();
    } catch (CallError e) {
      LOG.debug("{}: reconnection attempt {} failed: {}", this, attempt, e.getMessage());
      scheduleReconnect(attempt + 1);
      return;
    }
    synchronized (linking) {
      if (closed.get()) {
        fresh.close();
        return;
      }
      link = fresh;
    }
    if (fresh.lost.get()) {
      lost(fresh, "dropped while reconnecting");
      return;
    }
    reconnects.incrementAndGet();
    LOG.info("{}: reconnected with {} subscriptions", this, subs.size());
    runAll(reconnectActions);
  }

  private void ping() {
    Link current = link;
    if (current != null) {
      current.ping();
    }
  }

  private static void runAll(List<Runnable> actions) {
    for (Runnable action : actions) {
      try {
        action.run();
      } catch (RuntimeException e) {
        LOG.warn("A connection listener failed", e);
      }
    }
  }

  private void shutDownThreads() {
    timer.shutdownNow();
    deliveries.shutdown();
  }

  private Optional<Identity> identityOf(String json) {
    if (json.equals("-")) {
      return Optional.empty();
    }
    Optional<Identity> known = identities.get(json);
    if (known != null) {
      return known;
    }
    Optional<Identity> parsed = parseIdentity(json);
    if (identities.size() > 1024) {
      identities.clear(); // many callers: a cache, not a registry
    }
    identities.put(json, parsed);
    return parsed;
  }

  private static Optional<Identity> parseIdentity(String json) {
    try {
      JsonNode node = JSON.readTree(json);
      List<String> scopes = new ArrayList<>();
      node.path("scopes").forEach(scope -> scopes.add(scope.asString()));
      return Optional.of(new Identity(node.path("subject").asString(), Set.copyOf(scopes)));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  // ------------------------------------------------------------------ one connection

  /** One WebSocket connection to the hub; replaced by a new one after a drop. */
  private final class Link implements Endpoint.Events {
    final CompletableFuture<Void> greeted = new CompletableFuture<>();
    final ConcurrentHashMap<Long, Ack> publishes = new ConcurrentHashMap<>();
    final ConcurrentHashMap<Long, CompletableFuture<Void>> subscribing = new ConcurrentHashMap<>();
    final AtomicBoolean lost = new AtomicBoolean();
    private final Liveness liveness = new Liveness();
    private volatile Session session;

    CompletableFuture<Void> subscribe(SpokeSub sub) {
      CompletableFuture<Void> accepted = new CompletableFuture<>();
      subscribing.put(sub.sid, accepted);
      String group = sub.options.queueGroup().map(g -> " " + g).orElse("");
      if (!send(Frames.of("SUB " + sub.sid + " " + sub.topic + group))) {
        subscribing.remove(sub.sid);
        accepted.completeExceptionally(unavailable());
      }
      return accepted;
    }

    boolean send(byte[] frame) {
      Session s = session;
      if (s == null || lost.get()) {
        return false;
      }
      try {
        s.sendBinary(ByteBuffer.wrap(frame), Callback.from(() -> {}, this::writeFailed));
        return true;
      } catch (RuntimeException e) {
        writeFailed(e);
        return false;
      }
    }

    private void writeFailed(Throwable cause) {
      if (!lost.get()) {
        LOG.debug("{}: a write failed: {}", WebSocketSpoke.this, cause.toString());
        Session s = session;
        if (s != null) {
          s.disconnect(); // a hub that does not read: start again on a new connection
        }
        connectionLost("a write failed: " + cause.getClass().getSimpleName());
      }
    }

    @Override
    public void heard() {
      liveness.heard();
    }

    /**
     * Pings the hub, first dropping the connection if nothing came from it for too long (a network
     * that went silent: writes still succeed, so Jetty's idle timeout never fires); then the spoke
     * reconnects as after any drop.
     */
    void ping() {
      Session s = session;
      if (s == null || !s.isOpen() || lost.get()) {
        return;
      }
      if (liveness.silent(System.nanoTime(), silenceLimitNanos)) {
        s.disconnect();
        connectionLost(
            "nothing heard from the hub for "
                + TimeUnit.NANOSECONDS.toMillis(silenceLimitNanos)
                + " ms");
        return;
      }
      s.sendPing(ByteBuffer.allocate(0), Callback.NOOP);
    }

    void fail(CallError error) {
      lost.set(true);
      for (Long pid : new ArrayList<>(publishes.keySet())) {
        CompletableFuture<Integer> f = publishes.remove(pid);
        if (f != null) {
          f.completeExceptionally(error);
        }
      }
      for (Long sid : new ArrayList<>(subscribing.keySet())) {
        CompletableFuture<Void> f = subscribing.remove(sid);
        if (f != null) {
          f.completeExceptionally(error);
        }
      }
      greeted.completeExceptionally(error);
    }

    void close() {
      lost.set(true);
      Session s = session;
      if (s != null && s.isOpen()) {
        s.close(1000, "closing", Callback.NOOP);
      }
    }

    /**
     * Drops a connection that never became the spoke's (its connect failed or timed out): no close
     * handshake, which a hub that does not answer would hold open until the idle timeout.
     */
    void abandon() {
      lost.set(true);
      Session s = session;
      if (s != null) {
        s.disconnect();
      }
    }

    @Override
    public void opened(Session session) {
      this.session = session;
      if (lost.get()) {
        // Given up before it opened (the connect timed out): nobody would ever close it.
        session.disconnect();
      }
    }

    @Override
    public void frame(ByteBuffer payload) {
      boolean outer = !ON_READER.get();
      ON_READER.set(true);
      try {
        onFrame(Frames.parse(payload));
      } catch (RuntimeException e) {
        LOG.warn("{}: a frame from the hub failed", WebSocketSpoke.this, e);
      } finally {
        if (outer) {
          ON_READER.set(false);
        }
      }
    }

    @Override
    public void closed(int statusCode, String reason) {
      connectionLost("closed " + statusCode + (reason == null ? "" : " " + reason));
    }

    @Override
    public void failed(Throwable cause) {
      connectionLost(cause.getClass().getSimpleName() + ": " + cause.getMessage());
    }

    private void connectionLost(String why) {
      if (lost.compareAndSet(false, true)) {
        greeted.completeExceptionally(CallError.of(ErrorCode.UNAVAILABLE, why));
        lost(this, why);
        // A connection not yet in use (still opening) fails its own waiters.
        fail(CallError.of(ErrorCode.UNAVAILABLE, "The connection to the hub dropped: " + why));
      }
    }

    private void onFrame(Frames.Parsed frame) {
      if (frame == null) {
        LOG.warn("{}: a frame from the hub without a header line", WebSocketSpoke.this);
        return;
      }
      String header = frame.header();
      int space = header.indexOf(' ');
      String command = space < 0 ? header : header.substring(0, space);
      switch (command) {
        case "MSG" -> onMessage(header, frame.payload());
        case "ACK" -> {
          String[] f = header.split(" ", 3);
          CompletableFuture<Integer> acked = publishes.remove(Frames.id(f[1]));
          if (acked != null) {
            acked.complete(Integer.parseInt(f[2]));
          }
        }
        case "NAK" -> {
          String[] f = header.split(" ", 5);
          CompletableFuture<Integer> refused = publishes.remove(Frames.id(f[1]));
          if (refused != null) {
            refused.completeExceptionally(
                CallError.builder(code(f[2]), f.length > 4 ? f[4] : "refused by the hub")
                    .retryable("1".equals(f[3]))
                    .build());
          }
        }
        case "SYNCED" -> {
          CompletableFuture<Integer> synced = publishes.remove(Frames.id(header.substring(7)));
          if (synced != null) {
            synced.complete(0);
          }
        }
        case "SUBOK" -> {
          CompletableFuture<Void> accepted = subscribing.remove(Frames.id(header.substring(6)));
          if (accepted != null) {
            accepted.complete(null);
          }
        }
        case "SUBERR" -> {
          String[] f = header.split(" ", 4);
          CompletableFuture<Void> refused = subscribing.remove(Frames.id(f[1]));
          if (refused != null) {
            refused.completeExceptionally(
                CallError.builder(code(f[2]), f.length > 3 ? f[3] : "refused by the hub")
                    .retryable(false)
                    .build());
          }
        }
        case "HELLO" -> {
          String[] f = header.split(" ", 4);
          maxMessageBytes = Math.min(options.maxMessageBytes, Integer.parseInt(f[2]));
          identityOf(f[3]).ifPresent(id -> identity = id);
          greeted.complete(null);
        }
        case "BYE" -> {
          lastGoodbye = " (the hub said: " + header.substring(space + 1) + ")";
          LOG.warn("{}: the hub closes the connection: {}", WebSocketSpoke.this, header);
        }
        default -> LOG.debug("{}: an unknown frame from the hub: {}", WebSocketSpoke.this, command);
      }
    }

    private void onMessage(String header, byte[] payload) {
      String[] f = header.split(" ", 4);
      if (f.length < 4) {
        return;
      }
      SpokeSub sub = subs.get(Frames.id(f[1]));
      if (sub == null) {
        return; // unsubscribed meanwhile
      }
      SerialMailbox.Outcome outcome =
          sub.mailbox.offer(new Message(f[2], payload, identityOf(f[3])));
      if (outcome == SerialMailbox.Outcome.ACCEPTED) {
        traffic.received(payload.length);
      } else if (outcome != SerialMailbox.Outcome.CLOSED) {
        traffic.dropped(); // the hub was told it was delivered: this spoke drops and counts
      }
    }
  }

  private static ErrorCode code(String name) {
    try {
      return ErrorCode.valueOf(name);
    } catch (IllegalArgumentException e) {
      return ErrorCode.EXECUTION_ERROR;
    }
  }

  // ------------------------------------------------------------------ subscriptions

  private final class SpokeSub implements Subscription {
    final long sid;
    final String topic;
    final SubscribeOptions options;
    final SerialMailbox mailbox;

    SpokeSub(long sid, String topic, SubscribeOptions options, Consumer<Message> handler) {
      this.sid = sid;
      this.topic = topic;
      this.options = options;
      // A handler that waits would stop the whole connection on the reader's thread, so only one
      // that promised never to (withNonBlockingHandler: the call protocol's serving side) starts
      // there, saving a hand-off per message (D74); any other runs on the delivery pool. Inline
      // without a depth bound: only the reader offers, and a handler running on it cannot make it
      // read again before returning, so these runs never nest; a busy mailbox still yields to the
      // pool after a batch.
      this.mailbox =
          options.nonBlockingHandler()
              ? SerialMailbox.create(
                  options.bufferSize(), options.overflow(), deliveries, Runnable::run, handler)
              : SerialMailbox.create(options.bufferSize(), options.overflow(), deliveries, handler);
    }

    @Override
    public String topic() {
      return topic;
    }

    /** Dropped when full: the publisher is on another connection and cannot be told. */
    @Override
    public long dropped() {
      return mailbox.dropped() + mailbox.rejected();
    }

    @Override
    public void close() {
      if (subs.remove(sid, this)) {
        mailbox.close();
        Link current = link;
        if (current != null) {
          current.send(Frames.of("UNSUB " + sid));
        }
      }
    }
  }
}
