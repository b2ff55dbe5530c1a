package dev.alkdev.operations.discovery;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.Cancellation;
import dev.alkdev.operations.Deadline;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.internal.ResultPipeline;
import dev.alkdev.operations.internal.Scheduler;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * A {@link RemoteCatalog}'s calls: each routed to one of the nodes that serve its operation (by
 * {@link Routing}), validated against that node's spec, tracked per node so that losing the node
 * fails it at once, and retried elsewhere by the {@link RetryPolicy} when that is safe.
 */
final class RoutedCalls {
  private static final Logger LOG = LoggerFactory.getLogger(RoutedCalls.class);

  private static final CallError ATTEMPT_OVER =
      CallError.of(ErrorCode.CANCELLED, "The attempt is over");

  private final NodeTable table;
  private final PendingRequestMap calls;
  private final Routing routing;
  private final RetryPolicy retry;
  private final Duration defaultTimeout;

  /** Attempts in flight, by the node that runs them. */
  private final ConcurrentHashMap<String, Set<Attempt>> inFlight = new ConcurrentHashMap<>();

  private final ConcurrentHashMap<String, AtomicInteger> turns = new ConcurrentHashMap<>();
  private volatile boolean closed;

  RoutedCalls(
      NodeTable table,
      PendingRequestMap calls,
      Routing routing,
      RetryPolicy retry,
      Duration defaultTimeout) {
    this.table = table;
    this.calls = calls;
    this.routing = routing;
    this.retry = retry;
    this.defaultTimeout = defaultTimeout;
  }

  /** See {@link RemoteCatalog#call(String, Object, CallOptions)}. */
  CompletableFuture<ResponseEnvelope<JsonNode>> call(
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

  /** See {@link RemoteCatalog#subscribe(String, Object, CallOptions)}. */
  Flow.Publisher<ResponseEnvelope<JsonNode>> subscribe(
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

  /** A node is gone: its calls in flight fail now, with {@code why} (UNAVAILABLE). */
  void nodeLost(String nodeId, CallError why) {
    Set<Attempt> attempts = inFlight.remove(nodeId);
    if (attempts != null) {
      for (Attempt attempt : attempts) {
        attempt.signal.cancel(why);
      }
    }
  }

  /** Fails the calls in flight with UNAVAILABLE (telling their nodes) and refuses new ones. */
  void close() {
    closed = true;
    calls.close();
  }

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
}
