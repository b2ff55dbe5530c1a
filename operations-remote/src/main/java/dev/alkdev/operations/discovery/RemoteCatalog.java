package dev.alkdev.operations.discovery;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationCaller;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.remote.internal.NodeIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The caller's view of every operation served on a pub/sub by {@link ServingNode}s: the nodes, the
 * specs they serve (JSON Schemas included), and calls routed to one of them.
 *
 * <p>It learns the nodes by asking ({@code node.query}, answered by every node's hello) and by
 * listening to their announcements; a node whose heartbeats stop for {@link
 * Builder#heartbeatMisses} intervals is dropped, or sooner when, late by a quarter interval, a
 * probe to its own topic reaches no subscriber (its connection is gone), and <em>the calls in
 * flight on it fail with UNAVAILABLE at that moment</em>, not at their deadlines. A node that says
 * {@code node.bye} gets no new calls; its running calls finish.
 *
 * <p>A call is validated against the chosen node's spec before anything is sent, routed to that
 * node ({@code ops.node.<nodeId>.req.<operationId>}; see {@link Routing}), and retried on another
 * node by the {@link RetryPolicy} when it fails with UNAVAILABLE or NO_RESPONDERS and is safe to
 * repeat: a QUERY, an {@link OperationSpec#idempotent() idempotent} MUTATION, or a call that was
 * never sent (no node served the operation yet). Every attempt shares the call's one deadline,
 * which travels relative and so shrinks across hops; a call with no time left is refused before it
 * is sent. Streams are routed the same way and not retried. Thread-safe.
 */
public final class RemoteCatalog implements OperationCaller, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RemoteCatalog.class);

  /** Heartbeat intervals of silence after which a node is dropped unless told otherwise. */
  public static final int DEFAULT_HEARTBEAT_MISSES = 3;

  private final PubSub pubsub;
  private final NodeTable table;
  private final RoutedCalls routed;
  private final StatsRounds statsRounds;
  private final String inbox;
  private final PubSub.Subscription inboxSubscription;
  private final PubSub.Subscription nodesSubscription;

  private final AtomicLong malformed = new AtomicLong();
  private final Optional<ProofChecks> proofs;

  private volatile boolean closed;
  private volatile long querySentAt = System.nanoTime();
  private volatile long queryEcho = -1; // nanoseconds until our last query came back; -1: not yet

  /** How many echo round trips of quiet count as every node having answered. */
  private static final long ECHO_FACTOR = 4;

  /** How long to wait for our own query to come back before settling without it. */
  private static final long ECHO_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

  private RemoteCatalog(Builder builder) {
    this.pubsub = builder.pubsub;
    this.table =
        new NodeTable(
            builder.heartbeatMisses, builder.trust, this::askForSpecs, this::probe, this::nodeLost);
    this.proofs = builder.trust.map(ProofChecks::new);
    this.routed =
        new RoutedCalls(
            table,
            PendingRequestMap.builder(pubsub).defaultTimeout(builder.defaultTimeout).build(),
            builder.routing,
            builder.retry,
            builder.defaultTimeout);
    this.inbox = pubsub.inboxPrefix() + OperationContext.newRequestId();
    this.statsRounds = new StatsRounds(pubsub, inbox);
    this.inboxSubscription =
        pubsub.subscribe(inbox, SubscribeOptions.defaults(), this::onDiscovery);
    this.nodesSubscription =
        pubsub.subscribe(ProtocolTopics.NODES, SubscribeOptions.defaults(), this::onDiscovery);
    refresh();
  }

  /** A catalog of what is served on {@code pubsub}, with default settings. */
  public static RemoteCatalog create(PubSub pubsub) {
    return builder(pubsub).build();
  }

  public static Builder builder(PubSub pubsub) {
    return new Builder(pubsub);
  }

  // ------------------------------------------------------------------ what is served

  /** Every operation served by a live node, sorted by id. */
  public List<OperationSpec> list() {
    return List.copyOf(table.operations().values());
  }

  /** The operations {@code identity} may call (it holds every required scope), sorted by id. */
  public List<OperationSpec> list(Identity identity) {
    Objects.requireNonNull(identity, "identity");
    List<OperationSpec> callable = new ArrayList<>();
    for (OperationSpec spec : table.operations().values()) {
      if (spec.accessControl().allows(identity)) {
        callable.add(spec);
      }
    }
    return callable;
  }

  /** What error messages name it by: what it knows now. */
  @Override
  public String toString() {
    return "RemoteCatalog[" + list().size() + " operations on " + nodes().size() + " nodes]";
  }

  /** The spec of an operation some live node serves. */
  @Override
  public Optional<OperationSpec> spec(String operationId) {
    return table.spec(operationId);
  }

  /** The nodes known now, sorted by id; leaving ones included until they are gone. */
  public List<RemoteNode> nodes() {
    return table.nodes();
  }

  /**
   * Every node known to serve {@code operationId}, sorted by id, with who each is and whether that
   * is verified: more than one identity among them is worth a look (the catalog logs a warning when
   * it first sees it). Nodes a catalog requiring verified nodes does not route to are included.
   */
  public List<RemoteNode> servers(String operationId) {
    return table.servers(Objects.requireNonNull(operationId, "operationId"));
  }

  /**
   * Hellos that proved nothing to this catalog's {@link Builder#trustedNodes} (unsigned, an
   * untrusted key, a bad or old signature) since it started; 0 without trusted nodes.
   */
  public long unverifiedHellos() {
    return table.unverifiedHellos();
  }

  /**
   * Tells {@code listener} when an operation becomes served somewhere ({@code added}) and when the
   * last node serving it goes or its spec changes ({@code removed}, then {@code added} with the new
   * spec). Listeners run one change at a time, in order, on a transport thread; one that throws is
   * logged.
   */
  public Registration addListener(OperationRegistry.Listener listener) {
    return table.addListener(listener);
  }

  /**
   * Registers every remote operation in {@code registry} as a proxy that calls through this
   * catalog, and keeps it in step as operations come and go, so that the registry lists, describes
   * and runs them as it does its own. An id the registry already holds stays the registry's.
   * Removing the registration unregisters the proxies.
   */
  public Registration registerInto(OperationRegistry registry) {
    return RemoteOperations.start(this, registry);
  }

  /** Asks every node to announce itself again (after a reconnect, say). */
  public void refresh() {
    table.expectNews();
    queryEcho = -1;
    querySentAt = System.nanoTime();
    publish(ProtocolTopics.NODES, new NodeEvent.Query(inbox));
  }

  /**
   * Waits until the answers to this catalog's query have come in: every node it knows has told its
   * specs, and nothing new (a node, or specs) has arrived for {@code quiet} (or four times the
   * round trip of the query itself through the broker, when that is longer) since the query or the
   * last news. For a command-line caller that lists or calls once and must not decide "nobody
   * serves it" before the nodes had a chance to answer; a long-running caller need not wait (its
   * listeners hear the nodes as they come). Nodes that do not answer within {@code timeout} are
   * still learnt later, from their heartbeats.
   *
   * @param quiet how long without news counts as settled: a few round trips to the broker
   * @return whether it settled within {@code timeout}
   */
  public boolean awaitSettled(Duration quiet, Duration timeout) {
    Objects.requireNonNull(quiet, "quiet");
    Objects.requireNonNull(timeout, "timeout");
    long end = System.nanoTime() + timeout.toNanos();
    while (!closed) {
      long now = System.nanoTime();
      // The catalog hears its own query on ops.nodes: that round trip through the broker and this
      // process's delivery says how slow answers are right now (a loaded machine, a distant
      // broker), and the quiet period grows with it. Until it is back, no answer can be either.
      long echo = queryEcho;
      boolean echoPending = echo < 0 && now - querySentAt < ECHO_WAIT_NANOS;
      long quietNanos = Math.max(quiet.toNanos(), echo < 0 ? 0 : ECHO_FACTOR * echo);
      if (!echoPending
          && now - table.lastNews() >= quietNanos
          && !table.isReading()
          && table.specsKnown()) {
        return true;
      }
      if (now >= end) {
        return false;
      }
      try {
        Thread.sleep(Math.max(1, Math.min(5, (end - now) / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  // ------------------------------------------------------------------ statistics

  /**
   * Asks every node for its statistics ({@code node.stats.requested}), as an anonymous caller: each
   * node reports the operations anyone may call. See {@link #stats(Identity, Duration)}.
   */
  public CompletableFuture<List<NodeStats>> stats(Duration timeout) {
    return stats(Identity.anonymous(), timeout);
  }

  /**
   * Asks every node for its statistics: per operation, calls, errors by code, calls running and
   * latency percentiles since the node started. Each node reports only the operations {@code
   * identity} may call, as {@link #list(Identity)} filters them; the identity is sent, and a node
   * believes it only where the transport trusts payloads (else it uses the identity the transport
   * vouches for, or anonymous), as for calls.
   *
   * <p>Completes, sorted by node id, when every node this catalog knows has answered, or after
   * {@code timeout} with the nodes that did not listed as not {@link NodeStats#answered()}. Nodes
   * it did not know that answer in time are included.
   */
  public CompletableFuture<List<NodeStats>> stats(Identity identity, Duration timeout) {
    Objects.requireNonNull(identity, "identity");
    Set<String> expected = new HashSet<>();
    for (RemoteNode node : table.nodes()) {
      expected.add(node.nodeId());
    }
    return askStats(Optional.empty(), expected, identity, timeout);
  }

  /** One node's statistics, as {@link #stats(Identity, Duration)} gives every node's. */
  public CompletableFuture<NodeStats> stats(String nodeId, Identity identity, Duration timeout) {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(identity, "identity");
    if (!NodeIds.isValid(nodeId)) {
      throw new IllegalArgumentException("Not a node id: '" + nodeId + "'");
    }
    return askStats(Optional.of(nodeId), Set.of(nodeId), identity, timeout)
        .thenApply(
            answers ->
                answers.stream()
                    .filter(answer -> answer.nodeId().equals(nodeId))
                    .findFirst()
                    .orElseGet(() -> NodeStats.silent(nodeId)));
  }

  private CompletableFuture<List<NodeStats>> askStats(
      Optional<String> nodeId, Set<String> expected, Identity identity, Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive");
    }
    if (closed) {
      return CompletableFuture.failedFuture(
          CallError.of(ErrorCode.UNAVAILABLE, "This RemoteCatalog is closed"));
    }
    return statsRounds.ask(nodeId, expected, identity, timeout);
  }

  /** Discovery messages this catalog could not read. */
  public long malformed() {
    return malformed.get();
  }

  // ------------------------------------------------------------------ calls

  /**
   * Calls a QUERY or MUTATION on a node that serves it. Fails with a {@link CallError}: the node's
   * error; INVALID_INPUT (checked against the node's spec before sending); NO_RESPONDERS when no
   * node serves it; UNAVAILABLE when its node was lost or left (after the retries this call is
   * allowed); DEADLINE_EXCEEDED, at once when no time is left; CANCELLED. Cancelling the future, or
   * the options' signal, aborts the call on its node.
   *
   * @param options the call's deadline (the catalog's default timeout when it names none),
   *     identity, parent, signal and metadata; a node named in them is ignored: the catalog routes
   */
  public CompletableFuture<ResponseEnvelope<JsonNode>> call(
      String operationId, Object input, CallOptions options) {
    return routed.call(operationId, input, options);
  }

  /**
   * {@link #call(String, Object, CallOptions)} with the options of {@code context}, the call's own
   * context ({@link CallOptions#ofCall}), as an {@link OperationCaller}.
   */
  @Override
  public CompletableFuture<ResponseEnvelope<JsonNode>> call(
      String operationId, Object input, OperationContext context) {
    return call(operationId, input, CallOptions.ofCall(context));
  }

  /** {@link #call(String, Object, CallOptions)} with default options. */
  public CompletableFuture<ResponseEnvelope<JsonNode>> call(String operationId, Object input) {
    return call(operationId, input, CallOptions.defaults());
  }

  /**
   * Subscribes to a SUBSCRIPTION on a node that serves it, as {@link PendingRequestMap#subscribe}
   * does: cold, with demand. The node is chosen and the input validated when a subscriber
   * subscribes; refusals (INVALID_INPUT, NO_RESPONDERS, DEADLINE_EXCEEDED) reach it as {@code
   * onError} after {@code onSubscribe}. If the node is lost, the stream fails with UNAVAILABLE at
   * once. Streams are not retried.
   */
  public Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(
      String operationId, Object input, CallOptions options) {
    return routed.subscribe(operationId, input, options);
  }

  /**
   * {@link #subscribe(String, Object, CallOptions)} with the options of {@code context}, the call's
   * own context, as an {@link OperationCaller}.
   */
  @Override
  public Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(
      String operationId, Object input, OperationContext context) {
    return subscribe(operationId, input, CallOptions.ofCall(context));
  }

  /** {@link #subscribe(String, Object, CallOptions)} with default options. */
  public Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(String operationId, Object input) {
    return subscribe(operationId, input, CallOptions.defaults());
  }

  /**
   * Stops listening and fails this catalog's calls in flight with UNAVAILABLE (telling their nodes
   * with {@code call.aborted}). The pub/sub stays open.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    nodesSubscription.close();
    inboxSubscription.close();
    table.close();
    routed.close();
    statsRounds.finishAll(); // what has come in, and the rest as silent
  }

  // ------------------------------------------------------------------ discovery

  private void onDiscovery(Message message) {
    table.reading(true);
    try {
      readDiscovery(message);
    } finally {
      table.reading(false);
    }
  }

  private void readDiscovery(Message message) {
    NodeEvent event;
    try {
      event = NodeEvents.decode(message.payload(), pubsub.maxMessageBytes());
    } catch (IllegalArgumentException e) {
      malformed.incrementAndGet();
      LOG.debug("Dropped a malformed discovery message: {}", e.getMessage());
      return;
    }
    if (event instanceof NodeEvent.Hello hello) {
      table.onHello(
          hello,
          proofs.isPresent()
              ? proofs.get().prove(hello, message.identity(), System.currentTimeMillis())
              : NodeProof.unchecked(hello, message.identity()));
    } else if (event instanceof NodeEvent.Heartbeat heartbeat) {
      table.onHeartbeat(heartbeat);
    } else if (event instanceof NodeEvent.Bye bye) {
      table.onBye(bye);
    } else if (event instanceof NodeEvent.Specs specs) {
      table.onSpecs(specs);
    } else if (event instanceof NodeEvent.Stats stats) {
      statsRounds.answer(stats);
    } else if (event instanceof NodeEvent.Query query
        && query.replyTo().equals(inbox)
        && queryEcho < 0) {
      queryEcho = Math.max(1, System.nanoTime() - querySentAt); // our own, back: see awaitSettled
    }
    // Other callers' queries and spec requests are their business.
  }

  private void askForSpecs(String nodeId) {
    publish(ProtocolTopics.nodeSpecs(nodeId), new NodeEvent.SpecsRequested(inbox));
  }

  /**
   * A question a late node answers harmlessly (its specs, to this catalog), sent to the node's own
   * topic: how many received it says whether the node's connection is still there.
   */
  private CompletableFuture<Integer> probe(String nodeId) {
    return pubsub.publish(
        ProtocolTopics.nodeSpecs(nodeId), NodeEvents.encode(new NodeEvent.SpecsRequested(inbox)));
  }

  /** A node is gone: its calls in flight fail now, with {@code why} (UNAVAILABLE). */
  private void nodeLost(String nodeId, CallError why) {
    proofs.ifPresent(p -> p.forget(nodeId));
    routed.nodeLost(nodeId, why);
  }

  private void publish(String topic, NodeEvent event) {
    try {
      pubsub
          .publish(topic, NodeEvents.encode(event))
          .whenComplete(
              (receivers, error) -> {
                if (error != null) {
                  LOG.debug("Could not publish on {}: {}", topic, error.toString());
                }
              });
    } catch (RuntimeException e) {
      LOG.debug("Could not publish on {}: {}", topic, e.toString());
    }
  }

  /** Configures a {@link RemoteCatalog}. */
  public static final class Builder {
    private final PubSub pubsub;
    private int heartbeatMisses = DEFAULT_HEARTBEAT_MISSES;
    private Routing routing = Routing.LEAST_IN_FLIGHT;
    private RetryPolicy retry = RetryPolicy.defaults();
    private Duration defaultTimeout = PendingRequestMap.DEFAULT_TIMEOUT;
    private Optional<TrustedNodes> trust = Optional.empty();

    private Builder(PubSub pubsub) {
      this.pubsub = Objects.requireNonNull(pubsub, "pubsub");
    }

    /** Heartbeat intervals of silence after which a node is dropped (3 by default). */
    public Builder heartbeatMisses(int misses) {
      if (misses < 1) {
        throw new IllegalArgumentException("heartbeatMisses must be at least 1, was " + misses);
      }
      this.heartbeatMisses = misses;
      return this;
    }

    /** How a node is chosen among those that serve an operation (least in flight by default). */
    public Builder routing(Routing routing) {
      this.routing = Objects.requireNonNull(routing, "routing");
      return this;
    }

    /** How failed calls are retried on other nodes ({@link RetryPolicy#defaults()}). */
    public Builder retry(RetryPolicy retry) {
      this.retry = Objects.requireNonNull(retry, "retry");
      return this;
    }

    /** The deadline of unary calls whose options name none (30 s by default). */
    public Builder defaultTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("defaultTimeout must be positive");
      }
      this.defaultTimeout = timeout;
      return this;
    }

    /**
     * Requires verified nodes: calls go only to nodes that proved who they are to {@code trusted}
     * (a signed hello or an authenticated broker identity), for the operations that identity may
     * serve. Others are still listed ({@link RemoteNode#verified()} false). Off by default: every
     * node is believed.
     */
    public Builder trustedNodes(TrustedNodes trusted) {
      this.trust = Optional.of(Objects.requireNonNull(trusted, "trusted"));
      return this;
    }

    /** Starts listening and asks the nodes to announce themselves. */
    public RemoteCatalog build() {
      return new RemoteCatalog(this);
    }
  }
}
