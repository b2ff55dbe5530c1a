package dev.alkdev.operations.internal.flow;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallObserver;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.util.Optional;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * Passes a stream to its subscriber and tells an interceptor chain's observer about it: each item,
 * and one end (completed, failed, or cancelled by the subscriber). The observer hears each signal
 * before the subscriber does, so what it records is in place when the subscriber reacts.
 */
public final class ObservedSubscriber implements Flow.Subscriber<ResponseEnvelope<JsonNode>> {
  private static final CallError SUBSCRIBER_CANCELLED =
      CallError.builder(ErrorCode.CANCELLED, "The subscriber cancelled").build();

  private final Flow.Subscriber<? super ResponseEnvelope<JsonNode>> downstream;
  private final CallObserver observer;
  private final Function<Throwable, CallError> asCallError;
  private final AtomicBoolean ended = new AtomicBoolean();

  public ObservedSubscriber(
      Flow.Subscriber<? super ResponseEnvelope<JsonNode>> downstream,
      CallObserver observer,
      Function<Throwable, CallError> asCallError) {
    this.downstream = downstream;
    this.observer = observer;
    this.asCallError = asCallError;
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
            if (ended.compareAndSet(false, true)) {
              observer.onEnd(Optional.of(SUBSCRIBER_CANCELLED));
            }
            subscription.cancel();
          }
        });
  }

  @Override
  public void onNext(ResponseEnvelope<JsonNode> item) {
    if (!ended.get()) {
      observer.onItem(item);
    }
    downstream.onNext(item);
  }

  @Override
  public void onError(Throwable error) {
    if (ended.compareAndSet(false, true)) {
      observer.onEnd(Optional.of(asCallError.apply(error)));
    }
    downstream.onError(error);
  }

  @Override
  public void onComplete() {
    if (ended.compareAndSet(false, true)) {
      observer.onEnd(Optional.empty());
    }
    downstream.onComplete();
  }
}
