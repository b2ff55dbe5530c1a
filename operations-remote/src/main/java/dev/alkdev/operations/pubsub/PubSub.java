package dev.alkdev.operations.pubsub;

import dev.alkdev.operations.Registration;
import dev.alkdev.operations.protocol.ProtocolTopics;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The transport SPI the call protocol runs on: topics, publish, subscribe. Implementations carry
 * opaque byte payloads (UTF-8 JSON events); the call protocol above them does the rest. The
 * in-process implementation, {@link InProcessPubSub}, is the embedded default; remote transports
 * (WebSocket, Redis, NATS) implement the same interface.
 *
 * <p>Delivery: a message published to a topic reaches every plain subscriber of that topic and
 * exactly one member of each queue group subscribed to it. Each subscription has a bounded buffer
 * and a stated {@link OverflowPolicy}; messages to one subscription are handled one at a time, in
 * the order they were published by one publisher. {@link SerialMailbox} is such a buffer, for
 * implementations to reuse.
 *
 * <p>Every implementation's tests extend {@code PubSubContractTest} (module {@code
 * operations-testing}), which checks these promises on the transport itself.
 */
public interface PubSub extends AutoCloseable {

  /**
   * Publishes {@code payload}. The future completes with the number of subscriptions the message
   * was handed to (0: nobody listens), or fails with a {@link dev.alkdev.operations.CallError}:
   * RESOURCE_EXHAUSTED when the payload is larger than {@link #maxMessageBytes()} (not retryable)
   * or a receiving buffer with the REJECT policy is full (retryable), UNAVAILABLE when the
   * transport is closed or cut off.
   */
  CompletableFuture<Integer> publish(String topic, byte[] payload);

  /**
   * Subscribes {@code handler} to {@code topic}. The handler runs on the transport's delivery
   * threads, one message at a time for this subscription; it must not block for long, and an
   * exception it throws does not end the subscription. A remote transport's subscription may take a
   * moment to reach its broker: messages published before then may miss it. A subscriber whose
   * handler never blocks may say so ({@link SubscribeOptions#withNonBlockingHandler()}); the
   * transport may then run the handler on its I/O thread, saving a hand-off per message.
   *
   * @throws dev.alkdev.operations.CallError UNAVAILABLE when the transport is closed
   */
  Subscription subscribe(String topic, SubscribeOptions options, Consumer<Message> handler);

  /** The largest payload this transport carries. */
  int maxMessageBytes();

  /**
   * Whether an identity written inside a payload may be believed. True only where every publisher
   * is trusted code (in-process); a transport that authenticates its connections stamps {@link
   * Message#identity()} instead. False unless a transport says otherwise: any client of a broker
   * could write any identity into a payload.
   */
  default boolean trustsPayloadIdentity() {
    return false;
  }

  /**
   * Where this connection's callers make their inboxes: {@link ProtocolTopics#INBOX_PREFIX}, or,
   * where the transport was given a private token, {@code ops.inbox.<token>.} ({@link
   * ProtocolTopics#privateInboxPrefix}), so that a broker can let each user listen only on its own
   * inboxes (docs/security.md). {@code PendingRequestMap} and {@code RemoteCatalog} read it.
   */
  default String inboxPrefix() {
    return ProtocolTopics.INBOX_PREFIX;
  }

  /**
   * What this transport has carried so far: messages and payload bytes out and in, drops,
   * reconnects, slow-consumer events. Cheap enough to read at every metrics scrape. A transport
   * that keeps no statistics reports {@link TransportStats#NONE}; one whose counting would weigh on
   * its own cost (in-process) may start counting at the first call.
   */
  default TransportStats transportStats() {
    return TransportStats.NONE;
  }

  /**
   * Whether the transport is connected to its broker at the moment, for health checks. A transport
   * that has no broker (in-process) or cannot tell answers {@code true} until closed.
   */
  default boolean isConnected() {
    return true;
  }

  /**
   * Runs {@code action} when the transport is closed or loses its connection, so that callers can
   * fail their pending calls at once instead of at their deadlines; at once if it is closed
   * already. An action that throws does not keep the others from running.
   */
  Registration onDisconnect(Runnable action);

  /**
   * Closes the transport: subscriptions end, pending deliveries are dropped, later publishes fail
   * with UNAVAILABLE, and the {@link #onDisconnect} actions run once, before this returns. Closing
   * twice is harmless.
   */
  @Override
  void close();

  /** A live subscription. */
  interface Subscription extends AutoCloseable {
    String topic();

    /**
     * Messages this subscription lost because its buffer was full: under DROP_NEWEST, and under
     * REJECT where the transport cannot tell the publisher (a remote one drops and counts).
     */
    long dropped();

    /** Stops deliveries; messages already buffered are discarded. */
    @Override
    void close();
  }
}
