package dev.alkdev.operations.transport.websocket;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.protocol.CallEvents;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.pubsub.TransportStats;
import dev.alkdev.operations.transport.kit.Backoff;
import dev.alkdev.operations.transport.kit.ConnectionKeeper;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

  private final SpokeOptions options;
  private final WebSocketClient client;
  private final SpokeConnector connector;
  private final ConnectionKeeper<SpokeConnector.Link> keeper;

  private WebSocketSpoke(SpokeOptions options) {
    this.options = options;
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
      throw CallError.builder(ErrorCode.UNAVAILABLE, "The WebSocket client did not start")
          .cause(e)
          .build();
    }
    this.connector = new SpokeConnector(options, client, toString());
    try {
      this.keeper =
          ConnectionKeeper.builder("ws-spoke", "WebSocket", connector)
              .maxMessageBytes(connector::maxMessageBytes)
              .backoff(Backoff.exponential(options.reconnectInitial, options.reconnectMax))
              .maxReconnects(options.maxReconnects)
              .restoreTimeout(options.requestTimeout)
              // The reader's thread must not wait for the hub's answer, which it alone can read.
              .awaitSubscriptions(options.requestTimeout, () -> !SpokeConnector.onReader())
              .delivery(
                  new ForkJoinPool(
                      Math.max(2, Runtime.getRuntime().availableProcessors()),
                      ForkJoinPool.defaultForkJoinWorkerThreadFactory,
                      null,
                      true))
              .connect();
    } catch (RuntimeException e) {
      stopClient();
      throw e;
    }
    keeper.every(options.pingInterval, () -> keeper.connection().ifPresent(l -> l.ping()));
    keeper.every(
        Duration.ofMillis(Math.max(20, Math.min(1000, options.requestTimeout.toMillis() / 4))),
        () -> connector.expireAcks(keeper.connection()));
  }

  /**
   * Connects to the hub and waits for its greeting.
   *
   * @throws CallError ACCESS_DENIED when the hub refuses the upgrade (401, 403), UNAVAILABLE when
   *     it cannot be reached within the connect timeout
   */
  public static WebSocketSpoke connect(SpokeOptions options) {
    Objects.requireNonNull(options, "options");
    return new WebSocketSpoke(options);
  }

  // ------------------------------------------------------------------ PubSub

  @Override
  public CompletableFuture<Integer> publish(String topic, byte[] payload) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(payload, "payload");
    if (!CallEvents.isValidTopic(topic)) {
      return CompletableFuture.failedFuture(
          CallError.of(ErrorCode.INVALID_INPUT, "Not a topic the hub accepts: " + topic));
    }
    return keeper.publish(topic, payload);
  }

  /**
   * {@inheritDoc} Waits for the hub to accept the subscription (up to the request timeout) and
   * throws its refusal, except on the spoke's own reader thread (a non-blocking handler that
   * subscribes), where it takes effect when the hub reads it and a refusal is logged.
   */
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
    return keeper.subscribe(topic, subscribeOptions, handler);
  }

  /** The smaller of the hub's limit (learned when it greets) and {@link SpokeOptions}' own. */
  @Override
  public int maxMessageBytes() {
    return connector.maxMessageBytes();
  }

  @Override
  public Registration onDisconnect(Runnable action) {
    return keeper.onDisconnect(action);
  }

  /**
   * Runs {@code action} each time the spoke is connected again after a drop, once its subscriptions
   * are back: a {@code RemoteCatalog} refreshes there, a node re-announces.
   */
  public Registration onReconnect(Runnable action) {
    return keeper.onReconnect(action);
  }

  /**
   * Waits until the hub has handled everything this spoke sent before (subscribes, unsubscribes,
   * publishes): one round trip.
   *
   * @throws CallError UNAVAILABLE when not connected or the hub does not answer in time
   */
  public void flush(Duration timeout) {
    SpokeConnector.Link link =
        keeper
            .connection()
            .orElseThrow(
                () ->
                    CallError.of(ErrorCode.UNAVAILABLE, "Not connected to the hub " + options.uri));
    try {
      connector.sync(link).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw CallError.from(
          e, cause -> CallError.of(ErrorCode.UNAVAILABLE, "The hub did not answer", cause));
    } catch (TimeoutException e) {
      throw CallError.of(
          ErrorCode.UNAVAILABLE, "The hub did not answer within " + timeout.toMillis() + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallError.of(ErrorCode.CANCELLED, "Interrupted while flushing");
    }
  }

  /** The identity the hub authenticated this spoke as. */
  public Identity identity() {
    return connector.identity();
  }

  @Override
  public boolean isConnected() {
    return keeper.isConnected();
  }

  /**
   * {@inheritDoc} Published: PUB frames queued to the hub; received: messages a subscription's
   * buffer took; dropped: messages a full buffer lost; reconnects as in {@link #stats()}. The hub
   * cuts a spoke that does not read: that is counted on the hub's side, not here.
   */
  @Override
  public TransportStats transportStats() {
    return keeper.transportStats(0);
  }

  /** Counts since the spoke was opened. */
  public SpokeStats stats() {
    return new SpokeStats(
        keeper.disconnects(),
        keeper.reconnects(),
        keeper.subscriptions().size(),
        keeper.droppedMessages());
  }

  /**
   * Closes the spoke: subscriptions end, publishes in flight fail with UNAVAILABLE, the disconnect
   * actions run once, the connection closes and no reconnection follows.
   */
  @Override
  public void close() {
    keeper.close();
    stopClient();
  }

  private void stopClient() {
    try {
      client.stop();
    } catch (Exception e) {
      LOG.debug("The WebSocket client failed to stop", e);
    }
  }

  @Override
  public String toString() {
    return "WebSocketSpoke[" + options.uri + "]";
  }
}
