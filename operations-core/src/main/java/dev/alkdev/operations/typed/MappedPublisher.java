package dev.alkdev.operations.typed;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.util.Objects;
import java.util.concurrent.Flow;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * A stream of envelopes as a stream of typed items. Demand and cancellation pass straight through,
 * so the stream is backpressured exactly as the caller's own {@code subscribe} is. An item that
 * cannot be converted cancels the stream and fails the subscriber with that error, once.
 */
final class MappedPublisher<R> implements Flow.Publisher<R> {
  private final Flow.Publisher<ResponseEnvelope<JsonNode>> source;
  private final Function<ResponseEnvelope<JsonNode>, R> convert;

  MappedPublisher(
      Flow.Publisher<ResponseEnvelope<JsonNode>> source,
      Function<ResponseEnvelope<JsonNode>, R> convert) {
    this.source = source;
    this.convert = convert;
  }

  @Override
  public void subscribe(Flow.Subscriber<? super R> subscriber) {
    Objects.requireNonNull(subscriber, "subscriber");
    source.subscribe(new Mapping<>(subscriber, convert));
  }

  /**
   * Signals arrive serially (the Reactive Streams rule every source here keeps), so the done flag
   * needs no lock; it is volatile only for the cancel that may come from the subscriber's thread.
   */
  private static final class Mapping<R> implements Flow.Subscriber<ResponseEnvelope<JsonNode>> {
    private final Flow.Subscriber<? super R> downstream;
    private final Function<ResponseEnvelope<JsonNode>, R> convert;
    private Flow.Subscription upstream;
    private volatile boolean done;

    Mapping(
        Flow.Subscriber<? super R> downstream, Function<ResponseEnvelope<JsonNode>, R> convert) {
      this.downstream = downstream;
      this.convert = convert;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      upstream = subscription;
      downstream.onSubscribe(subscription);
    }

    @Override
    public void onNext(ResponseEnvelope<JsonNode> item) {
      if (done) {
        return;
      }
      R converted;
      try {
        converted = convert.apply(item);
      } catch (CallError e) {
        done = true;
        upstream.cancel();
        downstream.onError(e);
        return;
      }
      downstream.onNext(converted);
    }

    @Override
    public void onError(Throwable error) {
      if (!done) {
        done = true;
        downstream.onError(error);
      }
    }

    @Override
    public void onComplete() {
      if (!done) {
        done = true;
        downstream.onComplete();
      }
    }
  }
}
