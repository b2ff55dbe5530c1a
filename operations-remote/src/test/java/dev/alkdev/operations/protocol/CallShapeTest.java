package dev.alkdev.operations.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A caller that uses the other call shape than the operation's type (docs/protocol.md, "Unary
 * callers and streaming operations"): nothing leaks and nothing hangs.
 */
class CallShapeTest {
  final InProcessPubSub pubsub = InProcessPubSub.create();
  final OperationRegistry registry = OperationRegistry.create();
  final CallHandler handler = CallHandler.serve(registry, pubsub);
  final PendingRequestMap calls = PendingRequestMap.create(pubsub);

  @AfterEach
  void close() {
    calls.close();
    handler.close();
    registry.close();
    pubsub.close();
  }

  @Test
  void aUnaryCallToAnEndlessStreamGetsTheFirstItemAndStopsTheStream() throws Exception {
    AtomicBoolean stopped = new AtomicBoolean();
    registry.register(
        OperationSpec.builder("demo", "ticks").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, em) -> {
              try {
                for (int i = 0; ; i++) {
                  em.emit(i);
                  Thread.sleep(1); // slow enough never to fill the caller's inbox
                }
              } finally {
                stopped.set(true);
              }
            }));
    ResponseEnvelope<JsonNode> first = calls.call("demo.ticks", null).get(5, TimeUnit.SECONDS);
    assertThat(first.data().asInt()).isZero();
    // The second item finds no pending call; the caller aborts the stream once.
    for (int i = 0; i < 250 && (!stopped.get() || handler.stats().pending() > 0); i++) {
      Thread.sleep(20);
    }
    assertThat(stopped).isTrue();
    assertThat(handler.stats().pending()).isZero();
    assertThat(calls.stats().pending()).isZero();
    assertThat(calls.stats().late()).isBetween(1L, 100L);
  }

  @Test
  void aStreamOfAUnaryOperationIsOneItemLong() throws Exception {
    registry.register(OperationSpec.builder("demo", "echo").build(), (in, ctx) -> in);
    List<Integer> items = new CopyOnWriteArrayList<>();
    CountDownLatch completed = new CountDownLatch(1);
    calls
        .subscribe("demo.echo", 42)
        .subscribe(
            new Flow.Subscriber<>() {
              @Override
              public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(10);
              }

              @Override
              public void onNext(ResponseEnvelope<JsonNode> item) {
                items.add(item.data().asInt());
              }

              @Override
              public void onError(Throwable throwable) {}

              @Override
              public void onComplete() {
                completed.countDown();
              }
            });
    assertThat(completed.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(items).containsExactly(42);
    assertThat(calls.stats().pending()).isZero();
  }
}
