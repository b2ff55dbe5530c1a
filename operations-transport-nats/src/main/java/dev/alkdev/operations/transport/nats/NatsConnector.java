package dev.alkdev.operations.transport.nats;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.pubsub.DeliveryBatch;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSubFactory;
import dev.alkdev.operations.transport.kit.ConnectionKeeper;
import dev.alkdev.operations.transport.kit.Connector;
import dev.alkdev.operations.transport.kit.TransportSubscription;
import dev.alkdev.operations.transport.nats.internal.ReceiverProbes;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Consumer;
import io.nats.client.Dispatcher;
import io.nats.client.ErrorListener;
import io.nats.client.MessageHandler;
import io.nats.client.Nats;
import io.nats.client.Subscription;
import io.nats.client.api.ServerInfo;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NATS side of the transport kit: connections to a NATS server or cluster with jnats' own
 * reconnection off (a connection that drops is replaced, not revived, so what jnats had queued for
 * it is never sent), each with two dispatchers and its receiver probes.
 */
final class NatsConnector implements Connector<NatsConnector.Link> {
  private static final Logger LOG = LoggerFactory.getLogger(NatsConnector.class);

  private final NatsOptions options;
  private final String name;
  private final ScheduledExecutorService timer;
  private final AtomicLong droppedByClient = new AtomicLong();
  // The last connected server's max_payload (0: unknown): read on every publish, so kept here.
  private volatile long serverMaxPayload;
  private volatile ConnectionKeeper<Link> keeper;

  NatsConnector(NatsOptions options, String name, ScheduledExecutorService timer) {
    this.options = options;
    this.name = name;
    this.timer = timer;
  }

  @Override
  public void keptBy(ConnectionKeeper<Link> keeper) {
    this.keeper = keeper;
  }

