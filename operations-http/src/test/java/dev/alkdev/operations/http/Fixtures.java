package dev.alkdev.operations.http;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** The operations the gateway's tests serve, and what their handlers saw. */
final class Fixtures {
  final OperationRegistry registry = OperationRegistry.create();

  /** Counted down when a ticks stream's handler is cancelled. */
  final CountDownLatch ticksCancelled = new CountDownLatch(1);

  /** Counted down when demo.slow's handler sees its cancellation. */
  final CountDownLatch slowCancelled = new CountDownLatch(1);

  /** Counted down when a demo.big stream's handler ends (it runs until cancelled). */
  final CountDownLatch bigCancelled = new CountDownLatch(1);

  /**
   * demo.big handlers that have started. A stream cut before its handler's thread ran never runs it
   * (the pipeline skips a cancelled call), so tests compare the ended with these.
   */
  final java.util.concurrent.atomic.AtomicInteger bigStarted =
      new java.util.concurrent.atomic.AtomicInteger();

  /** demo.big handlers that have ended. */
  final java.util.concurrent.atomic.AtomicInteger bigEnded =
      new java.util.concurrent.atomic.AtomicInteger();

  final AtomicReference<String> lastEventId = new AtomicReference<>();

  /** Items demo.big has emitted so far. */
  final java.util.concurrent.atomic.AtomicLong bigEmitted =
      new java.util.concurrent.atomic.AtomicLong();

  Fixtures() {
    registry.register(
        OperationSpec.builder("demo", "echo")
            .description("Echoes a message\nRepeated as often as asked.")
            .inputSchema(
                """
                {"type": "object", "required": ["message"],
                 "properties": {"message": {"type": "string", "minLength": 1},
                                "repeat": {"type": "integer", "minimum": 1, "maximum": 5}}}""")
            .outputSchema("{\"type\": \"string\"}")
            .build(),
        Handler.blocking(
            (input, ctx) -> input.get("message").asString().repeat(input.path("repeat").asInt(1))));
    registry.register(
        OperationSpec.builder("demo", "sum")
            .type(OperationType.QUERY)
            .inputSchema(
                """
                {"type": "object", "required": ["numbers"],
                 "properties": {"numbers": {"type": "array", "items": {"type": "number"}},
                                "exact": {"type": "boolean"}}}""")
            .outputSchema("{\"type\": \"number\"}")
            .build(),
        Handler.blocking(
            (input, ctx) -> {
              double sum = 0;
              for (var n : input.get("numbers")) {
                sum += n.asDouble();
              }
              return sum;
            }));
    registry.register(
        OperationSpec.builder("shop", "order")
            .type(OperationType.MUTATION)
            .description("Places an order")
            .inputSchema(
                """
                {"type": "object", "required": ["item", "address"],
                 "properties": {
                   "item": {"type": "string", "minLength": 1},
                   "quantity": {"type": "integer", "minimum": 1},
                   "address": {"$ref": "#/$defs/address"}},
                 "additionalProperties": false,
                 "$defs": {"address": {"type": "object", "required": ["city"],
                   "properties": {"city": {"type": "string", "minLength": 1}}}}}""")
            .outputSchema(
                """
                {"type": "object", "properties": {"orderId": {"type": "string"},
                 "item": {"type": "string"}, "quantity": {"type": "integer"}}}""")
            .build(),
        Handler.blocking(
            (input, ctx) -> {
              ObjectNode out = JsonNodeFactory.instance.objectNode();
              out.put("orderId", "o-" + input.get("item").asString());
              out.put("item", input.get("item").asString());
              out.put("quantity", input.path("quantity").asInt(1));
              return out;
            }));
    registry.register(
        OperationSpec.builder("admin", "stats")
            .requiredScopes("admin")
            .outputSchema("{\"type\": \"object\"}")
            .build(),
        Handler.blocking(
            (input, ctx) ->
                JsonNodeFactory.instance.objectNode().put("who", ctx.identity().subject())));
    registry.register(
        OperationSpec.builder("demo", "trace").outputSchema("{\"type\": \"object\"}").build(),
        Handler.blocking(
            (input, ctx) -> {
              ObjectNode out = JsonNodeFactory.instance.objectNode();
              ctx.metadata().asMap().forEach(out::put);
              ctx.deadline().ifPresent(d -> out.put("deadlineMs", d.remainingMillis()));
              return out;
            }));
    registry.register(
        OperationSpec.builder("demo", "slow").build(),
        Handler.blocking(
            (input, ctx) -> {
              CountDownLatch never = new CountDownLatch(1);
              ctx.cancellation().onCancel(never::countDown);
              try {
                never.await(30, TimeUnit.SECONDS);
              } finally {
                // Cancelled: by its context, or by the interrupt of its thread.
                slowCancelled.countDown();
              }
              throw CallError.of(ErrorCode.CANCELLED, "stopped");
            }));
    registry.register(
        OperationSpec.builder("demo", "fail").build(),
        Handler.blocking(
            (input, ctx) -> {
              throw new IllegalStateException("secret internal detail");
            }));
    registry.register(
        OperationSpec.builder("demo", "big").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (input, ctx, emitter) -> {
              String chunk = "x".repeat(64 * 1024);
              bigStarted.incrementAndGet();
              try {
                while (!emitter.isCancelled()) {
                  emitter.emit(chunk);
                  bigEmitted.incrementAndGet();
                }
              } finally {
                bigEnded.incrementAndGet();
                bigCancelled.countDown();
              }
            }));
    registry.register(
        OperationSpec.builder("demo", "ticks")
            .type(OperationType.SUBSCRIPTION)
            .description("Counts from 1 to count (forever without count)")
            .inputSchema(
                """
                {"type": "object", "properties": {
                   "count": {"type": "integer", "minimum": 0},
                   "intervalMs": {"type": "integer", "minimum": 0, "maximum": 1000}}}""")
            .outputSchema(
                "{\"type\": \"object\", \"properties\": {\"n\": {\"type\": \"integer\"}}}")
            .build(),
        Handler.emitter(
            (input, ctx, emitter) -> {
              HttpGateway.lastEventId(ctx).ifPresent(lastEventId::set);
              long start = HttpGateway.lastEventId(ctx).map(Long::parseLong).orElse(0L) + 1;
              long count = input.path("count").asLong(Long.MAX_VALUE);
              long interval = input.path("intervalMs").asLong(0);
              try {
                for (long n = start; n - start < count; n++) {
                  emitter.emit(JsonNodeFactory.instance.objectNode().put("n", n));
                  if (interval > 0) {
                    Thread.sleep(interval);
                  }
                }
              } catch (CallError | InterruptedException e) {
                ticksCancelled.countDown();
                throw e;
              }
            }));
  }
}
