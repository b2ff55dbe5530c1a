package dev.alkdev.operations.pubsub;

import dev.alkdev.operations.internal.RateLimitedLog;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subscription's delivery queue, for transport implementers: a bounded buffer drained by one
 * task at a time on an executor, so that the subscription's handler sees one message at a time, in
 * the order the messages were offered, and never on the thread that offers them. A transport's I/O
 * thread (a Netty event loop, a jnats dispatcher, a WebSocket reader) offers each message it
 * receives and returns at once; the handler runs on the executor, where it may take its time
 * without holding the connection up. When the buffer is full the {@link OverflowPolicy} decides:
 * the message is refused ({@link Outcome#REJECTED}: tell the publisher if you can, count it if you
 * cannot) or dropped and counted ({@link Outcome#DROPPED}).
 *
 * <pre>{@code
 * SerialMailbox mailbox =
 *     SerialMailbox.create(options.bufferSize(), options.overflow(), deliveryExecutor, handler);
 * // on the I/O thread, for each message received for this subscription:
 * mailbox.offer(new Message(topic, payload, Optional.empty()));
 * }</pre>
 *
 * <p>A handler that throws is logged and delivery goes on with the next message. A busy mailbox
 * hands its thread back to the executor after a batch of messages, so one busy subscription does
 * not starve the others that share the executor. Thread-safe: any number of threads may offer at
 * once; "in order" then means in the order each offering thread's messages entered the buffer.
 */
public final class SerialMailbox {
  private static final Logger LOG = LoggerFactory.getLogger(SerialMailbox.class);
  private static final RateLimitedLog SUBSCRIBER_FAILED = RateLimitedLog.of(LOG);

  /** Messages handled in one run before the drain yields its thread to the executor's others. */
  private static final int BATCH = 64;

  /** What became of an offered message. */
  public enum Outcome {
    /** Buffered: the handler will see it (unless the mailbox is closed first). */
    ACCEPTED,
    /** The buffer was full and the policy is {@link OverflowPolicy#REJECT}: counted as rejected. */
    REJECTED,
    /** The buffer was full and the policy is {@link OverflowPolicy#DROP_NEWEST}: counted. */
    DROPPED,
    /** The mailbox is closed: not delivered, not counted. */
    CLOSED
  }

  private final int capacity;
  private final OverflowPolicy overflow;
  private final Executor executor;
  private final Executor firstRun;
  private final Consumer<Message> handler;
  private final ConcurrentLinkedQueue<Message> buffer = new ConcurrentLinkedQueue<>();
  private final AtomicInteger buffered = new AtomicInteger();
  // Offers not yet seen by the drain: the offer that moves it from 0 starts a drain, so at most one
  // drain runs at a time (the usual work-in-progress counter of serial executors).
  private final AtomicInteger wip = new AtomicInteger();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();
  private final Runnable drain = this::drain;
  private volatile boolean closed;

  private SerialMailbox(
      int capacity,
      OverflowPolicy overflow,
      Executor executor,
      Executor firstRun,
      Consumer<Message> handler) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("capacity must be positive, was " + capacity);
    }
    this.capacity = capacity;
    this.overflow = Objects.requireNonNull(overflow, "overflow");
    this.executor = Objects.requireNonNull(executor, "executor");
    this.firstRun = Objects.requireNonNull(firstRun, "firstRun");
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  /**
   * A mailbox that buffers at most {@code capacity} messages, applies {@code overflow} when full,
   * and hands them to {@code handler} one at a time on {@code executor}. The executor is the
   * transport's to own and shut down; a virtual-thread or work-stealing executor suits many
   * subscriptions.
   */
  public static SerialMailbox create(
      int capacity, OverflowPolicy overflow, Executor executor, Consumer<Message> handler) {
    return new SerialMailbox(capacity, overflow, executor, executor, handler);
  }

  /**
   * A mailbox whose idle drain starts on {@code firstRun} (which may run it on the offering thread,
   * saving a hand-off) and resumes after a batch on {@code executor}. The in-process transport uses
   * it, and so does the WebSocket hub for its own subscriptions; {@code firstRun} must bound how
   * deeply it nests and must not run a handler that may block on the offering thread.
   */
  public static SerialMailbox create(
      int capacity,
      OverflowPolicy overflow,
      Executor executor,
      Executor firstRun,
      Consumer<Message> handler) {
    return new SerialMailbox(capacity, overflow, executor, firstRun, handler);
  }

  /** Buffers {@code message} for the handler, or says why not. Never blocks. */
  public Outcome offer(Message message) {
    Objects.requireNonNull(message, "message");
    if (closed) {
      return Outcome.CLOSED;
    }
    if (buffered.incrementAndGet() > capacity) {
      buffered.decrementAndGet();
      if (overflow == OverflowPolicy.DROP_NEWEST) {
        dropped.incrementAndGet();
        return Outcome.DROPPED;
      }
      rejected.incrementAndGet();
      return Outcome.REJECTED;
    }
    buffer.add(message);
    if (wip.getAndIncrement() == 0) {
      start(firstRun);
    }
    return Outcome.ACCEPTED;
  }

  /** Messages dropped because the buffer was full under {@link OverflowPolicy#DROP_NEWEST}. */
  public long dropped() {
    return dropped.get();
  }

  /** Messages refused because the buffer was full under {@link OverflowPolicy#REJECT}. */
  public long rejected() {
    return rejected.get();
  }

  /** Messages buffered and not yet handed to the handler. */
  public int size() {
    return buffered.get();
  }

  /**
   * Stops deliveries: later offers are {@link Outcome#CLOSED}, buffered messages are discarded, and
   * the handler is not called again once a call already running returns. Closing twice is harmless.
   */
  public void close() {
    closed = true;
  }

  public boolean isClosed() {
    return closed;
  }

  private void start(Executor on) {
    try {
      on.execute(drain);
    } catch (RejectedExecutionException e) {
      // The executor is shutting down, and the transport with it: what is buffered is not
      // delivered.
      buffer.clear();
      buffered.set(0);
      wip.set(0);
    }
  }

  private void drain() {
    int handled = 0;
    int missed = wip.get();
    while (true) {
      Message message;
      while ((message = buffer.poll()) != null) {
        buffered.decrementAndGet();
        if (!closed) {
          try {
            handler.accept(message);
          } catch (RuntimeException e) {
            SUBSCRIBER_FAILED.error("A subscriber of {} failed on a message", message.topic(), e);
          }
        }
        if (++handled == BATCH) {
          // Yield the thread so one busy subscription cannot starve the others; resume later.
          start(executor);
          return;
        }
      }
      missed = wip.addAndGet(-missed);
      if (missed == 0) {
        return;
      }
    }
  }
}
