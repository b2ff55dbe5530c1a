package dev.alkdev.operations.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/** demo.clock ticks from a timer: it keeps to its count and its consumer's demand. */
@Timeout(30)
class ClockTicksTest {

  @Test
  void ticksTheirCountThenComplete() throws Exception {
    try (DemoSource demo = new DemoSource();
        OperationRegistry registry = OperationRegistry.create()) {
      demo.load(registry).join();
      Recorder recorder = new Recorder(Long.MAX_VALUE);
      registry.subscribe("demo.clock", Map.of("ticks", 4, "intervalMs", 5)).subscribe(recorder);
      recorder.ended.get(10, TimeUnit.SECONDS);
      assertThat(recorder.items)
          .extracting(item -> item.path("tick").asInt())
          .containsExactly(1, 2, 3, 4);
    }
  }

  @Test
  void aTickWithoutDemandWaitsForIt() throws Exception {
    try (DemoSource demo = new DemoSource();
        OperationRegistry registry = OperationRegistry.create()) {
      demo.load(registry).join();
      Recorder recorder = new Recorder(1);
      registry.subscribe("demo.clock", Map.of("ticks", 3, "intervalMs", 1)).subscribe(recorder);
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (recorder.items.isEmpty() && System.nanoTime() < end) {
        Thread.sleep(5);
      }
      Thread.sleep(100); // ticks fall due meanwhile, without demand
      assertThat(recorder.items).hasSize(1);
      recorder.subscription.request(5);
      recorder.ended.get(10, TimeUnit.SECONDS);
      assertThat(recorder.items)
          .extracting(item -> item.path("tick").asInt())
          .containsExactly(1, 2, 3);
    }
  }

  static final class Recorder implements Flow.Subscriber<ResponseEnvelope<JsonNode>> {
    final List<JsonNode> items = new CopyOnWriteArrayList<>();
    final CompletableFuture<Void> ended = new CompletableFuture<>();
    final long demand;
    volatile Flow.Subscription subscription;

    Recorder(long demand) {
      this.demand = demand;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
      subscription.request(demand);
    }

    @Override
    public void onNext(ResponseEnvelope<JsonNode> item) {
      items.add(item.data());
    }

    @Override
    public void onError(Throwable error) {
      ended.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
      ended.complete(null);
    }
  }
}
