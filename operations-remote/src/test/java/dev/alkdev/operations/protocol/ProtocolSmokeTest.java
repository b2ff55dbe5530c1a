package dev.alkdev.operations.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ProtocolSmokeTest {
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
  void unaryRoundTrip() {
    registry.register(
        OperationSpec.builder("demo", "echo").build(), (in, ctx) -> in.get("message"));
    ResponseEnvelope<JsonNode> result =
        calls.call("demo.echo", Map.of("message", "hi")).orTimeout(5, TimeUnit.SECONDS).join();
    assertThat(result.data().asString()).isEqualTo("hi");
    assertThat(calls.stats().pending()).isZero();
  }

  @Test
  void noResponders() {
    CompletionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            CompletionException.class, () -> calls.call("demo.none", null).join());
    assertThat(((CallError) e.getCause()).code()).isEqualTo(ErrorCode.NO_RESPONDERS);
  }

  @Test
  void stream() throws Exception {
    registry.register(
        OperationSpec.builder("demo", "ticks").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, em) -> {
              for (int i = 0; i < 5; i++) {
                em.emit(i);
              }
            }));
    List<Integer> got = new CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(1);
    calls
        .subscribe("demo.ticks", null)
        .subscribe(
            new Flow.Subscriber<>() {
              Flow.Subscription s;

              @Override
              public void onSubscribe(Flow.Subscription subscription) {
                s = subscription;
                s.request(1);
              }

              @Override
              public void onNext(ResponseEnvelope<JsonNode> item) {
                got.add(item.data().asInt());
                s.request(1);
              }

              @Override
              public void onError(Throwable throwable) {
                throwable.printStackTrace();
                done.countDown();
              }

              @Override
              public void onComplete() {
                done.countDown();
              }
            });
    assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(got).containsExactly(0, 1, 2, 3, 4);
  }
}
