package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.annotation.AnnotatedOperations;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.source.OperationSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The operations every {@code ops} has (unless {@code --no-demo}), so a newcomer can try each
 * command without configuring anything: {@code demo.echo} (QUERY), {@code demo.createNote}
 * (MUTATION, typed records) and {@code demo.clock} (SUBSCRIPTION).
 */
public final class DemoSource implements OperationSource {
  /**
   * Every open {@code demo.clock}'s ticks: one thread however many clocks are open, started with
   * the first (a command that opens none starts none).
   */
  private ScheduledExecutorService timer; // guarded by this

  private synchronized ScheduledExecutorService timer() {
    if (timer == null) {
      timer =
          Executors.newSingleThreadScheduledExecutor(
              runnable -> {
                Thread thread = new Thread(runnable, "demo-clock");
                thread.setDaemon(true);
                return thread;
              });
    }
    return timer;
  }

  // Built per load, not held in constants: a deferred schema, once made, stays made.
  private static OperationSpec echo() {
    return OperationSpec.builder("demo", "echo")
        .type(OperationType.QUERY)
        .description("Returns the message it is given")
        .inputSchema(
            deferred(
                """
              {"type": "object",
               "properties": {"message": {"type": "string", "description": "What to echo"}},
               "required": ["message"],
               "additionalProperties": false}"""))
        .outputSchema(
            deferred(
                """
              {"type": "object",
               "properties": {"message": {"type": "string"}},
               "required": ["message"]}"""))
        .build();
  }

  private static OperationSpec clock() {
    return OperationSpec.builder("demo", "clock")
        .type(OperationType.SUBSCRIPTION)
        .description("Ticks every intervalMs milliseconds, ticks times, each with a timestamp")
        .inputSchema(
            deferred(
                """
              {"type": "object",
               "properties": {
                 "ticks": {"type": "integer", "minimum": 1, "default": 3,
                           "description": "How many ticks before the stream ends"},
                 "intervalMs": {"type": "integer", "minimum": 1, "default": 1000,
                                "description": "Milliseconds between ticks"}},
               "additionalProperties": false}"""))
        .outputSchema(
            deferred(
                """
              {"type": "object",
               "properties": {"tick": {"type": "integer"},
                              "time": {"type": "string", "format": "date-time"}},
               "required": ["tick", "time"]}"""))
        .build();
  }

  /**
   * The demo's schemas are compiled on first use: {@code ops list} and {@code ops --help} then load
   * no schema engine at all (start-up, issue 20). They are ours and known to compile ({@code
   * DemoSourceTest} compiles each one).
   */
  private static Schema deferred(String json) {
    return Schema.deferred(() -> Schema.fromJson(json));
  }

  @Override
  public String name() {
    return "demo";
  }

  @Override
  public String kind() {
    return "demo";
  }

  @Override
  public CompletableFuture<Void> load(OperationRegistry registry) {
    registry.register(echo(), DemoSource::echo);
    registry.registerAll(AnnotatedOperations.deferred(new DemoNotes()));
    registry.register(
        clock(),
        Handler.publisher(
            (input, context) ->
                // The registry validates but does not fill defaults, so they are applied here.
                ClockTicks.publisher(
                    timer(),
                    input.path("ticks").asLong(3),
                    input.path("intervalMs").asLong(1000))));
    return CompletableFuture.completedFuture(null);
  }

  private static Object echo(JsonNode input, dev.alkdev.operations.OperationContext context) {
    ObjectNode out = JsonInput.MAPPER.createObjectNode();
    out.put("message", input.path("message").asString());
    return out;
  }

  @Override
  public synchronized void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
