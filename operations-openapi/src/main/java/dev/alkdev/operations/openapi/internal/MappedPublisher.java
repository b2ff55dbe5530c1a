package dev.alkdev.operations.openapi.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import java.util.Objects;
import java.util.concurrent.Flow;
import java.util.function.Function;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A publisher whose items are another publisher's, mapped one to one; demand and cancellation pass
 * straight through. Used to turn SSE events into subscription items (see {@link #sseItem}).
 */
public final class MappedPublisher<T, R> implements Flow.Publisher<R> {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final Flow.Publisher<T> upstream;
  private final Function<? super T, ? extends R> mapper;

  private MappedPublisher(Flow.Publisher<T> upstream, Function<? super T, ? extends R> mapper) {
    this.upstream = Objects.requireNonNull(upstream, "upstream");
    this.mapper = Objects.requireNonNull(mapper, "mapper");
  }

  public static <T, R> Flow.Publisher<R> map(
      Flow.Publisher<T> upstream, Function<? super T, ? extends R> mapper) {
    return new MappedPublisher<>(upstream, mapper);
  }

  /**
   * The subscription item of an SSE event's {@code data}: its JSON value when it is JSON, else the
   * text as a JSON string.
   */
  public static JsonNode sseItem(String data) {
    try {
      JsonNode node = JSON.readTree(data);
      if (node != null && !node.isMissingNode()) {
        return node;
      }
    } catch (JacksonException e) {
      // not JSON: the text itself
    }
    return JSON.getNodeFactory().stringNode(data);
  }

  @Override
  public void subscribe(Flow.Subscriber<? super R> subscriber) {
    upstream.subscribe(
        new Flow.Subscriber<T>() {
          private Flow.Subscription subscription;
          private boolean done;

          @Override
          public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            subscriber.onSubscribe(s);
          }

          @Override
          public void onNext(T item) {
            if (done) {
              return;
            }
            R mapped;
            try {
              mapped = mapper.apply(item);
            } catch (RuntimeException e) {
              done = true;
              subscription.cancel();
              subscriber.onError(
                  e instanceof CallError
                      ? e
                      : CallError.of(ErrorCode.EXECUTION_ERROR, "cannot map stream item: " + e, e));
              return;
            }
            subscriber.onNext(mapped);
          }

          @Override
          public void onError(Throwable throwable) {
            if (!done) {
              done = true;
              subscriber.onError(throwable);
            }
          }

          @Override
          public void onComplete() {
            if (!done) {
              done = true;
              subscriber.onComplete();
            }
          }
        });
  }
}
