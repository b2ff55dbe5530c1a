package dev.alkdev.operations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.protocol.CallEvents;
import dev.alkdev.operations.schema.SchemaError;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The two rules every surface shares: what no input is, and the error object it shows. */
class NoInputTest {
  @Test
  void noInputIsAnEmptyObjectForAnObjectSchemaAndNullOtherwise() {
    assertThat(spec("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}").noInput())
        .isEqualTo(tools.jackson.databind.node.JsonNodeFactory.instance.objectNode());
    assertThat(spec("{\"type\":[\"object\",\"null\"]}").noInput().isObject()).isTrue();
    assertThat(spec("{\"type\":\"string\"}").noInput().isNull()).isTrue();
    assertThat(spec("{\"properties\":{\"a\":{}}}").noInput().isNull()).isTrue();
    assertThat(OperationSpec.builder("x", "none").build().noInput().isNull()).isTrue();
    // A new object each time: a caller may fill it.
    OperationSpec object = spec("{\"type\":\"object\"}");
    assertThat(object.noInput()).isNotSameAs(object.noInput());
  }

  @Test
  void aProtocolRequestWithoutInputRunsWithTheOperationsNoInput() throws Exception {
    try (var pubsub = dev.alkdev.operations.pubsub.InProcessPubSub.create();
        OperationRegistry registry = OperationRegistry.create()) {
      registry.register(
          spec("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"default\":7}}}"),
          (input, context) -> input.isObject() ? "an object" : "not an object");
      try (var server = dev.alkdev.operations.protocol.CallHandler.serve(registry, pubsub);
          var calls = dev.alkdev.operations.protocol.PendingRequestMap.create(pubsub)) {
        // null: the request goes out with "input": null, which is no input: the object schema's
        // {} (JSON null would fail its validation).
        assertThat(calls.call("x.y", null).get(10, TimeUnit.SECONDS).data().asString())
            .isEqualTo("an object");
      }
    }
  }

  @Test
  void theErrorObjectListsSchemaErrorsUnderDetailsErrors() {
    CallError invalid =
        CallError.builder(ErrorCode.INVALID_INPUT, "Invalid input of x.y (1 problem)")
            .validationErrors(List.of(new SchemaError("/a", "type", "string expected")))
            .build();
    JsonNode error = CallEvents.errorJson(invalid);
    assertThat(error.get("code").asString()).isEqualTo("INVALID_INPUT");
    assertThat(error.get("message").asString()).isEqualTo("Invalid input of x.y (1 problem)");
    assertThat(error.get("retryable").asBoolean()).isFalse();
    assertThat(error.at("/details/errors/0/instancePath").asString()).isEqualTo("/a");
    assertThat(error.at("/details/errors/0/keyword").asString()).isEqualTo("type");
    assertThat(error.at("/details/errors/0/message").asString()).isEqualTo("string expected");
  }

  private static OperationSpec spec(String inputSchema) {
    return OperationSpec.builder("x", "y").inputSchema(inputSchema).build();
  }
}
