package dev.alkdev.operations.transport.websocket;

import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.protocol.CallEvents;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.SerialMailbox.Outcome;
import dev.alkdev.operations.transport.websocket.internal.Frames;
import dev.alkdev.operations.transport.websocket.internal.Liveness;
import dev.alkdev.operations.transport.websocket.internal.PacedEndpoint;
import dev.alkdev.operations.transport.websocket.internal.Peek;
import java.nio.ByteBuffer;
import java.nio.channels.WritePendingException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One spoke's connection to the hub: reads its frames (on Jetty's thread for the connection, one at
 * a time), applies the rules to what it asks, and writes what the broker hands it. Writes are
 * asynchronous and bounded: Jetty's outgoing queue holds at most {@code maxQueuedFrames} and, as
 * the hub counts them, {@code maxQueuedBytes} of messages; a connection whose writes make no
 * progress for the write timeout is cut.
 *
 * <p>Reading is paced by writing (D94): the next frame is read only while less than half of {@code
 * maxQueuedBytes} waits to be written to the spoke. A spoke that sends without reading what it is
 * answered is therefore not read either, and TCP holds its flood back in its own socket. A message
 * for a spoke already at {@code maxQueuedBytes} is not queued: a request goes to another member of
 * its queue group (or is refused to its caller), anything else closes the connection (1008), and so
 * does staying paused for longer than {@code queueGrace}.
 */
final class HubConnection implements PacedEndpoint.Paced {
  private static final Logger LOG = LoggerFactory.getLogger(HubConnection.class);

  /**
   * What one queued frame holds besides its bytes: Jetty's frame and queue entry, the buffer
   * wrapping it, our callback. Counting it makes {@code maxQueuedBytes} bound many small messages
   * as well as a few large ones, so the byte bound, not Jetty's frame cap, decides when a spoke is
   * too slow.
   */
  static final int FRAME_OVERHEAD_BYTES = 192;

  private final WebSocketHub hub;
  final Identity identity;
  final String identityJson;
  final String remote;
  private volatile Session session;

  private final ConcurrentHashMap<Long, Broker.Sub> subs = new ConcurrentHashMap<>();
  final Set<String> inboxes = ConcurrentHashMap.newKeySet();
  final Set<String> nodes = ConcurrentHashMap.newKeySet();

  /** The operation ids it listens for requests of ({@link ServingClaims}). */
  final Set<String> servedOperations = ConcurrentHashMap.newKeySet();

  /** Requests the hub delivered to this connection and that it has not finished answering. */
  final ConcurrentHashMap<String, Served> served = new ConcurrentHashMap<>();

  /** Inboxes this connection may send node.hello / node.specs to, until when (nanoTime). */
  private final ConcurrentHashMap<String, Long> nodeReplyGrants = new ConcurrentHashMap<>();

  /**
   * Calls this connection made that are still open: their ids and their requests' sizes, for its
   * limits of calls and of bytes in flight.
   */
  private final ConcurrentHashMap<String, Integer> calls = new ConcurrentHashMap<>();

  private final AtomicLong callBytes = new AtomicLong();

  private final AtomicInteger inFlightWrites = new AtomicInteger();
  // Bytes handed to Jetty and not yet written, each frame with FRAME_OVERHEAD_BYTES for what Jetty
  // and we keep beside it: messages are queued only below maxQueuedBytes.
  private final AtomicLong queuedBytes = new AtomicLong();

  // Pacing (D94). A demand is outstanding (Jetty will read one more frame), or the reading is
  // paused: set before the queue is looked at, so that a write finishing meanwhile sees it and
  // looks again (each side writes its own variable, then reads the other's).
  private final Object pace = new Object();
  private boolean demanding; // guarded by pace
  private volatile boolean paused;
  private volatile long pausedSince; // nanoTime when reading last stopped for the queue; 0: reading

  private volatile long lastWriteProgress = System.nanoTime();
  private final Liveness liveness = new Liveness();
  private final long silenceLimitNanos;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** A request delivered here: where its answers go, and whether it is a stream. */
  record Served(String replyTo, boolean stream) {}

