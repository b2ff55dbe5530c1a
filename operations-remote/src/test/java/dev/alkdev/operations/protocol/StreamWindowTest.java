package dev.alkdev.operations.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A subscriber that asks for everything ({@code Long.MAX_VALUE}) must not make the caller buffer
 * everything: the credit on the wire stays within the stream window, so the items received and not
 * yet delivered never exceed it (issue 14, finding 3: 664 MiB in 8 s before).
 */
class StreamWindowTest {
  static final int WINDOW = 32;

  final InProcessPubSub pubsub = InProcessPubSub.create();
  final OperationRegistry registry = OperationRegistry.create();
  final CallHandler handler = CallHandler.serve(registry, pubsub);
  final PendingRequestMap calls = PendingRequestMap.builder(pubsub).streamWindow(WINDOW).build();

  /** Every credit granted on the wire: call.requested's demand plus each call.demand's n. */
  final AtomicLong granted = new AtomicLong();

  final AtomicLong demandEvents = new AtomicLong();
  final AtomicLong emitted = new AtomicLong();
  final List<PubSub.Subscription> taps = new ArrayList<>();

  @AfterEach
  void close() {
    taps.forEach(PubSub.Subscription::close);
    calls.close();
    handler.close();
    registry.close();
    pubsub.close();
  }

  /** Counts credit as it travels, the way a serving side would read it. */
  void tapCredit(String operationId) {
    taps.add(
        pubsub.subscribe(
            ProtocolTopics.request(operationId),
            SubscribeOptions.defaults(),
            message -> {
              if (CallEvents.decode(message.payload(), pubsub.maxMessageBytes())
                  instanceof CallEvent.Requested r) {
                granted.addAndGet(r.demand().orElse(Long.MAX_VALUE));
              }
            }));
    taps.add(
        pubsub.subscribe(
            ProtocolTopics.CONTROL,
            SubscribeOptions.defaults(),
            message -> {
              if (CallEvents.decode(message.payload(), pubsub.maxMessageBytes())
                  instanceof CallEvent.Demand d) {
                demandEvents.incrementAndGet();
                granted.addAndGet(d.n());
              }
            }));
  }

  void registerEndless() {
    registry.register(
        OperationSpec.builder("demo", "endless").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, em) -> {
              for (long i = 0; !em.isCancelled(); i++) {
                em.emit(i);
                emitted.incrementAndGet();
              }
            }));
  }

  @Test
  void anUnboundedSubscriberOfAnEndlessStreamHoldsAtMostTheWindow() throws Exception {
    registerEndless();
    tapCredit("demo.endless");
    int take = 2_000;
    AtomicLong worstOutstanding = new AtomicLong();
    AtomicLong worstAhead = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);
    calls
        .subscribe("demo.endless", null)
        .subscribe(
            new Flow.Subscriber<ResponseEnvelope<JsonNode>>() {
              Flow.Subscription subscription;
              long received;

              @Override
              public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                s.request(Long.MAX_VALUE);
              }

              @Override
              public void onNext(ResponseEnvelope<JsonNode> item) {
                received++;
                assertThat(item.data().asLong()).isEqualTo(received - 1);
                // Granted minus taken bounds what waits here plus what is on its way.
                worstOutstanding.accumulateAndGet(granted.get() - received, Math::max);
                if (received % 500 == 0) {
                  // A slow moment: an unbounded caller would let the producer run far ahead now.
                  pause(50);
                  worstAhead.accumulateAndGet(emitted.get() - received, Math::max);
                }
                if (received == take) {
                  subscription.cancel();
                  done.countDown();
                }
              }

              @Override
              public void onError(Throwable t) {
                failure.set(t);
                done.countDown();
              }

              @Override
              public void onComplete() {
                done.countDown();
              }
            });
    assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(failure.get()).isNull();
    assertThat(worstOutstanding.get()).isLessThanOrEqualTo(WINDOW);
    assertThat(worstAhead.get()).isLessThanOrEqualTo(WINDOW);
    // Credit is topped up half a window at a time, not one item at a time.
    assertThat(demandEvents.get()).isLessThanOrEqualTo(take / (WINDOW / 2) + 1);
    assertThat(calls.stats().pending()).isZero();
  }

  @Test
  void aFiniteStreamLongerThanTheWindowArrivesWholeAndInOrder() throws Exception {
    int count = 10 * WINDOW + 7;
    registry.register(
        OperationSpec.builder("demo", "count").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, em) -> {
              for (int i = 0; i < count; i++) {
                em.emit(i);
              }
            }));
    tapCredit("demo.count");
    List<Integer> got = new ArrayList<>();
    CountDownLatch done = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    calls
        .subscribe("demo.count", null)
        .subscribe(
            new Flow.Subscriber<ResponseEnvelope<JsonNode>>() {
              @Override
              public void onSubscribe(Flow.Subscription s) {
                s.request(Long.MAX_VALUE);
              }

              @Override
              public void onNext(ResponseEnvelope<JsonNode> item) {
                got.add(item.data().asInt());
              }

              @Override
              public void onError(Throwable t) {
                failure.set(t);
                done.countDown();
              }

              @Override
              public void onComplete() {
                done.countDown();
              }
            });
    assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(failure.get()).isNull();
    assertThat(got).hasSize(count);
    for (int i = 0; i < count; i++) {
      assertThat(got.get(i)).isEqualTo(i);
    }
  }

  @Test
  void aSubscriberThatAsksForLessThanTheWindowIsGrantedExactlyThat() throws Exception {
    registerEndless();
    tapCredit("demo.endless");
    CountDownLatch three = new CountDownLatch(3);
    AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
    calls
        .subscribe("demo.endless", null)
        .subscribe(
            new Flow.Subscriber<ResponseEnvelope<JsonNode>>() {
              @Override
              public void onSubscribe(Flow.Subscription s) {
                subscription.set(s);
                s.request(3);
              }

              @Override
              public void onNext(ResponseEnvelope<JsonNode> item) {
                three.countDown();
              }

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onComplete() {}
            });
    assertThat(three.await(10, TimeUnit.SECONDS)).isTrue();
    pause(100); // room for a wrong extra grant to show
    assertThat(granted.get()).isEqualTo(3);
    assertThat(emitted.get()).isLessThanOrEqualTo(3);
    subscription.get().cancel();
  }

  static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
