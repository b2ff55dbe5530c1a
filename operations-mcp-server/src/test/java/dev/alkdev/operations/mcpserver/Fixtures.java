package dev.alkdev.operations.mcpserver;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The registry the tests serve: typed input and output, scopes, a slow call, a stream. */
final class Fixtures {
  static final JsonMapper JSON = JsonMapper.builder().build();

  static final AtomicInteger slowStarted = new AtomicInteger();
  static final AtomicInteger slowCancelled = new AtomicInteger();
  static volatile CountDownLatch slowRelease = new CountDownLatch(1);

  private Fixtures() {}

  /** The general registry: typed input and output, scopes, a slow call, a stream. */
  static OperationRegistry general() {
    OperationRegistry registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("math", "add")
            .type(OperationType.QUERY)
            .description("Adds two numbers")
            .inputSchema(
                "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}},"
                    + "\"required\":[\"a\",\"b\"],\"additionalProperties\":false}")
            .outputSchema(
                "{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"number\"}},\"required\":[\"sum\"]}")
            .build(),
        Handler.blocking(
            (input, context) ->
                Map.of("sum", input.get("a").asDouble() + input.get("b").asDouble())));
    registry.register(
        OperationSpec.builder("text", "echo")
            .type(OperationType.MUTATION)
            .idempotent(true)
            .description("Echoes its input")
            .inputSchema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}")
            .build(),
        Handler.blocking((input, context) -> input));
    registry.register(
        OperationSpec.builder("text", "upper")
            .type(OperationType.QUERY)
            .description("Upper-cases a string: a non-object input")
            .inputSchema("{\"type\":\"string\"}")
            .outputSchema("{\"type\":\"string\"}")
            .build(),
        Handler.blocking((input, context) -> input.asString().toUpperCase(java.util.Locale.ROOT)));
    registry.register(
        OperationSpec.builder("admin", "reset")
            .type(OperationType.MUTATION)
            .description("Needs the admin scope")
            .requiredScopes("admin")
            .build(),
        Handler.blocking((input, context) -> Map.of("reset", true)));
    registry.register(
        OperationSpec.builder("slow", "wait")
            .type(OperationType.MUTATION)
            .description("Waits until released or cancelled")
            .build(),
        Handler.blocking(
            (input, context) -> {
              slowStarted.incrementAndGet();
              try {
                while (!slowRelease.await(20, TimeUnit.MILLISECONDS)) {
                  if (context.isDone()) {
                    slowCancelled.incrementAndGet();
                    context.throwIfDone(); // its deadline or cancellation, never a result
                  }
                }
              } catch (InterruptedException e) {
                slowCancelled.incrementAndGet();
                throw e;
              }
              return "released";
            }));
    registry.register(
        OperationSpec.builder("feed", "numbers")
            .type(OperationType.SUBSCRIPTION)
            .description("Counts from 1 to input.count")
            .inputSchema("{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"integer\"}}}")
            .outputSchema(
                "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}")
            .build(),
        Handler.emitter(
            (input, context, emitter) -> {
              int count = input.path("count").asInt(3);
              for (int i = 1; i <= count; i++) {
                emitter.emit(Map.of("n", i));
              }
            }));
    return registry;
  }

  static JsonNode json(String text) {
    return JSON.readTree(text);
  }
}
