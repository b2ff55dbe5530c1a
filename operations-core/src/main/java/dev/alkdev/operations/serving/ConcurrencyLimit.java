package dev.alkdev.operations.serving;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many calls a server runs at once: in all, per caller, and streams per caller, so that one
 * client cannot take the whole server. A caller is its identity's subject (scopes do not make a
 * second caller); every anonymous caller is the same one. Only callers with calls running have an
 * entry, so the table is as large as the callers active now, not every caller ever seen.
 */
final class ConcurrencyLimit {
  private final int max;
  private final int maxPerCaller;
  private final int maxStreamsPerCaller;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final ConcurrentHashMap<String, Counts> callers = new ConcurrentHashMap<>();

  ConcurrencyLimit(int max, int maxPerCaller, int maxStreamsPerCaller) {
    this.max = max;
    this.maxPerCaller = maxPerCaller;
    this.maxStreamsPerCaller = maxStreamsPerCaller;
  }

  /** What one caller runs now; changed only inside the map's compute, so under its bin lock. */
  private static final class Counts {
    int calls;
    int streams;
  }

  /** A slot taken for one call: what {@link #release} gives back. */
  record Slot(String caller, boolean stream) {}

  /**
   * Takes a slot for a call of {@code caller} ({@code stream}: a SUBSCRIPTION), or fails with
   * RESOURCE_EXHAUSTED (retryable) naming the limit it would break.
   */
  Slot acquire(Identity caller, boolean stream) {
    String subject = caller.subject();
    callers.compute(
        subject,
        (key, counts) -> {
          Counts c = counts != null ? counts : new Counts();
          if (c.calls >= maxPerCaller) {
            throw exhausted(caller, c.calls + " calls", "maxCallsPerIdentity", maxPerCaller);
          }
          if (stream && c.streams >= maxStreamsPerCaller) {
            throw exhausted(
                caller, c.streams + " streams", "maxStreamsPerIdentity", maxStreamsPerCaller);
          }
          c.calls++;
          if (stream) {
            c.streams++;
          }
          return c;
        });
    if (inFlight.incrementAndGet() > max) {
      inFlight.decrementAndGet();
      releaseCaller(new Slot(subject, stream));
      throw CallError.of(
          ErrorCode.RESOURCE_EXHAUSTED,
          "The server is running " + max + " calls (maxConcurrentCalls); try again later");
    }
    return new Slot(subject, stream);
  }

  /** Gives back a slot {@link #acquire} took. */
  void release(Slot slot) {
    inFlight.decrementAndGet();
    releaseCaller(slot);
  }

  private void releaseCaller(Slot slot) {
    callers.computeIfPresent(
        slot.caller(),
        (key, c) -> {
          c.calls--;
          if (slot.stream()) {
            c.streams--;
          }
          return c.calls == 0 ? null : c; // an idle caller leaves no entry behind
        });
  }

  private static CallError exhausted(Identity caller, String running, String limit, int value) {
    String who =
        caller.equals(Identity.anonymous())
            ? "Anonymous callers (one caller for this limit) are"
            : "Caller '" + caller.subject() + "' is";
    return CallError.of(
        ErrorCode.RESOURCE_EXHAUSTED,
        who
            + " running "
            + running
            + ", the most one caller may ("
            + limit
            + " = "
            + value
            + ")"
            + "; try again later");
  }

  int max() {
    return max;
  }
}
