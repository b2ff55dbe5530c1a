package dev.alkdev.operations.http;

import static dev.alkdev.operations.http.GatewayTestSupport.JSON;
import static dev.alkdev.operations.http.GatewayTestSupport.get;
import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.sse.SseEvent;
import dev.alkdev.operations.sse.SseLimits;
import dev.alkdev.operations.sse.SseParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * A publisher that answers each request at once, on the requesting thread (the gateway's drain, as
 * the stream benchmark's does): its items must arrive all, in order, numbered, across many batches
 * and writes.
 */
class SynchronousStreamTest {
  @Test
  void itemsOfAProducerAnsweringOnTheDrainsThreadArriveAllInOrder() throws Exception {
    int count = 20_000; // about 600 KB of events: many batches and writes
    try (OperationRegistry registry = OperationRegistry.create()) {
      registry.register(
          OperationSpec.builder("sync", "range")
              .type(OperationType.SUBSCRIPTION)
              .outputSchema("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}")
              .build(),
          Handler.publisher((input, ctx) -> range(count)));
      try (HttpGateway gateway = HttpGateway.builder(registry).console(false).start()) {
        String body = get(gateway, "/ops/sync.range").body();
        List<SseEvent> events = new ArrayList<>();
        SseParser parser = SseParser.create(SseLimits.defaults(), events::add);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        parser.feed(bytes, 0, bytes.length);
        parser.end();
        assertThat(events).hasSize(count + 1);
        for (int i = 0; i < count; i++) {
          assertThat(events.get(i).id()).hasValue(Integer.toString(i + 1));
          assertThat(JSON.readTree(events.get(i).data()).at("/data/n").asInt()).isEqualTo(i + 1);
        }
        assertThat(events.get(count).type()).isEqualTo("call.completed");
      }
    }
  }

  /** Items 1..count, each emitted inside the request that asked for it. */
  private static Flow.Publisher<Object> range(int count) {
    return subscriber ->
        subscriber.onSubscribe(
            new Flow.Subscription() {
              private final AtomicLong demand = new AtomicLong();
              private long sent;
              private boolean emitting;
              private boolean done;

              @Override
              public synchronized void request(long n) {
                demand.addAndGet(n);
                if (emitting) {
                  return; // the outer call goes on with the new demand
                }
                emitting = true;
                try {
                  while (!done && demand.get() > 0 && sent < count) {
                    demand.decrementAndGet();
                    subscriber.onNext(JsonNodeFactory.instance.objectNode().put("n", ++sent));
                  }
                  if (!done && sent == count) {
                    done = true;
                    subscriber.onComplete();
                  }
                } finally {
                  emitting = false;
                }
              }

              @Override
              public synchronized void cancel() {
                done = true;
              }
            });
  }
}
