package dev.alkdev.operations.examples;

import dev.alkdev.operations.EmitterSubscriptionHandler.Emitter;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationDefinition;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.annotation.AnnotatedOperations;
import dev.alkdev.operations.annotation.Namespace;
import dev.alkdev.operations.annotation.Operation;
import dev.alkdev.operations.scan.OperationProvider;
import dev.alkdev.operations.scan.OperationScanner;
import dev.alkdev.operations.scan.ScanResult;
import dev.alkdev.operations.scan.ScannerFS;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The examples of docs/definitions.md, runnable: {@code mvn -B -q compile exec:java -pl
 * operations-examples -am -Dexec.mainClass=dev.alkdev.operations.examples.DefiningOperations}.
 * Defines operations in each of the four ways and calls them.
 */
public final class DefiningOperations {
  private DefiningOperations() {}

  // snippet: annotated
  @Namespace("greetings")
  public static class Greeter {
    public record Hello(String name) {}

    public record Reply(String text) {}

    public record Count(int to) {}

    private final Map<String, Integer> greeted = new ConcurrentHashMap<>();

    /** A blocking QUERY: Hello in, Reply out; both schemas come from the records. */
    @Operation(description = "Says hello")
    public Reply hello(Hello input) {
      greeted.merge(input.name(), 1, Integer::sum);
      return new Reply("Hello, " + input.name());
    }

    /** A MUTATION that needs a scope; any method may also take the call's context. */
    @Operation(type = OperationType.MUTATION, scopes = "greetings:admin")
    public void forget(Hello input, OperationContext context) {
      greeted.remove(input.name());
    }

    /** Runs without blocking: returns a stage. */
    @Operation(name = "helloLater", description = "Says hello, eventually")
    public CompletionStage<Reply> later(Hello input) {
      return CompletableFuture.supplyAsync(() -> hello(input));
    }

    /** A SUBSCRIPTION written as blocking code: emit() waits for the subscriber's demand. */
    @Operation(description = "Counts from 1")
    public void count(Count input, Emitter emitter) throws InterruptedException {
      for (int i = 1; i <= input.to(); i++) {
        emitter.emit(i);
      }
    }
  }

  // end-snippet

  // snippet: provider
  /** Listed in META-INF/services/dev.alkdev.operations.scan.OperationProvider. */
  public static final class GreetingOperations implements OperationProvider {
    @Override
    public List<OperationDefinition> operations() {
      return AnnotatedOperations.of(new Greeter());
    }
  }

  // end-snippet

  public static void main(String[] args) throws Exception {
    try (OperationRegistry registry = OperationRegistry.create()) {
      // snippet: builder
      OperationSpec echo =
          OperationSpec.builder("demo", "echo")
              .description("Returns its message")
              .inputSchema(
                  """
                  {"type": "object", "required": ["message"],
                   "properties": {"message": {"type": "string"}}}""")
              .outputSchema("{\"type\": \"string\"}")
              .build();
      registry.register(echo, (input, context) -> input.get("message").asString());

      registry.execute("demo.echo", Map.of("message", "hi")).join().data(); // "hi"
      // end-snippet
      System.out.println(
          "demo.echo -> " + registry.execute("demo.echo", Map.of("message", "hi")).join().data());

      // snippet: register-annotated
      registry.registerAll(AnnotatedOperations.of(new Greeter()));

      registry.execute("greetings.hello", Map.of("name", "Ada")).join().data();
      // {"text":"Hello, Ada"}
      // end-snippet
      System.out.println(
          "greetings.hello -> "
              + registry.execute("greetings.hello", Map.of("name", "Ada")).join().data());

      Path directory = Files.createTempDirectory("operations");
      writeSpecFiles(directory);
      // snippet: scan
      ScanResult<OperationSpec> scan =
          OperationScanner.scanOperations(directory.toString(), ScannerFS.local());
      scan.problems().forEach(problem -> System.err.println("skipped " + problem));
      scan.found().forEach(registry::registerSpec);
      registry.registerHandler("billing.total", (input, context) -> 42);
      // end-snippet
      System.out.println(
          "billing.total -> " + registry.execute("billing.total", Map.of("invoice", "A-1")).join());
    }
  }

  private static void writeSpecFiles(Path directory) throws IOException {
    Files.writeString(
        directory.resolve("total.json"),
        """
        {
          "namespace": "billing",
          "name": "total",
          "version": "1.2.0",
          "type": "QUERY",
          "description": "The total of an invoice, in cents",
          "inputSchema": {
            "type": "object",
            "required": ["invoice"],
            "properties": {"invoice": {"type": "string"}}
          },
          "outputSchema": {"type": "integer"},
          "accessControl": {"requiredScopes": ["billing:read"]}
        }
        """);
    Files.writeString(
        directory.resolve("events.yaml"),
        """
        - namespace: billing
          name: paid
          type: SUBSCRIPTION
          description: One event per paid invoice
          outputSchema:
            type: object
            required: [invoice, cents]
            properties:
              invoice: {type: string}
              cents: {type: integer}
        - namespace: billing
          name: refund
          type: MUTATION
          inputSchema: {type: object, properties: {invoice: {type: string}}}
          accessControl:
            requiredScopes: [billing:write]
        """);
  }
}
