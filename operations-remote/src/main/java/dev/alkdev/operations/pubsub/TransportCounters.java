package dev.alkdev.operations.pubsub;

import java.util.concurrent.atomic.LongAdder;

/**
 * The counters behind {@link PubSub#transportStats()}, for implementations to reuse: striped
 * adders, so that publishers and delivery threads counting at once do not contend on one cache
 * line. Thread-safe.
 */
public final class TransportCounters {
  private final LongAdder published = new LongAdder();
  private final LongAdder publishedBytes = new LongAdder();
  private final LongAdder received = new LongAdder();
  private final LongAdder receivedBytes = new LongAdder();
  private final LongAdder dropped = new LongAdder();
  private final LongAdder reconnects = new LongAdder();
  private final LongAdder slowConsumerEvents = new LongAdder();

  private TransportCounters() {}

  public static TransportCounters create() {
    return new TransportCounters();
  }

  /** One message of {@code bytes} payload bytes sent out. */
  public void published(int bytes) {
    published.increment();
    publishedBytes.add(bytes);
  }

  /** One message of {@code bytes} payload bytes handed to a subscription. */
  public void received(int bytes) {
    received.increment();
    receivedBytes.add(bytes);
  }

  /** {@code messages} messages of {@code bytes} payload bytes in all handed to subscriptions. */
  public void received(int messages, long bytes) {
    received.add(messages);
    receivedBytes.add(bytes);
  }

  /** One message lost to a full buffer or a connection that could not take it. */
  public void dropped() {
    dropped.increment();
  }

  /** {@code messages} messages lost at once (one publish, several full buffers). */
  public void dropped(int messages) {
    dropped.add(messages);
  }

  /** The connection came back after it was lost. */
  public void reconnected() {
    reconnects.increment();
  }

  /** A broker or peer reported (or cut) a consumer that fell behind. */
  public void slowConsumer() {
    slowConsumerEvents.increment();
  }

  /** The counts now; each one is read separately, so a snapshot taken mid-burst may be skewed. */
  public TransportStats snapshot() {
    return new TransportStats(
        published.sum(),
        publishedBytes.sum(),
        received.sum(),
        receivedBytes.sum(),
        dropped.sum(),
        reconnects.sum(),
        slowConsumerEvents.sum());
  }
}
