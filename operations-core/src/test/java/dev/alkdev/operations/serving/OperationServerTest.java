package dev.alkdev.operations.serving;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.Deadline;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.IntNode;

/** The serving pipeline on its own, seen through a recording sink. */
class OperationServerTest {
  final OperationRegistry registry = OperationRegistry.create();
  OperationServer server = OperationServer.create(registry);

  @AfterEach
  void close() {
    server.close();
    registry.close();
  }

  static CallRequest.Builder request(String operationId) {
    return CallRequest.builder(operationId);
  }

  RecordingSink serve(CallRequest.Builder request) throws InterruptedException {
    RecordingSink sink = new RecordingSink();
    ServedCall call = server.serve(request.build(), sink);
    assertThat(sink.started).isSameAs(call);
    return sink;
  }

  void echo() {
    registry.register(OperationSpec.builder("demo", "echo").build(), (in, ctx) -> in);
  }

  @Nested
  class Access {
    @Test
    void anAnonymousCallerOfAScopedOperationIsUnauthenticated() throws Exception {
      registry.register(
          OperationSpec.builder("demo", "secret").requiredScopes("admin").build(), (in, c) -> 1);
      RecordingSink sink = serve(request("demo.secret")).awaitEnd();
      assertThat(sink.error.code()).isEqualTo(ErrorCode.UNAUTHENTICATED);
      assertThat(sink.error.getMessage()).contains("demo.secret needs an authenticated caller");
    }

    @Test
    void anIdentifiedCallerWithoutTheScopeIsDenied() throws Exception {
      registry.register(
          OperationSpec.builder("demo", "secret").requiredScopes("admin").build(), (in, c) -> 1);
      RecordingSink sink =
          serve(request("demo.secret").identity(Identity.of("bob", "user"))).awaitEnd();
      assertThat(sink.error.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
    }

    @Test
    void aCallerWithTheScopeIsServedAndItsIdentityReachesTheHandler() throws Exception {
      registry.register(
          OperationSpec.builder("demo", "secret").requiredScopes("admin").build(),
          (in, c) -> c.identity().subject());
      RecordingSink sink =
          serve(request("demo.secret").identity(Identity.of("alice", "admin"))).awaitEnd();
      assertThat(sink.signals).containsExactly("result");
      assertThat(sink.result.data().asString()).isEqualTo("alice");
    }

    @Test
    void anUnknownOperationIsNotFound() throws Exception {
      RecordingSink sink = serve(request("demo.none")).awaitEnd();
      assertThat(sink.error.code()).isEqualTo(ErrorCode.OPERATION_NOT_FOUND);
      assertThat(sink.signals).containsExactly("error OPERATION_NOT_FOUND");
    }

    @Test
    void anOperationWithoutAHandlerIsNotFound() throws Exception {
      registry.registerSpec(OperationSpec.builder("demo", "later").build());
      RecordingSink sink = serve(request("demo.later")).awaitEnd();
      assertThat(sink.error.code()).isEqualTo(ErrorCode.OPERATION_NOT_FOUND);
      assertThat(server.stats().running()).isZero();
    }

    @Test
    void aRefusalIsHeardBeforeServeReturns() {
      RecordingSink sink = new RecordingSink();
      ServedCall call = server.serve(request("demo.none").build(), sink);
      assertThat(sink.terminals).hasValue(1);
      assertThat(call.isDone()).isTrue();
      assertThat(call.cancel(CallError.of(ErrorCode.CANCELLED, "late"))).isFalse();
    }
  }

  @Nested
  class Context {
    @Test
    void theRequestBecomesTheHandlersContext() throws Exception {
      AtomicReference<OperationContext> seen = new AtomicReference<>();
      registry.register(
          OperationSpec.builder("demo", "ctx").build(),
          (in, c) -> {
            seen.set(c);
            return null;
          });
      CallMetadata meta = CallMetadata.of("traceparent", "00-abc-def-01");
      String parent = OperationContext.newRequestId();
      RecordingSink sink =
          serve(
                  request("demo.ctx")
                      .requestId("r-1")
                      .parentRequestId(parent)
                      .deadline(Deadline.after(Duration.ofSeconds(10)))
                      .metadata(meta))
              .awaitEnd();
      assertThat(sink.signals).containsExactly("result");
      OperationContext context = seen.get();
      assertThat(context.requestId()).isEqualTo("r-1");
      assertThat(context.parentRequestId()).contains(parent);
      assertThat(context.deadline()).isPresent();
      assertThat(context.metadata()).isEqualTo(meta);
    }