  HubConnection(WebSocketHub hub, Identity identity, String identityJson, String remote) {
    this.hub = hub;
    this.identity = identity;
    this.identityJson = identityJson;
    this.remote = remote;
    this.silenceLimitNanos = Liveness.limitNanos(hub.options.idleTimeout, hub.options.pingInterval);
  }

  // ------------------------------------------------------------------ Jetty events

  @Override
  public void opened(Session session) {
    this.session = session;
    session.setMaxOutgoingFrames(hub.options.maxQueuedFrames);
    session.setIdleTimeout(hub.options.idleTimeout);
    if (!hub.opened(this)) {
      cut(1013, "The hub is at its connection limit");
      return;
    }
    send(Frames.of("HELLO 1 " + hub.options.maxMessageBytes + " " + identityJson));
    readMore();
  }

  @Override
  public void frameDone() {
    synchronized (pace) {
      demanding = false; // Jetty used the demand for the frame just handled
    }
    readMore();
  }

  /**
   * Asks Jetty for the next frame unless one is asked for already, or the spoke has half its bound
   * or more waiting to be written to it: then reading stays paused until writes bring it below. A
   * closed connection is read on (its frames are ignored), so that Jetty sees the peer's answer to
   * the close.
   */
  private void readMore() {
    Session s = session;
    if (s == null) {
      return;
    }
    boolean open = !closed.get();
    synchronized (pace) {
      if (demanding) {
        return;
      }
      if (open) {
        paused = true; // before the queue is read: see the fields
        if (queuedBytes.get() >= hub.options.maxQueuedBytes / 2) {
          if (pausedSince == 0) {
            pausedSince = System.nanoTime() | 1; // never 0
            hub.pauses.incrementAndGet();
          }
          return;
        }
        paused = false;
        pausedSince = 0;
      }
      demanding = true;
    }
    try {
      s.demand();
    } catch (RuntimeException e) {
      LOG.debug("Spoke {}: no more frames to read: {}", remote, e.toString());
    }
  }

  @Override
  public void frame(ByteBuffer payload) {
    try {
      handle(Frames.parse(payload));
    } catch (RuntimeException e) {
      LOG.warn("Spoke {}: a frame failed", remote, e);
      cut(1011, "internal error");
    }
  }

  @Override
  public void closed(int statusCode, String reason) {
    disconnected();
  }

  @Override
  public void failed(Throwable cause) {
    LOG.debug("Spoke {}: {}", remote, cause.toString());
    disconnected();
  }

  // ------------------------------------------------------------------ frames in

  private void handle(Frames.Parsed frame) {
    if (closed.get()) {
      return;
    }
    if (frame == null) {
      hub.malformedFrames.incrementAndGet();
      bye(ErrorCode.PROTOCOL_ERROR, "a frame without a header line");
      return;
    }
    String[] fields = frame.header().split(" ", 4);
    switch (fields[0]) {
      case "PUB" -> {
        long pid = fields.length == 3 ? Frames.id(fields[1]) : -1;
        if (pid < 0) {
          malformed("PUB <id> <topic>");
          return;
        }
        onPublish(pid, fields[2], frame.payload());
      }
      case "SUB" -> {
        long sid = fields.length == 3 || fields.length == 4 ? Frames.id(fields[1]) : -1;
        if (sid < 0 || frame.payload().length > 0) {
          malformed("SUB <id> <topic> [<group>]");
          return;
        }
        onSubscribe(sid, fields[2], fields.length == 4 ? fields[3] : null);
      }
      case "UNSUB" -> {
        long sid = fields.length == 2 ? Frames.id(fields[1]) : -1;
        if (sid < 0) {
          malformed("UNSUB <id>");
          return;
        }
        onUnsubscribe(sid);
      }
      case "SYNC" -> {
        long id = fields.length == 2 ? Frames.id(fields[1]) : -1;
        if (id < 0) {
          malformed("SYNC <id>");
          return;
        }
        // Frames are handled in order: everything this spoke sent before is in effect now.
        send(Frames.of("SYNCED " + id));
      }
      default -> malformed("an unknown command");
    }
  }

  private void malformed(String expected) {
    hub.malformedFrames.incrementAndGet();
    bye(ErrorCode.PROTOCOL_ERROR, "a malformed frame; expected " + expected);
  }

