package dev.alkdev.operations.springai;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;

/**
 * Takes the first items of a SUBSCRIPTION for a model, which cannot hold a stream open: it asks for
 * at most {@code maxItems}, waits at most a window, and then cancels the subscription, which
 * releases the handler (an emitter's {@code emit} throws, its thread is interrupted).
 */
final class StreamCollector implements Flow.Subscriber<ResponseEnvelope<JsonNode>> {

  /**
   * What the stream gave before it was cut off.
   *
   * @param items the items' data, in order
   * @param complete whether the stream ended by itself (rather than being cancelled here)
   * @param error the failure that ended the stream, if it failed
   */
  record Result(List<JsonNode> items, boolean complete, CallError error) {}

  private final int maxItems;
  private final List<JsonNode> items = new ArrayList<>(); // guarded by this
  private final CompletableFuture<Boolean> ended = new CompletableFuture<>(); // true: completed
  private Flow.Subscription subscription; // guarded by this
  private boolean cancelled; // guarded by this

  StreamCollector(int maxItems) {
    this.maxItems = maxItems;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    boolean cancelNow;
    synchronized (this) {
      this.subscription = subscription;
      cancelNow = cancelled; // the window may close before the publisher calls back
    }
    if (cancelNow) {
      subscription.cancel();
    } else {
      subscription.request(maxItems);
    }
  }

  @Override
  public void onNext(ResponseEnvelope<JsonNode> item) {
    boolean full;
    synchronized (this) {
      if (items.size() < maxItems) {
        JsonNode data = item.data();
        items.add(data == null ? NullNode.getInstance() : data);
      }
      full = items.size() >= maxItems;
    }
    if (full) {
      cancel();
      ended.complete(false);
    }
  }

  @Override
  public void onError(Throwable error) {
    ended.completeExceptionally(error);
  }

  @Override
  public void onComplete() {
    ended.complete(true);
  }

  /**
   * Waits until the stream ends, {@code maxItems} have come, or {@code window} has passed; the
   * subscription is cancelled unless the stream ended by itself.
   */
  Result await(Duration window) {
    boolean complete = false;
    CallError error = null;
    try {
      complete = ended.get(window.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      // The window closed: what came so far is the answer.
    } catch (ExecutionException e) {
      error = CallError.from(e.getCause(), ErrorCode.EXECUTION_ERROR, "The stream failed");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      error = CallError.of(ErrorCode.CANCELLED, "The tool call was interrupted");
    } finally {
      if (!complete) {
        cancel();
      }
    }
    synchronized (this) {
      return new Result(List.copyOf(items), complete, error);
    }
  }

  private void cancel() {
    Flow.Subscription current;
    synchronized (this) {
      if (cancelled) {
        return;
      }
      cancelled = true;
      current = subscription;
    }
    if (current != null) {
      current.cancel();
    }
  }
}
