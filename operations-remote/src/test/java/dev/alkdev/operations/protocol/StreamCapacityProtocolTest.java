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
import dev.alkdev.operations.serving.OperationServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Over the call protocol, streams that wait for demand do not stop blocking calls (issue 31,
 * finding 1: 16 stream requests with {@code demand: 1} used to block every blocking call until
 * their callers' leases ran out), and one caller's streams stop at its share while another caller's
 * still open.
 */
class StreamCapacityProtocolTest {
  final OperationRegistry registry = OperationRegistry.create(); // the registry's own lanes
  final InProcessPubSub pubsub = InProcessPubSub.create();
  final OperationServer server =
      OperationServer.builder(registry).maxStreamsPerIdentity(40).build();
  final CallHandler handler = CallHandler.builder(server, pubsub).build();

  StreamCapacityProtocolTest() {
    registry.register(
        OperationSpec.builder("demo", "ticks").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, emitter) -> {
              for (int i = 0; ; i++) {
                emitter.emit(i); // waits for demand after the first item
              }
            }));
    registry.register(
        OperationSpec.builder("demo", "block").build(),
        (in, ctx) -> {
          Thread.sleep(5);
          return "done";
        });
  }

  @AfterEach
  void close() {
    handler.close();
    server.close();
    registry.close();
    pubsub.close();
  }

  @Test
  void blockingCallsAnswerWhileStreamsWaitForDemand() throws Exception {
    try (PendingRequestMap greedy = PendingRequestMap.create(pubsub);
        PendingRequestMap other = PendingRequestMap.create(pubsub)) {
      List<CompletableFuture<?>> ends = new ArrayList<>();
      List<AwaitingSubscriber> streams = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        AwaitingSubscriber subscriber = new AwaitingSubscriber(1);
        greedy.subscribe("demo.ticks", null, CallOptions.defaults()).subscribe(subscriber);
        streams.add(subscriber);
        ends.add(subscriber.ended);
      }
      for (AwaitingSubscriber stream : streams) {
        assertThat(stream.firstItem.get(10, TimeUnit.SECONDS)).isNotNull();
      }
      assertThat(server.stats().streams()).isEqualTo(40);

      // The greedy caller is at its share: its next stream is refused, another caller's is not.
      AwaitingSubscriber refused = new AwaitingSubscriber(1);
      greedy.subscribe("demo.ticks", null, CallOptions.defaults()).subscribe(refused);
      ExecutionException error =
          org.junit.jupiter.api.Assertions.assertThrows(
              ExecutionException.class, () -> refused.ended.get(10, TimeUnit.SECONDS));
      assertThat(((CallError) error.getCause()).code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      AwaitingSubscriber admitted = new AwaitingSubscriber(1);
      other.subscribe("demo.ticks", null, CallOptions.defaults()).subscribe(admitted);
      assertThat(admitted.firstItem.get(10, TimeUnit.SECONDS)).isNotNull();
      streams.add(admitted);

      // While all of them wait for demand, blocking calls still get threads.
      List<CompletableFuture<ResponseEnvelope<JsonNode>>> calls = new ArrayList<>();
      for (int i = 0; i < 32; i++) {
        calls.add(
            other.call(
                "demo.block", null, CallOptions.defaults().withTimeout(Duration.ofSeconds(10))));
      }
      for (CompletableFuture<ResponseEnvelope<JsonNode>> call : calls) {
        assertThat(call.get(15, TimeUnit.SECONDS).data().asString()).isEqualTo("done");
      }
      for (AwaitingSubscriber stream : streams) {
        stream.cancel();
      }
    }
  }

  /** Takes {@code demand} items and asks for no more: a caller that stopped reading. */
  static final class AwaitingSubscriber implements Flow.Subscriber<ResponseEnvelope<JsonNode>> {
    final CompletableFuture<JsonNode> firstItem = new CompletableFuture<>();
    final CompletableFuture<Void> ended = new CompletableFuture<>();
    private final long demand;
    private volatile Flow.Subscription subscription;

    AwaitingSubscriber(long demand) {
      this.demand = demand;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
      subscription.request(demand);
    }

    @Override
    public void onNext(ResponseEnvelope<JsonNode> item) {
      firstItem.complete(item.data());
    }

    @Override
    public void onError(Throwable error) {
      ended.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
      ended.complete(null);
    }

    void cancel() {
      subscription.cancel();
    }
  }
}
