package dev.alkdev.operations.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.HttpResponseMeta;
import dev.alkdev.operations.envelope.McpResponseMeta;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.pubsub.OverflowPolicy;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

class TransportAndAdapterMetricsTest {
  final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  double counter(String name, String... tags) {
    return meters.get(name).tags(tags).functionCounter().count();
  }

  @Test
  void aTransportsTrafficIsReadAtScrapeTime() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (InProcessPubSub pubsub = InProcessPubSub.builder().inlineDelivery(false).build()) {
      OperationMetrics.bindTransport(meters, "in_process", pubsub);
      // One subscription that takes everything, one with room for one message that holds it.
      pubsub.subscribe("t", SubscribeOptions.defaults(), m -> {});
      PubSub.Subscription slow =
          pubsub.subscribe(
              "t",
              SubscribeOptions.defaults()
                  .withBufferSize(1)
                  .withOverflow(OverflowPolicy.DROP_NEWEST),
              m -> awaitQuietly(release));
      byte[] payload = "hello".getBytes(StandardCharsets.UTF_8);
      for (int i = 0; i < 4; i++) {
        pubsub.publish("t", payload).join();
      }
      pubsub.publish("nobody", payload).join();
      release.countDown();

      assertThat(counter("operations.transport.messages", "direction", "published")).isEqualTo(5);
      assertThat(counter("operations.transport.bytes", "direction", "published")).isEqualTo(25);
      // 4 to the fast one; the slow one takes 1 or 2 (its handler may have taken one off its
      // buffer already) and drops the rest: 4 + 4 deliveries in all.
      double received = counter("operations.transport.messages", "direction", "received");
      double dropped = counter("operations.transport.messages.dropped");
      assertThat(received + dropped).isEqualTo(8);
      assertThat(dropped).isBetween(2.0, 3.0);
      assertThat(counter("operations.transport.bytes", "direction", "received"))
          .isEqualTo(received * 5);
      assertThat(dropped).isEqualTo(slow.dropped());
      assertThat(counter("operations.transport.reconnects", "transport", "in_process")).isZero();
      assertThat(counter("operations.transport.slow.consumers")).isZero();
      assertThat(meters.get("operations.transport.bytes").functionCounter().getId().getBaseUnit())
          .isEqualTo("bytes");
    }
  }

  @Test
  void upstreamHttpStatusesAndMcpIsErrorAreCounted() {
    try (OperationRegistry registry =
        OperationRegistry.builder().interceptor(OperationMetrics.create(meters)).build()) {
      registry.register(
          OperationSpec.builder("up", "http").build(),
          (in, ctx) ->
              Envelopes.httpEnvelope(
                  in, HttpResponseMeta.of(in.asInt(), Map.of(), "application/json")));
      registry.register(
          OperationSpec.builder("up", "failing").build(),
          (in, ctx) -> {
            // The OpenAPI adapter's failure for a non-2xx answer.
            ObjectNode details = JsonNodeFactory.instance.objectNode();
            details.put("status", 503);
            details.put("contentType", "text/plain");
            details.put("body", "busy");
            details.put("truncated", false);
            throw CallError.builder(ErrorCode.EXECUTION_ERROR, "up.failing: HTTP 503")
                .details(details)
                .build();
          });
      registry.register(
          OperationSpec.builder("own", "failing").build(),
          (in, ctx) -> {
            ObjectNode details = JsonNodeFactory.instance.objectNode();
            details.put("status", 418); // a handler's own details: not an upstream status
            throw CallError.builder(ErrorCode.EXECUTION_ERROR, "no").details(details).build();
          });
      registry.register(
          OperationSpec.builder("up", "tool").build(),
          (in, ctx) -> Envelopes.mcpEnvelope(in, McpResponseMeta.of(in.asBoolean(), List.of())));

      registry.execute("up.http", 200).join();
      registry.execute("up.http", 200).join();
      registry.execute("up.http", 201).join();
      assertThatThrownBy(() -> registry.execute("up.failing", null).join())
          .hasCauseInstanceOf(CallError.class);
      assertThatThrownBy(() -> registry.execute("own.failing", null).join())
          .hasCauseInstanceOf(CallError.class);
      registry.execute("up.tool", true).join();
      registry.execute("up.tool", false).join();
      registry.execute("up.tool", true).join();

      assertThat(httpResponses("up.http", "200")).isEqualTo(2);
      assertThat(httpResponses("up.http", "201")).isEqualTo(1);
      assertThat(httpResponses("up.failing", "503")).isEqualTo(1);
      assertThat(
              meters
                  .find("operations.upstream.http.responses")
                  .tag("operation", "own.failing")
                  .counters())
          .isEmpty();
      assertThat(mcpResults("true")).isEqualTo(2);
      assertThat(mcpResults("false")).isEqualTo(1);
    }
  }

  private double httpResponses(String operation, String status) {
    Counter c =
        meters
            .get("operations.upstream.http.responses")
            .tags("operation", operation, "origin", "in_process", "status", status)
            .counter();
    return c.count();
  }

  private double mcpResults(String isError) {
    return meters
        .get("operations.upstream.mcp.results")
        .tags("operation", "up.tool", "is_error", isError)
        .counter()
        .count();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
