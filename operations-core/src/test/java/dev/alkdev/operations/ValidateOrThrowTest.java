package dev.alkdev.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.internal.Json;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaError;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** {@link CallError#validateOrThrow}: schema errors become one INVALID_INPUT call error. */
class ValidateOrThrowTest {
  private static final Schema SCHEMA =
      Schema.fromJson(
          """
          {"type": "object", "properties": {
             "n": {"type": "integer", "minimum": 0},
             "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
             "kind": {"enum": ["a", "b"]}},
           "additionalProperties": false}""");

  private static JsonNode json(String text) {
    return Json.mapper().readTree(text);
  }

  @Test
  void raisesInvalidInputWithEveryError() {
    JsonNode value = json("{\"n\": -1, \"tags\": [1, \"x\", \"x\"], \"extra\": true}");
    List<SchemaError> expected = SCHEMA.validate(value);

    assertThat(expected).hasSizeGreaterThanOrEqualTo(4);
    assertThatThrownBy(() -> CallError.validateOrThrow(SCHEMA, value, "input of demo.echo"))
        .isInstanceOfSatisfying(
            CallError.class,
            error -> {
              assertThat(error.code()).isEqualTo(ErrorCode.INVALID_INPUT);
              assertThat(error.retryable()).isFalse();
              assertThat(error.validationErrors()).isEqualTo(expected);
              assertThat(error.getMessage())
                  .startsWith("Invalid input of demo.echo:")
                  .contains("/n")
                  .contains("/tags/0");
            });
  }

  @Test
  void isSilentForAValidValue() {
    assertThatCode(
            () -> CallError.validateOrThrow(SCHEMA, json("{\"n\": 3, \"tags\": [\"a\"]}"), "value"))
        .doesNotThrowAnyException();
  }

  @Test
  void aValueTooDeepToEvaluateIsInvalidInputNotAStackOverflow() {
    Schema recursive =
        Schema.fromJson(
            "{\"$defs\": {\"n\": {\"type\": [\"array\", \"integer\"],"
                + " \"items\": {\"$ref\": \"#/$defs/n\"}}}, \"$ref\": \"#/$defs/n\"}");
    JsonNode deep = Json.nodes().numberNode(1);
    for (int i = 0; i < 10_000; i++) {
      deep = Json.nodes().arrayNode().add(deep);
    }
    JsonNode value = deep;

    assertThatThrownBy(() -> CallError.validateOrThrow(recursive, value, "value"))
        .isInstanceOfSatisfying(
            CallError.class,
            error -> {
              assertThat(error.code()).isEqualTo(ErrorCode.INVALID_INPUT);
              assertThat(error.validationErrors())
                  .singleElement()
                  .satisfies(e -> assertThat(e.keyword()).isEqualTo("limit"));
            });
  }
}
