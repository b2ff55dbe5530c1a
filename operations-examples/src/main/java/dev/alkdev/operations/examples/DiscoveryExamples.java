package dev.alkdev.operations.examples;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.pubsub.PubSub;
import java.time.Duration;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Serving nodes and a remote catalog on one pub/sub (in-process here; NATS, Redis or WebSocket
 * across machines): {@code mvn -B -q compile exec:java -pl operations-examples -am
 * -Dexec.mainClass=dev.alkdev.operations.examples.DiscoveryExamples}.
 */
public final class DiscoveryExamples {
  private DiscoveryExamples() {}

  public static void main(String[] args) throws Exception {
    PubSub pubsub = InProcessPubSub.create();
    OperationRegistry registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("stock", "reserve")
            .type(OperationType.MUTATION)
            .idempotent(true) // reserving twice with the same input reserves once: safe to retry
            .inputSchema("{\"type\":\"object\",\"required\":[\"sku\"]}")
            .build(),
        (input, context) -> Map.of("reserved", input.get("sku").asString()));

    // snippet: node
    ServingNode node =
        ServingNode.builder(registry, pubsub)
            .heartbeatInterval(Duration.ofSeconds(2))
            .drainTimeout(Duration.ofSeconds(10))
            .start(); // announces node.hello with every spec it serves, schemas included
    // end-snippet

    // snippet: catalog
    RemoteCatalog catalog = RemoteCatalog.create(pubsub); // asks every node: node.query
    // end-snippet
    awaitDiscovery(catalog); // the nodes answer within a round trip

    // snippet: remote-call
    // catalog.list(identity): what this caller may call, with full specs
    // catalog.addListener(...): operations appearing and disappearing
    ResponseEnvelope<JsonNode> reply =
        catalog
            .call(
                "stock.reserve",
                Map.of("sku", "A-1"), // validated against the node's input schema first
                CallOptions.defaults()
                    .withIdentity(Identity.of("ada"))
                    .withTimeout(Duration.ofSeconds(5)))
            .join();
    // routed to one node; retried on another if that node is lost (stock.reserve is idempotent)
    // end-snippet
    System.out.println("remote call -> " + reply.data());

    // snippet: proxies
    OperationRegistry local = OperationRegistry.create();
    Registration proxies = catalog.registerInto(local); // remote operations, kept in step
    local.execute("stock.reserve", Map.of("sku", "B-2")).join();
    // end-snippet
    System.out.println("through a local registry -> " + local.list());

    proxies.remove();
    local.close();
    catalog.close();
    node.close(); // drains: node.bye, running calls finish, new ones go elsewhere
    registry.close();
    pubsub.close();
  }

  private static void awaitDiscovery(RemoteCatalog catalog) throws InterruptedException {
    while (catalog.spec("stock.reserve").isEmpty()) {
      Thread.sleep(10);
    }
  }
}
