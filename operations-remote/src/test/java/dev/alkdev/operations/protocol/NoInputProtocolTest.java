package dev.alkdev.operations.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A protocol request without input runs with the operation's no input. */
class NoInputProtocolTest {
  @Test
  void aProtocolRequestWithoutInputRunsWithTheOperationsNoInput() throws Exception {
    try (var pubsub = InProcessPubSub.create();
        OperationRegistry registry = OperationRegistry.create()) {
      registry.register(
          spec("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"default\":7}}}"),
          (input, context) -> input.isObject() ? "an object" : "not an object");
      try (var server = CallHandler.serve(registry, pubsub);
          var calls = PendingRequestMap.create(pubsub)) {
        // null: the request goes out with "input": null, which is no input: the object schema's
        // {} (JSON null would fail its validation).
        assertThat(calls.call("x.y", null).get(10, TimeUnit.SECONDS).data().asString())
            .isEqualTo("an object");
      }
    }
  }

  private static OperationSpec spec(String inputSchema) {
    return OperationSpec.builder("x", "y").inputSchema(inputSchema).build();
  }
}
