package dev.alkdev.operations.protocol;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.Deadline;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationCaller;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.internal.CallWatch;
import dev.alkdev.operations.internal.Json;
import dev.alkdev.operations.internal.RateLimitedLog;
import dev.alkdev.operations.internal.ResultPipeline;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.OverflowPolicy;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.remote.internal.ReplyFuture;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The caller's side of the call protocol: sends {@code call.requested} and matches what comes back
 * to the call that asked. Every call gets a 128-bit random request id and a deadline; every entry
 * is removed when its call ends, however it ends, so nothing accumulates. Thread-safe.
 *
 * <p>Responses arrive on this map's own inbox topic. A response for a call that is no longer
 * pending is dropped and counted ({@link #stats()}); so is a message that is not a valid event.
 *
 * <p>While it has calls in flight the map sends {@code call.alive} naming its inbox to {@code
 * ops.ctl} every {@link Builder#aliveInterval} (one message, however many calls): serving sides
 * cancel the calls of a caller they have not heard from for their lease timeout, so the calls of a
 * process that died end without a word from it.
 */
public final class PendingRequestMap implements OperationCaller, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PendingRequestMap.class);
  private static final RateLimitedLog UNDELIVERED = RateLimitedLog.of(LOG);
  private static final RateLimitedLog SUBSCRIBER_FAILED = RateLimitedLog.of(LOG);

  /** The timeout of a unary call that names no deadline. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /**
   * The items a stream's serving side may send beyond those its subscriber has taken, unless the
   * builder says otherwise: the most a stream buffers here, whatever demand its subscriber signals.
   */
  public static final int DEFAULT_STREAM_WINDOW = 256;

  /** How often a map with calls in flight says {@code call.alive}, unless told otherwise. */
  public static final Duration DEFAULT_ALIVE_INTERVAL = Duration.ofSeconds(10);

  /** The inbox's buffer: responses for this many calls may wait to be matched. */
  static final int INBOX_BUFFER = 65_536;

  /**
   * Request ids remembered as aborted for late items, so each costs one abort, not one per item.
   */
  static final int RECENT_ABORTS = 1024;

  private final PubSub pubsub;
  private final String inbox;
  private final Duration defaultTimeout;
  private final Executor streamExecutor;
  private final int window;
  private final boolean deadlineTimers;
  private final AliveSender alive;
  private final ConcurrentHashMap<String, Pending> pending = new ConcurrentHashMap<>();
  private final AtomicLong late = new AtomicLong();
  private final AtomicLong malformed = new AtomicLong();
  private final Set<String> recentlyAborted =
      Collections.newSetFromMap(
          new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
              return size() > RECENT_ABORTS;
            }
          });
  private final PubSub.Subscription inboxSubscription;
  private final Registration disconnectRegistration;
  private volatile boolean closed;

  private PendingRequestMap(Builder builder) {
    this.pubsub = builder.pubsub;
    this.defaultTimeout = builder.defaultTimeout;
    this.streamExecutor = builder.streamExecutor;
    this.window = builder.streamWindow;
    this.deadlineTimers = builder.deadlineTimers;
    this.inbox = pubsub.inboxPrefix() + OperationContext.newRequestId();
    this.inboxSubscription =
        pubsub.subscribe(
            inbox,
            SubscribeOptions.defaults()
                .withBufferSize(INBOX_BUFFER)
                .withOverflow(OverflowPolicy.REJECT)
                // Non-blocking (D73): the inbox decodes, matches and hands over. A unary call's
                // future is a ReplyFuture, which completes (and runs its dependents) on the
                // thread that waits for it or on a pool thread, never here; stream items go to
                // the stream's drain loop on the stream executor.
                .withNonBlockingHandler(),
            this::onInbox);
    this.disconnectRegistration =
        pubsub.onDisconnect(
            () ->
                failAll(
                    CallError.of(
                        ErrorCode.UNAVAILABLE,
                        "The transport disconnected before the call completed")));
    this.alive = new AliveSender(pubsub, inbox, builder.aliveInterval, () -> !pending.isEmpty());
  }

  /** A map on {@code pubsub} with the default timeout of 30 s. */
  public static PendingRequestMap create(PubSub pubsub) {
    return builder(pubsub).build();
  }

  public static Builder builder(PubSub pubsub) {
    return new Builder(pubsub);
  }

  /** This map's inbox topic: where its calls' responses go. */
  public String inbox() {
    return inbox;
  }

  /** What error messages name it by: its inbox. */
  @Override
  public String toString() {
    return "PendingRequestMap[" + inbox + "]";
  }

  // ------------------------------------------------------------------ unary

  /**
   * Calls a QUERY or MUTATION wherever it is served. The future completes with the envelope of
   * {@code call.responded}, or fails with a {@link CallError}: the serving side's error, or
   * NO_RESPONDERS (nothing serves the operation: at once, not at the deadline), DEADLINE_EXCEEDED,
   * CANCELLED, RESOURCE_EXHAUSTED (the request is too large), UNAVAILABLE (the transport went
   * away). Cancelling the future, or the options' signal, sends {@code call.aborted}.
   *
   * <p>The reply may arrive on the transport's I/O thread, but no dependent of the future runs
   * there (D73): the future completes on the thread that waits in {@code get()} or {@code join()}
   * when one does (running the dependents registered before), else on a pool thread, so a dependent
   * that blocks holds up nobody else's reply.
   */
  public CompletableFuture<ResponseEnvelope<JsonNode>> call(
      String operationId, Object input, CallOptions options) {
    Objects.requireNonNull(operationId, "operationId");
    Objects.requireNonNull(options, "options");
    ReplyFuture<ResponseEnvelope<JsonNode>> future = new ReplyFuture<>();
    String requestId = OperationContext.newRequestId();
    CallEvent.Requested request;
    try {
      request = request(requestId, operationId, input, options, deadlineOf(options, true), null);
    } catch (CallError e) {
      return CompletableFuture.failedFuture(e);
    }
    UnaryCall call = new UnaryCall(requestId, future);
    start(call, request, options);
    // A caller that cancels the future gives up on the call.
    future.onCancel(() -> abandon(call, "the caller cancelled the future"));
    // A reply that came while the call was made (in-process, D14) completes it here.
    future.publish();
    return future;
  }

  /** {@link #call(String, Object, CallOptions)} with default options. */
  public CompletableFuture<ResponseEnvelope<JsonNode>> call(String operationId, Object input) {
    return call(operationId, input, CallOptions.defaults());
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

  /**
   * Empty: the map calls wherever an operation is served and learns no specs. A typed client over
   * it is checked against specs it is given ({@code TypedClient.Builder.specs}).
   */
  @Override
  public Optional<OperationSpec> spec(String operationId) {
    return Optional.empty();
  }

  // ------------------------------------------------------------------ streams

  /**
   * Subscribes to a SUBSCRIPTION wherever it is served: one envelope per {@code call.responded},
   * ended by {@code call.completed}, failed by {@code call.error}. Cold: the request is sent when
   * the subscriber first requests items, with that demand; further requests send {@code
   * call.demand}, so the serving side never sends more than asked, and never more than the stream
   * window ({@link Builder#streamWindow}) beyond what the subscriber has taken: whatever demand the
   * subscriber signals, a stream buffers at most the window here. Cancelling sends {@code
   * call.aborted} and drops what is buffered; no signal starts after {@code cancel()} has returned.
   * Signals reach the subscriber in order, on a shared pool, never concurrently. Streams have no
   * deadline unless the options give one; an item that arrives after it ends the stream with
   * DEADLINE_EXCEEDED.
   */
  public Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(
      String operationId, Object input, CallOptions options) {
    Objects.requireNonNull(operationId, "operationId");
    Objects.requireNonNull(options, "options");
    return subscriber -> {
      Objects.requireNonNull(subscriber, "subscriber");
      StreamCall stream =
          new StreamCall(OperationContext.newRequestId(), operationId, input, options, subscriber);
      // Through the stream's drain loop, so that no signal can overlap onSubscribe (§1.3).
      stream.begin();
    };
  }

  /** {@link #subscribe(String, Object, CallOptions)} with default options. */
  public Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(String operationId, Object input) {
    return subscribe(operationId, input, CallOptions.defaults());
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

  // ------------------------------------------------------------------ respond

  /**
   * Delivers {@code output} as the {@code call.responded} of {@code requestId}, through this map's
   * inbox, as if the serving side had sent it (the seeds' {@code respond}).
   *
   * @throws IllegalArgumentException if {@code output} is not a response envelope (a {@link
   *     ResponseEnvelope}, or JSON with the envelope's shape): raw values never cross the protocol
   */
  public void respond(String requestId, Object output) {
    Objects.requireNonNull(requestId, "requestId");
    if (!Envelopes.isResponseEnvelope(output)) {
      throw new IllegalArgumentException(
          "respond() needs a ResponseEnvelope (data and meta with a known source), was "
              + (output == null ? "null" : output.getClass().getName()));
    }
    ResponseEnvelope<JsonNode> envelope;
    try {
      envelope =
          output instanceof ResponseEnvelope<?> e
              ? e.withData(ResultPipeline.toJson("respond", e.data()))
              : Envelopes.fromJson(
                  output instanceof JsonNode json ? json : Json.mapper().valueToTree(output));
    } catch (CallError | IllegalArgumentException e) {
      // An envelope's shape with a broken meta, or data that is not JSON: still not an envelope.
      throw new IllegalArgumentException(
          "respond() needs a well-formed ResponseEnvelope: " + e.getMessage(), e);
    }
    publish(inbox, new CallEvent.Responded(requestId, envelope))
        .exceptionally(
            error -> {
              UNDELIVERED.warn("respond({}) could not be delivered", requestId, error);
              return 0;
            });
  }

  // ------------------------------------------------------------------ state

  /** How many calls are pending, and how many messages were dropped. */
  public ProtocolStats stats() {
    return new ProtocolStats(pending.size(), late.get(), malformed.get());
  }

  /**
   * Fails every pending call with UNAVAILABLE (telling the serving sides with {@code call.aborted})
   * and stops listening.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    alive.stop();
    failAll(CallError.of(ErrorCode.UNAVAILABLE, "The caller's PendingRequestMap was closed"));
    inboxSubscription.close();
    disconnectRegistration.remove();
  }

  // ------------------------------------------------------------------ internals

  private CallEvent.Requested request(
      String requestId,
      String operationId,
      Object input,
      CallOptions options,
      Deadline deadline,
      Long demand) {
    if (closed) {
      throw CallError.of(ErrorCode.UNAVAILABLE, "This PendingRequestMap is closed");
    }
    if (!OperationSpec.isValidId(operationId)) {
      throw CallError.of(
          ErrorCode.OPERATION_NOT_FOUND, "Not a valid operation id: '" + operationId + "'");
    }
    JsonNode json;
    try {
      json = ResultPipeline.toJson(operationId, input);
    } catch (CallError e) {
      throw CallError.of(ErrorCode.INVALID_INPUT, "Input cannot be converted to JSON", e);
    }
    try {
      return new CallEvent.Requested(
          requestId,
          operationId,
          json,
          options.parentRequestId(),
          Optional.of(options.identity()),
          deadline == null ? OptionalLong.empty() : OptionalLong.of(deadline.remainingMillis()),
          Optional.of(inbox),
          demand == null ? OptionalLong.empty() : OptionalLong.of(demand),
          options.metadata());
    } catch (IllegalArgumentException e) {
      // A parent request id or an identity the protocol cannot carry.
      throw CallError.of(ErrorCode.INVALID_INPUT, "Cannot send the call: " + e.getMessage(), e);
    }
  }

  private Deadline deadlineOf(CallOptions options, boolean unary) {
    if (options.deadline().isPresent()) {
      return options.deadline().get();
    }
    return unary ? Deadline.after(defaultTimeout) : null;
  }

  /** Registers a call, arms its deadline and cancellation, and sends its request. */
  private void start(Pending call, CallEvent.Requested request, CallOptions options) {
    byte[] bytes;
    try {
      bytes = CallEvents.encode(request);
    } catch (CallError e) {
      call.finish(e); // nested deeper than any receiver reads
      return;
    }
    if (bytes.length > pubsub.maxMessageBytes()) {
      call.finish(
          CallError.builder(
                  ErrorCode.RESOURCE_EXHAUSTED,
                  "The request is "
                      + bytes.length
                      + " bytes, more than the transport carries ("
                      + pubsub.maxMessageBytes()
                      + ")")
              .retryable(false) // the same request is as large next time
              .build());
      return;
    }
    pending.put(call.requestId, call);
    if (closed) {
      // close() may have swept the map before this call arrived in it.
      end(call, CallError.of(ErrorCode.UNAVAILABLE, "This PendingRequestMap is closed"));
      return;
    }
    Optional<Deadline> deadline =
        request.deadlineMillis().isPresent()
            ? Optional.of(Deadline.afterMillis(request.deadlineMillis().getAsLong()))
            : Optional.empty();
    call.deadline = deadline.orElse(null);
    call.deadlineMessage = "No response from " + request.operationId() + " before the deadline";
    call.watch =
        CallWatch.watch(
            deadlineTimers ? deadline : Optional.empty(),
            options.cancellation(),
            call.deadlineMessage,
            why -> abandon(call, why));
    if (pending.get(call.requestId) != call) {
      return; // the signal was cancelled already: the call ended before it was sent
    }
    // Inline: ending a call only delivers to its result (as a reply on the inbox does), so the
    // publish's answer needs no thread of its own.
    ReplyFuture.whenCompleteInline(
        pubsub.publish(requestTopic(request.operationId(), options), bytes),
        (receivers, error) -> {
          if (error != null) {
            end(call, asCallError(error));
          } else if (receivers == 0) {
            end(
                call,
                CallError.of(ErrorCode.NO_RESPONDERS, "Nothing serves " + request.operationId()));
          }
        });
  }

  /** The shared queue group's topic, or the chosen node's (per-node routing, issue 15). */
  private static String requestTopic(String operationId, CallOptions options) {
    return options
        .node()
        .map(node -> ProtocolTopics.nodeRequest(node, operationId))
        .orElseGet(() -> ProtocolTopics.request(operationId));
  }

  /** Ends a call on this side only (the serving side already finished, or never started). */
  private void end(Pending call, CallError error) {
    if (pending.remove(call.requestId, call)) {
      call.cleanup();
      call.finish(error);
    }
  }

  /** Ends a call this side gives up on, and tells the serving side. */
  private void abandon(Pending call, CallError error) {
    if (pending.remove(call.requestId, call)) {
      call.cleanup();
      call.finish(error);
      sendAbort(call.requestId, error.getMessage());
    }
  }

  private void abandon(Pending call, String reason) {
    if (pending.remove(call.requestId, call)) {
      call.cleanup();
      sendAbort(call.requestId, reason);
    }
  }

  /**
   * Aborts a call whose items keep coming though nobody waits for them: once per request id, so
   * late items of one stream cost one more call.aborted (which also repairs a lost first one), not
   * one each.
   */
  private void abortLate(String requestId) {
    synchronized (recentlyAborted) {
      if (!recentlyAborted.add(requestId)) {
        return;
      }
    }
    sendAbort(requestId, "no call is waiting for this response");
  }

  private void sendAbort(String requestId, String reason) {
    publish(ProtocolTopics.CONTROL, new CallEvent.Aborted(requestId, Optional.of(reason)))
        .exceptionally(e -> 0); // best effort: the serving side also has the deadline
  }

  private CompletableFuture<Integer> publish(String topic, CallEvent event) {
    try {
      return pubsub.publish(topic, CallEvents.encode(event));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private void failAll(CallError error) {
    for (Pending call : new ArrayList<>(pending.values())) {
      abandon(call, error);
    }
  }

  private void onInbox(Message message) {
    CallEvent event;
    try {
      event = CallEvents.decode(message.payload(), pubsub.maxMessageBytes());
    } catch (CallError e) {
      malformed.incrementAndGet();
      Pending call = CallEvents.readableRequestId(e).map(pending::get).orElse(null);
      if (call != null) {
        // The serving side answered this call with something unreadable: fail it now rather than
        // at its deadline, and stop the serving side.
        abandon(call, e);
      } else {
        LOG.debug("Dropped a malformed message on {}: {}", inbox, e.getMessage());
      }
      return;
    }
    if (!(event instanceof CallEvent.Responded
        || event instanceof CallEvent.Failed
        || event instanceof CallEvent.Completed)) {
      malformed.incrementAndGet(); // requests, aborts, demands and alives do not belong here
      return;
    }
    String requestId = ((CallEvent.CallScoped) event).requestId();
    Pending call = pending.get(requestId);
    if (call == null) {
      late.incrementAndGet();
      if (event instanceof CallEvent.Responded) {
        // Items for a call nobody waits for: a stream that outlived its caller, or a unary call
        // made to a SUBSCRIPTION. Tell the serving side once, so it stops.
        abortLate(requestId);
      }
      return;
    }
    Deadline deadline = call.deadline;
    if (deadline != null && deadline.isExpired()) {
      // The timer may fire late (a busy machine), but a reply after the deadline is no success:
      // the call ends as the timer would have ended it. A stream's item also tells the serving
      // side to stop; a final event means it has stopped already.
      CallError expired = CallError.of(ErrorCode.DEADLINE_EXCEEDED, call.deadlineMessage);
      if (event instanceof CallEvent.Responded && call instanceof StreamCall) {
        abandon(call, expired);
      } else {
        end(call, expired);
      }
      return;
    }
    if (event instanceof CallEvent.Responded responded) {
      call.onResponded(responded.output());
    } else if (event instanceof CallEvent.Failed failed) {
      if (pending.remove(call.requestId, call)) {
        call.cleanup();
        call.failedByPeer(CallEvents.toCallError(failed));
      }
    } else {
      call.onCompleted();
    }
  }

  private static CallError asCallError(Throwable error) {
    return CallError.from(
        error,
        cause -> CallError.of(ErrorCode.UNAVAILABLE, "The transport failed: " + cause, cause));
  }

  /** A call under way. */
  private abstract static class Pending {
    final String requestId;

    /** The call's deadline timer and cancellation listener. */
    volatile Registration watch;

    /** When the call must have ended (null: never), checked as each reply arrives. */
    volatile Deadline deadline;

    volatile String deadlineMessage;

    Pending(String requestId) {
      this.requestId = requestId;
    }

    void cleanup() {
      Registration w = watch;
      if (w != null) {
        w.remove();
      }
    }

    abstract void onResponded(ResponseEnvelope<JsonNode> envelope);

    abstract void onCompleted();

    /** Delivers the terminal error; the call has already left the map. */
    abstract void finish(CallError error);

    /** Delivers the serving side's call.error; the call has already left the map. */
    void failedByPeer(CallError error) {
      finish(error);
    }
  }

  private final class UnaryCall extends Pending {
    final ReplyFuture<ResponseEnvelope<JsonNode>> future;

    UnaryCall(String requestId, ReplyFuture<ResponseEnvelope<JsonNode>> future) {
      super(requestId);
      this.future = future;
    }

    @Override
    void onResponded(ResponseEnvelope<JsonNode> envelope) {
      if (pending.remove(requestId, this)) {
        cleanup();
        future.deliver(envelope);
      }
    }

    @Override
    void onCompleted() {
      end(this, CallError.of(ErrorCode.PROTOCOL_ERROR, "call.completed ended a unary call"));
    }

    @Override
    void finish(CallError error) {
      future.deliverError(error);
    }
  }

  /**
   * A stream: a Flow subscription whose demand becomes call.requested and call.demand, through a
   * window. The serving side is granted at most {@link #window} items beyond those delivered to the
   * subscriber, whatever the subscriber asks for, so the items received and not yet delivered (the
   * queue) never exceed the window: a subscriber that asks for {@code Long.MAX_VALUE} gets items at
   * the rate its {@code onNext} returns, not as fast as the inbox fills. Credit is topped up once
   * at most half the window is outstanding, so a fast subscriber costs one call.demand per half
   * window.
   *
   * <p>One drain loop, on {@link #streamExecutor}, delivers every signal in order and never two at
   * once (§1.3). It checks {@link #quiet} before each signal: once {@code cancel()} has run, or the
   * end was delivered, no further signal starts (§3.7), and the queue is dropped at once.
   */
  private final class StreamCall extends Pending implements Flow.Subscription {
    private final String operationId;
    private final Object input;
    private final CallOptions options;
    private final Flow.Subscriber<? super ResponseEnvelope<JsonNode>> subscriber;
    private final Object lock = new Object();

    // Guarded by lock.
    private final ArrayDeque<ResponseEnvelope<JsonNode>> queue = new ArrayDeque<>();
    private boolean started; // the first request(n) sent call.requested
    // Cancelled, or the end was delivered: no more signals. Written under lock; volatile so the
    // drain loop can look once more just before it hands over an item.
    private volatile boolean quiet;
    private boolean cancelled; // by the subscriber (or §3.9), so the call's end is not signalled
    private boolean draining; // the drain loop is scheduled or running
    private Runnable end; // the end to signal once the queue is delivered; null while it goes on
    private long wanted; // the subscriber's demand not yet delivered; Long.MAX_VALUE is unbounded
    private long credit; // items the serving side may still send

    /**
     * Whether the serving side has answered. Until it has, call.demand could overtake
     * call.requested (they travel on different topics) and be lost, so credit beyond the first is
     * granted only once the first item arrived.
     */
    private boolean answered;

    StreamCall(
        String requestId,
        String operationId,
        Object input,
        CallOptions options,
        Flow.Subscriber<? super ResponseEnvelope<JsonNode>> subscriber) {
      super(requestId);
      this.operationId = operationId;
      this.input = input;
      this.options = options;
      this.subscriber = subscriber;
    }

    /** Signals onSubscribe first; whatever arrives meanwhile waits for the drain that follows. */
    void begin() {
      synchronized (lock) {
        draining = true;
      }
      runDrain(
          () -> {
            try {
              subscriber.onSubscribe(this);
            } catch (RuntimeException e) {
              SUBSCRIBER_FAILED.warn("The subscriber of {} failed in onSubscribe", operationId, e);
              cancel(); // §2.13: a subscriber that throws is treated as cancelled
            }
            drain();
          });
    }

    @Override
    public void request(long n) {
      boolean first;
      long grant = 0;
      boolean drain;
      synchronized (lock) {
        if (quiet || end != null) {
          return; // §3.6: after cancel, and once the end is known, a request does nothing
        }
        if (n <= 0) {
          cancelled = true; // the call's own end is not signalled: §3.9's error is
          end =
              () ->
                  subscriber.onError(
                      new IllegalArgumentException("§3.9: request(n) needs n > 0, was " + n));
          queue.clear();
          drain = scheduleLocked();
          first = false;
        } else {
          wanted = saturatedAdd(wanted, n);
          first = !started;
          started = true;
          if (first) {
            credit = Math.min(n, window);
          } else {
            grant = topUpLocked();
          }
          drain = scheduleLocked();
        }
      }
      if (n <= 0) {
        abandon(this, "the subscriber requested " + n + " items");
      } else if (first) {
        sendRequest();
      } else if (grant > 0) {
        sendDemand(grant);
      }
      if (drain) {
        runDrain(this::drain);
      }
    }

    private void sendRequest() {
      long initial;
      synchronized (lock) {
        initial = credit;
      }
      CallEvent.Requested request;
      try {
        request =
            PendingRequestMap.this.request(
                requestId, operationId, input, options, deadlineOf(options, false), initial);
      } catch (CallError e) {
        finish(e);
        return;
      }
      start(this, request, options);
      boolean cancelledMeanwhile;
      synchronized (lock) {
        cancelledMeanwhile = cancelled;
      }
      if (cancelledMeanwhile) {
        // cancel() ran while the call was being registered and found nothing to abandon.
        abandon(this, "the subscriber cancelled");
      }
    }

    private void sendDemand(long n) {
      // Inline, as the request's own answer in start(): abandoning only delivers to the call,
      // which onInbox() also does on the delivering thread.
      ReplyFuture.whenCompleteInline(
          publish(ProtocolTopics.CONTROL, new CallEvent.Demand(requestId, n)),
          (receivers, error) -> {
            if (error != null) {
              abandon(this, asCallError(error));
            }
          });
    }

    /**
     * More credit for the serving side, counted as granted: what the subscriber wants beyond what
     * is queued or still to come, up to the window, once at most half the window is outstanding.
     */
    private long topUpLocked() {
      if (!answered || end != null || quiet) {
        return 0;
      }
      long outstanding = credit + queue.size();
      if (outstanding > window / 2) {
        return 0;
      }
      long uncovered = wanted == Long.MAX_VALUE ? Long.MAX_VALUE : wanted - outstanding;
      long grant = Math.min(uncovered, window - outstanding);
      if (grant <= 0) {
        return 0;
      }
      credit += grant;
      return grant;
    }

    @Override
    public void cancel() {
      synchronized (lock) {
        if (quiet) {
          return;
        }
        quiet = true;
        cancelled = true;
        queue.clear(); // nobody will take these: let them go now
        end = null;
      }
      abandon(this, "the subscriber cancelled");
    }

    @Override
    void onResponded(ResponseEnvelope<JsonNode> envelope) {
      long grant;
      boolean drain;
      synchronized (lock) {
        if (quiet || end != null) {
          return;
        }
        if (credit == 0) {
          drain = false;
          grant = -1; // the serving side sent more than it was granted: a broken peer
        } else {
          credit--;
          queue.add(envelope);
          answered = true;
          grant = topUpLocked();
          drain = scheduleLocked();
        }
      }
      if (grant < 0) {
        abandon(
            this,
            CallError.of(
                ErrorCode.PROTOCOL_ERROR, "The serving side sent more items than were requested"));
        return;
      }
      if (grant > 0) {
        sendDemand(grant);
      }
      if (drain) {
        runDrain(this::drain);
      }
    }

    @Override
    void onCompleted() {
      if (pending.remove(requestId, this)) {
        cleanup();
        endWith(subscriber::onComplete, false);
      }
    }

    /** The serving side's call.error: after the items it sent before it. */
    @Override
    void failedByPeer(CallError error) {
      endWith(() -> subscriber.onError(error), false);
    }

    /** An end on this side (deadline, close, transport, broken peer): queued items are dropped. */
    @Override
    void finish(CallError error) {
      endWith(() -> subscriber.onError(error), true);
    }

    private void endWith(Runnable signal, boolean dropQueue) {
      boolean drain;
      synchronized (lock) {
        if (quiet || end != null || cancelled) {
          return;
        }
        if (dropQueue) {
          queue.clear();
        }
        end = signal;
        drain = scheduleLocked();
      }
      if (drain) {
        runDrain(this::drain);
      }
    }

    /** Whether the caller must start the drain loop: there is a signal and no loop runs. */
    private boolean scheduleLocked() {
      if (draining || quiet) {
        return false;
      }
      if ((queue.isEmpty() || wanted == 0) && end == null) {
        return false;
      }
      draining = true;
      return true;
    }

    private void runDrain(Runnable loop) {
      try {
        streamExecutor.execute(loop);
      } catch (RejectedExecutionException e) {
        loop.run(); // the pool is gone (shutdown): run here rather than lose the end
      }
    }

    /**
     * Delivers queued items while the subscriber wants them, then the end; one signal at a time.
     */
    private void drain() {
      while (true) {
        ResponseEnvelope<JsonNode> item;
        Runnable last = null;
        long grant = 0;
        synchronized (lock) {
          if (quiet) {
            queue.clear();
            draining = false;
            return;
          }
          if (!queue.isEmpty() && wanted > 0) {
            item = queue.poll();
            if (wanted != Long.MAX_VALUE) {
              wanted--;
            }
            grant = topUpLocked();
          } else if (queue.isEmpty() && end != null) {
            item = null;
            last = end;
            quiet = true; // the end is the last signal
            draining = false;
          } else {
            draining = false;
            return;
          }
        }
        if (grant > 0) {
          sendDemand(grant);
        }
        if (last != null) {
          try {
            last.run();
          } catch (RuntimeException e) {
            SUBSCRIBER_FAILED.warn("The subscriber of {} failed on the end", operationId, e);
          }
          return;
        }
        if (quiet) {
          continue; // cancelled while this item was being taken: it is dropped with the rest
        }
        try {
          subscriber.onNext(item);
        } catch (RuntimeException e) {
          SUBSCRIBER_FAILED.warn("The subscriber of {} failed in onNext", operationId, e);
          cancel(); // §2.13: a subscriber that throws is treated as cancelled
        }
      }
    }
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }

  /** Configures a {@link PendingRequestMap}. */
  public static final class Builder {
    private final PubSub pubsub;
    private Duration defaultTimeout = DEFAULT_TIMEOUT;
    private Executor streamExecutor = ForkJoinPool.commonPool();
    private int streamWindow = DEFAULT_STREAM_WINDOW;
    private boolean deadlineTimers = true;
    private Duration aliveInterval = DEFAULT_ALIVE_INTERVAL;

    private Builder(PubSub pubsub) {
      this.pubsub = Objects.requireNonNull(pubsub, "pubsub");
    }

    /** The deadline of unary calls whose options name none (30 s by default). */
    public Builder defaultTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("defaultTimeout must be positive");
      }
      this.defaultTimeout = timeout;
      return this;
    }

    /** Where stream subscribers' signals run (the common pool by default). */
    public Builder streamExecutor(Executor executor) {
      this.streamExecutor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * The most items a stream's serving side may send beyond those its subscriber has taken (256 by
     * default): the credit on the wire, and the most a stream buffers here, whatever demand the
     * subscriber signals. Credit is topped up as the subscriber consumes, half a window at a time.
     */
    public Builder streamWindow(int items) {
      if (items <= 0) {
        throw new IllegalArgumentException("streamWindow must be positive, was " + items);
      }
      this.streamWindow = items;
      return this;
    }

    /**
     * For tests: without timers a deadline is noticed only when a reply arrives, as when the timer
     * fires late on a busy machine.
     */
    Builder deadlineTimers(boolean armed) {
      this.deadlineTimers = armed;
      return this;
    }

    /**
     * How often the map says {@code call.alive} while it has calls in flight (10 s by default).
     * Serving sides cancel the calls of a caller silent for their lease timeout ({@link
     * CallHandler.Builder#callerLeaseTimeout}, 30 s by default): keep this below half of it.
     */
    public Builder aliveInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("aliveInterval must be positive, was " + interval);
      }
      this.aliveInterval = interval;
      return this;
    }

    public PendingRequestMap build() {
      return new PendingRequestMap(this);
    }
  }
}
