package dev.alkdev.operations.discovery;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.Cancellation;
import dev.alkdev.operations.Deadline;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.internal.ResultPipeline;
import dev.alkdev.operations.internal.Scheduler;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.remote.internal.NodeIds;
import dev.alkdev.operations.remote.internal.ReplyFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
public final class RemoteCatalog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RemoteCatalog.class);

  /** Heartbeat intervals of silence after which a node is dropped unless told otherwise. */
  public static final int DEFAULT_HEARTBEAT_MISSES = 3;

  private static final CallError ATTEMPT_OVER =
      CallError.of(ErrorCode.CANCELLED, "The attempt is over");

  private final PubSub pubsub;
  private final PendingRequestMap calls;
  private final NodeTable table;
  private final Routing routing;
  private final RetryPolicy retry;
  private final Duration defaultTimeout;
  private final String inbox;
  private final PubSub.Subscription inboxSubscription;
  private final PubSub.Subscription nodesSubscription;

  /** This caller's attempts in flight, by the node that runs them. */
  private final ConcurrentHashMap<String, Set<Attempt>> inFlight = new ConcurrentHashMap<>();

  private final ConcurrentHashMap<String, AtomicInteger> turns = new ConcurrentHashMap<>();
  private final AtomicLong malformed = new AtomicLong();

  /** Questions for statistics still waiting for answers, by their request id. */
  private final ConcurrentHashMap<String, StatsRound> statsRounds = new ConcurrentHashMap<>();

  private volatile boolean closed;
  private volatile long querySentAt = System.nanoTime();
  private volatile long queryEcho = -1; // nanoseconds until our last query came back; -1: not yet

  /** How many echo round trips of quiet count as every node having answered. */
  private static final long ECHO_FACTOR = 4;

  /** How long to wait for our own query to come back before settling without it. */
  private static final long ECHO_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

  private RemoteCatalog(Builder builder) {
    this.pubsub = builder.pubsub;
    this.routing = builder.routing;
    this.retry = builder.retry;
    this.defaultTimeout = builder.defaultTimeout;
    this.table =
        new NodeTable(builder.heartbeatMisses, this::askForSpecs, this::probe, this::nodeLost);
    this.calls = PendingRequestMap.builder(pubsub).defaultTimeout(defaultTimeout).build();
    this.inbox = ProtocolTopics.INBOX_PREFIX + OperationContext.newRequestId();
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

  /** The spec of an operation some live node serves. */
  public Optional<OperationSpec> spec(String operationId) {
    return table.spec(operationId);
  }

  /** The nodes known now, sorted by id; leaving ones included until they are gone. */
  public List<RemoteNode> nodes() {
    return table.nodes();
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
    StatsRound round = new StatsRound(OperationContext.newRequestId(), expected);
    statsRounds.put(round.requestId, round);
    round.timer = Scheduler.schedule(round::finish, timeout.toNanos());
    Optional<Identity> sent =
        identity.equals(Identity.anonymous()) ? Optional.empty() : Optional.of(identity);
    try {
      pubsub
          .publish(
              ProtocolTopics.NODES,
              NodeEvents.encode(new NodeEvent.StatsRequested(round.requestId, inbox, nodeId, sent)))
          .whenComplete(
              (receivers, error) -> {
                if (error != null) {
                  round.fail(error);
                }
              });
    } catch (RuntimeException e) {
      round.fail(e);
    }
    return round.result;
  }

  /** One question for statistics: the answers come to the catalog's inbox, with its id. */
  private final class StatsRound {
    final String requestId;
    final Set<String> expected;
    final ConcurrentHashMap<String, NodeStats> answers = new ConcurrentHashMap<>();
    final CompletableFuture<List<NodeStats>> result = new CompletableFuture<>();
    volatile Scheduler.Timer timer;

    StatsRound(String requestId, Set<String> expected) {
      this.requestId = requestId;
      this.expected = Set.copyOf(expected);
    }

    void answer(NodeEvent.Stats stats) {
      answers.put(stats.nodeId(), NodeStats.of(stats));
      if (!expected.isEmpty() && answers.keySet().containsAll(expected)) {
        finish();
      }
    }

    void finish() {
      if (statsRounds.remove(requestId, this)) {
        Scheduler.Timer t = timer;
        if (t != null) {
          t.cancel();
        }
        List<NodeStats> all = new ArrayList<>(answers.values());
        for (String nodeId : expected) {
          if (!answers.containsKey(nodeId)) {
            all.add(NodeStats.silent(nodeId));
          }
        }
        all.sort((a, b) -> a.nodeId().compareTo(b.nodeId()));
        result.complete(List.copyOf(all));
      }
    }

    void fail(Throwable error) {
      if (statsRounds.remove(requestId, this)) {
        Scheduler.Timer t = timer;
        if (t != null) {
          t.cancel();
        }
        result.completeExceptionally(
            CallError.from(
                error,
                cause ->
                    CallError.of(ErrorCode.UNAVAILABLE, "Could not ask for statistics", cause)));
      }
    }
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
    Objects.requireNonNull(operationId, "operationId");
    Objects.requireNonNull(options, "options");
    Deadline deadline = options.deadline().orElseGet(() -> Deadline.after(defaultTimeout));
    UnaryCall call = new UnaryCall(operationId, input, options.withDeadline(deadline), deadline);
    call.attempt();
    // An attempt answered while it was made (in-process, D14) completes the future here.
    call.result.publish();
    return call.result;
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
    Objects.requireNonNull(operationId, "operationId");
    Objects.requireNonNull(options, "options");
    return subscriber -> {
      Objects.requireNonNull(subscriber, "subscriber");
      Optional<Route> route = route(operationId, Set.of());
      CallError refused = null;
      JsonNode json = null;
      try {
        checkTimeLeft(operationId, options.deadline(), null);
        if (route.isEmpty()) {
          throw noNode(operationId);
        }
        json = validInput(route.get().spec(), input);
      } catch (CallError e) {
        refused = e;
      }
      if (refused != null) {
        CallError error = refused;
        subscriber.onSubscribe(
            new Flow.Subscription() {
              @Override
              public void request(long n) {}

              @Override
              public void cancel() {}
            });
        subscriber.onError(error);
        return;
      }
      Attempt attempt = track(route.get().nodeId(), options);
      calls
          .subscribe(
              operationId, json, options.withNode(attempt.nodeId).withCancellation(attempt.signal))
          .subscribe(new TrackedSubscriber(subscriber, attempt));
    };
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
    calls.close();
    for (StatsRound round : List.copyOf(statsRounds.values())) {
      round.finish(); // what has come in, and the rest as silent
    }
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
      table.onHello(hello);
    } else if (event instanceof NodeEvent.Heartbeat heartbeat) {
      table.onHeartbeat(heartbeat);
    } else if (event instanceof NodeEvent.Bye bye) {
      table.onBye(bye);
    } else if (event instanceof NodeEvent.Specs specs) {
      table.onSpecs(specs);
    } else if (event instanceof NodeEvent.Stats stats) {
      StatsRound round = statsRounds.get(stats.requestId());
      if (round != null) {
        round.answer(stats);
      }
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
    Set<Attempt> attempts = inFlight.remove(nodeId);
    if (attempts != null) {
      for (Attempt attempt : attempts) {
        attempt.signal.cancel(why);
      }
    }
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

  // ------------------------------------------------------------------ routing

  private record Route(String nodeId, OperationSpec spec) {}

  /** A node for a new call, other than those in {@code tried}. */
  private Optional<Route> route(String operationId, Set<String> tried) {
    if (closed) {
      return Optional.empty();
    }
    Map<String, OperationSpec> serving = table.nodesServing(operationId);
    List<String> candidates = new ArrayList<>();
    for (String nodeId : serving.keySet()) {
      if (!tried.contains(nodeId)) {
        candidates.add(nodeId);
      }
    }
    if (candidates.isEmpty()) {
      return Optional.empty();
    }
    candidates.sort(null);
    int turn = turns.computeIfAbsent(operationId, id -> new AtomicInteger()).getAndIncrement();
    int first = Math.floorMod(turn, candidates.size());
    String chosen = candidates.get(first);
    if (routing == Routing.LEAST_IN_FLIGHT) {
      int least = inFlightOn(chosen);
      for (int i = 1; i < candidates.size() && least > 0; i++) {
        String next = candidates.get((first + i) % candidates.size());
        int load = inFlightOn(next);
        if (load < least) {
          chosen = next;
          least = load;
        }
      }
    }
    return Optional.of(new Route(chosen, serving.get(chosen)));
  }

  private int inFlightOn(String nodeId) {
    Set<Attempt> attempts = inFlight.get(nodeId);
    return attempts == null ? 0 : attempts.size();
  }

  /** One try of a call on one node, with a signal that ends it if that node is lost. */
  private static final class Attempt {
    final String nodeId;
    final Cancellation signal;

    Attempt(String nodeId, Cancellation signal) {
      this.nodeId = nodeId;
      this.signal = signal;
    }
  }

  private Attempt track(String nodeId, CallOptions options) {
    Cancellation signal =
        options.cancellation().map(Cancellation::child).orElseGet(Cancellation::create);
    Attempt attempt = new Attempt(nodeId, signal);
    // Added inside compute(): untrack() removes a node's set when it empties, and an attempt added
    // to a set already removed would be missed when its node is lost.
    inFlight.compute(
        nodeId,
        (id, attempts) -> {
          Set<Attempt> set = attempts != null ? attempts : ConcurrentHashMap.newKeySet();
          set.add(attempt);
          return set;
        });
    if (!table.knows(nodeId)) {
      // The node was dropped between the choice and now: nodeLost() has run and missed this one.
      signal.cancel(CallError.of(ErrorCode.UNAVAILABLE, "Node " + nodeId + " is gone"));
    }
    return attempt;
  }

  private void untrack(Attempt attempt) {
    inFlight.computeIfPresent(
        attempt.nodeId,
        (id, attempts) -> {
          attempts.remove(attempt);
          return attempts.isEmpty() ? null : attempts;
        });
    attempt.signal.cancel(ATTEMPT_OVER); // unlinks it from the caller's signal; the call is over
  }

  // ------------------------------------------------------------------ checks

  private static CallError noNode(String operationId) {
    return CallError.of(ErrorCode.NO_RESPONDERS, "No node serves " + operationId);
  }

  /** Refuses a call with no time left: nothing is sent. */
  private static void checkTimeLeft(
      String operationId, Optional<Deadline> deadline, CallError last) {
    if (deadline.isPresent() && deadline.get().remainingMillis() < 1) {
      throw CallError.of(
          ErrorCode.DEADLINE_EXCEEDED,
          "No time left to call "
              + operationId
              + (last == null
                  ? "; nothing was sent"
                  : "; the last attempt failed: " + last.getMessage()));
    }
  }

  private static JsonNode validInput(OperationSpec spec, Object input) {
    JsonNode json;
    try {
      json = ResultPipeline.toJson(spec.id(), input);
    } catch (CallError e) {
      throw CallError.of(ErrorCode.INVALID_INPUT, "Input cannot be converted to JSON", e);
    }
    var errors = spec.inputSchema().validate(json);
    if (!errors.isEmpty()) {
      throw CallError.invalid("input of " + spec.id(), errors);
    }
    return json;
  }

  /**
   * Whether a failed attempt may be tried again elsewhere: the node was lost or had nobody to take
   * it, and running the call twice does no harm, or it never ran.
   */
  static boolean retryable(CallError error, OperationType type, boolean idempotent, boolean sent) {
    if (error.code() != ErrorCode.UNAVAILABLE && error.code() != ErrorCode.NO_RESPONDERS) {
      return false;
    }
    return !sent || type == OperationType.QUERY || (type == OperationType.MUTATION && idempotent);
  }

  // ------------------------------------------------------------------ a unary call

  private final class UnaryCall {
    final String operationId;
    final Object input;
    final CallOptions options;
    final Deadline deadline;

    /**
     * Completed by deliveries, which may come on the transport's I/O thread, so the caller's
     * dependents run elsewhere (D73); the attempts' own futures complete inline, since only this
     * call sees them and its continuation does not block.
     */
    final ReplyFuture<ResponseEnvelope<JsonNode>> result = new ReplyFuture<>();

    final Set<String> tried = new HashSet<>(); // attempts run one after another
    int attempts;
    CallError lastError;
    volatile Attempt current;

    UnaryCall(String operationId, Object input, CallOptions options, Deadline deadline) {
      this.operationId = operationId;
      this.input = input;
      this.options = options;
      this.deadline = deadline;
      result.onCancel(
          () -> {
            Attempt running = current;
            if (running != null) {
              running.signal.cancel(CallError.of(ErrorCode.CANCELLED, "The caller cancelled"));
            }
          });
    }

    void attempt() {
      if (result.isDone()) {
        return;
      }
      attempts++;
      Route route;
      JsonNode json;
      try {
        if (closed) {
          throw CallError.of(ErrorCode.UNAVAILABLE, "This RemoteCatalog is closed");
        }
        Optional<CallError> cancelled = options.cancellation().flatMap(Cancellation::reason);
        if (cancelled.isPresent()) {
          throw cancelled.get();
        }
        checkTimeLeft(operationId, Optional.of(deadline), lastError);
        Optional<Route> chosen = route(operationId, tried);
        if (chosen.isEmpty()) {
          retryOrFail(noNode(operationId), null, false);
          return;
        }
        route = chosen.get();
        json = validInput(route.spec(), input);
      } catch (CallError e) {
        result.deliverError(e);
        return;
      }
      tried.add(route.nodeId());
      Attempt attempt = track(route.nodeId(), options);
      current = attempt;
      if (result.isDone()) {
        untrack(attempt); // cancelled while the attempt was being made
        return;
      }
      ReplyFuture.whenCompleteInline(
          calls.call(
              operationId, json, options.withNode(route.nodeId()).withCancellation(attempt.signal)),
          (envelope, error) -> {
            untrack(attempt);
            if (error == null) {
              result.deliver(envelope);
            } else {
              retryOrFail(
                  CallError.from(
                      error,
                      cause -> CallError.of(ErrorCode.UNAVAILABLE, "The call failed", cause)),
                  route.spec(),
                  true);
            }
          });
    }

    private void retryOrFail(CallError error, OperationSpec spec, boolean sent) {
      boolean again =
          attempts < retry.maxAttempts()
              && retryable(
                  error,
                  spec == null ? OperationType.QUERY : spec.type(),
                  spec != null && spec.idempotent(),
                  sent);
      long wait = retry.backoffNanos(attempts + 1, ThreadLocalRandom.current().nextDouble());
      if (!again || wait >= deadline.remaining().toNanos()) {
        // Finding no node after an attempt failed: that failure is what the caller needs to know.
        result.deliverError(!sent && lastError != null ? lastError : error);
        return;
      }
      if (sent) {
        lastError = error; // what the caller hears if no node is found for the next attempt
      }
      LOG.debug("Retrying {} after {}: {}", operationId, error.code(), error.getMessage());
      Scheduler.schedule(this::attempt, wait);
    }
  }

  /** Passes a stream's signals on, and stops tracking it when it ends. */
  private final class TrackedSubscriber implements Flow.Subscriber<ResponseEnvelope<JsonNode>> {
    private final Flow.Subscriber<? super ResponseEnvelope<JsonNode>> downstream;
    private final Attempt attempt;

    TrackedSubscriber(
        Flow.Subscriber<? super ResponseEnvelope<JsonNode>> downstream, Attempt attempt) {
      this.downstream = downstream;
      this.attempt = attempt;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      downstream.onSubscribe(
          new Flow.Subscription() {
            @Override
            public void request(long n) {
              subscription.request(n);
            }

            @Override
            public void cancel() {
              subscription.cancel();
              untrack(attempt);
            }
          });
    }

    @Override
    public void onNext(ResponseEnvelope<JsonNode> item) {
      downstream.onNext(item);
    }

    @Override
    public void onError(Throwable error) {
      untrack(attempt);
      downstream.onError(error);
    }

    @Override
    public void onComplete() {
      untrack(attempt);
      downstream.onComplete();
    }
  }

  /** Configures a {@link RemoteCatalog}. */
  public static final class Builder {
    private final PubSub pubsub;
    private int heartbeatMisses = DEFAULT_HEARTBEAT_MISSES;
    private Routing routing = Routing.LEAST_IN_FLIGHT;
    private RetryPolicy retry = RetryPolicy.defaults();
    private Duration defaultTimeout = PendingRequestMap.DEFAULT_TIMEOUT;

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

    /** Starts listening and asks the nodes to announce themselves. */
    public RemoteCatalog build() {
      return new RemoteCatalog(this);
    }
  }
}