  @Override
  public Link connect() {
    try {
      Link fresh = new Link();
      Connection connection =
          Nats.connect(
              options
                  .toJnats()
                  .maxReconnects(0)
                  .connectionListener((conn, event) -> onConnectionEvent(fresh, event))
                  .errorListener(new Errors())
                  .build());
      try {
        fresh.open(connection, new ReceiverProbes(connection, timer, options.privateToken()));
        ServerInfo info = connection.getServerInfo();
        if (info != null) {
          serverMaxPayload = info.getMaxPayload();
        }
      } catch (RuntimeException e) {
        connection.close();
        throw e;
      }
      return fresh;
    } catch (IOException | RuntimeException e) {
      if (e instanceof CallError error) {
        throw error;
      }
      throw CallError.of(
          ErrorCode.UNAVAILABLE,
          "Cannot connect to NATS at "
              + options.servers().stream().map(PubSubFactory.Target::redacted).toList()
              + ": "
              + redacted(String.valueOf(e.getMessage()), options.servers()),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallError.of(ErrorCode.UNAVAILABLE, "Interrupted while connecting to NATS", e);
    }
  }

  /** jnats names the servers in its messages, credentials included: those go. */
  private static String redacted(String message, List<String> servers) {
    String out = message;
    for (String server : servers) {
      out = out.replace(server, PubSubFactory.Target.redacted(server));
    }
    return out;
  }

  private void onConnectionEvent(Link source, ConnectionListener.Events event) {
    ConnectionKeeper<Link> k = keeper;
    if (k != null
        && (event == ConnectionListener.Events.DISCONNECTED
            || event == ConnectionListener.Events.CLOSED)) {
      k.lost(source, "NATS reported " + event);
    }
  }

  // snippet: attach
  @Override
  public CompletableFuture<Void> attach(Link link, TransportSubscription<Link> subscription) {
    try {
      Dispatcher dispatcher = link.dispatcher(subscription.nonBlockingHandler());
      // A non-blocking handler runs on the dispatcher's thread: it says when messages are queued
      // behind this one, so replies settle once per run of them (D86).
      MessageHandler receive =
          subscription.nonBlockingHandler()
              ? message ->
                  DeliveryBatch.deliver(
                      () -> receive(subscription, message), dispatcher.getPendingMessageCount() > 0)
              : message -> receive(subscription, message);
      Optional<String> group = subscription.queueGroup();
      Subscription nats =
          group.isPresent()
              ? dispatcher.subscribe(subscription.topic(), group.get(), receive)
              : dispatcher.subscribe(subscription.topic(), receive);
      link.subscriptions.put(subscription, nats);
      // Queued on the connection before anything published after it: the server reads a
      // connection in order, so this is in effect for those.
      return CompletableFuture.completedFuture(null);
    } catch (IllegalStateException connectionGone) {
      return CompletableFuture.failedFuture(
          CallError.of(ErrorCode.UNAVAILABLE, "The NATS connection dropped"));
    }
  }

  // end-snippet

  private static void receive(TransportSubscription<Link> subscription, io.nats.client.Message m) {
    if (m.isStatusMessage()) {
      return;
    }
    byte[] data = m.getData();
    subscription.deliver(
        new Message(subscription.topic(), data == null ? new byte[0] : data, Optional.empty()));
  }

  @Override
  public CompletableFuture<Void> detach(Link link, TransportSubscription<Link> subscription) {
    Subscription nats = link.subscriptions.remove(subscription);
    if (nats != null) {
      droppedByClient.addAndGet(nats.getDroppedCount());
      try {
        link.dispatcher(subscription.nonBlockingHandler()).unsubscribe(nats);
      } catch (IllegalStateException connectionGone) {
        // Closing or losing the connection ended it already.
      }
    }
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<Integer> publish(Link link, String topic, byte[] payload) {
    return link.probes.publish(topic, payload); // IllegalStateException: the connection is going
  }

  @Override
  public boolean isOpen(Link link) {
    return link.connection.getStatus() == Connection.Status.CONNECTED;
  }

  @Override
  public void dropped(Link link, CallError why) {
    link.probes.failAll(why);
  }

  @Override
  public void discard(Link link) {
    for (Subscription nats : link.subscriptions.values()) {
      droppedByClient.addAndGet(nats.getDroppedCount());
    }
    link.subscriptions.clear();
    try {
      link.connection.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The connected server's {@code max_payload}, 0 when not known. */
  long serverMaxPayload() {
    return serverMaxPayload;
  }

  /** Messages jnats dropped for the subscriptions (its own buffer overflowed), so far. */
  long droppedByClient(Optional<Link> current) {
    long dropped = droppedByClient.get();
    if (current.isPresent()) {
      for (Subscription nats : current.get().subscriptions.values()) {
        dropped += nats.getDroppedCount();
      }
    }
    return dropped;
  }

  /**
   * One jnats connection with its dispatchers and receiver probes: one dispatcher (one thread) for
   * the subscriptions whose handlers never block, one for the others, so that a burst of user
   * messages does not queue ahead of a call's replies, and a protocol handler that blocks despite
   * its promise does not hold up user subscriptions.
   */
  static final class Link {
    private volatile Connection connection;
    private volatile Dispatcher dispatcher;
    private volatile Dispatcher nonBlockingDispatcher;
    private volatile ReceiverProbes probes;
    private final ConcurrentHashMap<TransportSubscription<Link>, Subscription> subscriptions =
        new ConcurrentHashMap<>();

    void open(Connection connection, ReceiverProbes probes) {
      this.connection = connection;
      this.dispatcher = connection.createDispatcher();
      this.nonBlockingDispatcher = connection.createDispatcher();
      this.probes = probes;
    }

    Connection connection() {
      return connection;
    }

    Dispatcher dispatcher(boolean nonBlocking) {
      return nonBlocking ? nonBlockingDispatcher : dispatcher;
    }
  }

  /** jnats' error reports: slow consumers counted and warned of, the rest logged. */
  private final class Errors implements ErrorListener {
    @Override
    public void slowConsumerDetected(Connection conn, Consumer consumer) {
      ConnectionKeeper<Link> k = keeper;
      if (k != null) {
        k.slowConsumer(
            "{}: slow consumer: jnats dropped messages it could not hand over ({} so far on this"
                + " consumer)",
            name,
            consumer.getDroppedCount());
      }
    }

    @Override
    public void errorOccurred(Connection conn, String error) {
      LOG.warn("{}: NATS server error: {}", name, error);
    }

    @Override
    public void exceptionOccurred(Connection conn, Exception exp) {
      LOG.debug("{}: NATS connection exception", name, exp);
    }
  }
}
