package dev.alkdev.operations.testing;

import static org.assertj.core.api.Assertions.fail;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;

/**
 * A stream subscriber for tests: records every signal, requests only what it is told to (after an
 * optional first request), and notes every breach of the Flow rules it can see (signals that
 * overlap, signals after the end, a second onSubscribe). Every wait is bounded.
 */
final class StreamRecorder implements Flow.Subscriber<ResponseEnvelope<JsonNode>> {
  private final long initialRequest;
  private final Duration wait;
  private final BlockingQueue<ResponseEnvelope<JsonNode>> unread = new LinkedBlockingQueue<>();
  private final List<ResponseEnvelope<JsonNode>> received = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Flow.Subscription> subscription = new CompletableFuture<>();
  private final CompletableFuture<Void> terminal = new CompletableFuture<>();
  private final AtomicInteger inSignal = new AtomicInteger();
  private final List<String> violations = new CopyOnWriteArrayList<>();

  /**
   * @param initialRequest what onSubscribe requests; 0 requests nothing
   * @param wait the longest any wait of this recorder takes
   */
  StreamRecorder(long initialRequest, Duration wait) {
    this.initialRequest = initialRequest;
    this.wait = wait;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    enter("onSubscribe");
    try {
      if (!subscription.complete(s)) {
        violations.add("onSubscribe was called twice");
        s.cancel();
        return;
      }
      if (initialRequest > 0) {
        s.request(initialRequest);
      }
    } finally {
      exit();
    }
  }

  @Override
  public void onNext(ResponseEnvelope<JsonNode> item) {
    enter("onNext");
    try {
      if (item == null) {
        violations.add("onNext(null)");
      }
      received.add(item);
      unread.add(item);
    } finally {
      exit();
    }
  }

  @Override
  public void onError(Throwable error) {
    enter("onError");
    try {
      terminal.completeExceptionally(error);
    } finally {
      exit();
    }
  }

  @Override
  public void onComplete() {
    enter("onComplete");
    try {
      terminal.complete(null);
    } finally {
      exit();
    }
  }

  private void enter(String signal) {
    if (inSignal.incrementAndGet() != 1) {
      violations.add(signal + " overlapped another signal");
    }
    if (terminal.isDone()) {
      violations.add(signal + " arrived after the stream ended");
    }
    if (!signal.equals("onSubscribe") && !subscription.isDone()) {
      violations.add(signal + " arrived before onSubscribe");
    }
  }

  private void exit() {
    inSignal.decrementAndGet();
  }

  /** The subscription, once onSubscribe has run. */
  Flow.Subscription subscription() {
    try {
      return subscription.get(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return fail("onSubscribe did not arrive within " + wait);
    } catch (InterruptedException | ExecutionException e) {
      return fail("waiting for onSubscribe failed", e);
    }
  }

  void request(long n) {
    subscription().request(n);
  }

  void cancel() {
    subscription().cancel();
  }

  /** The next item not yet read, waiting for it. */
  ResponseEnvelope<JsonNode> next() {
    try {
      ResponseEnvelope<JsonNode> item = unread.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
      if (item == null) {
        return fail(
            "no item within "
                + wait
                + " ("
                + received.size()
                + " received, terminal: "
                + describeTerminal()
                + ")");
      }
      return item;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fail("interrupted while waiting for an item");
    }
  }

  /** Waits for onComplete and returns every item received. */
  List<ResponseEnvelope<JsonNode>> awaitCompletion() {
    try {
      terminal.get(wait.toMillis(), TimeUnit.MILLISECONDS);
      return List.copyOf(received);
    } catch (ExecutionException e) {
      return fail("the stream failed instead of completing: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      return fail(
          "the stream did not complete within " + wait + " (" + received.size() + " items)");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fail("interrupted");
    }
  }

  /** Waits for onError and returns its error, which must be a {@link CallError}. */
  CallError awaitError() {
    try {
      terminal.get(wait.toMillis(), TimeUnit.MILLISECONDS);
      return fail("the stream completed instead of failing (" + received.size() + " items)");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof CallError error) {
        return error;
      }
      return fail("the stream failed with " + e.getCause() + ", not a CallError", e.getCause());
    } catch (TimeoutException e) {
      return fail("the stream did not fail within " + wait + " (" + received.size() + " items)");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fail("interrupted");
    }
  }

  boolean isTerminated() {
    return terminal.isDone();
  }

  List<ResponseEnvelope<JsonNode>> received() {
    return List.copyOf(received);
  }

  /** Every breach of the Flow rules seen so far; empty when the publisher behaved. */
  List<String> violations() {
    return List.copyOf(violations);
  }

  private String describeTerminal() {
    if (!terminal.isDone()) {
      return "none";
    }
    return terminal.isCompletedExceptionally() ? "error" : "complete";
  }
}
