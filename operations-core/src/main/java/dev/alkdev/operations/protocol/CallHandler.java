package dev.alkdev.operations.protocol;

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
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.util.ArrayList;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The serving side of the call protocol: serves a registry's operations on a pub/sub. For every
 * callable operation it listens on {@code ops.req.<id>} in the servers' queue group (so each
 * request reaches one server), and it follows the registry as operations come and go.
 *
 * <p>For each {@code call.requested}: look up the spec, check access against the identity the
 * transport supplies, then dispatch by type: QUERY and MUTATION to {@code execute}, SUBSCRIPTION to
 * {@code subscribe}, and publish {@code call.responded} / {@code call.error} / {@code
 * call.completed} to the caller's {@code replyTo}. Handlers never publish (the seeds' ADR-011). An
 * MCP {@code isError} envelope is a response, not an error. {@code call.aborted} cancels the
 * running handler and every call it made through its context; {@code call.demand} lets a stream
 * send more.
 *
 * <p>A malformed request is answered with PROTOCOL_ERROR when its request id and reply topic can be
 * read, and otherwise dropped and counted; the handler loop never dies of bad input.
 */
public final class CallHandler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CallHandler.class);

  private static final CallError SERVER_CLOSING =
      CallError.of(ErrorCode.UNAVAILABLE, "The server is shutting down; try again");

  /** Aborts remembered for requests that have not arrived yet; the oldest are forgotten first. */
  static final int EARLY_ABORTS = 4096;

  /** The longest error message sent when an error event has to be shortened to fit. */
  private final OperationRegistry registry;

  private final PubSub pubsub;
  private final int maxConcurrentCalls;
  private final ConcurrentHashMap<String, PubSub.Subscription> requestSubscriptions =
      new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Running> running = new ConcurrentHashMap<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicLong malformed = new AtomicLong();
  private final AtomicLong late = new AtomicLong();

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
    this.registry = builder.registry;
    this.pubsub = builder.pubsub;
    this.maxConcurrentCalls = builder.maxConcurrentCalls;
    this.controlSubscription =
        pubsub.subscribe(ProtocolTopics.CONTROL, SubscribeOptions.defaults(), this::onControl);
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
              }
            });
    for (OperationSpec spec : registry.list()) {
      if (registry.getHandler(spec.id()).isPresent()) {
        serve(spec.id());
      }
    }
  }

  /** Starts serving {@code registry}'s operations on {@code pubsub}. */
  public static CallHandler serve(OperationRegistry registry, PubSub pubsub) {
    return builder(registry, pubsub).build();
  }

  public static Builder builder(OperationRegistry registry, PubSub pubsub) {
    return new Builder(registry, pubsub);
  }

  /** Calls running now, and messages dropped. */
  public ProtocolStats stats() {
    return new ProtocolStats(running.size(), late.get(), malformed.get());
  }

  /**
   * Stops serving: no new requests are taken, running calls are cancelled and their callers told
   * UNAVAILABLE (retryable), so they may try another server.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    registryListener.remove();
    requestSubscriptions.values().forEach(PubSub.Subscription::close);
    requestSubscriptions.clear();
    controlSubscription.close();
    for (Running call : new ArrayList<>(running.values())) {
      if (running.remove(call.requestId, call)) {
        call.abort(SERVER_CLOSING);
        send(call.replyTo, CallEvents.failed(call.requestId, SERVER_CLOSING));
      }
    }
  }

  private void serve(String operationId) {
    if (closed) {
      return;
    }
    requestSubscriptions.computeIfAbsent(
        operationId,
        id ->
            pubsub.subscribe(
                ProtocolTopics.request(id),
                SubscribeOptions.queueGroup(ProtocolTopics.SERVER_GROUP),
                this::onRequest));
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
    if (request.replyTo().isEmpty()) {
      // Nobody to answer: a call without a reply topic is not part of this protocol.
      malformed.incrementAndGet();
      return;
    }
    String replyTo = request.replyTo().get();
    String requestId = request.requestId();
    if (!earlyAborts.isEmpty() && earlyAborts.remove(requestId)) {
      return; // its caller gave up before the request arrived
    }
    Running registered = null;
    try {
      if (!message.topic().equals(ProtocolTopics.request(request.operationId()))) {
        throw CallError.of(
            ErrorCode.PROTOCOL_ERROR,
            "The request for " + request.operationId() + " arrived on " + message.topic());
      }
      OperationSpec spec =
          registry
              .getSpec(request.operationId())
              .orElseThrow(
                  () ->
                      CallError.of(
                          ErrorCode.OPERATION_NOT_FOUND,
                          "Operation not found: " + request.operationId()));
      Identity identity = identityOf(message, request);
      if (!spec.accessControl().allows(identity)) {
        if (identity.equals(Identity.anonymous())) {
          throw CallError.of(
              ErrorCode.UNAUTHENTICATED,
              "Operation " + spec.id() + " needs an authenticated caller");
        }
        spec.accessControl().check(identity, spec.id());
      }
      if (inFlight.incrementAndGet() > maxConcurrentCalls) {
        inFlight.decrementAndGet();
        throw CallError.of(
            ErrorCode.RESOURCE_EXHAUSTED,
            "The server is running " + maxConcurrentCalls + " calls; try again later");
      }
      Running call = new Running(requestId, replyTo, Cancellation.create());
      if (running.putIfAbsent(requestId, call) != null) {
        inFlight.decrementAndGet();
        throw CallError.of(ErrorCode.PROTOCOL_ERROR, "Request id " + requestId + " is in use");
      }
      registered = call;
      if (closed) {
        throw SERVER_CLOSING; // close() swept the running calls before this one arrived
      }
      OperationContext.Builder contextBuilder =
          OperationContext.builder()
              .requestId(requestId)
              .identity(identity)
              .cancellation(call.cancellation);
      request.parentRequestId().ifPresent(contextBuilder::parentRequestId);
      request
          .deadlineMillis()
          .ifPresent(millis -> contextBuilder.deadline(Deadline.afterMillis(millis)));
      OperationContext context = contextBuilder.build();
      if (spec.type() == OperationType.SUBSCRIPTION) {
        registry
            .subscribe(spec.id(), request.input(), context)
            .subscribe(new StreamRelay(call, request.demand().orElse(Long.MAX_VALUE)));
      } else {
        registry
            .execute(spec.id(), request.input(), context)
            .whenComplete(
                (envelope, error) -> {
                  if (!finish(call)) {
                    return; // aborted: the caller is not waiting any more
                  }
                  if (error != null) {
                    send(replyTo, CallEvents.failed(requestId, asCallError(error)));
                  } else {
                    send(replyTo, new CallEvent.Responded(requestId, envelope));
                    if (request.demand().isPresent()) {
                      // A stream consumer (only streams send demand) of a unary operation: its
                      // one item is the whole stream.
                      send(replyTo, new CallEvent.Completed(requestId));
                    }
                  }
                });
      }
    } catch (CallError e) {
      if (registered == null || finish(registered)) {
        send(replyTo, CallEvents.failed(requestId, e));
      }
    } catch (RuntimeException e) {
      // A bug below us must not kill the transport's delivery loop nor leave the caller waiting.
      LOG.error("Serving a request for {} failed", request.operationId(), e);
      if (registered == null || finish(registered)) {
        send(
            replyTo,
            CallEvents.failed(
                requestId,
                CallError.of(
                    ErrorCode.EXECUTION_ERROR, "Operation " + request.operationId() + " failed")));
      }
    }
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
    if (requestId.isPresent() && replyTo.isPresent()) {
      send(replyTo.get(), CallEvents.failed(requestId.get(), error));
    } else {
      LOG.debug("Dropped a malformed request: {}", error.getMessage());
    }
  }

  /** Removes a finished call; false if it was aborted (or finished) before. */
  private boolean finish(Running call) {
    if (running.remove(call.requestId, call)) {
      inFlight.decrementAndGet();
      return true;
    }
    return false;
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
    Running call = running.get(event.requestId());
    if (call == null) {
      // Most control messages are for other servers' calls: broadcasts reach every server. An
      // abort may also have overtaken its request, so remember it for a while.
      if (event instanceof CallEvent.Aborted) {
        rememberEarlyAbort(event.requestId());
      }
      return;
    }
    if (event instanceof CallEvent.Aborted aborted) {
      if (finish(call)) {
        call.abort(
            CallError.of(
                ErrorCode.CANCELLED,
                "The caller aborted the call" + aborted.reason().map(r -> ": " + r).orElse("")));
      }
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

  // ------------------------------------------------------------------ sending

  /**
   * Publishes an event to a caller. An event the transport cannot carry (too large, too deep)
   * becomes a RESOURCE_EXHAUSTED error instead, and ends the call; a reply nobody receives means
   * the caller is gone.
   */
  private void send(String replyTo, CallEvent event) {
    CallEvents.Reply reply = CallEvents.encodeReply(event, pubsub.maxMessageBytes());
    reply
        .replaced()
        .ifPresent(
            problem -> {
              Running call = running.get(event.requestId());
              if (call != null && finish(call)) {
                call.abort(problem);
              }
            });
    byte[] bytes = reply.bytes();
    pubsub
        .publish(replyTo, bytes)
        .whenComplete(
            (receivers, error) -> {
              if (error != null || receivers == 0) {
                late.incrementAndGet();
                // The caller cannot hear us: stop a stream that would keep talking to nobody.
                Running call = running.get(event.requestId());
                if (call != null && finish(call)) {
                  call.abort(CallError.of(ErrorCode.CANCELLED, "The caller is gone"));
                }
              }
            });
  }

  private static CallError asCallError(Throwable error) {
    return CallError.from(error, ErrorCode.EXECUTION_ERROR, "The call failed");
  }

  /** A call being served. */
  private static final class Running {
    final String requestId;
    final String replyTo;
    final Cancellation cancellation;
    private volatile Flow.Subscription stream;

    Running(String requestId, String replyTo, Cancellation cancellation) {
      this.requestId = requestId;
      this.replyTo = replyTo;
      this.cancellation = cancellation;
    }

    void abort(CallError reason) {
      cancellation.cancel(reason);
      Flow.Subscription s = stream;
      if (s != null) {
        s.cancel();
      }
    }

    void demand(long n) {
      Flow.Subscription s = stream;
      if (s != null) {
        s.request(n);
      }
    }
  }

  /** Publishes a stream's signals as events, in order. */
  private final class StreamRelay implements Flow.Subscriber<ResponseEnvelope<JsonNode>> {
    private final Running call;
    private final long initialDemand;

    StreamRelay(Running call, long initialDemand) {
      this.call = call;
      this.initialDemand = initialDemand;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      call.stream = subscription;
      if (call.cancellation.isCancelled()) {
        subscription.cancel();
      } else {
        subscription.request(initialDemand);
      }
    }

    @Override
    public void onNext(ResponseEnvelope<JsonNode> envelope) {
      if (running.get(call.requestId) == call) {
        send(call.replyTo, new CallEvent.Responded(call.requestId, envelope));
      }
    }

    @Override
    public void onError(Throwable error) {
      if (finish(call)) {
        send(call.replyTo, CallEvents.failed(call.requestId, asCallError(error)));
      }
    }

    @Override
    public void onComplete() {
      if (finish(call)) {
        send(call.replyTo, new CallEvent.Completed(call.requestId));
      }
    }
  }

  /** Configures a {@link CallHandler}. */
  public static final class Builder {
    private final OperationRegistry registry;
    private final PubSub pubsub;
    private int maxConcurrentCalls = 10_000;

    private Builder(OperationRegistry registry, PubSub pubsub) {
      this.registry = Objects.requireNonNull(registry, "registry");
      this.pubsub = Objects.requireNonNull(pubsub, "pubsub");
    }

    /** Calls served at once; more are refused with RESOURCE_EXHAUSTED (10,000 by default). */
    public Builder maxConcurrentCalls(int max) {
      if (max <= 0) {
        throw new IllegalArgumentException("maxConcurrentCalls must be positive");
      }
      this.maxConcurrentCalls = max;
      return this;
    }

    /** Starts serving. */
    public CallHandler build() {
      return new CallHandler(this);
    }
  }
}
