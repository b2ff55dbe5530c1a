package dev.alkdev.operations.pubsub;

import java.util.Objects;
import java.util.Optional;

/**
 * How a subscription receives.
 *
 * @param queueGroup subscriptions sharing a group name split the topic's messages: each message
 *     goes to one of them (round robin); empty for a plain subscription that gets every message
 * @param bufferSize messages buffered before the overflow policy applies
 * @param overflow what happens to a message that finds the buffer full
 * @param nonBlockingHandler the subscriber promises that its handler never blocks or waits (see
 *     {@link #withNonBlockingHandler()}); false for any subscriber that has not said so
 */
public record SubscribeOptions(
    Optional<String> queueGroup,
    int bufferSize,
    OverflowPolicy overflow,
    boolean nonBlockingHandler) {
  public static final int DEFAULT_BUFFER_SIZE = 4096;

  public SubscribeOptions {
    Objects.requireNonNull(queueGroup, "queueGroup");
    Objects.requireNonNull(overflow, "overflow");
    if (bufferSize <= 0) {
      throw new IllegalArgumentException("bufferSize must be positive, was " + bufferSize);
    }
  }

  /** Every message, a buffer of {@value #DEFAULT_BUFFER_SIZE}, rejecting when full. */
  public static SubscribeOptions defaults() {
    return new SubscribeOptions(
        Optional.empty(), DEFAULT_BUFFER_SIZE, OverflowPolicy.REJECT, false);
  }

  /** One message in each group's share, a buffer of {@value #DEFAULT_BUFFER_SIZE}, rejecting. */
  public static SubscribeOptions queueGroup(String group) {
    return new SubscribeOptions(
        Optional.of(group), DEFAULT_BUFFER_SIZE, OverflowPolicy.REJECT, false);
  }

  public SubscribeOptions withBufferSize(int size) {
    return new SubscribeOptions(queueGroup, size, overflow, nonBlockingHandler);
  }

  public SubscribeOptions withOverflow(OverflowPolicy policy) {
    return new SubscribeOptions(queueGroup, bufferSize, policy, nonBlockingHandler);
  }

  /**
   * The subscriber's promise that its handler never blocks or waits (no locks held for long, no
   * I/O, no joins on futures) and returns quickly, so a transport may run it on its own I/O thread
   * (a jnats dispatcher, a socket reader) instead of handing each message to a delivery thread: one
   * thread hand-off less per message, which is most of a small message's latency. A transport is
   * free to ignore it; one that honours it still buffers, orders and counts as for any
   * subscription. The call protocol's own subscriptions set it (their handlers only decode, look up
   * and complete); a subscriber whose handler runs code it does not control should not.
   */
  public SubscribeOptions withNonBlockingHandler() {
    return new SubscribeOptions(queueGroup, bufferSize, overflow, true);
  }
}
