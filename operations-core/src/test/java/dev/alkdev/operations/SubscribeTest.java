package dev.alkdev.operations;

import static dev.alkdev.operations.OperationRegistryTest.json;
import static dev.alkdev.operations.OperationRegistryTest.spec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.HttpResponseMeta;
import dev.alkdev.operations.envelope.LocalResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class SubscribeTest {
  private final OperationRegistry registry = OperationRegistry.create();

  @AfterEach
  void close() {
    registry.close();
  }

  /**
   * A publisher of 0..count-1 that honours demand exactly, emits on the requesting thread, and
   * records its release (the seeds' finally block) and the most it was ever asked for.
   */
  static final class RangePublisher implements Flow.Publisher<Integer> {
    final int count;
    final AtomicBoolean released = new AtomicBoolean();
    final AtomicLong requested = new AtomicLong();

    RangePublisher(int count) {
      this.count = count;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super Integer> subscriber) {
      subscriber.onSubscribe(
          new Flow.Subscription() {
            int next;
            long demand;
            boolean emitting;
            boolean done;

            @Override
            public synchronized void request(long n) {
              requested.addAndGet(n);
              demand += n;
              if (emitting) {
                return;
              }
              emitting = true;
              while (demand > 0 && !done && next < count) {
                demand--;
                subscriber.onNext(next++);
              }
              if (!done && next == count) {
                done = true;
                released.set(true);
                subscriber.onComplete();
              }
              emitting = false;
            }

            @Override
            public synchronized void cancel() {
              done = true;
              released.set(true);
            }
          });
    }
  }

  @Test
  void wrapsEveryItemInItsOwnLocalEnvelope() throws Exception {
    RangePublisher source = new RangePublisher(3);
    registry.register(
        spec("demo.range").type(OperationType.SUBSCRIPTION).build(),
        Handler.publisher((in, ctx) -> source));
    TestSubscriber<ResponseEnvelope<JsonNode>> sub = new TestSubscriber<>(Long.MAX_VALUE);
    registry.subscribe("demo.range", null).subscribe(sub);
    assertThat(sub.awaitTerminal()).isTrue();
    assertThat(sub.completed).isTrue();
    assertThat(sub.items).extracting(e -> e.data().asInt()).containsExactly(0, 1, 2);
    assertThat(sub.items)
        .allSatisfy(
            e -> assertThat(((LocalResponseMeta) e.meta()).operationId()).isEqualTo("demo.range"));
    assertThat(source.released).isTrue();
  }

  @Test
  void envelopesYieldedByTheHandlerPassThrough() throws Exception {
    registry.register(
        spec("sse.events").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, em) -> {
              em.emit(
                  Envelopes.httpEnvelope(json("{\"n\":1}"), 200, Map.of(), "text/event-stream"));
              em.emit("raw");
            }));
    TestSubscriber<ResponseEnvelope<JsonNode>> sub = new TestSubscriber<>(10);
    registry.subscribe("sse.events", null).subscribe(sub);
    assertThat(sub.awaitTerminal()).isTrue();
    assertThat(sub.items.get(0).meta()).isInstanceOf(HttpResponseMeta.class);
    assertThat(sub.items.get(1).meta()).isInstanceOf(LocalResponseMeta.class);
  }

  @Test
  void eachItemIsCastToTheOutputSchema() throws Exception {
    registry.register(
        spec("demo.counts")
            .type(OperationType.SUBSCRIPTION)
            .outputSchema("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}")
            .build(),
        Handler.emitter((in, ctx, em) -> em.emit(Map.of("n", "5", "noise", true))));
    TestSubscriber<ResponseEnvelope<JsonNode>> sub = new TestSubscriber<>(1);
    registry.subscribe("demo.counts", null).subscribe(sub);
    assertThat(sub.awaitTerminal()).isTrue();
    assertThat(sub.items)
        .singleElement()
        .extracting(ResponseEnvelope::data)
        .isEqualTo(json("{\"n\":5}"));
  }

  @Test
  void backpressureIsPassedToThePublisher() throws Exception {
    RangePublisher source = new RangePublisher(1_000);
    registry.register(
        spec("demo.range").type(OperationType.SUBSCRIPTION).build(),
        Handler.publisher((in, ctx) -> source));
    TestSubscriber<ResponseEnvelope<JsonNode>> sub = new TestSubscriber<>(2);
    registry.subscribe("demo.range", null).subscribe(sub);
    sub.awaitItems(2);
    Thread.sleep(50);
    assertThat(sub.items).hasSize(2);
    assertThat(source.requested.get()).isEqualTo(2);
    sub.request(3);
    sub.awaitItems(5);
    assertThat(sub.items).hasSize(5);
    sub.cancel();
    assertThat(source.released).isTrue();
  }

  @Test
  void emitterWaitsForDemandAndCancellingRunsItsFinallyBlock() throws Exception {
    AtomicInteger emitted = new AtomicInteger();
    CountDownLatch released = new CountDownLatch(1);
    registry.register(
        spec("demo.forever").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, em) -> {
              try {
                for (int i = 0; ; i++) {
                  em.emit(i);
                  emitted.incrementAndGet();
                }
              } finally {
                released.countDown();
              }
            }));
    TestSubscriber<ResponseEnvelope<JsonNode>> sub = new TestSubscriber<>(3);
    registry.subscribe("demo.forever", null).subscribe(sub);
    sub.awaitItems(3);
    Thread.sleep(50);
    assertThat(emitted.get()).isEqualTo(3); // the fourth emit waits for demand
    sub.cancel();
    assertThat(released.await(2, TimeUnit.SECONDS)).isTrue();
    assertThat(sub.error).isNull();
    assertThat(sub.completed).isFalse();
  }

  @Test
  void aHandlerErrorEndsTheStreamWithThatError() throws Exception {
    CallError unavailable = CallError.of(ErrorCode.UNAVAILABLE, "feed dropped");
    registry.register(
        spec("demo.failing").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, em) -> {
              em.emit(1);
              throw unavailable;
            }));
    TestSubscriber<ResponseEnvelope<JsonNode>> sub = new TestSubscriber<>(10);
    registry.subscribe("demo.failing", null).subscribe(sub);
    assertThat(sub.awaitTerminal()).isTrue();
    assertThat(sub.items).hasSize(1);
    assertThat(sub.error).isSameAs(unavailable);
  }

  @Test
  void theDeadlineEndsAStreamAndReleasesTheHandler() throws Exception {
    RangePublisher source = new RangePublisher(Integer.MAX_VALUE);
    registry.register(
        spec("demo.range").type(OperationType.SUBSCRIPTION).build(),
        Handler.publisher((in, ctx) -> source));
    TestSubscriber<ResponseEnvelope<JsonNode>> sub = new TestSubscriber<>(1);
    OperationContext context = OperationContext.builder().timeout(Duration.ofMillis(100)).build();
    registry.subscribe("demo.range", null, context).subscribe(sub);
    assertThat(sub.awaitTerminal()).isTrue();
    assertThat(((CallError) sub.error).code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
    assertThat(source.released).isTrue();
  }

  @Test
  void anEmitterThatStopsWhenItSeesItsDeadlineEndsTheStreamWithDeadlineExceeded() throws Exception {
    // The emitter polls isCancelled(), which turns true once the deadline has passed, and returns
    // normally: the stream was cut, not finished, so the subscriber must hear DEADLINE_EXCEEDED
    // rather than a completion (however late the shared deadline timer fires).
    registry.register(
        spec("demo.polling").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, em) -> {
              while (!em.isCancelled()) {
                Thread.sleep(5);
              }
            }));
    for (int round = 0; round < 5; round++) {
      TestSubscriber<ResponseEnvelope<JsonNode>> sub = new TestSubscriber<>(1);
      OperationContext context = OperationContext.builder().timeout(Duration.ofMillis(50)).build();
      registry.subscribe("demo.polling", null, context).subscribe(sub);
      assertThat(sub.awaitTerminal()).isTrue();
      assertThat(sub.completed).isFalse();
      assertThat(((CallError) sub.error).code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
    }
  }

  @Test
  void aPublisherThatIgnoresDemandIsStopped() throws Exception {
    Flow.Publisher<Integer> rude =
        subscriber -> {
          subscriber.onSubscribe(
              new Flow.Subscription() {
                @Override
                public void request(long n) {}

                @Override
                public void cancel() {}
              });
          subscriber.onNext(1); // never requested
        };
    registry.register(
        spec("demo.rude").type(OperationType.SUBSCRIPTION).build(),
        Handler.publisher((in, ctx) -> rude));
    TestSubscriber<ResponseEnvelope<JsonNode>> sub = new TestSubscriber<>(0);
    registry.subscribe("demo.rude", null).subscribe(sub);
    assertThat(sub.awaitTerminal()).isTrue();
    assertThat(sub.items).isEmpty();
    assertThat(sub.error).hasMessageContaining("more items than were requested");
  }

  @Test
  void invalidInputAndUnknownOperationsFailTheSubscriber() throws Exception {
    registry.register(
        spec("demo.typed")
            .type(OperationType.SUBSCRIPTION)
            .inputSchema("{\"type\":\"object\",\"required\":[\"n\"]}")
            .build(),
        Handler.emitter((in, ctx, em) -> {}));
    TestSubscriber<ResponseEnvelope<JsonNode>> bad = new TestSubscriber<>(1);
    registry.subscribe("demo.typed", Map.of()).subscribe(bad);
    assertThat(bad.awaitTerminal()).isTrue();
    assertThat(((CallError) bad.error).code()).isEqualTo(ErrorCode.INVALID_INPUT);

    TestSubscriber<ResponseEnvelope<JsonNode>> missing = new TestSubscriber<>(1);
    registry.subscribe("demo.missing", null).subscribe(missing);
    assertThat(missing.awaitTerminal()).isTrue();
    assertThat(((CallError) missing.error).code()).isEqualTo(ErrorCode.OPERATION_NOT_FOUND);

    registry.register(spec("demo.unary").build(), (in, ctx) -> 1);
    TestSubscriber<ResponseEnvelope<JsonNode>> unary = new TestSubscriber<>(1);
    registry.subscribe("demo.unary", null).subscribe(unary);
    assertThat(unary.awaitTerminal()).isTrue();
    assertThat(unary.error).hasMessageContaining("call execute()");
  }

  @Test
  void eachSubscriberRunsTheHandlerAgain() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    registry.register(
        spec("demo.cold").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter((in, ctx, em) -> em.emit(runs.incrementAndGet())));
    Flow.Publisher<ResponseEnvelope<JsonNode>> stream = registry.subscribe("demo.cold", null);
    assertThat(runs.get()).isZero(); // nothing runs before someone subscribes
    for (int i = 1; i <= 2; i++) {
      TestSubscriber<ResponseEnvelope<JsonNode>> sub = new TestSubscriber<>(1);
      stream.subscribe(sub);
      assertThat(sub.awaitTerminal()).isTrue();
      assertThat(sub.items).singleElement().extracting(e -> e.data().asInt()).isEqualTo(i);
    }
  }

  @Test
  void requestingZeroIsAnError() throws Exception {
    registry.register(
        spec("demo.range").type(OperationType.SUBSCRIPTION).build(),
        Handler.publisher((in, ctx) -> new RangePublisher(5)));
    TestSubscriber<ResponseEnvelope<JsonNode>> sub = new TestSubscriber<>(0);
    registry.subscribe("demo.range", null).subscribe(sub);
    sub.request(0);
    assertThat(sub.awaitTerminal()).isTrue();
    assertThat(sub.error).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3.9");
  }
}
