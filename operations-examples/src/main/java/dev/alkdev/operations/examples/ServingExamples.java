package dev.alkdev.operations.examples;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.CallObserver;
import dev.alkdev.operations.ContextKey;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationInterceptor;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.serving.CallRequest;
import dev.alkdev.operations.serving.CallSink;
import dev.alkdev.operations.serving.OperationServer;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/**
 * The interceptor and serving examples of docs/api-surface.md, runnable: {@code mvn -B -q compile
 * exec:java -pl operations-examples -am
 * -Dexec.mainClass=dev.alkdev.operations.examples.ServingExamples}.
 */
public final class ServingExamples {
  private ServingExamples() {}

  public static void main(String[] args) throws Exception {
    // snippet: interceptor
    ContextKey<String> traceId = ContextKey.of("example.traceId");
    OperationInterceptor timing =
        (invocation, chain) -> {
          long start = System.nanoTime();
          String trace =
              invocation.context().metadata().get("traceparent").orElse("00-none-none-00");
          chain.proceed(
              invocation.context().withAttribute(traceId, trace.split("-")[1]),
              new CallObserver() {
                @Override
                public void onEnd(Optional<CallError> failure) {
                  System.out.printf(
                      "%s %s %s in %d µs%n",
                      invocation.origin(),
                      invocation.operationId(),
                      failure.map(e -> e.code().name()).orElse("OK"),
                      (System.nanoTime() - start) / 1000);
                }
              });
        };
    OperationRegistry registry = OperationRegistry.builder().interceptor(timing).build();
    registry.register(
        OperationSpec.builder("demo", "trace").build(),
        (input, context) -> context.attribute(traceId).orElse("none"));
    // end-snippet

    // snippet: serve
    OperationServer server = OperationServer.builder(registry).maxConcurrentCalls(100).build();
    CountDownLatch done = new CountDownLatch(1);
    CallSink sink =
        new CallSink() {
          @Override
          public void onResult(ResponseEnvelope<JsonNode> result) {
            System.out.println("result: " + result.data()); // an HTTP gateway writes JSON here
            done.countDown();
          }

          @Override
          public void onItem(ResponseEnvelope<JsonNode> item) {
            System.out.println("item: " + item.data()); // ... or an SSE event
          }

          @Override
          public void onComplete() {
            done.countDown();
          }

          @Override
          public void onError(CallError error) {
            System.out.println(error.code() + ": " + error.getMessage());
            done.countDown();
          }
        };
    server.serve(
        CallRequest.builder("demo.trace")
            .identity(Identity.of("alice")) // as the adapter authenticated the caller
            .metadata(
                CallMetadata.of(
                    "traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
            .build(),
        sink);
    // end-snippet
    done.await(5, TimeUnit.SECONDS);
    server.close();
    registry.close();
  }
}
