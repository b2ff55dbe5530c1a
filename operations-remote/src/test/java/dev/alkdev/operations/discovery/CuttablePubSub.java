package dev.alkdev.operations.discovery;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * One client of a shared bus, which a test can cut off without a word: after {@link #cut()} its
 * publishes go nowhere and nothing reaches its subscriptions, as when a machine loses its network
 * or is killed. Closing it closes its own subscriptions only, not the bus.
 */
final class CuttablePubSub implements PubSub {
  private final PubSub bus;
  private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
  private final List<Runnable> disconnectActions = new CopyOnWriteArrayList<>();
  private volatile boolean cut;
  private volatile boolean closed;

  CuttablePubSub(PubSub bus) {
    this.bus = bus;
  }

  void cut() {
    cut = true;
  }

  /**
   * Killed: cut off, and its subscriptions gone from the bus, as a broker drops a killed process's
   * when its connection closes.
   */
  void kill() {
    cut = true;
    subscriptions.forEach(Subscription::close);
  }

  void uncut() {
    cut = false;
  }

  @Override
  public CompletableFuture<Integer> publish(String topic, byte[] payload) {
    if (closed) {
      return CompletableFuture.failedFuture(CallError.of(ErrorCode.UNAVAILABLE, "closed"));
    }
    if (cut) {
      return new CompletableFuture<>(); // lost on the way: the sender never hears
    }
    return bus.publish(topic, payload);
  }

  @Override
  public Subscription subscribe(String topic, SubscribeOptions options, Consumer<Message> handler) {
    Subscription subscription =
        bus.subscribe(
            topic,
            options,
            message -> {
              if (!cut) {
                handler.accept(message);
              }
            });
    subscriptions.add(subscription);
    return subscription;
  }

  @Override
  public int maxMessageBytes() {
    return bus.maxMessageBytes();
  }

  @Override
  public boolean trustsPayloadIdentity() {
    return bus.trustsPayloadIdentity();
  }

  @Override
  public Registration onDisconnect(Runnable action) {
    disconnectActions.add(action);
    return () -> disconnectActions.remove(action);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    subscriptions.forEach(Subscription::close);
    disconnectActions.forEach(Runnable::run);
  }
}
