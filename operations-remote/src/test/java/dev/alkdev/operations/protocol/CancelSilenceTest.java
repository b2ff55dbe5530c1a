package dev.alkdev.operations.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * After {@code cancel()} a subscriber hears nothing more: no item, no end (docs/protocol.md section
 * 8, Reactive Streams §3.7 and §3.12; issue 14, finding 3: 2,772 items in 3 s after cancel before).
 * The stream is endless and fast, and the subscriber asks for everything, so the caller always has
 * items at hand when the cancel comes.
 */
class CancelSilenceTest {
  static final int ROUNDS = 200;

  final InProcessPubSub pubsub = InProcessPubSub.create();
  final OperationRegistry registry = OperationRegistry.create();
  final CallHandler handler = CallHandler.serve(registry, pubsub);
  final PendingRequestMap calls = PendingRequestMap.create(pubsub);

  @BeforeEach
  void register() {
    registry.register(
        OperationSpec.builder("demo", "endless").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, em) -> {
              for (long i = 0; !em.isCancelled(); i++) {
                em.emit(i);
              }
            }));
  }

  @AfterEach
  void close() {
    calls.close();
    handler.close();
    registry.close();
    pubsub.close();
  }

  /** Counts every signal, and those that began after cancel() had returned. */
  static final class Counting implements Flow.Subscriber<ResponseEnvelope<JsonNode>> {
    final int cancelInsideAt; // 0: the test cancels from its own thread
    final CountDownLatch running = new CountDownLatch(1);
    final CountDownLatch cancelled = new CountDownLatch(1);
    final AtomicInteger items = new AtomicInteger();
    final AtomicInteger afterCancel = new AtomicInteger();
    volatile Flow.Subscription subscription;
    volatile boolean cancelReturned;

    Counting(int cancelInsideAt) {
      this.cancelInsideAt = cancelInsideAt;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(ResponseEnvelope<JsonNode> item) {
      signal();
      int n = items.incrementAndGet();
      if (n == 10) {
        running.countDown();
      }
      if (n == cancelInsideAt) {
        cancel();
      }
    }

    @Override
    public void onError(Throwable t) {
      signal();
    }

    @Override
    public void onComplete() {
      signal();
    }

    void cancel() {
      subscription.cancel();
      cancelReturned = true;
      cancelled.countDown();
    }

    private void signal() {
      if (cancelReturned) {
        afterCancel.incrementAndGet();
      }
    }
  }

  @Test
  void cancelFromInsideOnNextEndsEverySignal() throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      Counting subscriber = new Counting(20 + round % 50);
      calls.subscribe("demo.endless", null).subscribe(subscriber);
      assertThat(subscriber.cancelled.await(10, TimeUnit.SECONDS)).isTrue();
      StreamWindowTest.pause(round % 20 == 0 ? 20 : 0); // now and then, time for stragglers
      assertThat(subscriber.afterCancel.get()).as("signals after cancel, round " + round).isZero();
    }
    StreamWindowTest.pause(50);
    assertThat(calls.stats().pending()).isZero();
  }

  @Test
  void cancelFromAnotherThreadEndsEverySignal() throws Exception {
    int[] itemsAtCancel = new int[ROUNDS];
    Counting[] subscribers = new Counting[ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
      Counting subscriber = new Counting(0);
      subscribers[round] = subscriber;
      calls.subscribe("demo.endless", null).subscribe(subscriber);
      assertThat(subscriber.running.await(10, TimeUnit.SECONDS)).isTrue();
      subscriber.cancel();
      itemsAtCancel[round] = subscriber.items.get();
    }
    StreamWindowTest.pause(100); // time for anything that would still come
    for (int round = 0; round < ROUNDS; round++) {
      assertThat(subscribers[round].afterCancel.get())
          .as("signals after cancel, round " + round)
          .isZero();
      // At most the one onNext that had begun as cancel() ran may finish counting after it.
      assertThat(subscribers[round].items.get()).isLessThanOrEqualTo(itemsAtCancel[round] + 1);
    }
    assertThat(calls.stats().pending()).isZero();
  }
}
