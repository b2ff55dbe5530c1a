package dev.alkdev.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class OperationContextTest {

  static CallError failureOf(CompletableFuture<?> future) throws Exception {
    try {
      future.get(5, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(CallError.class);
      return (CallError) e.getCause();
    }
    throw new AssertionError("the future succeeded");
  }

  @Nested
  class Builder {
    @Test
    void optionalValuesAreAbsentUntilSet() {
      OperationContext context = OperationContext.create();

      assertThat(context.parentRequestId()).isEmpty();
      assertThat(context.deadline()).isEmpty();
      assertThat(context.toBuilder().build().deadline()).isEmpty();
      assertThat(context.child().parentRequestId()).contains(context.requestId());
      assertThat(context.child().deadline()).isEmpty();
    }

    @Test
    void settersRefuseNullAndSayHowToLeaveAValueOut() {
      OperationContext.Builder builder = OperationContext.builder();

      assertThatThrownBy(() -> builder.parentRequestId(null))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("leave it unset");
      assertThatThrownBy(() -> builder.deadline(null))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("leave it unset");
      assertThatThrownBy(() -> builder.envBinder(null))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("leave it unset");
    }

    @Test
    void copiesKeepWhatIsSet() {
      Deadline deadline = Deadline.after(Duration.ofMinutes(1));
      OperationContext context =
          OperationContext.builder().parentRequestId("parent").deadline(deadline).build();

      OperationContext copy = context.toBuilder().build();

      assertThat(copy.requestId()).isEqualTo(context.requestId());
      assertThat(copy.parentRequestId()).contains("parent");
      assertThat(copy.deadline()).contains(deadline);
      assertThat(context.child().deadline()).contains(deadline);
    }
  }

  @Nested
  class ThrowIfDone {
    @Test
    void aLiveCallGoesOn() {
      OperationContext.builder().timeout(Duration.ofMinutes(1)).build().throwIfDone();
      OperationContext.create().throwIfDone();
    }

    @Test
    void aCancelledCallThrowsTheCancellationsReason() {
      OperationContext context = OperationContext.create();
      CallError reason = CallError.of(ErrorCode.CANCELLED, "the user left");
      context.cancellation().cancel(reason);

      assertThatThrownBy(context::throwIfDone).isSameAs(reason);
    }

    @Test
    void anExpiredCallThrowsDeadlineExceeded() {
      OperationContext context = OperationContext.builder().timeout(Duration.ZERO).build();

      assertThatThrownBy(context::throwIfDone)
          .isInstanceOfSatisfying(
              CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED));
    }
  }

  @Nested
  class Bind {
    @Test
    void completesAsTheWorkDoes() throws Exception {
      OperationContext context = OperationContext.builder().timeout(Duration.ofMinutes(1)).build();
      CompletableFuture<String> work = new CompletableFuture<>();
      CompletableFuture<String> bound = context.bind(work);

      work.complete("done");

      assertThat(bound.get(5, TimeUnit.SECONDS)).isEqualTo("done");
    }

    @Test
    void passesTheWorksFailureThrough() {
      CompletableFuture<String> work = new CompletableFuture<>();
      CompletableFuture<String> bound = OperationContext.create().bind(work);
      IllegalStateException failure = new IllegalStateException("broken");

      work.completeExceptionally(failure);

      assertThatThrownBy(() -> bound.get(5, TimeUnit.SECONDS)).hasCause(failure);
    }

    @Test
    void cancellingTheCallFailsItWithTheReasonAndCancelsTheWork() throws Exception {
      OperationContext context = OperationContext.create();
      CompletableFuture<String> work = new CompletableFuture<>();
      CompletableFuture<String> bound = context.bind(work);
      CallError reason = CallError.of(ErrorCode.CANCELLED, "stop");

      context.cancellation().cancel(reason);

      assertThat(failureOf(bound)).isSameAs(reason);
      assertThat(work.isCancelled()).isTrue();
    }

    @Test
    void theDeadlineFailsItOffTheTimerThreadAndCancelsTheWork() throws Exception {
      OperationContext context = OperationContext.builder().timeout(Duration.ofMillis(50)).build();
      CompletableFuture<String> work = new CompletableFuture<>();
      AtomicReference<String> thread = new AtomicReference<>();
      CompletableFuture<String> bound =
          context.bind(work).whenComplete((v, e) -> thread.set(Thread.currentThread().getName()));

      assertThat(failureOf(bound).code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
      assertThat(work.isCancelled()).isTrue();
      assertThat(thread.get()).isNotEqualTo("operations-timer");
    }

    @Test
    void aCallAlreadyOverFailsAtOnce() throws Exception {
      OperationContext expired = OperationContext.builder().timeout(Duration.ZERO).build();
      OperationContext cancelled = OperationContext.create();
      cancelled.cancellation().cancel(CallError.of(ErrorCode.CANCELLED, "before"));

      CompletableFuture<Object> late = expired.bind(new CompletableFuture<>());
      CompletableFuture<Object> gone = cancelled.bind(new CompletableFuture<>());

      assertThat(late.isCompletedExceptionally()).isTrue();
      assertThat(failureOf(late).code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
      assertThat(failureOf(gone).getMessage()).isEqualTo("before");
    }
  }
}
