package dev.alkdev.operations.testing;

import static org.assertj.core.api.Assertions.fail;

import dev.alkdev.operations.CallError;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The bounded waits of the kit's suites: each fails the test, saying what it waited for, instead of
 * hanging. {@link PubSubContractTest} and {@link TransportConformanceTest} expose them to their
 * subclasses.
 */
final class Waits {
  private Waits() {}

  /** A future's value; fails if it fails or takes longer than {@code within}. */
  static <T> T value(CompletableFuture<T> future, Duration within) {
    try {
      return future.get(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      return fail("expected a value, got " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      return fail("no result within " + within);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fail("interrupted");
    }
  }

  /** The {@link CallError} a future fails with; fails if it succeeds or takes too long. */
  static CallError failure(CompletableFuture<?> future, Duration within) {
    try {
      Object value = future.get(within.toMillis(), TimeUnit.MILLISECONDS);
      return fail("expected a CallError, got the value " + value);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof CallError error) {
        return error;
      }
      return fail("expected a CallError, got " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      return fail("the future did not fail within " + within);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fail("interrupted");
    }
  }

  static void latch(CountDownLatch latch, String what, Duration within) {
    try {
      if (!latch.await(within.toMillis(), TimeUnit.MILLISECONDS)) {
        fail("not within " + within + ": " + what);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fail("interrupted while waiting: " + what);
    }
  }

  /** Polls {@code condition} until it holds, failing after {@code within}. */
  static void eventually(String what, Duration within, BooleanSupplier condition) {
    long end = System.nanoTime() + within.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        fail("not within " + within + ": " + what);
      }
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        fail("interrupted while waiting: " + what);
      }
    }
  }
}
