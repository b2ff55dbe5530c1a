package dev.alkdev.operations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.schema.SchemaError;
import java.util.List;
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
  void theErrorObjectListsSchemaErrorsUnderDetailsErrors() {
    CallError invalid =
        CallError.builder(ErrorCode.INVALID_INPUT, "Invalid input of x.y (1 problem)")
            .validationErrors(List.of(new SchemaError("/a", "type", "string expected")))
            .build();
    JsonNode error = invalid.toJson();
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
