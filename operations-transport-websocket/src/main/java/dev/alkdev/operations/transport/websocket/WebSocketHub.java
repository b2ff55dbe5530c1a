package dev.alkdev.operations.transport.websocket;

import static dev.alkdev.operations.transport.kit.Settings.positive;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.discovery.NodeSigner;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.internal.RateLimitedLog;
import dev.alkdev.operations.jetty.internal.BindFailure;
import dev.alkdev.operations.jetty.internal.ConnectionGuard;
import dev.alkdev.operations.jetty.internal.HealthRoutes;
import dev.alkdev.operations.protocol.CallEvents;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SerialMailbox;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.pubsub.TransportCounters;
import dev.alkdev.operations.pubsub.TransportStats;
import dev.alkdev.operations.serving.ConnectionLimits;
import dev.alkdev.operations.serving.ConnectionStats;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.transport.kit.InlineFirst;
import dev.alkdev.operations.transport.websocket.internal.Frames;
import dev.alkdev.operations.transport.websocket.internal.PacedEndpoint;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.server.ServerUpgradeRequest;
import org.eclipse.jetty.websocket.server.ServerUpgradeResponse;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * The WebSocket hub: a Jetty 12 server at {@value #PATH} that relays the call protocol between its
 * spokes and its own code. Each spoke is a {@link WebSocketSpoke} (or a client in another language
 * speaking docs/websocket.md); the hub's own code uses {@link #pubsub()}, and {@link
 * Builder#serve(OperationServer)} serves a registry there as a discovery node, so spokes call it
 * and see its operations in their {@code RemoteCatalog}.
 *
 * <pre>{@code
 * try (WebSocketHub hub =
 *     WebSocketHub.builder()
 *         .port(8080) // 127.0.0.1 unless host(...) says otherwise
 *         .authenticator(Authenticator.bearerTokens(Map.of(token, Identity.of("billing"))))
 *         .permissions(SpokePermissions.byScopes())
 *         .serve(server)
 *         .start()) {
 *   System.out.println(hub.uri()); // ws://127.0.0.1:8080/ws
 * }
 * }</pre>
 *
 * <p>Secure by default: loopback; a request with an {@code Origin} header not in {@link
 * Builder#allowedOrigins} is refused (403) at the handshake; an authenticator's empty answer
 * refuses it (401); {@link SpokePermissions#denyAll()} until told otherwise; bounded messages,
 * outgoing queues, subscriptions, calls and connections; pings and an idle timeout.
 */
public final class WebSocketHub implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WebSocketHub.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** Where the hub listens. */
  public static final String PATH = "/ws";

  /** The subprotocol of this protocol; the hub accepts it when offered. */
  public static final String SUBPROTOCOL = "ops.v1";

  /** {@link Builder#maxQueuedBytes}'s default: 4 MiB per spoke. */
  public static final long DEFAULT_MAX_QUEUED_BYTES = 4L << 20;

  /** {@link Builder#maxPendingCallBytes}'s default: 8 MiB of requests in flight per spoke. */
  public static final long DEFAULT_MAX_PENDING_CALL_BYTES = 8L << 20;

  final Options options;
  final Broker broker = new Broker();
  final HubRules rules;
  final AtomicLong malformedFrames = new AtomicLong();
  final AtomicLong denied = new AtomicLong();
  final AtomicLong cut = new AtomicLong();
  // D94: spokes closed for not reading what they are sent, the most ever queued for one spoke, and
  // how often a spoke's reading was paused for its queue.
  final AtomicLong cutForBound = new AtomicLong();
  final AtomicLong queuedHighWater = new AtomicLong();
  final AtomicLong pauses = new AtomicLong();
  // What crosses the broker: publishes into it (spokes' and the hub's own), deliveries out of it.
  final TransportCounters traffic = TransportCounters.create();
  private final AtomicLong refused = new AtomicLong();
  final RateLimitedLog slowWarning = RateLimitedLog.of(LOG, 1, Duration.ofSeconds(10));
  private final RateLimitedLog refusedWarning = RateLimitedLog.of(LOG, 1, Duration.ofSeconds(10));

  private final Set<HubConnection> connections = ConcurrentHashMap.newKeySet();
  private final Server jetty;
  private final ServerConnector connector;
  private final ConnectionGuard guard;
  private final ForkJoinPool deliveries;
  // The hub's own subscribers that never block (its CallHandler, node) start on the reader's
  // thread.
  private final InlineFirst inlineFirst;
  private final ScheduledThreadPoolExecutor timer;
  private final LocalPort local = new LocalPort();
  private final ServingNode node;
  private final AtomicBoolean closed = new AtomicBoolean();

  private WebSocketHub(Builder builder) {
    this.options = new Options(builder);
    this.rules = new HubRules(this, builder.permissions, builder.strictReplies);
    this.deliveries =
        new ForkJoinPool(
            Math.max(2, Runtime.getRuntime().availableProcessors()),
            ForkJoinPool.defaultForkJoinWorkerThreadFactory,
            null,
            true);
    this.inlineFirst = new InlineFirst(deliveries);
    this.timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "ops-ws-hub-timer");
              t.setDaemon(true);
              return t;
            });
    timer.setRemoveOnCancelPolicy(true);
    QueuedThreadPool threads = new QueuedThreadPool(64, 4);
    threads.setName("ops-ws-hub");
    threads.setDaemon(true);
    this.jetty = new Server(threads);
    this.connector = new ServerConnector(jetty);
    connector.setHost(builder.host);
    connector.setPort(builder.port);
    jetty.addConnector(connector);
    this.guard =
        ConnectionGuard.install("WebSocket hub", jetty, connector, builder.connectionLimits);
    long maxFrame = (long) options.maxMessageBytes + Frames.MAX_HEADER_BYTES + 1;
    WebSocketUpgradeHandler upgrade =
        WebSocketUpgradeHandler.from(
            jetty,
            container -> {
              container.setMaxBinaryMessageSize(maxFrame);
              container.setMaxTextMessageSize(maxFrame);
              container.setMaxFrameSize(maxFrame);
              container.setIdleTimeout(options.idleTimeout);
              container.setMaxOutgoingFrames(options.maxQueuedFrames);
              container.addMapping(builder.path, this::upgrade);
            });
    OperationServer served = builder.served;
    jetty.setHandler(
        guard.wrap(
            HealthRoutes.wrap(
                upgrade, () -> Optional.ofNullable(served).map(OperationServer::stats))));
    try {
      jetty.start();
      guard.start();
    } catch (Exception e) {
      shutDownThreads();
      throw BindFailure.of("WebSocket hub", builder.host, builder.port, e);
    }
    long writeCheck =
        Math.max(
            50,
            Math.min(
                1000,
                Math.min(options.writeTimeout.toMillis(), options.queueGrace.toMillis()) / 4));
    timer.scheduleWithFixedDelay(this::checkWrites, writeCheck, writeCheck, TimeUnit.MILLISECONDS);
    long ping = options.pingInterval.toMillis();
    timer.scheduleWithFixedDelay(this::ping, ping, ping, TimeUnit.MILLISECONDS);
    this.path = builder.path;
    ServingNode started = null;
    try {
      started = builder.served == null ? null : startNode(builder);
    } catch (RuntimeException | Error e) {
      // Nothing of a hub that failed to start stays behind: not its port, not its threads.
      closed.set(true);
      try {
        jetty.stop();
      } catch (Exception stop) {
        e.addSuppressed(stop);
      }
      local.close();
      shutDownThreads();
      throw e;
    }
    this.node = started;
  }

  private final String path;

  private ServingNode startNode(Builder builder) {
    ServingNode.Builder node =
        ServingNode.builder(builder.served, local)
            .heartbeatInterval(builder.heartbeatInterval)
            .drainTimeout(builder.drainTimeout);
    if (builder.nodeId != null) {
      node.nodeId(builder.nodeId);
    }
    if (builder.signer != null) {
      node.signer(builder.signer);
    }
    return node.start();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Where spokes connect: {@code ws://host:port/ws}. */
  public URI uri() {
    String host = connector.getHost();
    if (host == null || host.isEmpty() || host.equals("0.0.0.0")) {
      host = "127.0.0.1";
    } else if (host.contains(":") && !host.startsWith("[")) {
      host = "[" + host + "]";
    }
    return URI.create("ws://" + host + ":" + port() + path);
  }

  /** The port the hub listens on (the one chosen, when it was given as 0). */
  public int port() {
    return connector.getLocalPort();
  }

  /**
   * The hub's own side of the bus, for its own code: a {@code CallHandler}, {@code ServingNode},
   * {@code RemoteCatalog} or {@code PendingRequestMap} on it reaches every spoke. Requests its
   * callers send carry the identity they wrote (the hub's code is trusted); spokes' messages carry
   * the identity their connection authenticated as ({@link Message#identity()}). As in-process, an
   * idle subscription's handler starts on the thread that relays the message (the sending spoke's
   * reader), so it must not block: a handler that waits holds up that spoke's connection.
   */
  public PubSub pubsub() {
    return local;
  }

  /** The id of the discovery node serving {@link Builder#serve}'s operations, if any. */
  public Optional<String> nodeId() {
    return node == null ? Optional.empty() : Optional.of(node.nodeId());
  }

  /** What the hub's connection limits saw and did since it started. */
  public ConnectionStats connectionStats() {
    return guard.stats();
  }

  public HubStats stats() {
    long queued = 0;
    int paused = 0;
    for (HubConnection connection : connections) {
      queued += connection.queuedBytes();
      paused += connection.readingPaused() ? 1 : 0;
    }
    return new HubStats(
        connections.size(),
        queued,
        queuedHighWater.get(),
        paused,
        pauses.get(),
        refused.get(),
        denied.get(),
        rules.claims.refused(),
        cut.get(),
        cutForBound.get(),
        malformedFrames.get(),
        rules.callers.size(),
        rules.servedBy.size(),
        broker.topicCount());
  }

  /**
   * Stops the hub: its node says goodbye, every spoke's connection is closed (1001, going away; the
   * spokes reconnect elsewhere or later), the hub's own subscriptions end and its {@link #pubsub()}
   * runs its disconnect actions.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (node != null) {
      try {
        node.close();
      } catch (RuntimeException e) {
        LOG.warn("The hub's serving node failed to close", e);
      }
    }
    for (HubConnection connection : new ArrayList<>(connections)) {
      connection.closeGoingAway();
    }
    try {
      guard.stop();
      jetty.stop();
    } catch (Exception e) {
      LOG.warn("The hub's server failed to stop", e);
    }
    local.close();
    shutDownThreads();
  }

  private void shutDownThreads() {
    timer.shutdownNow();
    deliveries.shutdown();
  }

  // ------------------------------------------------------------------ handshake

  private Object upgrade(
      ServerUpgradeRequest request, ServerUpgradeResponse response, Callback cb) {
    String remote = Request.getRemoteAddr(request) + ":" + Request.getRemotePort(request);
    String origin = request.getHeaders().get(HttpHeader.ORIGIN);
    if (origin != null && !options.allowedOrigins.contains(origin)) {
      return refuse(request, response, cb, 403, "Origin not allowed", remote, "origin " + origin);
    }
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (HttpField field : request.getHeaders()) {
      headers.computeIfAbsent(field.getName(), n -> new ArrayList<>()).add(field.getValue());
    }
    Handshake handshake = new Handshake(headers, request.getSubProtocols(), remote);
    Optional<Identity> identity;
    try {
      identity = Objects.requireNonNull(options.authenticator.authenticate(handshake));
    } catch (RuntimeException e) {
      LOG.warn("The hub's authenticator failed on {}", handshake, e);
      identity = Optional.empty();
    }
    if (identity.isEmpty()) {
      return refuse(request, response, cb, 401, "Not authenticated", remote, "no identity");
    }
    if (connections.size() >= options.maxConnections) {
      return refuse(request, response, cb, 503, "Too many connections", remote, "connection limit");
    }
    if (request.hasSubProtocol(SUBPROTOCOL)) {
      response.setAcceptedSubProtocol(SUBPROTOCOL);
    }
    return new PacedEndpoint(
        new HubConnection(this, identity.get(), identityJson(identity.get()), remote));
  }

  private Object refuse(
      Request request,
      Response response,
      Callback callback,
      int status,
      String message,
      String remote,
      String why) {
    refused.incrementAndGet();
    refusedWarning.warn("WebSocket upgrade from {} refused ({}): {}", remote, status, why);
    Response.writeError(request, response, callback, status, message);
    return null;
  }

  static String identityJson(Identity identity) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("subject", identity.subject());
    json.put("scopes", new TreeSet<>(identity.scopes()));
    return JSON.writeValueAsString(json);
  }

  // ------------------------------------------------------------------ connections

  boolean opened(HubConnection connection) {
    if (closed.get() || connections.size() >= options.maxConnections) {
      return false;
    }
    connections.add(connection);
    return true;
  }

  void closed(HubConnection connection) {
    connections.remove(connection);
    rules.closed(connection);
  }

  private void checkWrites() {
    long now = System.nanoTime();
    long timeout = options.writeTimeout.toNanos();
    long grace = options.queueGrace.toNanos();
    for (HubConnection connection : connections) {
      connection.checkWrites(now, timeout, grace);
    }
    rules.sweep(now);
  }

  private void ping() {
    for (HubConnection connection : connections) {
      connection.ping();
    }
  }

  /** Runs {@code action} on the hub's timer in {@code millis} (not once the hub is closed). */
  void later(Runnable action, long millis) {
    try {
      timer.schedule(action, millis, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // The hub is closing: Jetty stops every connection itself.
    }
  }

  /** After a message was relayed, from a spoke or the hub's own code. */
  void relayed(Broker.Delivery delivery) {
    if (delivery.topic.equals(ProtocolTopics.CONTROL)) {
      rules.controlRelayed(delivery);
    }
  }

  /** Publishes as the hub itself (errors for calls whose spoke went away, aborts). */
  void publishAsHub(String topic, byte[] payload) {
    if (!closed.get()) {
      local.publish(topic, payload);
    }
  }

  // ------------------------------------------------------------------ the hub's own side

  /** The hub's own code on the bus: subscriptions in the broker, publishes relayed to spokes. */
  private final class LocalPort implements PubSub {
    private final CopyOnWriteArrayList<Runnable> disconnectActions = new CopyOnWriteArrayList<>();
    private final Set<LocalSub> subs = ConcurrentHashMap.newKeySet();
    private volatile boolean portClosed;

    @Override
    public CompletableFuture<Integer> publish(String topic, byte[] payload) {
      Objects.requireNonNull(topic, "topic");
      Objects.requireNonNull(payload, "payload");
      if (portClosed) {
        return CompletableFuture.failedFuture(
            CallError.of(ErrorCode.UNAVAILABLE, "The WebSocket hub is closed"));
      }
      if (payload.length > options.maxMessageBytes) {
        return CompletableFuture.failedFuture(
            CallError.builder(
                    ErrorCode.RESOURCE_EXHAUSTED,
                    "Message of "
                        + payload.length
                        + " bytes is larger than the hub's limit of "
                        + options.maxMessageBytes)
                .retryable(false)
                .build());
      }
      Broker.Delivery delivery = new Broker.Delivery(topic, payload, null, Optional.empty());
      rules.hubPublished(delivery); // before it is relayed: a spoke may answer at once
      traffic.published(payload.length);
      Broker.Result result = broker.publish(delivery);
      relayed(delivery);
      if (result.rejected()) {
        return CompletableFuture.failedFuture(
            CallError.of(
                ErrorCode.RESOURCE_EXHAUSTED, "A subscriber of " + topic + " is full; try again"));
      }
      return CompletableFuture.completedFuture(result.receivers());
    }

    @Override
    public Subscription subscribe(
        String topic, SubscribeOptions subscribeOptions, Consumer<Message> handler) {
      Objects.requireNonNull(topic, "topic");
      Objects.requireNonNull(subscribeOptions, "options");
      Objects.requireNonNull(handler, "handler");
      if (portClosed) {
        throw CallError.of(ErrorCode.UNAVAILABLE, "The WebSocket hub is closed");
      }
      // The hub's inboxes and node ids are its own: no spoke may listen to its answers or speak
      // for its node (D66).
      rules.claimForHub(topic);
      LocalSub sub = new LocalSub(topic, subscribeOptions, handler);
      if (sub.serves) {
        rules.claims.hubServes(HubRules.operationOf(topic));
      }
      subs.add(sub);
      broker.add(sub.entry);
      return sub;
    }

    @Override
    public int maxMessageBytes() {
      return options.maxMessageBytes;
    }

    /**
     * {@inheritDoc} For the whole hub, as a broker: published counts messages published on it (by
     * spokes and by its own code), received counts deliveries to subscriptions (a frame queued to a
     * spoke, or a message a local subscription's buffer took), dropped counts deliveries a full
     * local buffer dropped, slow-consumer events count spokes cut for not reading; the hub has no
     * reconnects of its own.
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
          0,
          cut.get());
    }

    @Override
    public boolean trustsPayloadIdentity() {
      return false; // spokes' messages carry their connection's identity instead
    }

    @Override
    public Registration onDisconnect(Runnable action) {
      Objects.requireNonNull(action, "action");
      disconnectActions.add(action);
      if (portClosed && disconnectActions.remove(action)) {
        action.run();
        return () -> {};
      }
      return () -> disconnectActions.remove(action);
    }

    @Override
    public void close() {
      if (portClosed) {
        return;
      }
      portClosed = true;
      for (LocalSub sub : new ArrayList<>(subs)) {
        sub.close();
      }
      for (Runnable action : disconnectActions) {
        try {
          action.run();
        } catch (RuntimeException e) {
          LOG.warn("A disconnect action failed", e);
        }
      }
      disconnectActions.clear();
    }

    private final class LocalSub implements Subscription {
      final String topic;
      final SerialMailbox mailbox;
      final Broker.Sub entry;
      final boolean serves;

      LocalSub(String topic, SubscribeOptions subscribeOptions, Consumer<Message> handler) {
        this.topic = topic;
        this.serves = ServingClaims.serves(topic, subscribeOptions);
        boolean inbox = ProtocolTopics.isInbox(topic);
        // Only a handler that promised never to block (withNonBlockingHandler: the hub's
        // CallHandler and node) starts on the thread that relays the message (D74); any other
        // (a catalog's listeners, users' subscriptions) may wait and runs on the pool.
        this.mailbox =
            subscribeOptions.nonBlockingHandler()
                ? SerialMailbox.create(
                    subscribeOptions.bufferSize(),
                    subscribeOptions.overflow(),
                    deliveries,
                    inlineFirst,
                    handler)
                : SerialMailbox.create(
                    subscribeOptions.bufferSize(),
                    subscribeOptions.overflow(),
                    deliveries,
                    handler);
        this.entry =
            new Broker.Sub(
                topic,
                subscribeOptions.queueGroup().orElse(null),
                delivery -> {
                  if (inbox) {
                    rules.hubAnswered(delivery);
                  }
                  SerialMailbox.Outcome outcome =
                      // TODO(D95, client key): the pipeline gives each anonymous caller its own
                      // fair share by CallRequest.client, which CallHandler fills with the reply
                      // inbox. Once Message can carry the client (a core change), pass the
                      // sending connection's id here (delivery.from: a serial or its remote
                      // address) so that a spoke's share is per connection, not per inbox; until
                      // then the hub's own per-connection caps (maxPendingCalls,
                      // maxPendingCallBytes) bound what one connection takes.
                      mailbox.offer(new Message(topic, delivery.payload, delivery.sender()));
                  if (outcome == SerialMailbox.Outcome.ACCEPTED) {
                    traffic.received(delivery.payload.length);
                  } else if (outcome == SerialMailbox.Outcome.DROPPED) {
                    traffic.dropped();
                  }
                  return outcome;
                });
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
          broker.remove(entry);
          subs.remove(this);
          if (serves) {
            rules.claims.hubStops(HubRules.operationOf(topic));
          }
          String key = HubRules.ownedKey(topic);
          if (key != null && subs.stream().noneMatch(s -> key.equals(HubRules.ownedKey(s.topic)))) {
            rules.releaseForHub(topic);
          }
        }
      }
    }
  }

  // ------------------------------------------------------------------ configuration

  /** The hub's settings, fixed at start. */
  static final class Options {
    final Authenticator authenticator;
    final Set<String> allowedOrigins;
    final int maxMessageBytes;
    final int maxQueuedFrames;
    final long maxQueuedBytes;
    final Duration writeTimeout;
    final Duration pingInterval;
    final Duration idleTimeout;
    final int maxSubscriptions;
    final int maxPendingCalls;
    final long maxPendingCallBytes;
    final Duration queueGrace;
    final int maxConnections;

    Options(Builder b) {
      this.authenticator = b.authenticator;
      this.allowedOrigins = Set.copyOf(b.allowedOrigins);
      this.maxMessageBytes = b.maxMessageBytes;
      this.maxQueuedFrames = b.maxQueuedFrames;
      this.maxQueuedBytes = b.maxQueuedBytes;
      this.writeTimeout = b.writeTimeout;
      this.pingInterval = b.pingInterval;
      this.idleTimeout = b.idleTimeout;
      this.maxSubscriptions = b.maxSubscriptions;
      this.maxPendingCalls = b.maxPendingCalls;
      this.maxPendingCallBytes = b.maxPendingCallBytes;
      this.queueGrace = b.queueGrace;
      this.maxConnections = b.maxConnections;
    }
  }

  /** Configures and starts a {@link WebSocketHub}. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port = 0;
    private String path = PATH;
    private Authenticator authenticator = Authenticator.anonymous();
    private Set<String> allowedOrigins = Set.of();
    private SpokePermissions permissions = SpokePermissions.denyAll();
    private boolean strictReplies = true;
    private int maxMessageBytes = CallEvents.DEFAULT_MAX_MESSAGE_BYTES;
    private int maxQueuedFrames = 65_536;
    private long maxQueuedBytes = DEFAULT_MAX_QUEUED_BYTES;
    private Duration queueGrace = Duration.ofSeconds(5);
    private long maxPendingCallBytes = DEFAULT_MAX_PENDING_CALL_BYTES;
    private ConnectionLimits connectionLimits = ConnectionLimits.defaults();
    private Duration writeTimeout = Duration.ofSeconds(10);
    private Duration pingInterval = Duration.ofSeconds(10);
    private Duration idleTimeout = Duration.ofSeconds(30);
    private int maxSubscriptions = 256;
    private int maxPendingCalls = 1024;
    private int maxConnections = 1024;
    private OperationServer served;
    private Duration heartbeatInterval = ServingNode.DEFAULT_HEARTBEAT_INTERVAL;
    private Duration drainTimeout = ServingNode.DEFAULT_DRAIN_TIMEOUT;
    private String nodeId;
    private NodeSigner signer;

    private Builder() {}

    /** The interface to listen on: 127.0.0.1 unless told otherwise. */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** The port; 0 (the default) picks a free one ({@link WebSocketHub#port()}). */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be 0 to 65535, was " + port);
      }
      this.port = port;
      return this;
    }

    /** Where to listen instead of {@value WebSocketHub#PATH} (for a hub behind a proxy path). */
    public Builder path(String path) {
      if (!path.startsWith("/")) {
        throw new IllegalArgumentException("path must start with '/', was " + path);
      }
      this.path = path;
      return this;
    }

    /** Who a connection is, decided at the upgrade. Default: everyone is anonymous. */
    public Builder authenticator(Authenticator authenticator) {
      this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
      return this;
    }

    /**
     * Origins (for example {@code https://app.example.com}) whose pages may connect. A request with
     * any other {@code Origin} header is refused at the handshake; none are allowed by default.
     * Requests without the header (programs, not browsers) are not affected.
     */
    public Builder allowedOrigins(String... origins) {
      this.allowedOrigins = Set.of(origins);
      return this;
    }

    /** What spokes may call, serve and use. Default: {@link SpokePermissions#denyAll()}. */
    public Builder permissions(SpokePermissions permissions) {
      this.permissions = Objects.requireNonNull(permissions, "permissions");
      return this;
    }

    /**
     * Whether a spoke's messages to another's inbox must answer a request the hub delivered to it
     * (true, the default). Off only for test suites that inject replies from nowhere on purpose.
     */
    public Builder strictReplies(boolean strict) {
      this.strictReplies = strict;
      return this;
    }

    /** The largest payload relayed (1 MiB by default); larger frames cut the connection. */
    public Builder maxMessageBytes(int bytes) {
      this.maxMessageBytes = positive(bytes, "maxMessageBytes");
      return this;
    }

    /**
     * Frames queued for one spoke before it is cut as too slow (65,536 by default): a backstop
     * behind {@link #maxQueuedBytes}, which counts each frame's overhead as well as its bytes and
     * so is reached first unless set much higher. Jetty's queue is unbounded unless told.
     */
    public Builder maxQueuedFrames(int frames) {
      this.maxQueuedFrames = positive(frames, "maxQueuedFrames");
      return this;
    }

    /**
     * Bytes waiting to be written to one spoke that the hub holds at most, plus one message ({@link
     * #DEFAULT_MAX_QUEUED_BYTES}, 4 MiB, by default; at least 1,024). The hub reads a spoke's next
     * frame only while less than half of this waits for it, so a spoke that sends without reading
     * is held back by TCP instead of buffered. A message for a spoke at this bound is not queued: a
     * request goes to another server of its operation (or its caller hears RESOURCE_EXHAUSTED,
     * retryable); anything else closes the spoke with 1008, counted in {@link
     * HubStats#cutForBound()}.
     */
    public Builder maxQueuedBytes(long bytes) {
      if (bytes < 1024) {
        throw new IllegalArgumentException(
            "maxQueuedBytes must be at least 1024 bytes, was " + bytes);
      }
      this.maxQueuedBytes = bytes;
      return this;
    }

    /**
     * How long a spoke's reading may stay paused because half its {@link #maxQueuedBytes} or more
     * waits to be written to it (5 s by default): then it is closed with 1008 ("does not read"),
     * counted in {@link HubStats#cutForBound()}.
     */
    public Builder queueGrace(Duration grace) {
      this.queueGrace = positive(grace, "queueGrace");
      return this;
    }

    /**
     * Bytes of requests one connection may have in flight as a caller ({@link
     * #DEFAULT_MAX_PENDING_CALL_BYTES}, 8 MiB, by default; one call is always allowed, up to {@link
     * #maxMessageBytes}): beyond them its requests are refused with RESOURCE_EXHAUSTED (retryable),
     * as past {@link #maxPendingCalls}. A request is held wherever its call runs until it ends (the
     * hub's own pipeline keeps its input until the handler returns), so this bounds what one spoke
     * makes the hub hold for calls in progress.
     */
    public Builder maxPendingCallBytes(long bytes) {
      if (bytes < 1024) {
        throw new IllegalArgumentException(
            "maxPendingCallBytes must be at least 1024 bytes, was " + bytes);
      }
      this.maxPendingCallBytes = bytes;
      return this;
    }

    /**
     * What the hub's TCP connections may hold ({@link ConnectionLimits#defaults()}): connections in
     * all and per address, and the time the upgrade request's head may take. {@link
     * #maxConnections} still bounds the spokes connected.
     */
    public Builder connectionLimits(ConnectionLimits limits) {
      this.connectionLimits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /** How long a spoke's writes may make no progress before it is cut (10 s by default). */
    public Builder writeTimeout(Duration timeout) {
      this.writeTimeout = positive(timeout, "writeTimeout");
      return this;
    }

    /** How often the hub pings each spoke (10 s by default); Jetty never pings on its own. */
    public Builder pingInterval(Duration interval) {
      this.pingInterval = positive(interval, "pingInterval");
      return this;
    }

    /** A connection silent this long (no frame, no pong) is closed (30 s by default). */
    public Builder idleTimeout(Duration timeout) {
      this.idleTimeout = positive(timeout, "idleTimeout");
      return this;
    }

    /** Subscriptions one connection may hold (256 by default). */
    public Builder maxSubscriptions(int max) {
      this.maxSubscriptions = positive(max, "maxSubscriptions");
      return this;
    }

    /**
     * Calls one connection may have in flight as a caller, and serve at once as a server (1,024
     * each by default); beyond them its requests are refused with RESOURCE_EXHAUSTED.
     */
    public Builder maxPendingCalls(int max) {
      this.maxPendingCalls = positive(max, "maxPendingCalls");
      return this;
    }

    /** Spokes connected at once (1,024 by default); beyond it upgrades are refused with 503. */
    public Builder maxConnections(int max) {
      this.maxConnections = positive(max, "maxConnections");
      return this;
    }

    /**
     * Serves {@code server}'s registry from the hub as a discovery node ({@code ServingNode}): its
     * operations are called through the same pipeline (access, limits, interceptors) as every other
     * adapter of that server, and appear in the spokes' catalogs.
     */
    public Builder serve(OperationServer server) {
      this.served = Objects.requireNonNull(server, "server");
      return this;
    }

    /** The heartbeat of the hub's discovery node (2 s by default). */
    public Builder heartbeatInterval(Duration interval) {
      this.heartbeatInterval = positive(interval, "heartbeatInterval");
      return this;
    }

    /**
     * How long the hub's node lets running calls finish when the hub closes (10 s by default); the
     * rest are cancelled and their callers hear UNAVAILABLE.
     */
    public Builder drainTimeout(Duration timeout) {
      this.drainTimeout = Objects.requireNonNull(timeout, "drainTimeout");
      return this;
    }

    /** The id of the hub's discovery node (default: 32 random hex digits). */
    public Builder nodeId(String nodeId) {
      this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
      return this;
    }

    /**
     * Signs the announcements of the hub's discovery node ({@link ServingNode.Builder#signer}): the
     * hub's own messages carry no authenticated identity, so callers that require verified nodes
     * route to the hub's node only when it signs.
     */
    public Builder signer(NodeSigner signer) {
      this.signer = Objects.requireNonNull(signer, "signer");
      return this;
    }

    /**
     * Starts the hub.
     *
     * @throws CallError UNAVAILABLE when it cannot listen (the port is taken, say)
     */
    public WebSocketHub start() {
      return new WebSocketHub(this);
    }
  }
}
