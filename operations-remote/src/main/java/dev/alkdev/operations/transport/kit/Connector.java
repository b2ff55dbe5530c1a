package dev.alkdev.operations.transport.kit;

import java.util.concurrent.CompletableFuture;

/**
 * What a connection-based transport supplies to its {@link ConnectionKeeper}: how to open a
 * connection and what to do on one. The keeper does the rest: one connection at a time, replaced
 * when it drops, every subscription made again on each, publishes held while subscriptions are
 * being made and refused while the connection is down.
 *
 * <p>A transport tells its keeper when a connection is lost ({@link ConnectionKeeper#lost}); the
 * keeper never revives a connection, it asks for a new one.
 *
 * @param <C> the transport's connection
 */
public interface Connector<C> {
  /**
   * Called once, before the first {@link #connect()}: the keeper to report lost connections and
   * slow consumers to.
   */
  default void keptBy(ConnectionKeeper<C> keeper) {}

  /**
   * Opens a new connection, within the transport's connect timeout.
   *
   * @throws dev.alkdev.operations.CallError UNAVAILABLE when nothing answers, ACCESS_DENIED when
   *     the credentials are refused; the keeper tries again later
   */
  C connect();

  /**
   * Makes {@code subscription} on {@code connection}. The future completes when a message published
   * after it completes is sure to reach the subscription (at once where the broker reads one
   * connection in order), and fails with a {@link dev.alkdev.operations.CallError} other than
   * UNAVAILABLE when the broker refuses it; any other failure means the connection is gone. Throws
   * for a subscription this transport can never make (the caller of {@code subscribe} hears it).
   */
  CompletableFuture<Void> attach(C connection, TransportSubscription<C> subscription);

  /** Ends {@code subscription} on {@code connection}; the future completes when it is in effect. */
  CompletableFuture<Void> detach(C connection, TransportSubscription<C> subscription);

  /**
   * Publishes on {@code connection}: the number of subscriptions the message reached, or a {@link
   * dev.alkdev.operations.CallError}. Throwing IllegalStateException means the connection is going
   * away; the keeper refuses the publish.
   */
  CompletableFuture<Integer> publish(C connection, String topic, byte[] payload);

  /** Whether {@code connection} is still open (checked once it is installed). */
  boolean isOpen(C connection);

  /**
   * {@code connection} is lost or the keeper closes: fail at once what waits on it (answers to its
   * publishes, say) with {@code why}. Runs before the disconnect actions; must not block.
   */
  default void dropped(C connection, dev.alkdev.operations.CallError why) {}

  /** The keeper closes, and {@code connection} is the last one, still open: say goodbye. */
  default void closing(C connection) {}

  /** Closes {@code connection}, which is dropped or no longer used; runs on the keeper's thread. */
  void discard(C connection);
}
