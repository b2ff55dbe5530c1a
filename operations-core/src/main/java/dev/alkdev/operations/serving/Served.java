package dev.alkdev.operations.serving;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallObserver;
import dev.alkdev.operations.Cancellation;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.internal.RateLimitedLog;
import java.util.Optional;
import java.util.concurrent.Flow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * One served call: the adapter's handle, and the gate between the pipeline and the adapter's sink.
 * The gate keeps the sink's promises: one signal at a time (the lock is held while the sink runs),
 * exactly one end, nothing after the end or after {@link #cancel}. Its cancellation signal is the
 * served context's, so cancelling the call cancels the handler and the calls it made.
 */
final class Served implements ServedCall, CallObserver {
  private static final Logger LOG = LoggerFactory.getLogger(Served.class);
  private static final RateLimitedLog SINK_FAILED = RateLimitedLog.of(LOG);

  private final OperationServer server;
  private final String requestId;
  private final boolean streamConsumer;
  private final CallSink sink;
  final Cancellation cancellation = Cancellation.create();

  /** The operation's counters; null for an id the registry does not know. */
  final OperationCounters counters;

  private final long startNanos;

  private final Object lock = new Object();
  private volatile boolean ended;
  private ConcurrencyLimit.Slot slot; // set while the call holds a slot and sits in the running map
  private Flow.Subscription stream;
  private long heldDemand; // demand that came before the stream's subscription

  Served(OperationServer server, CallRequest request, CallSink sink) {
    this.server = server;
    this.requestId = request.requestId();
    this.streamConsumer = request.demand().isPresent();
    this.sink = sink;
    this.counters = server.countersFor(request.operationId());
    this.startNanos = counters != null ? System.nanoTime() : 0;
  }

  @Override
  public String requestId() {
    return requestId;
  }

  @Override
  public boolean isDone() {
    return ended;
  }

  /** Records that the call holds a slot; false if it ended meanwhile (the slot goes back). */
  boolean admitted(ConcurrencyLimit.Slot taken) {
    synchronized (lock) {
      if (ended) {
        return false;
      }
      slot = taken;
      return true;
    }
  }

  // ------------------------------------------------------------------ from the adapter

  @Override
  public void request(long n) {
    if (n <= 0) {
      throw new IllegalArgumentException("demand must be positive, was " + n);
    }
    Flow.Subscription s;
    synchronized (lock) {
      if (ended) {
        return;
      }
      s = stream;
      if (s == null) {
        heldDemand = saturatedAdd(heldDemand, n);
        return;
      }
    }
    s.request(n);
  }

  @Override
  public boolean cancel(CallError reason) {
    java.util.Objects.requireNonNull(reason, "reason");
    Flow.Subscription s;
    synchronized (lock) {
      if (ended) {
        return false;
      }
      endLocked(reason.code());
      s = stream;
    }
    stop(reason, s);
    return true;
  }

  /** Why the call ended early, once it has been cancelled or shut down. */
  Optional<CallError> cancelReason() {
    return cancellation.reason();
  }

  /** Gives the sink its handle, before any other signal. */
  void start() {
    deliver(() -> sink.onStart(this));
  }

  /** Ends the call from the server's side (closing): the sink hears {@code reason}. */
  void shutDown(CallError reason) {
    Flow.Subscription s;
    synchronized (lock) {
      if (ended) {
        return;
      }
      endLocked(reason.code());
      s = stream;
      deliver(() -> sink.onError(reason));
    }
    stop(reason, s);
  }

  /** The handler first learns from its context, then a stream's subscription is cancelled. */
  private void stop(CallError reason, Flow.Subscription s) {
    cancellation.cancel(reason);
    if (s != null) {
      s.cancel();
    }
  }

  // ------------------------------------------------------------------ from the pipeline

  /** A stream started: it gets the caller's first demand, and whatever came meanwhile. */
  void attach(Flow.Subscription subscription, long initialDemand) {
    long first;
    synchronized (lock) {
      if (!ended) {
        stream = subscription;
        first = saturatedAdd(initialDemand, heldDemand);
        heldDemand = 0;
      } else {
        first = 0;
      }
    }
    if (first == 0) {
      subscription.cancel();
    } else {
      subscription.request(first);
    }
  }

  @Override
  public void onResult(ResponseEnvelope<JsonNode> result) {
    synchronized (lock) {
      if (ended) {
        return;
      }
      endLocked(null);
      if (streamConsumer) {
        // A stream consumer of a unary operation: its one item is the whole stream.
        deliver(() -> sink.onItem(result));
        deliver(sink::onComplete);
      } else {
        deliver(() -> sink.onResult(result));
      }
    }
  }

  @Override
  public void onItem(ResponseEnvelope<JsonNode> item) {
    synchronized (lock) {
      if (!ended) {
        deliver(() -> sink.onItem(item));
      }
    }
  }

  @Override
  public void onEnd(Optional<CallError> failure) {
    synchronized (lock) {
      if (ended) {
        return;
      }
      endLocked(failure.map(CallError::code).orElse(null));
      if (failure.isPresent()) {
        server.ended(failure.get());
        deliver(() -> sink.onError(failure.get()));
      } else {
        deliver(sink::onComplete);
      }
    }
  }

  /**
   * The call is over: its slot goes back before the sink hears the end, so a caller that reacts to
   * the end at once finds the slot free. The statistics count it here, once.
   *
   * @param failure the error's code, null for success
   */
  private void endLocked(ErrorCode failure) {
    ended = true;
    if (counters != null) {
      counters.ended(failure, slot != null ? System.nanoTime() - startNanos : -1);
    }
    if (slot != null) {
      server.release(this, slot);
      slot = null;
    }
  }

  private void deliver(Runnable signal) {
    try {
      signal.run();
    } catch (RuntimeException e) {
      SINK_FAILED.warn("The sink of served call {} failed", requestId, e);
    }
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }
}
