package dev.alkdev.operations.serving;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many calls a server runs at once. Every admission and release names the caller, so that a cap
 * per identity (one client must not take the whole server) can be added here alone.
 */
final class ConcurrencyLimit {
  private final int max;
  private final AtomicInteger inFlight = new AtomicInteger();

  ConcurrencyLimit(int max) {
    this.max = max;
  }

  /** Takes a slot for {@code caller}, or fails with RESOURCE_EXHAUSTED (retryable). */
  void acquire(Identity caller) {
    if (inFlight.incrementAndGet() > max) {
      inFlight.decrementAndGet();
      throw CallError.of(
          ErrorCode.RESOURCE_EXHAUSTED, "The server is running " + max + " calls; try again later");
    }
  }

  /** Gives back a slot {@link #acquire} took for {@code caller}. */
  void release(Identity caller) {
    inFlight.decrementAndGet();
  }

  int max() {
    return max;
  }
}