    @Test
    void theInputIsValidated() throws Exception {
      registry.register(
          OperationSpec.builder("demo", "typed").inputSchema("{\"type\": \"integer\"}").build(),
          (in, c) -> in);
      RecordingSink sink =
          serve(request("demo.typed").input(JsonMapper.shared().readTree("\"x\""))).awaitEnd();
      assertThat(sink.error.code()).isEqualTo(ErrorCode.INVALID_INPUT);
    }

    @Test
    void anExpiredDeadlineFailsWithoutRunning() throws Exception {
      AtomicInteger runs = new AtomicInteger();
      registry.register(
          OperationSpec.builder("demo", "run").build(), (in, c) -> runs.incrementAndGet());
      RecordingSink sink = serve(request("demo.run").deadline(Deadline.afterMillis(0))).awaitEnd();
      assertThat(sink.error.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
      assertThat(runs).hasValue(0);
    }
  }

  @Nested
  class Capacity {
    @Test
    void callsBeyondTheCapAreRefusedAndTheSlotComesBack() throws Exception {
      server = OperationServer.builder(registry).maxConcurrentCalls(1).build();
      CompletableFuture<Object> release = new CompletableFuture<>();
      registry.register(
          OperationSpec.builder("demo", "hold").build(), Handler.async((in, c) -> release));
      RecordingSink first = serve(request("demo.hold"));
      assertThat(server.stats().running()).isEqualTo(1);

      RecordingSink second = serve(request("demo.hold")).awaitEnd();
      assertThat(second.error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      assertThat(second.error.retryable()).isTrue();

      release.complete(7);
      first.awaitEnd();
      assertThat(first.result.data().asInt()).isEqualTo(7);
      assertThat(server.stats().running()).isZero();
      RecordingSink third = serve(request("demo.hold")).awaitEnd(); // `release` is done already
      assertThat(third.signals).containsExactly("result");
    }

    @Test
    void aRequestIdInUseIsAProtocolError() throws Exception {
      registry.register(
          OperationSpec.builder("demo", "hold").build(),
          Handler.async((in, c) -> new CompletableFuture<>()));
      RecordingSink first = serve(request("demo.hold").requestId("same"));
      RecordingSink second = serve(request("demo.hold").requestId("same")).awaitEnd();
      assertThat(second.error.code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);
      assertThat(first.signals).isEmpty();
      assertThat(server.stats().running()).isEqualTo(1);
    }
  }

  @Nested
  class Streams {
    void counter(int count) {
      registry.register(
          OperationSpec.builder("demo", "count").type(OperationType.SUBSCRIPTION).build(),
          Handler.emitter(
              (in, c, emitter) -> {
                for (int i = 0; i < count; i++) {
                  emitter.emit(i);
                }
              }));
    }

    @Test
    void itemsFollowTheCallersDemand() throws Exception {
      counter(5);
      RecordingSink sink = new RecordingSink();
      ServedCall call = server.serve(request("demo.count").demand(2).build(), sink);
      await(() -> sink.items.size() == 2);
      Thread.sleep(100);
      assertThat(sink.items).hasSize(2); // no more than asked for
      call.request(2);
      await(() -> sink.items.size() == 4);
      call.request(10);
      sink.awaitEnd();
      assertThat(sink.items).extracting(n -> n.asInt()).containsExactly(0, 1, 2, 3, 4);
      assertThat(sink.signals).endsWith("complete");
      assertThat(server.stats().running()).isZero();
    }

    @Test
    void aUnaryCallerOfASubscriptionGetsItsItemsUnbounded() throws Exception {
      counter(3);
      RecordingSink sink = serve(request("demo.count")).awaitEnd();
      assertThat(sink.signals).containsExactly("item", "item", "item", "complete");
    }

    @Test
    void aUnaryOperationServedToAStreamConsumerIsAStreamOfOne() throws Exception {
      echo();
      RecordingSink sink = serve(request("demo.echo").input(IntNode.valueOf(4)).demand(1));
      sink.awaitEnd();
      assertThat(sink.signals).containsExactly("item", "complete");
      assertThat(sink.items).containsExactly(IntNode.valueOf(4));
    }
  }

