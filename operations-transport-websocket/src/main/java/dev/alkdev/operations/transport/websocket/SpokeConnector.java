package dev.alkdev.operations.transport.websocket;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.protocol.CallEvents;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.transport.kit.ConnectionKeeper;
import dev.alkdev.operations.transport.kit.Connector;
import dev.alkdev.operations.transport.kit.TransportSubscription;
import dev.alkdev.operations.transport.websocket.internal.Endpoint;
import dev.alkdev.operations.transport.websocket.internal.Frames;
import dev.alkdev.operations.transport.websocket.internal.Liveness;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.exceptions.UpgradeException;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A spoke's side of the transport kit: WebSocket connections to a hub, each greeted by it (its
 * limit, the identity it authenticated), with the hub's frames read: messages for subscriptions,
 * answers to publishes and subscribes.
 */
final class SpokeConnector implements Connector<SpokeConnector.Link> {
  private static final Logger LOG = LoggerFactory.getLogger(SpokeConnector.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  // True while a spoke's reader thread handles a frame (and the handlers run inline from it).
  private static final ThreadLocal<Boolean> ON_READER = ThreadLocal.withInitial(() -> false);

  private final SpokeOptions options;
  private final WebSocketClient client;
  private final String display;
  private final long silenceLimitNanos; // see Liveness
  private final ConcurrentHashMap<Long, TransportSubscription<Link>> byId =
      new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Optional<Identity>> identities =
      new ConcurrentHashMap<>();
  private final AtomicLong nextPid = new AtomicLong();
  private volatile ConnectionKeeper<Link> keeper;
  private volatile Identity identity = Identity.anonymous();
  private volatile int maxMessageBytes;

  SpokeConnector(SpokeOptions options, WebSocketClient client, String display) {
    this.options = options;
    this.client = client;
    this.display = display;
    this.silenceLimitNanos = Liveness.limitNanos(options.idleTimeout, options.pingInterval);
    this.maxMessageBytes = Math.min(options.maxMessageBytes, CallEvents.DEFAULT_MAX_MESSAGE_BYTES);
  }

  @Override
  public void keptBy(ConnectionKeeper<Link> keeper) {
    this.keeper = keeper;
  }

  static boolean onReader() {
    return ON_READER.get();
  }

  Identity identity() {
    return identity;
  }

  int maxMessageBytes() {
    return maxMessageBytes;
  }

  /** Opens a connection and waits for the hub's greeting. */
  @Override
  public Link connect() {
    Link fresh = new Link();
    ClientUpgradeRequest request = new ClientUpgradeRequest(options.uri);
    options.headers.forEach(request::setHeader);
    request.setSubProtocols(WebSocketHub.SUBPROTOCOL);
    request.setTimeout(options.connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
    long timeout = options.connectTimeout.toMillis();
    CompletableFuture<Session> connecting = null;
    try {
      connecting = client.connect(new Endpoint(fresh), request);
      connecting.get(timeout, TimeUnit.MILLISECONDS);
      fresh.greeted.get(timeout, TimeUnit.MILLISECONDS);
      return fresh;
    } catch (ExecutionException e) {
      fresh.abandon();
      Throwable cause = e.getCause();
      if (cause instanceof UpgradeException upgrade
          && (upgrade.getResponseStatusCode() == 401 || upgrade.getResponseStatusCode() == 403)) {
        throw CallError.builder(
                ErrorCode.ACCESS_DENIED,
                "The hub "
                    + options.uri
                    + " refused the connection ("
                    + upgrade.getResponseStatusCode()
                    + ")")
            .retryable(false)
            .build();
      }
      throw CallError.builder(ErrorCode.UNAVAILABLE, "Cannot connect to the hub " + options.uri)
          .cause(cause)
          .build();
    } catch (TimeoutException e) {
      // The upgrade may still complete: the abandoned link closes whatever opens later.
      fresh.abandon();
      connecting.cancel(true);
      throw CallError.of(
          ErrorCode.UNAVAILABLE,
          "The hub " + options.uri + " did not answer within " + timeout + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fresh.abandon();
      if (connecting != null) {
        connecting.cancel(true);
      }
      throw CallError.of(ErrorCode.CANCELLED, "Interrupted while connecting to " + options.uri);
    } catch (java.io.IOException e) {
      fresh.abandon();
      throw CallError.builder(ErrorCode.UNAVAILABLE, "Cannot connect to the hub " + options.uri)
          .cause(e)
          .build();
    }
  }

  /** Sends SUB; the future completes with the hub's SUBOK and fails with its SUBERR. */
  @Override
  public CompletableFuture<Void> attach(Link link, TransportSubscription<Link> subscription) {
    long sid = subscription.id();
    byId.put(sid, subscription);
    CompletableFuture<Void> accepted = new CompletableFuture<>();
    link.subscribing.put(sid, accepted);
    String group = subscription.queueGroup().map(g -> " " + g).orElse("");
    if (!link.send(Frames.of("SUB " + sid + " " + subscription.topic() + group))) {
      link.subscribing.remove(sid);
      accepted.completeExceptionally(
          CallError.of(ErrorCode.UNAVAILABLE, "Not connected to the hub " + options.uri));
    }
    accepted.whenComplete(
        (ok, failure) -> {
          if (failure instanceof CallError error && error.code() != ErrorCode.UNAVAILABLE) {
            byId.remove(sid, subscription); // refused: nothing of it is on the hub
          }
        });
    return accepted;
  }

  @Override
  public CompletableFuture<Void> detach(Link link, TransportSubscription<Link> subscription) {
    if (byId.remove(subscription.id(), subscription)) {
      link.send(Frames.of("UNSUB " + subscription.id()));
    }
    return CompletableFuture.completedFuture(null);
  }

  /** Sends PUB; the hub answers with the exact number of receivers, or refuses with the reason. */
  @Override
  public CompletableFuture<Integer> publish(Link link, String topic, byte[] payload) {
    long pid = nextPid.incrementAndGet();
    Ack acked = new Ack(System.nanoTime());
    link.publishes.put(pid, acked);
    if (!link.send(Frames.of("PUB " + pid + " " + topic, payload))) {
      link.publishes.remove(pid);
      throw new IllegalStateException("the connection is going");
    }
    if (link.lost.get() && link.publishes.remove(pid) != null) {
      // The connection dropped while this was being sent: nobody would answer it.
      acked.completeExceptionally(
          CallError.of(ErrorCode.UNAVAILABLE, "The connection to the hub dropped"));
    }
    return acked;
  }

  /** SYNC: completes when the hub has handled everything sent before on {@code link}. */
  CompletableFuture<Integer> sync(Link link) {
    long id = nextPid.incrementAndGet();
    Ack synced = new Ack(System.nanoTime());
    link.publishes.put(id, synced);
    if (!link.send(Frames.of("SYNC " + id))) {
      link.publishes.remove(id);
      synced.completeExceptionally(
          CallError.of(ErrorCode.UNAVAILABLE, "Not connected to the hub " + options.uri));
    }
    return synced;
  }

  @Override
  public boolean isOpen(Link link) {
    return !link.lost.get();
  }

  @Override
  public void dropped(Link link, CallError why) {
    link.fail(why);
  }

  @Override
  public void discard(Link link) {
    link.close();
  }

  /**
   * Fails publishes the hub has not answered within the request timeout: a hub that stopped
   * answering on a connection that still looks open (no drop, no close) must not leave them waiting
   * forever.
   */
  void expireAcks(Optional<Link> current) {
    if (current.isEmpty()) {
      return; // a dropped link failed its own
    }
    long now = System.nanoTime();
    long timeout = options.requestTimeout.toNanos();
    for (var entry : current.get().publishes.entrySet()) {
      Ack ack = entry.getValue();
      if (now - ack.sentAt > timeout && current.get().publishes.remove(entry.getKey(), ack)) {
        ack.completeExceptionally(
            CallError.of(
                ErrorCode.UNAVAILABLE,
                "The hub "
                    + options.uri
                    + " did not acknowledge a publish within "
                    + options.requestTimeout.toMillis()
                    + " ms; it may or may not have been relayed"));
      }
    }
  }

  private Optional<Identity> identityOf(String json) {
    if (json.equals("-")) {
      return Optional.empty();
    }
    Optional<Identity> known = identities.get(json);
    if (known != null) {
      return known;
    }
    Optional<Identity> parsed = parseIdentity(json);
    if (identities.size() > 1024) {
      identities.clear(); // many callers: a cache, not a registry
    }
    identities.put(json, parsed);
    return parsed;
  }

  private static Optional<Identity> parseIdentity(String json) {
    try {
      JsonNode node = JSON.readTree(json);
      List<String> scopes = new ArrayList<>();
      node.path("scopes").forEach(scope -> scopes.add(scope.asString()));
      return Optional.of(new Identity(node.path("subject").asString(), Set.copyOf(scopes)));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private static ErrorCode code(String name) {
    try {
      return ErrorCode.valueOf(name);
    } catch (IllegalArgumentException e) {
      return ErrorCode.EXECUTION_ERROR;
    }
  }

  /** A publish (or SYNC) waiting for the hub's answer, and when it was sent. */
  private static final class Ack extends CompletableFuture<Integer> {
    final long sentAt;

    Ack(long sentAt) {
      this.sentAt = sentAt;
    }
  }

  /** One WebSocket connection to the hub; replaced by a new one after a drop. */
  final class Link implements Endpoint.Events {
    final CompletableFuture<Void> greeted = new CompletableFuture<>();
    final ConcurrentHashMap<Long, Ack> publishes = new ConcurrentHashMap<>();
    final ConcurrentHashMap<Long, CompletableFuture<Void>> subscribing = new ConcurrentHashMap<>();
    final AtomicBoolean lost = new AtomicBoolean();
    private final Liveness liveness = new Liveness();
    private volatile Session session;

    boolean send(byte[] frame) {
      Session s = session;
      if (s == null || lost.get()) {
        return false;
      }
      try {
        s.sendBinary(ByteBuffer.wrap(frame), Callback.from(() -> {}, this::writeFailed));
        return true;
      } catch (RuntimeException e) {
        writeFailed(e);
        return false;
      }
    }

    private void writeFailed(Throwable cause) {
      if (!lost.get()) {
        LOG.debug("{}: a write failed: {}", display, cause.toString());
        Session s = session;
        if (s != null) {
          s.disconnect(); // a hub that does not read: start again on a new connection
        }
        connectionLost("a write failed: " + cause.getClass().getSimpleName());
      }
    }

    @Override
    public void heard() {
      liveness.heard();
    }

    /**
     * Pings the hub, first dropping the connection if nothing came from it for too long (a network
     * that went silent: writes still succeed, so Jetty's idle timeout never fires); then the spoke
     * reconnects as after any drop.
     */
    void ping() {
      Session s = session;
      if (s == null || !s.isOpen() || lost.get()) {
        return;
      }
      if (liveness.silent(System.nanoTime(), silenceLimitNanos)) {
        s.disconnect();
        connectionLost(
            "nothing heard from the hub for "
                + TimeUnit.NANOSECONDS.toMillis(silenceLimitNanos)
                + " ms");
        return;
      }
      s.sendPing(ByteBuffer.allocate(0), Callback.NOOP);
    }

    void fail(CallError error) {
      lost.set(true);
      for (Long pid : new ArrayList<>(publishes.keySet())) {
        CompletableFuture<Integer> f = publishes.remove(pid);
        if (f != null) {
          f.completeExceptionally(error);
        }
      }
      for (Long sid : new ArrayList<>(subscribing.keySet())) {
        CompletableFuture<Void> f = subscribing.remove(sid);
        if (f != null) {
          f.completeExceptionally(error);
        }
      }
      greeted.completeExceptionally(error);
    }

    void close() {
      lost.set(true);
      Session s = session;
      if (s != null && s.isOpen()) {
        s.close(1000, "closing", Callback.NOOP);
      }
    }

    /**
     * Drops a connection that never became the spoke's (its connect failed or timed out): no close
     * handshake, which a hub that does not answer would hold open until the idle timeout.
     */
    void abandon() {
      lost.set(true);
      Session s = session;
      if (s != null) {
        s.disconnect();
      }
    }

    @Override
    public void opened(Session session) {
      this.session = session;
      if (lost.get()) {
        // Given up before it opened (the connect timed out): nobody would ever close it.
        session.disconnect();
      }
    }

    @Override
    public void frame(ByteBuffer payload) {
      boolean outer = !ON_READER.get();
      ON_READER.set(true);
      try {
        onFrame(Frames.parse(payload));
      } catch (RuntimeException e) {
        LOG.warn("{}: a frame from the hub failed", display, e);
      } finally {
        if (outer) {
          ON_READER.set(false);
        }
      }
    }

    @Override
    public void closed(int statusCode, String reason) {
      connectionLost("closed " + statusCode + (reason == null ? "" : " " + reason));
    }

    @Override
    public void failed(Throwable cause) {
      connectionLost(cause.getClass().getSimpleName() + ": " + cause.getMessage());
    }

    private void connectionLost(String why) {
      if (lost.compareAndSet(false, true)) {
        greeted.completeExceptionally(CallError.of(ErrorCode.UNAVAILABLE, why));
        ConnectionKeeper<Link> k = keeper;
        if (k != null) {
          k.lost(this, why);
        }
        // A connection not yet in use (still opening) fails its own waiters.
        fail(CallError.of(ErrorCode.UNAVAILABLE, "The connection to the hub dropped: " + why));
      }
    }

    private void onFrame(Frames.Parsed frame) {
      if (frame == null) {
        LOG.warn("{}: a frame from the hub without a header line", display);
        return;
      }
      String header = frame.header();
      int space = header.indexOf(' ');
      String command = space < 0 ? header : header.substring(0, space);
      switch (command) {
        case "MSG" -> onMessage(header, frame.payload());
        case "ACK" -> {
          String[] f = header.split(" ", 3);
          CompletableFuture<Integer> acked = publishes.remove(Frames.id(f[1]));
          if (acked != null) {
            acked.complete(Integer.parseInt(f[2]));
          }
        }
        case "NAK" -> {
          String[] f = header.split(" ", 5);
          CompletableFuture<Integer> refused = publishes.remove(Frames.id(f[1]));
          if (refused != null) {
            refused.completeExceptionally(
                CallError.builder(code(f[2]), f.length > 4 ? f[4] : "refused by the hub")
                    .retryable("1".equals(f[3]))
                    .build());
          }
        }
        case "SYNCED" -> {
          CompletableFuture<Integer> synced = publishes.remove(Frames.id(header.substring(7)));
          if (synced != null) {
            synced.complete(0);
          }
        }
        case "SUBOK" -> {
          CompletableFuture<Void> accepted = subscribing.remove(Frames.id(header.substring(6)));
          if (accepted != null) {
            accepted.complete(null);
          }
        }
        case "SUBERR" -> {
          String[] f = header.split(" ", 4);
          CompletableFuture<Void> refused = subscribing.remove(Frames.id(f[1]));
          if (refused != null) {
            refused.completeExceptionally(
                CallError.builder(code(f[2]), f.length > 3 ? f[3] : "refused by the hub")
                    .retryable(false)
                    .build());
          }
        }
        case "HELLO" -> {
          String[] f = header.split(" ", 4);
          maxMessageBytes = Math.min(options.maxMessageBytes, Integer.parseInt(f[2]));
          identityOf(f[3]).ifPresent(id -> identity = id);
          greeted.complete(null);
        }
        case "BYE" -> LOG.warn("{}: the hub closes the connection: {}", display, header);
        default -> LOG.debug("{}: an unknown frame from the hub: {}", display, command);
      }
    }

    private void onMessage(String header, byte[] payload) {
      String[] f = header.split(" ", 4);
      if (f.length < 4) {
        return;
      }
      TransportSubscription<Link> subscription = byId.get(Frames.id(f[1]));
      if (subscription == null) {
        return; // unsubscribed meanwhile
      }
      // The hub was told it was delivered: a full buffer drops and counts it here.
      subscription.deliver(new Message(f[2], payload, identityOf(f[3])));
    }
  }
}
