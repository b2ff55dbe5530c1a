package dev.alkdev.operations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.internal.Json;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/**
 * An input schema from a third party may carry a pattern that backtracks: a request full of strings
 * that each cost it milliseconds must end in INVALID_INPUT with the schema's {@code limit} error,
 * within the regex time budget of one validation, and never reach the handler.
 */
class InputRegexBudgetTest {
  private final OperationRegistry registry = OperationRegistry.create();

  @AfterEach
  void close() {
    registry.close();
  }

  @Test
  void anInputThatSpendsTheRegexBudgetIsInvalidInputWithALimitError() throws Exception {
    AtomicBoolean ran = new AtomicBoolean();
    registry.register(
        OperationSpec.builder("demo", "names")
            .inputSchema("{\"type\": \"array\", \"items\": {\"pattern\": \"^(a+){1,50}$\"}}")
            .build(),
        (in, ctx) -> ran.getAndSet(true));
    ArrayNode input = Json.mapper().createArrayNode();
    for (int i = 0; i < 2_000; i++) {
      input.add("a".repeat(18) + "!"); // a few milliseconds of backtracking each
    }

    CallError error = failureOf(input);

    assertThat(error.code()).isEqualTo(ErrorCode.INVALID_INPUT);
    assertThat(error.validationErrors())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.keyword()).isEqualTo("limit");
              assertThat(e.message()).contains("SchemaLimits.maxRegexTime");
            });
    assertThat(ran).isFalse();
    // A request the pattern matches quickly still runs.
    registry.execute("demo.names", Json.mapper().readTree("[\"aaa\"]")).get(5, TimeUnit.SECONDS);
    assertThat(ran).isTrue();
  }

  private CallError failureOf(JsonNode input) throws InterruptedException {
    try {
      registry.execute("demo.names", input).get(20, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(CallError.class);
      return (CallError) e.getCause();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("validation did not stop", e);
    }
    throw new AssertionError("the call succeeded");
  }
}
