package dev.alkdev.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.serving.CallRequest;
import dev.alkdev.operations.serving.CallSink;
import dev.alkdev.operations.serving.OperationServer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class InterceptorTest {
  static final ContextKey<String> TENANT = ContextKey.of("tenant");

  /** Records each call it sees and how it ended: "origin operationId outcome". */
  static final class Recorder implements OperationInterceptor {
    final List<String> ends = new CopyOnWriteArrayList<>();
    final List<OperationContext> contexts = new CopyOnWriteArrayList<>();
    final AtomicInteger items = new AtomicInteger();

    @Override
    public void intercept(Invocation invocation, Chain chain) {
      contexts.add(invocation.context());
      chain.proceed(
          invocation.context(),
          new CallObserver() {
            @Override
            public void onItem(ResponseEnvelope<JsonNode> item) {
              items.incrementAndGet();
            }

            @Override
            public void onEnd(Optional<CallError> failure) {
              ends.add(
                  invocation.origin()
                      + " "
                      + invocation.operationId()
                      + " "
                      + failure.map(e -> e.code().name()).orElse("OK"));
            }
          });
    }
  }

  final Recorder recorder = new Recorder();
  OperationRegistry registry = OperationRegistry.builder().interceptor(recorder).build();

  @AfterEach
  void close() {
    registry.close();
  }

  void register() {
    registry.register(OperationSpec.builder("demo", "echo").build(), (in, ctx) -> in);
    registry.register(
        OperationSpec.builder("demo", "typed").inputSchema("{\"type\": \"integer\"}").build(),
        (in, ctx) -> in);
    registry.register(
        OperationSpec.builder("demo", "count").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, emitter) -> {
              for (int i = 0; i < 3; i++) {
                emitter.emit(i);
              }
            }));
  }

  @Nested
  class Observing {
    @Test
    void everyUnaryCallEndsOnceWithItsOutcome() {
      register();
      assertThat(registry.execute("demo.echo", 1).join().data().asInt()).isEqualTo(1);
      assertThatThrownBy(() -> registry.execute("demo.typed", "x").join())
          .hasCauseInstanceOf(CallError.class);
      assertThatThrownBy(() -> registry.execute("demo.none", null).join())
          .hasCauseInstanceOf(CallError.class);
      assertThat(recorder.ends)
          .containsExactly(
              "IN_PROCESS demo.echo OK",
              "IN_PROCESS demo.typed INVALID_INPUT",
              "IN_PROCESS demo.none OPERATION_NOT_FOUND");
    }

    /**
     * Cancelling the future an intercepted execute returns cancels the call (its handler's signal),
     * and the interceptors hear its end (EXECUTION_ERROR, as before); a future derived from it is a
     * plain one.
     */
    @Test
    void cancellingTheFutureCancelsTheInterceptedCall() throws Exception {
      AtomicReference<OperationContext> seen = new AtomicReference<>();
      registry.register(
          OperationSpec.builder("demo", "never").build(),
          Handler.async(
              (in, ctx) -> {
                seen.set(ctx);
                return new CompletableFuture<>();
              }));
      CompletableFuture<ResponseEnvelope<JsonNode>> call = registry.execute("demo.never", null);
      assertThat(call.thenApply(r -> r)).isNotInstanceOf(CallObserver.class);
      assertThat(call.cancel(false)).isTrue();
      assertThat(seen.get().cancellation().isCancelled()).isTrue();
      assertThat(recorder.ends).containsExactly("IN_PROCESS demo.never EXECUTION_ERROR");

      CompletableFuture<ResponseEnvelope<JsonNode>> other = registry.execute("demo.never", null);
      other.completeExceptionally(new java.util.concurrent.CancellationException("stop"));
      assertThat(seen.get().cancellation().isCancelled()).isTrue();
    }

    @Test
    void streamItemsAndCompletionAreSeen() throws Exception {
      register();
      TestSubscriber<ResponseEnvelope<JsonNode>> subscriber = new TestSubscriber<>(10);
      registry.subscribe("demo.count", null).subscribe(subscriber);
      assertThat(subscriber.terminated.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(subscriber.completed).isTrue();
      assertThat(subscriber.items).hasSize(3);
      assertThat(recorder.items).hasValue(3);
      assertThat(recorder.ends).containsExactly("IN_PROCESS demo.count OK");
    }

    @Test
    void aSubscriberThatCancelsEndsTheCallAsCancelled() throws Exception {
      register();
      TestSubscriber<ResponseEnvelope<JsonNode>> subscriber = new TestSubscriber<>(1);
      registry.subscribe("demo.count", null).subscribe(subscriber);
      for (int i = 0; i < 100 && subscriber.items.isEmpty(); i++) {
        Thread.sleep(10);
      }
      subscriber.subscription.cancel();
      assertThat(recorder.ends).containsExactly("IN_PROCESS demo.count CANCELLED");
    }

    @Test
    void nestedCallsThroughTheEnvPassTheChain() {
      register();
      registry.register(
          OperationSpec.builder("demo", "outer").build(),
          (in, ctx) -> ctx.env().call("demo.echo", in).join().data());
      assertThat(registry.execute("demo.outer", 5).join().data().asInt()).isEqualTo(5);
      assertThat(recorder.ends)
          .containsExactly("IN_PROCESS demo.echo OK", "IN_PROCESS demo.outer OK");
      OperationContext outer = recorder.contexts.get(0);
      OperationContext nested = recorder.contexts.get(1);
      assertThat(nested.parentRequestId()).contains(outer.requestId());
    }
  }

  @Nested
  class Changing {
    @Test
    void anAttributeAddedByAnInterceptorReachesTheHandlerAndItsNestedCalls() {
      registry.close();
      registry =
          OperationRegistry.builder()
              .interceptor(
                  (invocation, chain) ->
                      chain.proceed(
                          invocation.context().attribute(TENANT).isPresent()
                              ? invocation.context()
                              : invocation.context().withAttribute(TENANT, "acme")))
              .build();
      List<String> seen = new CopyOnWriteArrayList<>();
      registry.register(
          OperationSpec.builder("demo", "inner").build(),
          (in, ctx) -> {
            seen.add("inner " + ctx.attribute(TENANT).orElse("-"));
            return null;
          });
      registry.register(
          OperationSpec.builder("demo", "outer").build(),
          (in, ctx) -> {
            seen.add("outer " + ctx.attribute(TENANT).orElse("-"));
            return ctx.env().call("demo.inner", null).join().data();
          });
      registry.execute("demo.outer", null).join();
      assertThat(seen).containsExactly("outer acme", "inner acme");
    }

    @Test
    void anInterceptorRefusesACallWithACallError() {
      AtomicInteger runs = new AtomicInteger();
      registry.close();
      registry =
          OperationRegistry.builder()
              .interceptor(recorder)
              .interceptor(
                  (invocation, chain) -> {
                    throw CallError.of(ErrorCode.RESOURCE_EXHAUSTED, "rate limited");
                  })
              .build();
      registry.register(
          OperationSpec.builder("demo", "run").build(), (in, ctx) -> runs.incrementAndGet());
      assertThatThrownBy(() -> registry.execute("demo.run", null).join())
          .isInstanceOf(CompletionException.class)
          .cause()
          .hasMessage("rate limited");
      assertThat(runs).hasValue(0);
      assertThat(recorder.ends).containsExactly("IN_PROCESS demo.run RESOURCE_EXHAUSTED");
    }

    @Test
    void aRefusedStreamStillGetsOnSubscribeThenTheError() throws Exception {
      registry.close();
      registry =
          OperationRegistry.builder()
              .interceptor(
                  (invocation, chain) -> {
                    throw CallError.of(ErrorCode.ACCESS_DENIED, "no");
                  })
              .build();
      register();
      TestSubscriber<ResponseEnvelope<JsonNode>> subscriber = new TestSubscriber<>(1);
      registry.subscribe("demo.count", null).subscribe(subscriber);
      assertThat(subscriber.terminated.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(subscriber.subscription).isNotNull();
      assertThat(((CallError) subscriber.error).code()).isEqualTo(ErrorCode.ACCESS_DENIED);
    }
  }

  @Nested
  class TheRule {
    @Test
    void returningWithoutProceedingFailsTheCallAndNamesTheInterceptor() {
      registry.close();
      OperationInterceptor forgetful = (invocation, chain) -> {};
      registry = OperationRegistry.builder().interceptor(recorder).interceptor(forgetful).build();
      register();
      CompletionException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              CompletionException.class, () -> registry.execute("demo.echo", 1).join());
      CallError error = (CallError) e.getCause();
      assertThat(error.code()).isEqualTo(ErrorCode.EXECUTION_ERROR);
      assertThat(error.getCause())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("Interceptor #2 (" + forgetful.getClass().getName())
          .hasMessageContaining("returned without calling proceed()")
          .hasMessageContaining("exactly once");
      assertThat(recorder.ends).containsExactly("IN_PROCESS demo.echo EXECUTION_ERROR");
    }

    @Test
    void proceedingTwiceIsRefusedWithAClearMessage() {
      registry.close();
      AtomicReference<RuntimeException> second = new AtomicReference<>();
      registry =
          OperationRegistry.builder()
              .interceptor(
                  (invocation, chain) -> {
                    chain.proceed(invocation.context());
                    try {
                      chain.proceed(invocation.context());
                    } catch (RuntimeException e) {
                      second.set(e);
                    }
                  })
              .build();
      AtomicInteger runs = new AtomicInteger();
      registry.register(
          OperationSpec.builder("demo", "run").build(), (in, ctx) -> runs.incrementAndGet());
      assertThat(registry.execute("demo.run", null).join().data().asInt()).isEqualTo(1);
      assertThat(runs).hasValue(1);
      assertThat(second.get())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("Interceptor #1")
          .hasMessageContaining("called proceed() a second time for demo.run");
    }

    @Test
    void proceedingAfterReturningIsRefused() {
      registry.close();
      AtomicReference<OperationInterceptor.Chain> kept = new AtomicReference<>();
      AtomicReference<OperationContext> context = new AtomicReference<>();
      registry =
          OperationRegistry.builder()
              .interceptor(
                  (invocation, chain) -> {
                    kept.set(chain);
                    context.set(invocation.context());
                  })
              .build();
      register();
      assertThatThrownBy(() -> registry.execute("demo.echo", 1).join())
          .hasCauseInstanceOf(CallError.class);
      assertThatThrownBy(() -> kept.get().proceed(context.get()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("called proceed() after it returned");
    }

    @Test
    void aRegistryWithoutInterceptorsRunsAsBefore() {
      try (OperationRegistry plain = OperationRegistry.create()) {
        plain.register(OperationSpec.builder("demo", "echo").build(), (in, ctx) -> in);
        assertThat(plain.execute("demo.echo", Map.of("a", 1)).join().data().get("a").asInt())
            .isEqualTo(1);
      }
    }
  }

  @Nested
  class Served {
    final CallSink quiet =
        new CallSink() {
          @Override
          public void onResult(ResponseEnvelope<JsonNode> result) {}

          @Override
          public void onItem(ResponseEnvelope<JsonNode> item) {}

          @Override
          public void onComplete() {}

          @Override
          public void onError(CallError error) {}
        };

    @Test
    void servedCallsAreSeenOnceIncludingRefusals() {
      register();
      registry.register(
          OperationSpec.builder("demo", "secret").requiredScopes("admin").build(), (in, c) -> 1);
      CompletableFuture<Object> hold = new CompletableFuture<>();
      registry.register(
          OperationSpec.builder("demo", "hold").build(), Handler.async((in, c) -> hold));
      // Non-blocking, so that every call below has ended before the next starts.
      registry.register(
          OperationSpec.builder("demo", "quick").build(),
          Handler.async((in, c) -> CompletableFuture.completedFuture(in)));
      try (OperationServer server =
          OperationServer.builder(registry).maxConcurrentCalls(1).build()) {
        server.serve(CallRequest.builder("demo.quick").build(), quiet);
        server.serve(CallRequest.builder("demo.none").build(), quiet);
        server.serve(
            CallRequest.builder("demo.secret").identity(Identity.of("bob")).build(), quiet);
        server.serve(CallRequest.builder("demo.hold").build(), quiet);
        server.serve(CallRequest.builder("demo.quick").build(), quiet); // over the cap
        hold.complete(1);
      }
      assertThat(recorder.ends)
          .containsExactly(
              "SERVED demo.quick OK",
              "SERVED demo.none OPERATION_NOT_FOUND",
              "SERVED demo.secret ACCESS_DENIED",
              "SERVED demo.quick RESOURCE_EXHAUSTED",
              "SERVED demo.hold OK");
    }

    @Test
    void theIncomingMetadataIsInTheServedContextAndServerInterceptorsRunInside() {
      register();
      List<String> order = new CopyOnWriteArrayList<>();
      try (OperationServer server =
          OperationServer.builder(registry)
              .interceptor(
                  (invocation, chain) -> {
                    order.add("server " + invocation.context().metadata().get("traceparent"));
                    chain.proceed(invocation.context());
                  })
              .build()) {
        server.serve(
            CallRequest.builder("demo.echo")
                .metadata(CallMetadata.of("traceparent", "00-t-s-01"))
                .build(),
            quiet);
      }
      assertThat(recorder.contexts).hasSize(1);
      assertThat(recorder.contexts.get(0).metadata().get("traceparent")).contains("00-t-s-01");
      assertThat(order).containsExactly("server Optional[00-t-s-01]");
    }
  }
}
