package dev.alkdev.operations.discovery;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.internal.Json;
import dev.alkdev.operations.internal.RateLimitedLog;
import dev.alkdev.operations.internal.Scheduler;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.ProtocolStats;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.remote.internal.NodeIds;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.serving.OperationStats;
import dev.alkdev.operations.serving.ServingStats;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a registry's operations on a pub/sub as one node of many, and tells callers so. A node has
 * a random id; it serves each operation in the shared queue group ({@code ops.req.<id>}, for
 * callers without discovery) and on its own topic ({@code ops.node.<nodeId>.req.<id>}, where a
 * {@link RemoteCatalog} routes), announces itself with its full specs ({@code node.hello}) when it
 * starts, when its registry changes and when a caller asks ({@code node.query}), sends a small
 * {@code node.heartbeat} every interval, and answers requests for its specs ({@code
 * node.specs.requested}) in parts that fit the transport, and for its statistics ({@code
 * node.stats.requested}: per operation the asker may call, from its serving pipeline's {@link
 * OperationServer#operationStats()}).
 *
 * <p>{@link #close()} drains: the node says {@code node.bye} (callers stop routing to it), refuses
 * new calls with UNAVAILABLE (retryable: callers try another node), gives its running calls up to
 * the drain timeout to finish, cancels the rest, and says a last {@code node.bye} when it is gone.
 * It keeps heart-beating while it drains, so that callers do not take it for dead. Thread-safe.
 */
public final class ServingNode implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ServingNode.class);

  /** How often a node says it is alive unless told otherwise. */
  public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(2);

  /** How long a closing node lets its running calls finish unless told otherwise. */
  public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(10);

  /** How long a hello's signature is sent again before the node signs anew: a minute. */
  static final long RESIGN_MILLIS = 60_000;

  /** Registry changes within this time make one hello. */
  static final long HELLO_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

  private final String nodeId;
  private final OperationServer server;
  private final OperationRegistry registry;
  private final PubSub pubsub;
  private final Duration heartbeatInterval;
  private final Duration drainTimeout;
  private final Optional<NodeSigner> signer;
  private final CallHandler handler;
  private final PubSub.Subscription nodesSubscription;
  private final PubSub.Subscription specsSubscription;
  private final Registration registryListener;
  private final RateLimitedLog refusedWarning = RateLimitedLog.of(LOG, 1, Duration.ofSeconds(10));
  private final AtomicBoolean helloScheduled = new AtomicBoolean();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final Object timerLock = new Object();
  private volatile Announcement announcement;
  private volatile Signed lastProof;

  /** A proof with the digest it signed, replaced together. */
  private record Signed(String digest, NodeEvent.Proof proof) {}

  private volatile boolean draining;
  private volatile boolean stopped;
  private Scheduler.Timer heartbeatTimer; // guarded by timerLock

  /** What this node serves now, and its hello. */
  private record Announcement(List<OperationSpec> specs, String digest) {}

  private ServingNode(Builder builder) {
    this.nodeId = builder.nodeId != null ? builder.nodeId : OperationContext.newRequestId();
    this.server =
        builder.server != null ? builder.server : OperationServer.create(builder.registry);
    this.registry = server.registry();
    this.pubsub = builder.pubsub;
    this.heartbeatInterval = builder.heartbeatInterval;
    this.drainTimeout = builder.drainTimeout;
    this.signer = builder.signer;
    this.handler = CallHandler.builder(server, pubsub).nodeId(nodeId).build();
    this.announcement = announce();
    this.specsSubscription =
        pubsub.subscribe(
            ProtocolTopics.nodeSpecs(nodeId),
            SubscribeOptions.defaults().withNonBlockingHandler(),
            this::onSpecsRequest);
    this.nodesSubscription =
        pubsub.subscribe(
            ProtocolTopics.NODES,
            SubscribeOptions.defaults().withNonBlockingHandler(),
            this::onNodes);
    this.registryListener =
        registry.addListener(
            new OperationRegistry.Listener() {
              @Override
              public void added(OperationSpec spec) {
                registryChanged();
              }

              @Override
              public void removed(OperationSpec spec) {
                registryChanged();
              }
            });
    sendHello(ProtocolTopics.NODES);
    scheduleHeartbeat();
  }

  /** Serves {@code registry}'s operations on {@code pubsub} as a node with default settings. */
  public static ServingNode start(OperationRegistry registry, PubSub pubsub) {
    return builder(registry, pubsub).start();
  }

  /** A node with a serving pipeline of its own over {@code registry}. */
  public static Builder builder(OperationRegistry registry, PubSub pubsub) {
    return new Builder(Objects.requireNonNull(registry, "registry"), null, pubsub);
  }

  /**
   * A node over {@code server}'s pipeline, shared with the server's other adapters. The node drains
   * and closes the server when it closes: a process that leaves stops serving everywhere.
   */
  public static Builder builder(OperationServer server, PubSub pubsub) {
    return new Builder(null, Objects.requireNonNull(server, "server"), pubsub);
  }

  /** This node's id: 32 hex digits unless the builder named one. */
  public String nodeId() {
    return nodeId;
  }

  /** The specs this node serves and announces now, sorted by id. */
  public List<OperationSpec> specs() {
    return announcement.specs();
  }

  /** The calls this node's protocol adapter runs now, and messages it dropped. */
  public ProtocolStats stats() {
    return handler.stats();
  }

  /** Whether the node is leaving (it takes no new calls). */
  public boolean isDraining() {
    return draining;
  }

  /**
   * Leaves gracefully: says {@code node.bye}, refuses new calls with UNAVAILABLE, waits up to the
   * drain timeout for running calls to finish, cancels the rest (their callers hear UNAVAILABLE),
   * stops heart-beating and says a last {@code node.bye}. Blocks until then; closing twice is
   * harmless. The pub/sub stays open.
   */
  @Override
  public void close() {
    if (!closing.compareAndSet(false, true)) {
      return;
    }
    draining = true;
    registryListener.remove();
    publish(ProtocolTopics.NODES, new NodeEvent.Bye(nodeId, Math.max(1, drainTimeout.toMillis())));
    boolean drained = server.drain(drainTimeout);
    if (!drained) {
      LOG.info("Node {} cancelled the calls still running after {}", nodeId, drainTimeout);
    }
    handler.close();
    stopped = true;
    synchronized (timerLock) {
      if (heartbeatTimer != null) {
        heartbeatTimer.cancel();
      }
    }
    nodesSubscription.close();
    specsSubscription.close();
    try {
      // The last word: callers forget this node at once instead of after its heartbeats stop.
      publish(ProtocolTopics.NODES, new NodeEvent.Bye(nodeId, 0)).get(1, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.debug("Node {} could not say its last bye", nodeId, e);
    }
  }

  // ------------------------------------------------------------------ announcing

  private Announcement announce() {
    List<OperationSpec> specs = new ArrayList<>();
    for (OperationSpec spec : registry.list()) {
      if (registry.getHandler(spec.id()).isPresent() && handler.isServing(spec.id())) {
        specs.add(spec); // callable: the protocol adapter serves it
      }
    }
    return new Announcement(List.copyOf(specs), NodeEvents.digest(specs));
  }

  private void registryChanged() {
    if (helloScheduled.compareAndSet(false, true)) {
      Scheduler.schedule(
          () -> {
            helloScheduled.set(false);
            if (!draining) {
              announcement = announce();
              sendHello(ProtocolTopics.NODES);
            }
          },
          HELLO_DELAY_NANOS);
    }
  }

  /** The hello, with the specs when they fit in one message, else with their digest only. */
  private void sendHello(String topic) {
    Announcement now = announcement;
    Optional<NodeEvent.Proof> proof = signer.map(s -> proof(s, now.digest()));
    NodeEvent.Hello full =
        new NodeEvent.Hello(
            nodeId, now.digest(), heartbeatInterval.toMillis(), Optional.of(now.specs()), proof);
    byte[] bytes = NodeEvents.encode(full);
    if (bytes.length > pubsub.maxMessageBytes()) {
      bytes =
          NodeEvents.encode(
              new NodeEvent.Hello(
                  nodeId, now.digest(), heartbeatInterval.toMillis(), Optional.empty(), proof));
    }
    publish(topic, bytes);
  }

  /**
   * The proof of {@code digest}: the last one while it is younger than {@link #RESIGN_MILLIS}
   * (signing takes a fraction of a millisecond, and a caller checks a proof it has seen once), else
   * a new one. Callers believe a proof for {@link TrustedNodes#DEFAULT_MAX_AGE}.
   */
  private NodeEvent.Proof proof(NodeSigner s, String digest) {
    long now = System.currentTimeMillis();
    Signed last = lastProof;
    if (last != null
        && digest.equals(last.digest())
        && now - last.proof().signedAtMillis() < RESIGN_MILLIS
        && now >= last.proof().signedAtMillis()) {
      return last.proof();
    }
    NodeEvent.Proof fresh = s.prove(nodeId, digest, now);
    lastProof = new Signed(digest, fresh);
    return fresh;
  }

  private void scheduleHeartbeat() {
    synchronized (timerLock) {
      if (stopped) {
        return;
      }
      heartbeatTimer = Scheduler.schedule(this::heartbeat, heartbeatInterval.toNanos());
    }
  }

  private void heartbeat() {
    if (stopped) {
      return;
    }
    publish(
        ProtocolTopics.NODES,
        new NodeEvent.Heartbeat(
            nodeId,
            announcement.digest(),
            heartbeatInterval.toMillis(),
            server.stats().running(),
            draining));
    scheduleHeartbeat();
  }

  // ------------------------------------------------------------------ answering

  private void onNodes(Message message) {
    NodeEvent event;
    try {
      event = NodeEvents.decode(message.payload(), pubsub.maxMessageBytes());
    } catch (IllegalArgumentException e) {
      LOG.debug("Dropped a malformed discovery message: {}", e.getMessage());
      return;
    }
    if (event instanceof NodeEvent.Query query && !draining) {
      sendHello(query.replyTo());
    } else if (event instanceof NodeEvent.StatsRequested request
        && request.nodeId().map(nodeId::equals).orElse(true)) {
      publish(request.replyTo(), statsFor(request.requestId(), identityOf(message, request)));
    }
  }

  /** The identity the transport vouches for; the request's only where payloads are trusted. */
  private Identity identityOf(Message message, NodeEvent.StatsRequested request) {
    if (message.identity().isPresent()) {
      return message.identity().get();
    }
    return pubsub.trustsPayloadIdentity()
        ? request.identity().orElse(Identity.anonymous())
        : Identity.anonymous();
  }

  /**
   * The statistics of the operations {@code identity} may call (the rule that filters listing: an
   * operation it could not call is not reported at all), as much as fits in one message: the most
   * called first, the rest counted in {@code omitted}.
   */
  byte[] statsFor(String requestId, Identity identity) {
    List<OperationStats> visible = new ArrayList<>();
    for (OperationStats op : server.operationStats()) {
      if (registry
          .getSpec(op.operationId())
          .map(spec -> spec.accessControl().allows(identity))
          .orElse(false)) {
        visible.add(op);
      }
    }
    Instant startedAt = server.startedAt();
    ServingStats serving = server.stats();
    int running = serving.running();
    boolean saturated = serving.saturated();
    byte[] all =
        NodeEvents.encode(
            new NodeEvent.Stats(
                requestId, nodeId, startedAt, running, draining, saturated, visible, 0));
    if (all.length <= pubsub.maxMessageBytes()) {
      return all;
    }
    List<OperationStats> byCalls = new ArrayList<>(visible);
    byCalls.sort(Comparator.comparingLong(OperationStats::calls).reversed());
    // The envelope with no operation, plus each operation's own size and its comma.
    long budget =
        pubsub.maxMessageBytes()
            - NodeEvents.encode(
                    new NodeEvent.Stats(
                        requestId,
                        nodeId,
                        startedAt,
                        running,
                        draining,
                        saturated,
                        List.of(),
                        Integer.MAX_VALUE))
                .length;
    List<OperationStats> kept = new ArrayList<>();
    for (OperationStats op : byCalls) {
      long size = Json.mapper().writeValueAsBytes(NodeEvents.operationJson(op)).length + 1;
      if (size > budget) {
        break;
      }
      budget -= size;
      kept.add(op);
    }
    return NodeEvents.encode(
        new NodeEvent.Stats(
            requestId,
            nodeId,
            startedAt,
            running,
            draining,
            saturated,
            kept,
            visible.size() - kept.size()));
  }

  private void onSpecsRequest(Message message) {
    NodeEvent event;
    try {
      event = NodeEvents.decode(message.payload(), pubsub.maxMessageBytes());
    } catch (IllegalArgumentException e) {
      LOG.debug("Dropped a malformed specs request: {}", e.getMessage());
      return;
    }
    if (event instanceof NodeEvent.SpecsRequested request) {
      for (NodeEvent.Specs part : SpecParts.split(nodeId, specsSource(), pubsub)) {
        publish(request.replyTo(), part);
      }
    }
  }

  private SpecParts.Source specsSource() {
    Announcement now = announcement;
    return new SpecParts.Source(now.specs(), now.digest());
  }

  private CompletableFuture<Integer> publish(String topic, NodeEvent event) {
    return publish(topic, NodeEvents.encode(event));
  }

  private CompletableFuture<Integer> publish(String topic, byte[] bytes) {
    CompletableFuture<Integer> sent;
    try {
      sent = pubsub.publish(topic, bytes);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    return sent.whenComplete(
        (receivers, error) -> {
          if (error == null) {
            return;
          }
          Throwable cause = error instanceof CompletionException ? error.getCause() : error;
          if (cause instanceof CallError refused && refused.code() == ErrorCode.ACCESS_DENIED) {
            // The hub (or a broker) refused it: callers will not learn of what this node serves.
            refusedWarning.warn(
                "Node {} was refused on {}: {}", nodeId, topic, refused.getMessage());
          } else {
            LOG.debug("Node {} could not publish on {}: {}", nodeId, topic, error.toString());
          }
        });
  }

  /** Configures a {@link ServingNode}. */
  public static final class Builder {
    private final OperationRegistry registry;
    private final OperationServer server;
    private final PubSub pubsub;
    private String nodeId;
    private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
    private Duration drainTimeout = DEFAULT_DRAIN_TIMEOUT;
    private Optional<NodeSigner> signer = Optional.empty();

    private Builder(OperationRegistry registry, OperationServer server, PubSub pubsub) {
      this.registry = registry;
      this.server = server;
      this.pubsub = Objects.requireNonNull(pubsub, "pubsub");
    }

    /**
     * The node's id (1 to 64 letters, digits, {@code _} or {@code -}); 32 random hex by default.
     */
    public Builder nodeId(String nodeId) {
      Objects.requireNonNull(nodeId, "nodeId");
      if (!NodeIds.isValid(nodeId)) {
        throw new IllegalArgumentException(
            "A node id is 1 to 64 ASCII letters, digits, '_' or '-' (no dots), was '"
                + nodeId
                + "'");
      }
      this.nodeId = nodeId;
      return this;
    }

    /**
     * How often the node says it is alive (2 s by default); callers drop it after {@link
     * RemoteCatalog.Builder#heartbeatMisses} intervals of silence.
     */
    public Builder heartbeatInterval(Duration interval) {
      if (interval.toMillis() < 1) {
        throw new IllegalArgumentException("heartbeatInterval must be at least 1 ms");
      }
      this.heartbeatInterval = interval;
      return this;
    }

    /** How long a closing node lets running calls finish before it cancels them (10 s). */
    public Builder drainTimeout(Duration timeout) {
      if (timeout.isNegative()) {
        throw new IllegalArgumentException("drainTimeout must not be negative");
      }
      this.drainTimeout = timeout;
      return this;
    }

    /**
     * Signs the node's announcements, so that callers that trust the key ({@link TrustedNodes})
     * route to it when they require verified nodes. Unsigned by default.
     */
    public Builder signer(NodeSigner signer) {
      this.signer = Optional.of(Objects.requireNonNull(signer, "signer"));
      return this;
    }

    /** Starts serving and announces the node. */
    public ServingNode start() {
      return new ServingNode(this);
    }
  }
}
