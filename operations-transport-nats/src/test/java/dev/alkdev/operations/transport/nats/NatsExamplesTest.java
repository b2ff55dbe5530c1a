package dev.alkdev.operations.transport.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The examples of operations-transport-nats/README.md and docs/nats.md (cut from the regions marked
 * {@code snippet}): a node serving a registry on NATS, and a caller on another connection.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NatsExamplesTest {
  private static NatsServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = NatsServer.start();
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  @Test
  void aNodeServesAndACallerCalls() throws Exception {
    String url = server.url();
    // snippet: serve
    NatsOptions options =
        NatsOptions.builder(url) // nats://host:4222, tls://host:4222; several for a cluster
            .connectionName("billing-node-1")
            .build();
    try (NatsPubSub nats = NatsPubSub.connect(options);
        OperationRegistry registry = OperationRegistry.create();
        CallHandler node = CallHandler.serve(registry, nats)) {
      registry.register(
          OperationSpec.builder("billing", "refund").type(OperationType.MUTATION).build(),
          Handler.blocking((input, ctx) -> input.get("amount")));
      // end-snippet
      nats.flush(Duration.ofSeconds(5));

      // snippet: call
      try (NatsPubSub callerSide = NatsPubSub.connect(NatsOptions.builder(url).build());
          PendingRequestMap calls = PendingRequestMap.create(callerSide)) {
        JsonNode input = JsonMapper.builder().build().readTree("{\"amount\": 12}");
        ResponseEnvelope<JsonNode> refunded = calls.call("billing.refund", input).join();
        // Nothing serves billing.void: it fails with NO_RESPONDERS at once, not at the deadline.
        CompletableFuture<ResponseEnvelope<JsonNode>> nobody = calls.call("billing.void", input);
        // end-snippet
        assertThat(refunded.data().asInt()).isEqualTo(12);
        CompletionException failure = catchThrowableOfType(CompletionException.class, nobody::join);
        assertThat(((CallError) failure.getCause()).code()).isEqualTo(ErrorCode.NO_RESPONDERS);
      }
    }
  }

  @Test
  void aCatalogFindsANodeAndCallsIt() throws Exception {
    String url = server.url();
    // snippet: discovery
    try (NatsPubSub nodeSide = NatsPubSub.connect(NatsOptions.builder(url).build());
        NatsPubSub callerSide = NatsPubSub.connect(NatsOptions.builder(url).build());
        OperationRegistry registry = OperationRegistry.create();
        ServingNode node = ServingNode.start(registry, nodeSide);
        RemoteCatalog catalog = RemoteCatalog.create(callerSide)) {
      registry.register(
          OperationSpec.builder("billing", "quote")
              .type(OperationType.QUERY)
              .inputSchema("{\"type\":\"object\",\"required\":[\"sku\"]}")
              .build(),
          Handler.blocking((input, ctx) -> input));
      // Until the nodes have answered its query: no news for 250 ms, every node's specs read.
      catalog.awaitSettled(Duration.ofMillis(250), Duration.ofSeconds(5));
      ResponseEnvelope<JsonNode> quote =
          catalog.call("billing.quote", Map.of("sku", "A-1")).get(5, TimeUnit.SECONDS);
      // end-snippet
      assertThat(quote.data().get("sku").asText()).isEqualTo("A-1");
      assertThat(catalog.nodes()).extracting(n -> n.nodeId()).containsExactly(node.nodeId());
    }
  }
}
