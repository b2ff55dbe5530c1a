package dev.alkdev.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class CallErrorTest {
  private static final CallError DENIED = CallError.of(ErrorCode.ACCESS_DENIED, "no");

  @Test
  void fromReturnsTheCallErrorItselfOrUnderTheFuturesWrappers() {
    assertThat(CallError.from(DENIED, ErrorCode.EXECUTION_ERROR, "failed")).isSameAs(DENIED);
    assertThat(
            CallError.from(
                new CompletionException(new ExecutionException(DENIED)),
                ErrorCode.EXECUTION_ERROR,
                "failed"))
        .isSameAs(DENIED);
  }

  @Test
  void fromFindsACallErrorAnywhereInTheChain() {
    Throwable wrapped = new CompletionException(new IOException("stream closed", DENIED));
    assertThat(CallError.from(wrapped, ErrorCode.UNAVAILABLE, "failed")).isSameAs(DENIED);
  }

  @Test
  void fromFallsBackWithTheGivenMessageAndKeepsTheUnwrappedFailureAsItsLocalCause() {
    IOException io = new IOException("connection reset by 10.0.0.7");
    CallError error =
        CallError.from(
            new CompletionException(new ExecutionException(io)),
            ErrorCode.UNAVAILABLE,
            "The transport failed");

    assertThat(error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
    assertThat(error.getMessage()).isEqualTo("The transport failed").doesNotContain("10.0.0.7");
    assertThat(error.retryable()).isTrue();
    assertThat(error.getCause()).isSameAs(io);
  }

  @Test
  void theFunctionFallbackSeesTheFailureWithoutItsWrappers() {
    IOException io = new IOException("timed out");
    CallError error =
        CallError.from(
            new CompletionException(io),
            cause ->
                cause instanceof IOException
                    ? CallError.of(ErrorCode.DEADLINE_EXCEEDED, "slow", cause)
                    : CallError.of(ErrorCode.EXECUTION_ERROR, "other", cause));

    assertThat(error.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
    assertThat(error.getCause()).isSameAs(io);
  }

  @Test
  void aWrapperWithoutACauseIsTheFailureItself() {
    CompletionException bare = new CompletionException("no cause", null);
    assertThat(CallError.from(bare, ErrorCode.EXECUTION_ERROR, "failed").getCause()).isSameAs(bare);
  }

  @Test
  void aCauseChainThatLoopsEndsTheWalk() {
    IOException first = new IOException("first");
    UncheckedIOException second = new UncheckedIOException("second", first);
    first.initCause(second); // first -> second -> first

    CallError error = CallError.from(first, ErrorCode.UNAVAILABLE, "failed");

    assertThat(error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
    assertThat(error.getCause()).isSameAs(first);
  }

  @Test
  void fromRefusesNullsAndAFallbackThatGivesNothing() {
    assertThatThrownBy(() -> CallError.from(null, ErrorCode.UNAVAILABLE, "failed"))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("failure");
    assertThatThrownBy(() -> CallError.from(new IOException(), cause -> null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("fallback");
  }
}
