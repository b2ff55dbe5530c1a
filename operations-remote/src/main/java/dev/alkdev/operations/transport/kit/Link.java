package dev.alkdev.operations.transport.kit;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One connection as the keeper uses it: whether it dropped, the subscription changes in flight on
 * it (its restoration among them), and the order of the publishes that wait for them.
 */
final class Link<C> {
  final C connection;
  private final AtomicBoolean down = new AtomicBoolean();
  private final Set<CompletableFuture<?>> changes = ConcurrentHashMap.newKeySet();
  private final Object gateLock = new Object();
  // Completes when the last publish that waited for changes has gone out.
  private volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);
  // Whether its subscriptions are back (a first connection has none to restore).
  private volatile boolean restored;

  Link(C connection, boolean restored) {
    this.connection = connection;
    this.restored = restored;
  }

  boolean isRestored() {
    return restored;
  }

  void markRestored() {
    restored = true;
  }

  boolean isDown() {
    return down.get();
  }

  /** True the first time only. */
  boolean markDown() {
    return down.compareAndSet(false, true);
  }

  /** Whether a publish may go out at once: nothing it must wait for. */
  boolean isSettled() {
    return changes.isEmpty() && gate.isDone();
  }

  void track(CompletableFuture<?> change) {
    changes.add(change);
    change.whenComplete((ok, failure) -> changes.remove(change));
  }

  /** The changes in flight now: what a flush waits for. */
  List<CompletableFuture<?>> changesInFlight() {
    return List.copyOf(changes);
  }

  /**
   * The point a publish made now must wait for: every change in flight, and the publish before it
   * that waited ({@code dispatched} completes when this one has gone out), so that one publisher's
   * messages keep their order.
   */
  CompletableFuture<Void> queueBehindChanges(CompletableFuture<Void> dispatched) {
    synchronized (gateLock) {
      List<CompletableFuture<?>> waits = new ArrayList<>(changes);
      waits.add(gate);
      gate = dispatched;
      return CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new));
    }
  }
}