  @Nested
  class Cancel {
    @Test
    void cancellingEndsTheHandlersContextAndSilencesTheSink() throws Exception {
      CountDownLatch running = new CountDownLatch(1);
      AtomicReference<CallError> reason = new AtomicReference<>();
      registry.register(
          OperationSpec.builder("demo", "wait").build(),
          Handler.async(
              (in, c) -> {
                CompletableFuture<Object> never = new CompletableFuture<>();
                c.cancellation()
                    .onCancel(() -> reason.set(c.cancellation().reason().orElseThrow()));
                running.countDown();
                return never;
              }));
      RecordingSink sink = new RecordingSink();
      ServedCall call = server.serve(request("demo.wait").build(), sink);
      assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(call.cancel(CallError.of(ErrorCode.CANCELLED, "client went away"))).isTrue();
      assertThat(call.isDone()).isTrue();
      assertThat(reason.get().getMessage()).isEqualTo("client went away");
      assertThat(call.cancel(CallError.of(ErrorCode.CANCELLED, "again"))).isFalse();
      Thread.sleep(50);
      assertThat(sink.signals).isEmpty();
      assertThat(server.stats().running()).isZero();
    }

    @Test
    void aStreamSendsNothingOnceCancelReturns() throws Exception {
      registry.register(
          OperationSpec.builder("demo", "flood").type(OperationType.SUBSCRIPTION).build(),
          Handler.emitter(
              (in, c, emitter) -> {
                for (int i = 0; ; i++) {
                  emitter.emit(i);
                }
              }));
      for (int round = 0; round < 20; round++) {
        RecordingSink sink = new RecordingSink();
        ServedCall call = server.serve(request("demo.flood").build(), sink);
        await(() -> sink.items.size() > 10);
        call.cancel(CallError.of(ErrorCode.CANCELLED, "enough"));
        int seen = sink.signals.size();
        Thread.sleep(20);
        assertThat(sink.signals).hasSize(seen);
        assertThat(sink.terminals).hasValue(0);
        assertThat(sink.overlapping).hasValue(0);
      }
      await(() -> server.stats().running() == 0);
    }

    @Test
    void demandAddsUp() throws Exception {
      registry.register(
          OperationSpec.builder("demo", "slow").type(OperationType.SUBSCRIPTION).build(),
          Handler.emitter(
              (in, c, emitter) -> {
                for (int i = 0; i < 3; i++) {
                  emitter.emit(i);
                }
              }));
      RecordingSink sink = new RecordingSink();
      ServedCall call = server.serve(request("demo.slow").demand(1).build(), sink);
      call.request(2);
      sink.awaitEnd();
      assertThat(sink.items).hasSize(3);
    }
  }

