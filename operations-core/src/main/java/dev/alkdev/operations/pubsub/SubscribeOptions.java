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
 */
public record SubscribeOptions(
    Optional<String> queueGroup, int bufferSize, OverflowPolicy overflow) {
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
    return new SubscribeOptions(Optional.empty(), DEFAULT_BUFFER_SIZE, OverflowPolicy.REJECT);
  }

  /** One message in each group's share, a buffer of {@value #DEFAULT_BUFFER_SIZE}, rejecting. */
  public static SubscribeOptions queueGroup(String group) {
    return new SubscribeOptions(Optional.of(group), DEFAULT_BUFFER_SIZE, OverflowPolicy.REJECT);
  }

  public SubscribeOptions withBufferSize(int size) {
    return new SubscribeOptions(queueGroup, size, overflow);
  }

  public SubscribeOptions withOverflow(OverflowPolicy policy) {
    return new SubscribeOptions(queueGroup, bufferSize, policy);
  }
}
