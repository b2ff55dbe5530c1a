package dev.alkdev.operations.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When a serving side last heard from each caller it serves calls for, and which calls those are:
 * the caller liveness rule of docs/protocol.md. A caller is its inbox. A request from an inbox, or
 * its {@code call.alive}, renews the inbox's lease; an inbox not heard from for longer than the
 * timeout has expired, and {@link #expire} hands back its calls to end. Everything is kept per
 * inbox, so a sweep costs one look per caller, however many calls each has. Only inboxes with calls
 * here have an entry: a {@code call.alive} from anyone else costs a map lookup and nothing more.
 *
 * @param <C> the calls (the handler's reply sinks)
 */
final class CallerLeases<C> {
  private final long timeoutNanos;
  private final ConcurrentHashMap<String, Lease<C>> leases = new ConcurrentHashMap<>();

  CallerLeases(long timeoutNanos) {
    this.timeoutNanos = timeoutNanos;
  }

  /** One inbox: when it was last heard from, and its calls here. */
  private static final class Lease<C> {
    volatile long heardNanos;
    final Set<C> calls = ConcurrentHashMap.newKeySet();

    Lease(long heardNanos) {
      this.heardNanos = heardNanos;
    }
  }

  /** A request came from {@code inbox}: its call is tracked, and the inbox has just been heard. */
  void track(String inbox, C call, long nowNanos) {
    leases.compute(
        inbox,
        (key, lease) -> {
          Lease<C> l = lease != null ? lease : new Lease<>(nowNanos);
          l.heardNanos = nowNanos;
          l.calls.add(call);
          return l;
        });
  }

  /** A call ended; the last call of an inbox takes the inbox's entry with it. */
  void untrack(String inbox, C call) {
    leases.computeIfPresent(
        inbox,
        (key, lease) -> {
          lease.calls.remove(call);
          return lease.calls.isEmpty() ? null : lease;
        });
  }

  /** The caller behind {@code inbox} said it is alive. */
  void heard(String inbox, long nowNanos) {
    Lease<C> lease = leases.get(inbox);
    if (lease != null) {
      lease.heardNanos = nowNanos; // a race with its removal loses nothing: no calls are left
    }
  }

  /**
   * Removes the inboxes not heard from for longer than the timeout and returns their calls, to be
   * ended by the caller of this method (outside any lock here).
   */
  List<C> expire(long nowNanos) {
    List<C> expired = new ArrayList<>();
    for (Map.Entry<String, Lease<C>> entry : leases.entrySet()) {
      if (isExpired(entry.getValue(), nowNanos)) {
        // Checked again under the key's lock: a request may have renewed it meanwhile.
        leases.computeIfPresent(
            entry.getKey(),
            (key, lease) -> {
              if (!isExpired(lease, nowNanos)) {
                return lease;
              }
              expired.addAll(lease.calls);
              return null;
            });
      }
    }
    return expired;
  }

  /** Inboxes with calls here (for tests and stats). */
  int size() {
    return leases.size();
  }

  private boolean isExpired(Lease<C> lease, long nowNanos) {
    return nowNanos - lease.heardNanos > timeoutNanos;
  }
}
