package dev.alkdev.operations.internal.flow;

import java.util.concurrent.Flow;

/** Small helpers for {@link Flow} code. */
public final class Subscriptions {
  private Subscriptions() {}

  /** A subscription that does nothing: for streams that end before they start. */
  public static final Flow.Subscription EMPTY =
      new Flow.Subscription() {
        @Override
        public void request(long n) {}

        @Override
        public void cancel() {}
      };

  /** Fails a subscriber at once, as §1.9 requires: onSubscribe first, then onError. */
  public static void reject(Flow.Subscriber<?> subscriber, Throwable error) {
    subscriber.onSubscribe(EMPTY);
    subscriber.onError(error);
  }

  /** A publisher that fails every subscriber with {@code error}. */
  public static <T> Flow.Publisher<T> failed(Throwable error) {
    return subscriber -> reject(subscriber, error);
  }
}