  private void onSubscribe(long sid, String topic, String group) {
    if (subs.containsKey(sid)) {
      subError(sid, ErrorCode.INVALID_INPUT, "subscription id " + sid + " is in use");
      return;
    }
    if (!CallEvents.isValidTopic(topic) || (group != null && !CallEvents.isValidTopic(group))) {
      subError(sid, ErrorCode.INVALID_INPUT, "not a valid topic or group name");
      return;
    }
    if (subs.size() >= hub.options.maxSubscriptions) {
      hub.denied.incrementAndGet();
      subError(
          sid,
          ErrorCode.RESOURCE_EXHAUSTED,
          "at most " + hub.options.maxSubscriptions + " subscriptions per connection");
      return;
    }
    String denial = hub.rules.subscribeDenial(this, topic, group);
    if (denial != null) {
      hub.denied.incrementAndGet();
      subError(sid, ErrorCode.ACCESS_DENIED, denial);
      return;
    }
    Broker.Sub sub = new Broker.Sub(topic, group, delivery -> deliver(sid, topic, delivery));
    subs.put(sid, sub);
    hub.broker.add(sub);
    send(Frames.of("SUBOK " + sid));
  }

  private void subError(long sid, ErrorCode code, String message) {
    send(Frames.of("SUBERR " + sid + " " + code.name() + " " + message));
  }

  private void onUnsubscribe(long sid) {
    Broker.Sub sub = subs.remove(sid);
    if (sub != null) {
      hub.broker.remove(sub);
      hub.rules.released(this, sub.topic);
    }
  }

  boolean subscribes(java.util.function.Predicate<String> topic) {
    for (Broker.Sub sub : subs.values()) {
      if (topic.test(sub.topic)) {
        return true;
      }
    }
    return false;
  }

  private void onPublish(long pid, String topic, byte[] payload) {
    if (payload.length > hub.options.maxMessageBytes) {
      nak(
          pid,
          ErrorCode.RESOURCE_EXHAUSTED,
          false,
          "Message of "
              + payload.length
              + " bytes is larger than the hub's limit of "
              + hub.options.maxMessageBytes);
      return;
    }
    if (!CallEvents.isValidTopic(topic)) {
      nak(pid, ErrorCode.INVALID_INPUT, false, "not a valid topic");
      return;
    }
    Broker.Delivery delivery =
        new Broker.Delivery(topic, payload, this, java.util.Optional.of(identity));
    HubRules.Verdict verdict = hub.rules.publishVerdict(this, delivery);
    if (verdict.denial() != null) {
      hub.denied.incrementAndGet();
      nak(pid, verdict.code(), verdict.retryable(), verdict.denial());
      return;
    }
    hub.traffic.published(payload.length);
    Broker.Result result = hub.broker.publish(delivery);
    hub.rules.published(this, delivery, verdict, result.receivers());
    hub.relayed(delivery);
    if (result.rejected()) {
      nak(pid, ErrorCode.RESOURCE_EXHAUSTED, true, "A subscriber of " + topic + " is full");
    } else {
      send(Frames.of("ACK " + pid + " " + result.receivers()));
    }
  }

  private void nak(long pid, ErrorCode code, boolean retryable, String message) {
    send(Frames.of("NAK " + pid + " " + code.name() + " " + (retryable ? 1 : 0) + " " + message));
  }

  // ------------------------------------------------------------------ frames out

  private Outcome deliver(long sid, String topic, Broker.Delivery delivery) {
    if (closed.get() || !hub.rules.claims.spokeMayReceive(topic)) {
      return Outcome.CLOSED; // closed, or a request for an operation the hub serves itself
    }
    long queued = queuedBytes.get();
    if (queued >= hub.options.maxQueuedBytes) {
      // The spoke is not reading what it has: a request may still be served by another member of
      // its queue group; anything else cannot wait and must not be lost silently.
      if (isRequestTopic(topic)) {
        return Outcome.REJECTED;
      }
      closeForBound(queued + " bytes were waiting to be written to it when a message came");
      return Outcome.CLOSED;
    }
    if (!hub.rules.delivering(this, delivery)) {
      return Outcome.REJECTED;
    }
    String from;
    if (delivery.from != null) {
      from = delivery.from.identityJson;
    } else {
      from = delivery.sender().map(WebSocketHub::identityJson).orElse("-");
    }
    if (!send(Frames.of("MSG " + sid + " " + topic + " " + from, delivery.payload))) {
      return Outcome.CLOSED;
    }
    hub.traffic.received(delivery.payload.length);
    return Outcome.ACCEPTED;
  }

