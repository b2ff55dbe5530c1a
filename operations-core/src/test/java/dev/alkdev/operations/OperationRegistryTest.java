package dev.alkdev.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.HttpResponseMeta;
import dev.alkdev.operations.envelope.LocalResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.internal.Json;
import dev.alkdev.operations.internal.ResultPipeline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

class OperationRegistryTest {
  private final OperationRegistry registry = OperationRegistry.create();

  @AfterEach
  void close() {
    registry.close();
  }

  static JsonNode json(String text) {
    return Json.mapper().readTree(text);
  }

  static OperationSpec.Builder spec(String id) {
    String[] parts = OperationSpec.splitId(id);
    return OperationSpec.builder(parts[0], parts[1]);
  }

  static CallError failureOf(CompletableFuture<?> future) {
    try {
      future.get(5, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(CallError.class);
      return (CallError) e.getCause();
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError("the call did not fail in time", e);
    }
    throw new AssertionError("the call succeeded");
  }

  static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(5, TimeUnit.SECONDS);
    } catch (InterruptedException | ExecutionException | TimeoutException e) {
      throw new AssertionError(e);
    }
  }

  record Greeting(String message, int times) {}

  @Nested
  class Registration {
    @Test
    void registersLooksUpAndListsSortedById() {
      registry.register(spec("b.two").build(), (in, ctx) -> 2);
      registry.register(spec("a.one").build(), (in, ctx) -> 1);
      registry.register(spec("b.one").requiredScopes("admin").build(), (in, ctx) -> 1);

      assertThat(registry.list())
          .extracting(OperationSpec::id)
          .containsExactly("a.one", "b.one", "b.two");
      assertThat(registry.list("b"))
          .extracting(OperationSpec::id)
          .containsExactly("b.one", "b.two");
      assertThat(registry.listCallableBy(Identity.anonymous()))
          .extracting(OperationSpec::id)
          .containsExactly("a.one", "b.two");
      assertThat(registry.listCallableBy(Identity.of("root", "admin"))).hasSize(3);
      assertThat(registry.getSpec("a.one")).isPresent();
      assertThat(registry.getHandler("a.one"))
          .get()
          .extracting(Handler::kind)
          .isEqualTo(Handler.Kind.BLOCKING);
      assertThat(registry.getSpec("a.missing")).isEmpty();
    }

    @Test
    void refusesDuplicateIds() {
      registry.register(spec("a.one").build(), (in, ctx) -> 1);
      assertThatThrownBy(() -> registry.register(spec("a.one").build(), (in, ctx) -> 1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("a.one is already registered");
      assertThatThrownBy(() -> registry.registerSpec(spec("a.one").build()))
          .hasMessageContaining("already registered");
      assertThatThrownBy(() -> registry.registerHandler("a.one", (in, ctx) -> 1))
          .hasMessageContaining("already registered");
    }

    @Test
    void specAndHandlerMayArriveSeparatelyInEitherOrder() {
      registry.registerSpec(spec("a.first").build());
      CallError missing = failureOf(registry.execute("a.first", null));
      assertThat(missing.code()).isEqualTo(ErrorCode.OPERATION_NOT_FOUND);
      assertThat(missing.getMessage()).isEqualTo("No handler registered for operation: a.first");
      registry.registerHandler("a.first", (in, ctx) -> "spec first");
      assertThat(await(registry.execute("a.first", null)).data().asString())
          .isEqualTo("spec first");

      registry.registerHandler("a.second", (in, ctx) -> "handler first");
      assertThat(registry.list()).extracting(OperationSpec::id).containsExactly("a.first");
      assertThat(failureOf(registry.execute("a.second", null)).code())
          .isEqualTo(ErrorCode.OPERATION_NOT_FOUND);
      registry.registerSpec(spec("a.second").build());
      assertThat(await(registry.execute("a.second", null)).data().asString())
          .isEqualTo("handler first");
    }

    @Test
    void refusesHandlersThatCannotServeTheType() {
      OperationSpec stream = spec("a.stream").type(OperationType.SUBSCRIPTION).build();
      assertThatThrownBy(() -> registry.register(stream, (in, ctx) -> 1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("use Handler.publisher or Handler.emitter");
      assertThatThrownBy(
              () -> registry.register(spec("a.q").build(), Handler.emitter((in, ctx, em) -> {})))
          .hasMessageContaining("use an OperationHandler or Handler.async");
      registry.registerHandler("a.late", Handler.emitter((in, ctx, em) -> {}));
      assertThatThrownBy(() -> registry.registerSpec(spec("a.late").build()))
          .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusesMalformedIdsForHandlers() {
      assertThatThrownBy(() -> registry.registerHandler("nodot", (in, ctx) -> 1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("no namespace");
    }

    @Test
    void unregisterRemovesSpecAndHandler() {
      registry.register(spec("a.one").build(), (in, ctx) -> 1);
      assertThat(registry.unregister("a.one")).isTrue();
      assertThat(registry.unregister("a.one")).isFalse();
      assertThat(failureOf(registry.execute("a.one", null)).code())
          .isEqualTo(ErrorCode.OPERATION_NOT_FOUND);
    }

    @Test
    void manyThreadsRegisterAndExecuteConcurrently() throws Exception {
      ExecutorService pool = Executors.newFixedThreadPool(8);
      try {
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          int thread = t;
          futures.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < 250; i++) {
                      String id = "t" + thread + ".op" + i;
                      int expected = thread * 1000 + i;
                      registry.register(spec(id).build(), (in, ctx) -> expected);
                      ResponseEnvelope<JsonNode> result = await(registry.execute(id, null));
                      assertThat(result.data().asInt()).isEqualTo(expected);
                    }
                  }));
        }
        for (Future<?> f : futures) {
          f.get(30, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(registry.list()).hasSize(2000);
    }
  }

  @Nested
  class Execute {
    @Test
    void wrapsARawValueInALocalEnvelope() {
      registry.register(spec("demo.echo").build(), (in, ctx) -> in.get("message").asString());
      long before = System.currentTimeMillis();
      ResponseEnvelope<JsonNode> result =
          await(registry.execute("demo.echo", json("{\"message\":\"hi\"}")));
      assertThat(result.data().asString()).isEqualTo("hi");
      assertThat(result.meta()).isInstanceOf(LocalResponseMeta.class);
      LocalResponseMeta meta = (LocalResponseMeta) result.meta();
      assertThat(meta.operationId()).isEqualTo("demo.echo");
      assertThat(meta.timestamp()).isBetween(before, System.currentTimeMillis());
    }

    @Test
    void convertsRecordsAndMapsThroughJackson() {
      registry.register(spec("demo.greet").build(), (in, ctx) -> new Greeting("hello", 2));
      assertThat(await(registry.execute("demo.greet", Map.of())).data())
          .isEqualTo(json("{\"message\":\"hello\",\"times\":2}"));
      registry.register(spec("demo.input").build(), (in, ctx) -> in);
      assertThat(await(registry.execute("demo.input", new Greeting("x", 1))).data())
          .isEqualTo(json("{\"message\":\"x\",\"times\":1}"));
    }

    @Test
    void voidHandlersGiveNullData() {
      registry.register(spec("demo.nothing").build(), (in, ctx) -> null);
      ResponseEnvelope<JsonNode> result = await(registry.execute("demo.nothing", null));
      assertThat(result.data().isNull()).isTrue();
      assertThat(Envelopes.isResponseEnvelope(Envelopes.toJson(result))).isTrue();
    }

    @Test
    void passesEnvelopesThrough() {
      ResponseEnvelope<JsonNode> http =
          Envelopes.httpEnvelope(json("{\"id\":1}"), 201, Map.of("x-a", "1"), "application/json");
      registry.register(spec("api.create").type(OperationType.MUTATION).build(), (in, ctx) -> http);
      ResponseEnvelope<JsonNode> result = await(registry.execute("api.create", null));
      assertThat(result.meta()).isInstanceOf(HttpResponseMeta.class);
      assertThat(((HttpResponseMeta) result.meta()).statusCode()).isEqualTo(201);
      assertThat(result.data()).isEqualTo(json("{\"id\":1}"));
    }

    @Test
    void passesEnvelopeShapedTreesThroughAsTheSeedsDetectThem() {
      JsonNode shaped =
          json(
              "{\"data\":5,\"meta\":{\"source\":\"local\",\"operationId\":\"x.y\",\"timestamp\":7}}");
      registry.register(spec("a.shaped").build(), (in, ctx) -> shaped);
      ResponseEnvelope<JsonNode> result = await(registry.execute("a.shaped", null));
      assertThat(((LocalResponseMeta) result.meta()).operationId()).isEqualTo("x.y");
      assertThat(result.data().asInt()).isEqualTo(5);

      JsonNode notOne = json("{\"data\":5,\"meta\":{\"source\":\"elsewhere\"}}");
      registry.register(spec("a.plain").build(), (in, ctx) -> notOne);
      assertThat(await(registry.execute("a.plain", null)).data()).isEqualTo(notOne);
    }

    @Test
    void castsOutputBeforeValidatingIt() {
      OperationSpec s =
          spec("demo.cast")
              .outputSchema(
                  "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"},"
                      + "\"tag\":{\"type\":\"string\",\"default\":\"none\"}},\"required\":[\"n\"]}")
              .build();
      registry.register(s, (in, ctx) -> json("{\"n\":\"42\",\"secret\":\"dropped\"}"));
      try (LogCapture logs = new LogCapture()) {
        ResponseEnvelope<JsonNode> result = await(registry.execute("demo.cast", null));
        assertThat(result.data()).isEqualTo(json("{\"n\":42,\"tag\":\"none\"}"));
        assertThat(logs.warnings()).isEmpty(); // the cast value matches: no warning
      }
    }

    @Test
    void logsButReturnsOutputThatStillDoesNotMatch() {
      OperationSpec s =
          spec("demo.bad").outputSchema("{\"type\":\"object\",\"required\":[\"n\"]}").build();
      registry.register(s, (in, ctx) -> json("{\"m\":1}"));
      try (LogCapture logs = new LogCapture()) {
        ResponseEnvelope<JsonNode> result = await(registry.execute("demo.bad", null));
        assertThat(result.data()).isEqualTo(json("{\"m\":1}"));
        assertThat(logs.warnings())
            .singleElement()
            .asString()
            .contains("demo.bad")
            .contains("required property 'n'");
      }
    }

    @Test
    void invalidInputListsEveryErrorAndNeverRunsTheHandler() {
      AtomicBoolean ran = new AtomicBoolean();
      registry.register(
          spec("demo.strict")
              .inputSchema(
                  "{\"type\":\"object\",\"required\":[\"a\",\"b\"],"
                      + "\"properties\":{\"c\":{\"type\":\"integer\"}}}")
              .build(),
          (in, ctx) -> ran.getAndSet(true));
      CallError error = failureOf(registry.execute("demo.strict", json("{\"c\":\"x\"}")));
      assertThat(error.code()).isEqualTo(ErrorCode.INVALID_INPUT);
      assertThat(error.validationErrors()).hasSize(3);
      assertThat(error.getMessage()).startsWith("Invalid input of demo.strict:");
      assertThat(ran).isFalse();
    }

    @Test
    void unknownOperationsAreNotFound() {
      CallError error = failureOf(registry.execute("nope.nothing", null));
      assertThat(error.code()).isEqualTo(ErrorCode.OPERATION_NOT_FOUND);
      assertThat(error.getMessage()).isEqualTo("Operation not found: nope.nothing");
    }

    @Test
    void handlerExceptionsBecomeExecutionErrorsThatKeepTheCauseLocally() {
      IllegalStateException boom = new IllegalStateException("db password is hunter2");
      registry.register(
          spec("demo.boom").build(),
          (in, ctx) -> {
            throw boom;
          });
      try (LogCapture logs = new LogCapture()) {
        CallError error = failureOf(registry.execute("demo.boom", null));
        assertThat(error.code()).isEqualTo(ErrorCode.EXECUTION_ERROR);
        assertThat(error.getMessage())
            .isEqualTo("Operation demo.boom failed")
            .doesNotContain("hunter2");
        assertThat(error.getCause()).isSameAs(boom);
      }
    }

    @Test
    void callErrorsFromHandlersPassThrough() {
      CallError denied = CallError.of(ErrorCode.UNAVAILABLE, "backend down");
      registry.register(
          spec("demo.down").build(),
          (in, ctx) -> {
            throw denied;
          });
      assertThat(failureOf(registry.execute("demo.down", null))).isSameAs(denied);
    }

    @Test
    void asyncHandlersRunOnTheCallersThreadAndMayFail() {
      AtomicReference<Thread> ran = new AtomicReference<>();
      registry.register(
          spec("demo.async").build(),
          Handler.async(
              (in, ctx) -> {
                ran.set(Thread.currentThread());
                return CompletableFuture.completedFuture(7);
              }));
      assertThat(await(registry.execute("demo.async", null)).data().asInt()).isEqualTo(7);
      assertThat(ran.get()).isSameAs(Thread.currentThread());

      registry.register(
          spec("demo.asyncfail").build(),
          Handler.async((in, ctx) -> CompletableFuture.failedFuture(new RuntimeException("x"))));
      try (LogCapture logs = new LogCapture()) {
        assertThat(failureOf(registry.execute("demo.asyncfail", null)).code())
            .isEqualTo(ErrorCode.EXECUTION_ERROR);
      }
    }

    @Test
    void deadlineFailsTheCallAndTheHandlerSeesCancellation() throws Exception {
      CountDownLatch started = new CountDownLatch(1);
      AtomicBoolean interrupted = new AtomicBoolean();
      AtomicReference<OperationContext> seen = new AtomicReference<>();
      registry.register(
          spec("demo.slow").build(),
          (in, ctx) -> {
            seen.set(ctx);
            started.countDown();
            try {
              Thread.sleep(10_000);
            } catch (InterruptedException e) {
              interrupted.set(true);
              throw e;
            }
            return "late";
          });
      OperationContext context = OperationContext.builder().timeout(Duration.ofMillis(100)).build();
      long start = System.nanoTime();
      CallError error = failureOf(registry.execute("demo.slow", null, context));
      assertThat(error.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
      assertThat(started.await(1, TimeUnit.SECONDS)).isTrue();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
      while (!interrupted.get() && System.nanoTime() < end) {
        Thread.sleep(5);
      }
      assertThat(interrupted).isTrue();
      assertThat(seen.get().cancellation().isCancelled()).isTrue();
      assertThat(seen.get().cancellation().reason().orElseThrow().code())
          .isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
      assertThat(context.cancellation().isCancelled()).isFalse(); // the caller's signal is its own
    }

    @Test
    void anExpiredDeadlineFailsBeforeTheHandlerRuns() {
      AtomicBoolean ran = new AtomicBoolean();
      registry.register(spec("demo.never").build(), (in, ctx) -> ran.getAndSet(true));
      OperationContext expired = OperationContext.builder().timeout(Duration.ZERO).build();
      assertThat(failureOf(registry.execute("demo.never", null, expired)).code())
          .isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
      assertThat(ran).isFalse();
    }

    @Test
    void cancellingTheCallerCancelsTheCall() throws Exception {
      CountDownLatch started = new CountDownLatch(1);
      registry.register(
          spec("demo.wait").build(),
          (in, ctx) -> {
            started.countDown();
            Thread.sleep(10_000);
            return null;
          });
      OperationContext context = OperationContext.create();
      CompletableFuture<ResponseEnvelope<JsonNode>> call =
          registry.execute("demo.wait", null, context);
      assertThat(started.await(2, TimeUnit.SECONDS)).isTrue();
      context.cancellation().cancel(CallError.of(ErrorCode.CANCELLED, "user pressed stop"));
      CallError error = failureOf(call);
      assertThat(error.code()).isEqualTo(ErrorCode.CANCELLED);
      assertThat(error.getMessage()).isEqualTo("user pressed stop");
    }

    @Test
    void blockingHandlersRunOnVirtualThreadsWhereTheJvmHasThem() throws Exception {
      AtomicReference<Thread> ran = new AtomicReference<>();
      registry.register(
          spec("demo.where").build(), (in, ctx) -> ran.getAndSet(Thread.currentThread()));
      await(registry.execute("demo.where", null));
      boolean jvmHasVirtualThreads = Runtime.version().feature() >= 21;
      boolean virtual;
      try {
        virtual = (boolean) Thread.class.getMethod("isVirtual").invoke(ran.get());
      } catch (NoSuchMethodException e) {
        virtual = false; // JDK 17 has no virtual threads
      }
      assertThat(virtual).isEqualTo(jvmHasVirtualThreads);
      assertThat(ran.get()).isNotSameAs(Thread.currentThread());
      assertThat(ran.get().isDaemon()).isTrue();
    }

    @Test
    void executeRefusesSubscriptions() {
      registry.register(
          spec("demo.ticks").type(OperationType.SUBSCRIPTION).build(),
          Handler.emitter((in, ctx, em) -> em.emit(1)));
      CallError error = failureOf(registry.execute("demo.ticks", null));
      assertThat(error.getMessage()).contains("call subscribe()");
    }
  }

  @Nested
  class Env {
    @Test
    void nestedCallsCarryParentIdentityDeadlineAndCancellation() throws Exception {
      AtomicReference<OperationContext> inner = new AtomicReference<>();
      registry.register(
          spec("math.inner").build(),
          (in, ctx) -> {
            inner.set(ctx);
            return in.get("x").asInt() * 2;
          });
      registry.register(
          spec("math.outer").build(),
          (in, ctx) -> {
            ResponseEnvelope<JsonNode> doubled =
                ctx.env().namespace("math").call("inner", Map.of("x", 21)).join();
            return doubled.data().asInt() + 0;
          });
      OperationContext context =
          OperationContext.builder()
              .identity(Identity.of("alice", "read"))
              .timeout(Duration.ofSeconds(30))
              .build();
      assertThat(await(registry.execute("math.outer", null, context)).data().asInt()).isEqualTo(42);
      OperationContext nested = inner.get();
      assertThat(nested.parentRequestId()).contains(context.requestId());
      assertThat(nested.requestId()).isNotEqualTo(context.requestId());
      assertThat(nested.identity().subject()).isEqualTo("alice");
      assertThat(nested.deadline()).isEqualTo(context.deadline());
      assertThat(nested.env().namespaces()).containsExactly("math");
    }

    @Test
    void buildEnvExposesNamespacesAndCancelsNestedCallsWithTheParent() throws Exception {
      CountDownLatch started = new CountDownLatch(1);
      registry.register(
          spec("jobs.wait").build(),
          (in, ctx) -> {
            started.countDown();
            Thread.sleep(10_000);
            return null;
          });
      registry.register(spec("jobs.quick").build(), (in, ctx) -> "ok");
      OperationContext parent = OperationContext.create();
      OperationEnv env = registry.buildEnv(parent);
      assertThat(env.namespaces()).containsExactly("jobs");
      assertThat(env.namespace("jobs").names()).containsExactly("quick", "wait");
      assertThat(await(env.namespace("jobs").call("quick", null)).data().asString())
          .isEqualTo("ok");
      CompletableFuture<ResponseEnvelope<JsonNode>> waiting = env.call("jobs.wait", null);
      assertThat(started.await(2, TimeUnit.SECONDS)).isTrue();
      parent.cancellation().cancel(CallError.of(ErrorCode.CANCELLED, "parent gave up"));
      assertThat(failureOf(waiting).code()).isEqualTo(ErrorCode.CANCELLED);
    }

    @Test
    void anUnboundContextHasNoOperations() {
      CallError error = failureOf(OperationContext.create().env().call("a.b", null));
      assertThat(error.code()).isEqualTo(ErrorCode.OPERATION_NOT_FOUND);
      assertThat(error.getMessage()).contains("not bound to a registry");
    }
  }

  /** Jackson cannot serialise this: its accessor throws. */
  record Broken(String value) {
    @Override
    public String value() {
      throw new IllegalStateException("no value today");
    }
  }

  @Test
  void resultPipelineConvertsUnserialisableValuesToExecutionErrors() {
    OperationSpec s = spec("a.b").build();
    assertThatThrownBy(() -> ResultPipeline.process(s, new Broken("x")))
        .isInstanceOf(CallError.class)
        .extracting(e -> ((CallError) e).code())
        .isEqualTo(ErrorCode.EXECUTION_ERROR);
  }

  /** Captures the library's WARN log lines for one test. */
  static final class LogCapture implements AutoCloseable {
    private final Logger logger = (Logger) LoggerFactory.getLogger("dev.alkdev.operations");
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    LogCapture() {
      appender.start();
      logger.addAppender(appender);
    }

    List<String> warnings() {
      return appender.list.stream()
          .filter(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN)
          .map(ILoggingEvent::getFormattedMessage)
          .toList();
    }

    @Override
    public void close() {
      logger.detachAppender(appender);
    }
  }
}
