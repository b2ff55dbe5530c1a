package dev.alkdev.operations.protocol;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.Deadline;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.internal.RateLimitedLog;
import dev.alkdev.operations.internal.Scheduler;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.remote.internal.NodeIds;
import dev.alkdev.operations.remote.internal.ReplyFuture;
import dev.alkdev.operations.serving.CallRequest;
import dev.alkdev.operations.serving.CallSink;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.serving.ServedCall;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The serving side of the call protocol: serves a registry's operations on a pub/sub, as a thin
 * adapter over the serving pipeline ({@link OperationServer}). For every callable operation it
 * listens on {@code ops.req.<id>} in the servers' queue group (so each request reaches one server),
 * and it follows the registry as operations come and go. Given a node id ({@link Builder#nodeId}),
 * it also listens on the node's own {@code ops.node.<nodeId>.req.<id>}, where discovery-aware
 * callers route (issue 15).
 *
 * <p>What is pub/sub business stays here: decoding each {@code call.requested}, checking that it
 * came on its operation's topic, the identity the transport vouches for, aborts that overtook their
 * request, {@code call.aborted} and {@code call.demand} on {@code ops.ctl}, and encoding and
 * publishing {@code call.responded} / {@code call.error} / {@code call.completed} to the caller's
 * {@code replyTo}. Everything else (access, capacity, context, interceptors, dispatch, the result
 * pipeline) is the pipeline's. Handlers never publish (the seeds' ADR-011). An MCP {@code isError}
 * envelope is a response, not an error.
 *
 * <p>A malformed request is answered with PROTOCOL_ERROR when its request id and reply topic can be
 * read, and otherwise dropped and counted; the handler loop never dies of bad input. Replies go
 * only to inboxes ({@link ProtocolTopics#isInbox}): a request whose {@code replyTo} is anything
 * else (a request or control topic, say) cannot be answered safely, and is dropped and counted as
 * malformed.
 *
 * <p>Caller liveness: a caller with calls in flight sends {@code call.alive} naming its inbox every
 * few seconds. An inbox not heard from (by a request or a {@code call.alive}) for {@link
 * Builder#callerLeaseTimeout} has its calls cancelled, CANCELLED "the caller is gone", their
 * handlers' contexts with them, and a last {@code call.error} is sent to it in case the caller was
 * only slow. One sweep every quarter of the timeout looks at each inbox once.
 */
public final class CallHandler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CallHandler.class);
  private final RateLimitedLog refusedWarning = RateLimitedLog.of(LOG, 1, Duration.ofSeconds(10));

  private static final CallError SERVER_CLOSING =
      CallError.of(ErrorCode.UNAVAILABLE, "The server is shutting down; try again");

  private static final CallError CALLER_GONE =
      CallError.builder(ErrorCode.CANCELLED, "The caller is gone").build();

  /** How long a caller may stay silent before its calls are cancelled, unless told otherwise. */
  public static final Duration DEFAULT_CALLER_LEASE_TIMEOUT = Duration.ofSeconds(30);

  /** Aborts remembered for requests that have not arrived yet; the oldest are forgotten first. */
  static final int EARLY_ABORTS = 4096;

  private final OperationServer server;
  private final boolean ownsServer;
  private final OperationRegistry registry;
  private final PubSub pubsub;
  private final ConcurrentHashMap<String, PubSub.Subscription> requestSubscriptions =
      new ConcurrentHashMap<>();

  // Per-node routing (issue 15): a node's own request topics, beside the shared queue group.
  private final String nodeId; // null: the shared queue group only
  private final ConcurrentHashMap<String, PubSub.Subscription> nodeRequestSubscriptions =
      new ConcurrentHashMap<>();

  /** This handler's calls, by request id: where control events find them. */
  private final ConcurrentHashMap<String, ReplySink> calls = new ConcurrentHashMap<>();

  private final AtomicLong malformed = new AtomicLong();
  private final AtomicLong late = new AtomicLong();

  /** Who this handler serves calls for, when each was last heard from: the liveness rule. */
  private final CallerLeases<ReplySink> leases;

  private final Duration leaseTimeout;
  private final CallError callerGone;
  private volatile Scheduler.Timer sweep;

  /**
   * Request ids whose call.aborted came before their call.requested: the two travel on different
   * topics, so a call cancelled just after it was sent can be aborted before it is known here.
   * Without this its handler would run for nobody until its deadline (a stream: for ever).
   */
  private final Set<String> earlyAborts = ConcurrentHashMap.newKeySet();

  private final ConcurrentLinkedQueue<String> earlyAbortOrder = new ConcurrentLinkedQueue<>();
  private final AtomicInteger earlyAbortCount = new AtomicInteger();
  private final PubSub.Subscription controlSubscription;
  private final Registration registryListener;
  private volatile boolean closed;

  private CallHandler(Builder builder) {
    this.ownsServer = builder.server == null;
    this.server =
        ownsServer
            ? OperationServer.builder(builder.registry)
                .maxConcurrentCalls(builder.maxConcurrentCalls)
                .build()
            : builder.server;
    this.registry = server.registry();
    this.pubsub = builder.pubsub;
    this.leaseTimeout = builder.callerLeaseTimeout;
    this.leases = new CallerLeases<>(leaseTimeout.toNanos());
    this.callerGone =
        CallError.of(
            ErrorCode.CANCELLED,
            "The caller is gone: nothing heard from its inbox for "
                + leaseTimeout.toMillis()
                + " ms (no call.alive)");
    this.nodeId = builder.nodeId;
    this.controlSubscription =
        pubsub.subscribe(
            ProtocolTopics.CONTROL,
            SubscribeOptions.defaults().withNonBlockingHandler(),
            this::onControl);
    this.registryListener =
        registry.addListener(
            new OperationRegistry.Listener() {
              @Override
              public void added(OperationSpec spec) {
                serve(spec.id());
              }

              @Override
              public void removed(OperationSpec spec) {
                PubSub.Subscription subscription = requestSubscriptions.remove(spec.id());
                if (subscription != null) {
                  subscription.close();
                }
                stopServingOnNode(spec.id());
              }
            });
    for (OperationSpec spec : registry.list()) {
      if (registry.getHandler(spec.id()).isPresent()) {
        serve(spec.id());
      }
    }
    scheduleSweep();
  }

  /** Starts serving {@code registry}'s operations on {@code pubsub}, with a pipeline of its own. */
  public static CallHandler serve(OperationRegistry registry, PubSub pubsub) {
    return builder(registry, pubsub).build();
  }

  /**
   * Starts serving {@code server}'s operations on {@code pubsub}, sharing the pipeline (and its
   * limits) with the server's other adapters. Closing the handler leaves the server open.
   */
  public static CallHandler serve(OperationServer server, PubSub pubsub) {
    return builder(server, pubsub).build();
  }

  /** A handler with a serving pipeline of its own over {@code registry}. */
  public static Builder builder(OperationRegistry registry, PubSub pubsub) {
    return new Builder(Objects.requireNonNull(registry, "registry"), null, pubsub);
  }

  /** A handler over a shared serving pipeline. */
  public static Builder builder(OperationServer server, PubSub pubsub) {
    return new Builder(null, Objects.requireNonNull(server, "server"), pubsub);
  }

  /** This handler's calls running now, and messages dropped. */
  public ProtocolStats stats() {
    return new ProtocolStats(calls.size(), late.get(), malformed.get());
  }

  /** Callers (inboxes) this handler serves calls for now: each costs the sweep one look. */
  int trackedCallers() {
    return leases.size();
  }

  /**
   * Stops serving: no new requests are taken, running calls are cancelled and their callers told
   * UNAVAILABLE (retryable), so they may try another server. A pipeline of its own is closed with
   * it; a shared one stays open, and only this handler's calls end.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    Scheduler.Timer timer = sweep;
    if (timer != null) {
      timer.cancel();
    }
    registryListener.remove();
    requestSubscriptions.values().forEach(PubSub.Subscription::close);
    requestSubscriptions.clear();
    nodeRequestSubscriptions.values().forEach(PubSub.Subscription::close);
    nodeRequestSubscriptions.clear();
    controlSubscription.close();
    if (ownsServer) {
      server.close(); // every sink hears UNAVAILABLE and tells its caller
    } else {
      for (ReplySink call : new ArrayList<>(calls.values())) {
        call.shutDown();
      }
    }
  }

  private void serve(String operationId) {
    if (closed) {
      return;
    }
    try {
      requestSubscriptions.computeIfAbsent(
          operationId,
          id ->
              pubsub.subscribe(
                  ProtocolTopics.request(id),
                  SubscribeOptions.queueGroup(ProtocolTopics.SERVER_GROUP).withNonBlockingHandler(),
                  this::onRequest));
      serveOnNode(operationId);
    } catch (CallError e) {
      if (e.code() != ErrorCode.ACCESS_DENIED) {
        throw e;
      }
      // The transport may not let this process serve it (the hub's rules, a broker's
      // permissions): the others are served, and a node does not announce this one.
      PubSub.Subscription partial = requestSubscriptions.remove(operationId);
      if (partial != null) {
        partial.close();
      }
      refusedWarning.warn("May not serve {}: {}", operationId, e.getMessage());
    }
  }

  /**
   * Whether requests for {@code operationId} are listened for: registered with a handler, and not
   * refused by the transport (the hub's serving rules, a broker's permissions).
   */
  public boolean isServing(String operationId) {
    return requestSubscriptions.containsKey(operationId);
  }

  // ------------------------------------------------------------------ per-node routing

  /** Also listens on this node's own request topic, where discovery-aware callers route. */
  private void serveOnNode(String operationId) {
    if (nodeId == null) {
      return;
    }
    nodeRequestSubscriptions.computeIfAbsent(
        operationId,
        id ->
            pubsub.subscribe(
                ProtocolTopics.nodeRequest(nodeId, id),
                SubscribeOptions.defaults().withNonBlockingHandler(),
                this::onRequest));
  }

  private void stopServingOnNode(String operationId) {
    PubSub.Subscription subscription = nodeRequestSubscriptions.remove(operationId);
    if (subscription != null) {
      subscription.close();
    }
  }

  /** Whether a request for {@code operationId} may come on {@code topic}. */
  private boolean isRequestTopic(String topic, String operationId) {
    return topic.equals(ProtocolTopics.request(operationId))
        || (nodeId != null && topic.equals(ProtocolTopics.nodeRequest(nodeId, operationId)));
  }

  // ------------------------------------------------------------------ requests

  private void onRequest(Message message) {
    CallEvent event;
    try {
      event = CallEvents.decode(message.payload(), pubsub.maxMessageBytes());
    } catch (CallError e) {
      answerMalformed(e);
      return;
    }
    if (!(event instanceof CallEvent.Requested request)) {
      malformed.incrementAndGet();
      return;
    }
    if (request.replyTo().isEmpty() || !ProtocolTopics.isInbox(request.replyTo().get())) {
      // Nobody to answer: a call without a reply topic is not part of this protocol, and replies
      // to a request or control topic would be read as requests or control by others.
      malformed.incrementAndGet();
      return;
    }
    String replyTo = request.replyTo().get();
    String requestId = request.requestId();
    if (!earlyAborts.isEmpty() && earlyAborts.remove(requestId)) {
      return; // its caller gave up before the request arrived
    }
    if (!isRequestTopic(message.topic(), request.operationId())) {
      send(
          replyTo,
          CallEvents.failed(
              requestId,
              CallError.of(
                  ErrorCode.PROTOCOL_ERROR,
                  "The request for " + request.operationId() + " arrived on " + message.topic())));
      return;
    }
    if (closed) {
      send(replyTo, CallEvents.failed(requestId, SERVER_CLOSING));
      return;
    }
    CallRequest.Builder call =
        CallRequest.builder(request.operationId())
            .requestId(requestId)
            .identity(identityOf(message, request))
            // An anonymous caller's fair share is its reply inbox's: one per caller (a pending
            // request map), whatever transport carried it.
            .client(replyTo)
            .metadata(request.meta());
    // A request without input (or with JSON null) has none: the pipeline gives the operation its
    // noInput(), as every surface does.
    if (!request.input().isNull()) {
      call.input(request.input());
    }
    request.parentRequestId().ifPresent(call::parentRequestId);
    request.deadlineMillis().ifPresent(ms -> call.deadline(Deadline.afterMillis(ms)));
    request.demand().ifPresent(call::demand);
    ReplySink sink = new ReplySink(requestId, replyTo);
    leases.track(replyTo, sink, System.nanoTime()); // a request is news from its caller too
    // A request id in use here is refused by the pipeline, and its refusal must not untrack the
    // call that holds the id; so the first call keeps its place in the map.
    ReplySink previous = calls.putIfAbsent(requestId, sink);
    ServedCall served = server.serve(call.build(), sink);
    if (previous != null && !served.isDone()) {
      // The id's earlier call ended just as this one came, and the pipeline took it: track it.
      calls.put(requestId, sink);
      if (served.isDone()) {
        calls.remove(requestId, sink);
      }
    }
    // Requests and control events arrive on different subscriptions, so on different threads: an
    // abort may have been remembered after the check above but before the call was tracked. Each
    // side looks again after writing; whichever takes the id out of earlyAborts aborts the call.
    if (!earlyAborts.isEmpty() && earlyAborts.remove(requestId)) {
      sink.abort(abortedByCaller(Optional.empty()));
    }
  }

  private static CallError abortedByCaller(Optional<String> reason) {
    return CallError.of(
        ErrorCode.CANCELLED, "The caller aborted the call" + reason.map(r -> ": " + r).orElse(""));
  }

  /** The identity the transport vouches for; a payload's only where the transport trusts it. */
  private Identity identityOf(Message message, CallEvent.Requested request) {
    if (message.identity().isPresent()) {
      return message.identity().get();
    }
    return pubsub.trustsPayloadIdentity()
        ? request.identity().orElse(Identity.anonymous())
        : Identity.anonymous();
  }

  private void answerMalformed(CallError error) {
    malformed.incrementAndGet();
    var requestId = CallEvents.readableRequestId(error);
    var replyTo = CallEvents.readableReplyTo(error);
    if (requestId.isPresent() && replyTo.isPresent() && ProtocolTopics.isInbox(replyTo.get())) {
      send(replyTo.get(), CallEvents.failed(requestId.get(), error));
    } else {
      LOG.debug("Dropped a malformed request: {}", error.getMessage());
    }
  }

  // ------------------------------------------------------------------ control

  private void onControl(Message message) {
    CallEvent event;
    try {
      event = CallEvents.decode(message.payload(), pubsub.maxMessageBytes());
    } catch (CallError e) {
      malformed.incrementAndGet();
      return;
    }
    if (event instanceof CallEvent.Alive alive) {
      leases.heard(alive.inbox(), System.nanoTime());
      return;
    }
    String requestId = ((CallEvent.CallScoped) event).requestId();
    ReplySink call = calls.get(requestId);
    if (call == null) {
      // Most control messages are for other servers' calls: broadcasts reach every server. An
      // abort may also have overtaken its request, so remember it for a while.
      if (event instanceof CallEvent.Aborted aborted) {
        rememberEarlyAbort(requestId);
        ReplySink tracked = calls.get(requestId); // its request may have come meanwhile
        if (tracked != null && earlyAborts.remove(requestId)) {
          tracked.abort(abortedByCaller(aborted.reason()));
        }
      }
      return;
    }
    if (event instanceof CallEvent.Aborted aborted) {
      call.abort(abortedByCaller(aborted.reason()));
    } else if (event instanceof CallEvent.Demand demand) {
      call.demand(demand.n());
    } else {
      malformed.incrementAndGet();
    }
  }

  private void rememberEarlyAbort(String requestId) {
    if (earlyAborts.add(requestId)) {
      earlyAbortOrder.add(requestId);
      if (earlyAbortCount.incrementAndGet() > EARLY_ABORTS) {
        String oldest = earlyAbortOrder.poll();
        if (oldest != null) {
          earlyAborts.remove(oldest);
          earlyAbortCount.decrementAndGet();
        }
      }
    }
  }

  // ------------------------------------------------------------------ liveness

  /** The next sweep, a quarter of the lease timeout from now, on the shared timer. */
  private void scheduleSweep() {
    if (!closed) {
      sweep = Scheduler.schedule(this::sweepExpired, Math.max(1, leaseTimeout.toNanos() / 4));
    }
  }

  /**
   * Ends the calls of every caller not heard from within the lease timeout. Runs on the timer's
   * task pool, never on the timer thread; ending a call publishes without waiting.
   */
  private void sweepExpired() {
    try {
      List<ReplySink> expired = leases.expire(System.nanoTime());
      if (!expired.isEmpty()) {
        LOG.debug("Ending {} calls whose callers were silent for {}", expired.size(), leaseTimeout);
      }
      for (ReplySink call : expired) {
        call.callerGone(callerGone);
      }
    } finally {
      scheduleSweep();
    }
  }

  // ------------------------------------------------------------------ sending

  /** Publishes an answer that belongs to no served call (a malformed or misrouted request). */
  private void send(String replyTo, CallEvent.CallScoped event) {
    ReplyFuture.whenCompleteInline(
        pubsub.publish(replyTo, EventWriter.encodeReply(event, pubsub.maxMessageBytes()).bytes()),
        (receivers, error) -> {
          if (error != null || receivers == 0) {
            late.incrementAndGet();
          }
        });
  }

  /** One served call's replies: the pipeline's signals, published as call events. */
  private final class ReplySink implements CallSink {
    private final String requestId;
    private final String replyTo;
    private volatile ServedCall call;

    // Control events that came before the pipeline handed over the call (another thread).
    private CallError heldAbort;
    private long heldDemand;

    ReplySink(String requestId, String replyTo) {
      this.requestId = requestId;
      this.replyTo = replyTo;
    }

    @Override
    public void onStart(ServedCall call) {
      CallError abort;
      long demand;
      synchronized (this) {
        this.call = call;
        abort = heldAbort;
        demand = heldDemand;
      }
      if (abort != null) {
        end(abort);
      } else if (demand > 0) {
        call.request(demand);
      }
    }

    @Override
    public void onResult(ResponseEnvelope<JsonNode> result) {
      untrack();
      send(new CallEvent.Responded(requestId, result));
    }

    @Override
    public void onItem(ResponseEnvelope<JsonNode> item) {
      send(new CallEvent.Responded(requestId, item));
    }

    @Override
    public void onComplete() {
      untrack();
      send(new CallEvent.Completed(requestId));
    }

    @Override
    public void onError(CallError error) {
      untrack();
      send(CallEvents.failed(requestId, error));
    }

    void abort(CallError reason) {
      synchronized (this) {
        if (call == null) {
          heldAbort = reason;
          return;
        }
      }
      end(reason);
    }

    void demand(long n) {
      ServedCall c;
      synchronized (this) {
        c = call;
        if (c == null) {
          heldDemand = heldDemand + n < 0 ? Long.MAX_VALUE : heldDemand + n;
          return;
        }
      }
      c.request(n);
    }

    /**
     * The caller has not been heard from: end the call, and send it its end anyway, so that a
     * caller that was only slow learns that its call is over.
     */
    void callerGone(CallError reason) {
      if (end(reason)) {
        send(CallEvents.failed(requestId, reason));
      }
    }

    /** This handler closes over a shared pipeline: end the call and tell its caller. */
    void shutDown() {
      if (end(SERVER_CLOSING)) {
        send(CallEvents.failed(requestId, SERVER_CLOSING));
      }
    }

    /** Ends the call from this side; true if it was still running. */
    private boolean end(CallError reason) {
      ServedCall c = call;
      if (c != null && c.cancel(reason)) {
        untrack();
        return true;
      }
      return false;
    }

    private void untrack() {
      calls.remove(requestId, this);
      leases.untrack(replyTo, this);
    }

    /**
     * Publishes an event to the caller. An event the transport cannot carry (too large, too deep)
     * becomes a RESOURCE_EXHAUSTED error instead, and ends the call; a reply nobody receives means
     * the caller is gone.
     */
    private void send(CallEvent.CallScoped event) {
      EventWriter.Reply reply = EventWriter.encodeReply(event, pubsub.maxMessageBytes());
      reply.replaced().ifPresent(this::end);
      // The answer is checked where it arrives (a transport's I/O thread, for most): only a
      // caller found gone costs a hop, since ending the call runs its cancellation's listeners.
      ReplyFuture.whenCompleteInline(
          pubsub.publish(replyTo, reply.bytes()),
          (receivers, error) -> {
            if (error != null || receivers == 0) {
              late.incrementAndGet();
              // The caller cannot hear us: stop a stream that would keep talking to nobody.
              ReplyFuture.runOnLane(() -> end(CALLER_GONE));
            }
          });
    }
  }

  /** Configures a {@link CallHandler}. */
  public static final class Builder {
    private final OperationRegistry registry;
    private final OperationServer server;
    private final PubSub pubsub;
    private int maxConcurrentCalls = OperationServer.DEFAULT_MAX_CONCURRENT_CALLS;
    private Duration callerLeaseTimeout = DEFAULT_CALLER_LEASE_TIMEOUT;
    private String nodeId;

    private Builder(OperationRegistry registry, OperationServer server, PubSub pubsub) {
      this.registry = registry;
      this.server = server;
      this.pubsub = Objects.requireNonNull(pubsub, "pubsub");
    }

    /**
     * Calls served at once; more are refused with RESOURCE_EXHAUSTED (10,000 by default). For a
     * handler with a pipeline of its own; a shared {@link OperationServer} has its own limit.
     *
     * @throws IllegalStateException if the handler shares a pipeline
     */
    public Builder maxConcurrentCalls(int max) {
      if (max <= 0) {
        throw new IllegalArgumentException("maxConcurrentCalls must be positive");
      }
      if (server != null) {
        throw new IllegalStateException(
            "This handler shares an OperationServer: set maxConcurrentCalls on its builder");
      }
      this.maxConcurrentCalls = max;
      return this;
    }

    /**
     * How long a caller with calls here may stay silent before they are cancelled (30 s by
     * default): measured from the call's arrival or the caller's last {@code call.alive}, checked
     * every quarter of it, so a vanished caller's calls end between this and 1.25 times this after
     * it last spoke. Keep it above twice the callers' alive interval ({@link
     * PendingRequestMap.Builder#aliveInterval}, 10 s by default), so that one lost or late {@code
     * call.alive} does not end live calls.
     */
    public Builder callerLeaseTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("callerLeaseTimeout must be positive, was " + timeout);
      }
      this.callerLeaseTimeout = timeout;
      return this;
    }

    /**
     * Also serves each operation on this node's own request topic, {@code
     * ops.node.<nodeId>.req.<operationId>}, where discovery-aware callers route (see {@code
     * dev.alkdev.operations.discovery.ServingNode}, which sets it). Node ids are 1 to 64 ASCII
     * letters, digits, {@code _} or {@code -}: no dots.
     */
    public Builder nodeId(String nodeId) {
      Objects.requireNonNull(nodeId, "nodeId");
      NodeIds.require(nodeId);
      this.nodeId = nodeId;
      return this;
    }

    /** Starts serving. */
    public CallHandler build() {
      return new CallHandler(this);
    }
  }
}