  /**
   * Queues {@code frame}; false when the connection is closed or has just been cut. Messages are
   * checked against the bound before (in {@link #deliver}); the hub's answers to the spoke's own
   * frames are always queued: there is at most one per frame read, and reading stops at half the
   * bound.
   */
  boolean send(byte[] frame) {
    Session s = session;
    if (s == null || closed.get()) {
      return false;
    }
    int size = frame.length + FRAME_OVERHEAD_BYTES;
    long queued = queuedBytes.addAndGet(size);
    if (queued > hub.queuedHighWater.get()) {
      hub.queuedHighWater.accumulateAndGet(queued, Math::max);
    }
    if (inFlightWrites.getAndIncrement() == 0) {
      lastWriteProgress = System.nanoTime();
    }
    try {
      s.sendBinary(
          ByteBuffer.wrap(frame),
          Callback.from(() -> written(size), cause -> writeFailed(size, cause)));
      return true;
    } catch (WritePendingException e) {
      writeFailed(size, e);
      return false;
    } catch (RuntimeException e) {
      inFlightWrites.decrementAndGet();
      queuedBytes.addAndGet(-size);
      disconnected();
      return false;
    }
  }

  private void written(int size) {
    inFlightWrites.decrementAndGet();
    queuedBytes.addAndGet(-size);
    lastWriteProgress = System.nanoTime();
    if (paused) {
      readMore();
    }
  }

  private void writeFailed(int size, Throwable cause) {
    inFlightWrites.decrementAndGet();
    queuedBytes.addAndGet(-size);
    if (cause instanceof WritePendingException) {
      hub.cut.incrementAndGet();
      hub.slowWarning.warn(
          "Spoke {} ({}) cut: its outgoing queue of {} frames is full (it does not read)",
          remote,
          identity.subject(),
          hub.options.maxQueuedFrames);
      abort();
    } else if (!closed.get()) {
      LOG.debug("Spoke {}: a write failed: {}", remote, cause.toString());
      abort();
    }
  }

  /**
   * Closes a connection whose reading has been paused for its queue longer than the grace, and cuts
   * one whose writes have made no progress for the write timeout.
   */
  void checkWrites(long now, long writeTimeoutNanos, long graceNanos) {
    long since = pausedSince;
    if (since != 0 && now - since > graceNanos) {
      closeForBound(
          "over half its bound of "
              + hub.options.maxQueuedBytes
              + " bytes for longer than "
              + TimeUnit.NANOSECONDS.toMillis(graceNanos)
              + " ms");
      return;
    }
    if (inFlightWrites.get() > 0 && now - lastWriteProgress > writeTimeoutNanos) {
      hub.cut.incrementAndGet();
      hub.slowWarning.warn(
          "Spoke {} ({}) cut: no write progressed for {} ms",
          remote,
          identity.subject(),
          writeTimeoutNanos / 1_000_000);
      abort();
    }
  }

  @Override
  public void heard() {
    liveness.heard();
  }

  /**
   * Pings the spoke, first cutting it if nothing came from it for too long: a spoke whose network
   * went silent would otherwise keep its inboxes and node ids (and its calls' bookkeeping) until
   * TCP gave up, and a reconnect of the same spoke would find them held.
   */
  void ping() {
    Session s = session;
    if (s == null || !s.isOpen()) {
      return;
    }
    if (liveness.silent(System.nanoTime(), silenceLimitNanos)) {
      LOG.info(
          "Spoke {}: nothing heard for {} ms; dropping the connection",
          remote,
          TimeUnit.NANOSECONDS.toMillis(silenceLimitNanos));
      abort();
      return;
    }
    s.sendPing(ByteBuffer.allocate(0), Callback.NOOP);
  }

