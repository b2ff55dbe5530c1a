package dev.alkdev.operations.examples;

import dev.alkdev.operations.AccessControl;
import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.HttpResponseMeta;
import dev.alkdev.operations.envelope.LocalResponseMeta;
import dev.alkdev.operations.envelope.McpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import tools.jackson.databind.JsonNode;

/**
 * The registry examples of docs/api-surface.md and docs/envelopes.md, runnable: {@code mvn -B -q
 * compile exec:java -pl operations-examples -am
 * -Dexec.mainClass=dev.alkdev.operations.examples.RegistryExamples}.
 */
public final class RegistryExamples {
  private RegistryExamples() {}

  /** The input of greetings.hello. */
  public record Hello(String name) {}

  public static void main(String[] args) throws Exception {
    // snippet: define
    OperationRegistry registry = OperationRegistry.create();
    OperationSpec hello =
        OperationSpec.builder("greetings", "hello")
            .description("Says hello")
            .inputSchema(
                """
                {"type": "object", "required": ["name"],
                 "properties": {"name": {"type": "string", "minLength": 1}}}""")
            .outputSchema("{\"type\": \"string\"}")
            .build();
    registry.register(hello, (input, context) -> "Hello, " + input.get("name").asString());
    // end-snippet

    // snippet: execute
    ResponseEnvelope<JsonNode> envelope =
        registry.execute("greetings.hello", Map.of("name", "Ada")).join();
    String text = Envelopes.unwrap(envelope).asString(); // "Hello, Ada"
    // end-snippet
    System.out.println("execute -> " + text + " " + Envelopes.toJson(envelope));

    // snippet: errors
    try {
      registry.execute("greetings.hello", Map.of("name", "")).join();
    } catch (java.util.concurrent.CompletionException e) {
      // The CallError in the chain; any other failure becomes the fallback code and message.
      CallError error = CallError.from(e, ErrorCode.EXECUTION_ERROR, "greetings.hello failed");
      // INVALID_INPUT, with one SchemaError at /name
      System.out.println(error.code() + " " + error.validationErrors());
    }
    // end-snippet

    // snippet: meta
    String origin =
        switch (envelope.meta().source()) {
          case LOCAL -> "ran here: " + ((LocalResponseMeta) envelope.meta()).operationId();
          case HTTP -> "HTTP " + ((HttpResponseMeta) envelope.meta()).statusCode();
          case MCP -> "MCP, isError=" + ((McpResponseMeta) envelope.meta()).isError();
        };
    // end-snippet
    System.out.println("meta -> " + origin);

    // snippet: deadline
    OperationContext context =
        OperationContext.builder()
            .identity(Identity.of("alice", "greetings:read"))
            .timeout(Duration.ofSeconds(2))
            .build();
    CompletableFuture<ResponseEnvelope<JsonNode>> call =
        registry.execute("greetings.hello", Map.of("name", "Alice"), context);
    // end-snippet
    System.out.println("with a deadline -> " + call.join().data());

    // snippet: async
    registry.register(
        OperationSpec.builder("greetings", "later").build(),
        Handler.async((input, ctx) -> CompletableFuture.supplyAsync(() -> "done")));
    // end-snippet

    // snippet: bind
    registry.register(
        OperationSpec.builder("greetings", "fetched").build(),
        Handler.async(
            (input, ctx) -> {
              ctx.throwIfDone(); // CANCELLED or DEADLINE_EXCEEDED: do not start
              CompletableFuture<String> work = CompletableFuture.supplyAsync(() -> "fetched");
              // Fails with the reason when the call is cancelled or its deadline passes first,
              // cancels the work then, and releases its timer and listener when the work ends.
              return ctx.bind(work);
            }));
    // end-snippet
    System.out.println(
        "bind -> "
            + registry
                .execute(
                    "greetings.fetched",
                    null,
                    OperationContext.builder().timeout(Duration.ofSeconds(2)).build())
                .join()
                .data());

    // snippet: subscribe
    registry.register(
        OperationSpec.builder("demo", "countdown").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (input, ctx, emitter) -> {
              for (int i = input.get("from").asInt(); i > 0; i--) {
                emitter.emit(i); // waits while the subscriber has no demand
              }
            }));
    Flow.Publisher<ResponseEnvelope<JsonNode>> stream =
        registry.subscribe("demo.countdown", Map.of("from", 3));
    // end-snippet
    CompletableFuture<Void> done = new CompletableFuture<>();
    stream.subscribe(
        new Flow.Subscriber<>() {
          @Override
          public void onSubscribe(Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
          }

          @Override
          public void onNext(ResponseEnvelope<JsonNode> item) {
            System.out.println("subscribe -> " + item.data());
          }

          @Override
          public void onError(Throwable throwable) {
            done.completeExceptionally(throwable);
          }

          @Override
          public void onComplete() {
            done.complete(null);
          }
        });
    done.join();

    // snippet: env
    registry.register(
        OperationSpec.builder("greetings", "twice").build(),
        (input, ctx) -> {
          JsonNode once = ctx.env().namespace("greetings").call("hello", input).join().data();
          return once.asString() + " " + once.asString();
        });
    // end-snippet
    System.out.println(
        "env -> " + registry.execute("greetings.twice", Map.of("name", "Bo")).join().data());

    // snippet: access
    OperationSpec admin =
        OperationSpec.builder("admin", "purge")
            .type(OperationType.MUTATION)
            .accessControl(AccessControl.requireScopes("admin"))
            .build();
    try {
      admin.accessControl().check(Identity.of("bob", "greetings:read"), admin.id());
    } catch (CallError e) {
      // ACCESS_DENIED: Access denied to admin.purge: missing scope(s) admin
      System.out.println(e.code() + ": " + e.getMessage());
    }
    // end-snippet
    System.out.println(
        "callable by anonymous -> "
            + registry.listCallableBy(Identity.anonymous()).stream()
                .map(OperationSpec::id)
                .toList());
    registry.close();
  }
}
