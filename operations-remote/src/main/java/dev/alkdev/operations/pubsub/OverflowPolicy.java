package dev.alkdev.operations.pubsub;

/** What a subscription does when a message arrives and its buffer is full. */
public enum OverflowPolicy {
  /**
   * Refuse the message: an in-process publisher's future fails with RESOURCE_EXHAUSTED (retryable),
   * so the caller learns of it at once. Remote transports drop and count where they cannot tell the
   * publisher.
   */
  REJECT,
  /** Drop the message and count it ({@link PubSub.Subscription#dropped()}). */
  DROP_NEWEST
}
