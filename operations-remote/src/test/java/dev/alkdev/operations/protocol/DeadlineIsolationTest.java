package dev.alkdev.operations.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A caller's continuation that blocks on a timed-out call must not hold up other calls' deadlines:
 * deadlines are kept by one shared timer thread, which must never run the continuations itself.
 */
class DeadlineIsolationTest {
  /** How long the first call's continuation blocks. */
  private static final long BLOCK_MILLIS = 2_500;

  /** Far above the 100 ms deadline, far below the blocking continuation: a generous bound. */
  private static final long BOUND_MILLIS = 1_000;

  final InProcessPubSub pubsub = InProcessPubSub.create();
  final OperationRegistry registry = OperationRegistry.create();
  final CallHandler handler = CallHandler.serve(registry, pubsub);
  final PendingRequestMap calls = PendingRequestMap.create(pubsub);

  @BeforeEach
  void register() {
    // Never answers: every call to it ends at its deadline.
    registry.register(
        OperationSpec.builder("slow", "never").build(),
        Handler.async((in, ctx) -> new CompletableFuture<>()));
  }

  @AfterEach
  void close() {
    calls.close();
    handler.close();
    registry.close();
    pubsub.close();
  }

  @Test
  void aBlockingContinuationDoesNotDelayAnotherLocalCallsDeadline() throws Exception {
    assertNotDelayed(
        timeout ->
            registry.execute(
                "slow.never", null, OperationContext.builder().timeout(timeout).build()));
  }

  @Test
  void aBlockingContinuationDoesNotDelayAnotherRemoteCallsDeadline() throws Exception {
    // A server that takes requests and never answers, so the caller's own timer ends each call
    // (the registry behind a CallHandler would fail it first, on the transport's thread).
    pubsub.subscribe(
        ProtocolTopics.request("silent.never"), SubscribeOptions.defaults(), message -> {});
    assertNotDelayed(
        timeout -> calls.call("silent.never", null, CallOptions.defaults().withTimeout(timeout)));
  }

  @Test
  void aBlockingContinuationDoesNotDelayAnotherServedCallsDeadline() throws Exception {
    assertNotDelayed(
        timeout -> calls.call("slow.never", null, CallOptions.defaults().withTimeout(timeout)));
  }

  private static void assertNotDelayed(
      Function<Duration, CompletableFuture<ResponseEnvelope<JsonNode>>> call) throws Exception {
    CountDownLatch blocking = new CountDownLatch(1);
    CompletableFuture<?> first =
        call.apply(Duration.ofMillis(50))
            .whenComplete(
                (value, error) -> {
                  blocking.countDown();
                  sleep(BLOCK_MILLIS);
                });
    assertThat(blocking.await(5, TimeUnit.SECONDS)).as("the first call timed out").isTrue();

    long start = System.nanoTime();
    CompletableFuture<ResponseEnvelope<JsonNode>> second = call.apply(Duration.ofMillis(100));
    CallError error = failureOf(second);
    long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertThat(error.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
    assertThat(elapsedMillis)
        .as("the second call's 100 ms deadline, while the first's continuation blocks")
        .isLessThan(BOUND_MILLIS);
    first.handle((v, e) -> null).get(BLOCK_MILLIS + 5_000, TimeUnit.MILLISECONDS);
  }

  private static CallError failureOf(CompletableFuture<?> future) throws Exception {
    try {
      future.get(BLOCK_MILLIS + 5_000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(CallError.class);
      return (CallError) e.getCause();
    }
    throw new AssertionError("the call succeeded");
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
