package dev.alkdev.operations.examples;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.pubsub.PubSub;
import java.time.Duration;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Calling an operation through the call protocol, on the in-process transport: {@code mvn -B -q
 * compile exec:java -pl operations-examples -am
 * -Dexec.mainClass=dev.alkdev.operations.examples.ProtocolExamples}.
 */
public final class ProtocolExamples {
  private ProtocolExamples() {}

  public static void main(String[] args) {
    // snippet: serve
    PubSub pubsub = InProcessPubSub.create();
    OperationRegistry registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("greetings", "hello").requiredScopes("greet").build(),
        (input, context) -> "Hello, " + context.identity().subject());
    CallHandler server = CallHandler.serve(registry, pubsub);
    // end-snippet

    // snippet: call
    PendingRequestMap calls = PendingRequestMap.create(pubsub);
    ResponseEnvelope<JsonNode> reply =
        calls
            .call(
                "greetings.hello",
                Map.of(),
                CallOptions.defaults()
                    .withIdentity(Identity.of("ada", "greet"))
                    .withTimeout(Duration.ofSeconds(5)))
            .join();
    // reply.data() is "Hello, ada"; a caller without the scope gets ACCESS_DENIED
    // end-snippet
    System.out.println("protocol call -> " + reply.data() + " " + reply.meta());

    calls.close();
    server.close();
    registry.close();
    pubsub.close();
  }
}