  @Nested
  class Close {
    @Test
    void closingEndsRunningCallsWithUnavailableAndRefusesNewOnes() throws Exception {
      AtomicReference<OperationContext> seen = new AtomicReference<>();
      registry.register(
          OperationSpec.builder("demo", "wait").build(),
          Handler.async(
              (in, c) -> {
                seen.set(c);
                return new CompletableFuture<>();
              }));
      RecordingSink running = serve(request("demo.wait"));
      server.close();
      running.awaitEnd();
      assertThat(running.error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
      assertThat(running.error.getMessage()).contains("shutting down");
      assertThat(running.error.retryable()).isTrue();
      assertThat(seen.get().cancellation().isCancelled()).isTrue();
      assertThat(server.stats())
          .isEqualTo(new ServingStats(0, 10_000, 0, 10_000, 0, 0, 0, 0, true, 0));

      RecordingSink late = serve(request("demo.wait")).awaitEnd();
      assertThat(late.error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
    }

    @Test
    void drainingRefusesNewCallsLetsRunningOnesFinishThenCancelsTheRest() throws Exception {
      CompletableFuture<Object> finishes = new CompletableFuture<>();
      registry.register(
          OperationSpec.builder("demo", "finishes").build(), Handler.async((in, c) -> finishes));
      registry.register(
          OperationSpec.builder("demo", "never").build(),
          Handler.async((in, c) -> new CompletableFuture<>()));
      RecordingSink finishing = serve(request("demo.finishes"));
      CompletableFuture<Boolean> drained =
          CompletableFuture.supplyAsync(() -> server.drain(java.time.Duration.ofSeconds(5)));
      while (!server.isClosed()) {
        Thread.sleep(1);
      }
      RecordingSink refused = serve(request("demo.finishes")).awaitEnd();
      assertThat(refused.error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
      assertThat(refused.error.retryable()).isTrue();
      assertThat(drained).isNotDone();
      finishes.complete("done");
      finishing.awaitEnd();
      assertThat(finishing.error).isNull();
      assertThat(drained.get(5, TimeUnit.SECONDS)).isTrue();

      OperationServer other = OperationServer.create(registry);
      RecordingSink stuck = new RecordingSink();
      other.serve(CallRequest.builder("demo.never").build(), stuck);
      long start = System.nanoTime();
      assertThat(other.drain(java.time.Duration.ofMillis(100))).isFalse();
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(90L, 2000L);
      stuck.awaitEnd();
      assertThat(stuck.error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
    }
  }

  @Nested
  class Races {
    /**
     * Each call's handler completes on one thread while another cancels it and a third asks for
     * more; sinks must hear exactly one end or (if the cancel won) nothing, never two, never
     * overlapping.
     */
    @Test
    void exactlyOneEndUnderRaces() throws Exception {
      AtomicReference<CompletableFuture<Object>> current = new AtomicReference<>();
      registry.register(
          OperationSpec.builder("demo", "race").build(),
          Handler.async(
              (in, c) -> {
                CompletableFuture<Object> result = new CompletableFuture<>();
                current.set(result);
                return result;
              }));
      ExecutorService threads = Executors.newFixedThreadPool(3);
      try {
        for (int i = 0; i < 500; i++) {
          RecordingSink sink = new RecordingSink();
          ServedCall call = server.serve(request("demo.race").build(), sink);
          CompletableFuture<Object> result = current.get();
          CyclicBarrier start = new CyclicBarrier(3);
          AtomicInteger cancelWon = new AtomicInteger();
          Future<?> a =
              threads.submit(
                  () -> {
                    start.await();
                    result.complete(1);
                    return null;
                  });
          Future<?> b =
              threads.submit(
                  () -> {
                    start.await();
                    if (call.cancel(CallError.of(ErrorCode.CANCELLED, "race"))) {
                      cancelWon.incrementAndGet();
                    }
                    return null;
                  });
          Future<?> c =
              threads.submit(
                  () -> {
                    start.await();
                    call.request(1);
                    return null;
                  });
          a.get(5, TimeUnit.SECONDS);
          b.get(5, TimeUnit.SECONDS);
          c.get(5, TimeUnit.SECONDS);
          assertThat(sink.terminals.get() + cancelWon.get()).as("round %d", i).isEqualTo(1);
          assertThat(sink.afterEnd).hasValue(0);
          assertThat(sink.overlapping).hasValue(0);
        }
      } finally {
        threads.shutdownNow();
      }
      assertThat(server.stats().running()).isZero();
    }

    @Test
    void closeRacingWithCompletionEndsEachCallOnce() throws Exception {
      List<CompletableFuture<Object>> results = new ArrayList<>();
      registry.register(
          OperationSpec.builder("demo", "race").build(),
          Handler.async(
              (in, c) -> {
                CompletableFuture<Object> result = new CompletableFuture<>();
                synchronized (results) {
                  results.add(result);
                }
                return result;
              }));
      List<RecordingSink> sinks = new ArrayList<>();
      for (int i = 0; i < 2_000; i++) {
        RecordingSink sink = new RecordingSink();
        server.serve(request("demo.race").build(), sink);
        sinks.add(sink);
      }
      Thread completer =
          new Thread(
              () -> {
                synchronized (results) {
                  results.forEach(r -> r.complete(1));
                }
              });
      completer.start();
      server.close();
      completer.join();
      for (RecordingSink sink : sinks) {
        sink.awaitEnd();
        assertThat(sink.terminals).hasValue(1);
        assertThat(sink.afterEnd).hasValue(0);
        assertThat(sink.overlapping).hasValue(0);
      }
      assertThat(server.stats().running()).isZero();
    }
  }

  static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
    for (int i = 0; i < 500 && !condition.getAsBoolean(); i++) {
      Thread.sleep(10);
    }
    assertThat(condition.getAsBoolean()).as("condition reached in time").isTrue();
  }
}