  /** Grants replies of a node to {@code inbox} for a while (a query or a specs request came). */
  void grantNodeReplies(String inbox, long until) {
    if (nodeReplyGrants.size() >= 1024) {
      long now = System.nanoTime();
      nodeReplyGrants.values().removeIf(expiry -> expiry - now < 0);
      if (nodeReplyGrants.size() >= 1024) {
        return; // a flood of queries: the oldest grants stay, the newest are not given
      }
    }
    nodeReplyGrants.put(inbox, until);
  }

  boolean mayReplyAsNode(String inbox, long now) {
    Long until = nodeReplyGrants.get(inbox);
    return until != null && until - now > 0;
  }

  /** Tells the spoke why, then closes. */
  void bye(ErrorCode code, String message) {
    hub.cut.incrementAndGet();
    send(Frames.of("BYE " + code.name() + " " + message));
    cut(1008, message);
  }

  private void cut(int status, String reason) {
    Session s = session;
    if (s != null) {
      s.close(status, reason.length() > 100 ? reason.substring(0, 100) : reason, Callback.NOOP);
    }
    disconnected();
    readMore(); // for the peer's answer to the close, if reading was paused
  }

  /**
   * Closes a spoke that does not read what it is sent (D94): 1008 with a reason, which Jetty puts
   * before everything still queued and discards the rest, so the memory is released at once; a
   * spoke that reads slowly sees why. One that does not read at all is dropped a second later.
   */
  private void closeForBound(String why) {
    Session s = session;
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    hub.cut.incrementAndGet();
    hub.cutForBound.incrementAndGet();
    hub.slowWarning.warn(
        "Spoke {} ({}) closed: it does not read what it is sent ({})",
        remote,
        identity.subject(),
        why);
    released();
    if (s != null) {
      s.close(1008, "The spoke does not read what the hub sends it", Callback.NOOP);
      hub.later(s::disconnect, 1000);
    }
  }

  /** Drops the connection at once: a spoke that does not read gets no close handshake. */
  void abort() {
    Session s = session;
    if (s != null) {
      s.disconnect();
    }
    disconnected();
  }

  void closeGoingAway() {
    cut(1001, "The hub is closing");
  }

  private void disconnected() {
    if (closed.compareAndSet(false, true)) {
      released();
    }
  }

  /** Gives up what the connection held, once: its subscriptions, claims and calls. */
  private void released() {
    pausedSince = 0;
    for (Iterator<Map.Entry<Long, Broker.Sub>> it = subs.entrySet().iterator(); it.hasNext(); ) {
      hub.broker.remove(it.next().getValue());
      it.remove();
    }
    hub.closed(this);
  }

  boolean isClosed() {
    return closed.get();
  }

  /** Bytes handed to Jetty for this connection and not yet written. */
  long queuedBytes() {
    return queuedBytes.get();
  }

  /** Whether reading this connection is paused for its queue now. */
  boolean readingPaused() {
    return pausedSince != 0;
  }

  int openCalls() {
    return calls.size();
  }

  /** Bytes of the requests of this connection's open calls. */
  long openCallBytes() {
    return callBytes.get();
  }

  /** A call this connection made is open; {@code bytes}: its request's size. */
  void callOpened(String requestId, int bytes) {
    Integer previous = calls.put(requestId, bytes);
    callBytes.addAndGet(bytes - (previous == null ? 0 : previous));
  }

  /** A call this connection made ended (answered, aborted, expired, refused). */
  void callEnded(String requestId) {
    Integer bytes = calls.remove(requestId);
    if (bytes != null) {
      callBytes.addAndGet(-bytes);
    }
  }

  /** The ids of this connection's open calls (a snapshot). */
  List<String> openCallIds() {
    return List.copyOf(calls.keySet());
  }

  static boolean isRequestTopic(String topic) {
    return topic.startsWith(ProtocolTopics.REQUEST_PREFIX)
        || (topic.startsWith(ProtocolTopics.NODE_PREFIX) && topic.contains(".req."));
  }

  static boolean isTerminal(Peek peek, boolean stream) {
    return Peek.isTerminal(peek.type, stream);
  }
}
