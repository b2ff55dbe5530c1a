package dev.alkdev.operations.transport.websocket;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.protocol.CallEvent;
import dev.alkdev.operations.protocol.CallEvents;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.transport.websocket.internal.Peek;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The hub's permission rules (docs/websocket.md, "Permissions"), and the bookkeeping they need: who
 * holds which inbox and node id, which connection made each open call, and which connection serves
 * it. The {@link SpokePermissions} decide per operation; these rules apply whatever they say.
 * Everything is read from the topic and a peek at the event's first-level fields; the bytes are
 * relayed unchanged.
 */
final class HubRules {
  private static final long NODE_REPLY_GRANT_NANOS = TimeUnit.SECONDS.toNanos(30);

  /** The longest deadline the hub keeps a call's ownership for: a day. */
  private static final long MAX_DEADLINE_MS = TimeUnit.DAYS.toMillis(1);

  private static final long DEADLINE_GRACE_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** {@link CallerCall#expiresAt} of a call without a deadline (a stream): kept until it ends. */
  private static final long NEVER = Long.MIN_VALUE;

  /**
   * How long an inbox or node id of a closed connection stays reserved for its identity, so that
   * the spoke reconnecting (backoff up to 5 s) gets it back and nobody else can take it (D66).
   */
  static final long RECLAIM_NANOS = TimeUnit.SECONDS.toNanos(60);

  /** Node ids one connection may hold: a spoke announces itself, not a fleet (D66). */
  static final int MAX_NODE_IDS = 8;

  private final WebSocketHub hub;
  private final SpokePermissions permissions;
  private final boolean strictReplies;

  /** Who serves which operation id: the hub's own code, or the first identity to serve it. */
  final ServingClaims claims;

  /**
   * Who holds an inbox or a node id: a live connection, the hub's own code ({@link #HUB}), or, once
   * its connection closed, an identity until {@code reservedUntil} (D66).
   */
  record Holder(HubConnection connection, Identity identity, long reservedUntil) {}

  /** Inboxes and node ids of the hub's own code: no spoke may take them. */
  static final Holder HUB = new Holder(null, null, NEVER);

  final ConcurrentHashMap<String, Holder> inboxOwners = new ConcurrentHashMap<>();
  final ConcurrentHashMap<String, Holder> nodeOwners = new ConcurrentHashMap<>();

  /** Open calls made by spokes, by request id. */
  final ConcurrentHashMap<String, CallerCall> callers = new ConcurrentHashMap<>();

  /**
   * Open calls the hub's own code made (through {@code hub.pubsub()}), by request id: no spoke may
   * control them (D66). Kept until answered, aborted or past their deadline.
   */
  final ConcurrentHashMap<String, HubCall> hubCalls = new ConcurrentHashMap<>();

  /** A call of the hub's own code: whether a stream, until when it is kept. */
  record HubCall(boolean stream, long expiresAt) {}

  /** Open calls served by spokes, by request id: which connection runs each. */
  final ConcurrentHashMap<String, HubConnection> servedBy = new ConcurrentHashMap<>();

  /** A call a spoke made: who, where its answers go, whether a stream, until when it is kept. */
  record CallerCall(HubConnection caller, String inbox, boolean stream, long expiresAt) {}

  /** What the rules decided about a publish; {@code denial} null when allowed. */
  record Verdict(ErrorCode code, boolean retryable, String denial, Peek peek) {
    static final Verdict ALLOW = new Verdict(null, false, null, null);

    static Verdict allow(Peek peek) {
      return new Verdict(null, false, null, peek);
    }

    static Verdict deny(String why) {
      return new Verdict(ErrorCode.ACCESS_DENIED, false, why, null);
    }
  }

  HubRules(WebSocketHub hub, SpokePermissions permissions, boolean strictReplies) {
    this.hub = hub;
    this.permissions = permissions;
    this.strictReplies = strictReplies;
    this.claims = new ServingClaims(permissions);
  }

  // ------------------------------------------------------------------ subscribe

  /** Why {@code connection} may not subscribe to {@code topic}; null when it may. */
  String subscribeDenial(HubConnection connection, String topic, String group) {
    if (ProtocolTopics.isInbox(topic)) {
      if (group != null) {
        return "an inbox has one subscriber: no queue group";
      }
      if (!claim(inboxOwners, topic, connection)) {
        return "the inbox " + topic + " is held by another connection";
      }
      connection.inboxes.add(topic);
      return null;
    }
    if (topic.startsWith(ProtocolTopics.REQUEST_PREFIX)) {
      return claims.serve(connection, topic.substring(ProtocolTopics.REQUEST_PREFIX.length()));
    }
    if (topic.startsWith(ProtocolTopics.NODE_PREFIX)) {
      String rest = topic.substring(ProtocolTopics.NODE_PREFIX.length());
      int dot = rest.indexOf('.');
      if (dot <= 0) {
        return "not a topic of the protocol";
      }
      String nodeId = rest.substring(0, dot);
      String tail = rest.substring(dot + 1);
      boolean request = tail.startsWith("req.");
      if (!request && !tail.equals("specs")) {
        return "not a topic of the protocol";
      }
      if (!claimNode(connection, nodeId)) {
        return "the node id " + nodeId + " is taken";
      }
      return request ? claims.serve(connection, tail.substring(4)) : null;
    }
    if (topic.equals(ProtocolTopics.CONTROL) || topic.equals(ProtocolTopics.NODES)) {
      // Control events are checked as they are published (a spoke aborts only calls it made or
      // calls nobody here made), so what a listener learns there gives it no power.
      return null;
    }
    if (topic.startsWith("ops.")) {
      return "not a topic of the protocol";
    }
    return permissions.mayUseTopic(connection.identity, topic)
        ? null
        : connection.identity.subject() + " may not use the topic " + topic;
  }

  private boolean claimNode(HubConnection connection, String nodeId) {
    if (nodeId.isEmpty() || nodeId.length() > 64) {
      return false;
    }
    if (!connection.nodes.contains(nodeId) && connection.nodes.size() >= MAX_NODE_IDS) {
      return false;
    }
    if (!claim(nodeOwners, nodeId, connection)) {
      return false;
    }
    connection.nodes.add(nodeId);
    return true;
  }

  /**
   * Takes {@code key} for {@code connection}: free, already its own, or reserved for its identity
   * after an earlier connection of it closed (a reconnect), or reserved past its time. Never from a
   * live connection or the hub's own code.
   */
  private static boolean claim(
      ConcurrentHashMap<String, Holder> owners, String key, HubConnection connection) {
    long now = System.nanoTime();
    Holder held =
        owners.compute(
            key,
            (k, h) -> {
              if (h == null) {
                return new Holder(connection, connection.identity, 0);
              }
              if (h == HUB || h.connection() != null) {
                return h; // the hub's, or a live connection's (this one's included)
              }
              return h.identity().equals(connection.identity) || h.reservedUntil() - now < 0
                  ? new Holder(connection, connection.identity, 0)
                  : h;
            });
    return held.connection() == connection;
  }

  /** Gives {@code key} up if {@code connection} holds it (an unsubscribe). */
  private static void release(
      ConcurrentHashMap<String, Holder> owners, String key, HubConnection connection) {
    owners.computeIfPresent(key, (k, h) -> h.connection() == connection ? null : h);
  }

  /** Keeps {@code key} for the identity of {@code connection}, which closed, for a reconnect. */
  private static void reserve(
      ConcurrentHashMap<String, Holder> owners, String key, HubConnection connection, long now) {
    owners.computeIfPresent(
        key,
        (k, h) ->
            h.connection() == connection
                ? new Holder(null, connection.identity, now + RECLAIM_NANOS)
                : h);
  }

  /**
   * The hub's own code subscribes to {@code topic}: an inbox or node id in it becomes the hub's, so
   * no spoke can listen to the hub's answers or speak for its node.
   *
   * @throws CallError ACCESS_DENIED when a spoke holds it (or holds it for a reconnect)
   */
  void claimForHub(String topic) {
    String key = ownedKey(topic);
    if (key == null) {
      return;
    }
    var owners = ProtocolTopics.isInbox(topic) ? inboxOwners : nodeOwners;
    long now = System.nanoTime();
    Holder held =
        owners.compute(
            key,
            (k, h) ->
                h == null || (h != HUB && h.connection() == null && h.reservedUntil() - now < 0)
                    ? HUB
                    : h);
    if (held != HUB) {
      throw CallError.of(ErrorCode.ACCESS_DENIED, key + " is held by a spoke");
    }
  }

  /** The hub's own code no longer listens on {@code key} (an inbox or a node id). */
  void releaseForHub(String topic) {
    String key = ownedKey(topic);
    if (key != null) {
      (ProtocolTopics.isInbox(topic) ? inboxOwners : nodeOwners).remove(key, HUB);
    }
  }

  /** The inbox or node id a topic belongs to, or null. */
  static String ownedKey(String topic) {
    if (ProtocolTopics.isInbox(topic)) {
      return topic;
    }
    if (topic.startsWith(ProtocolTopics.NODE_PREFIX)) {
      String rest = topic.substring(ProtocolTopics.NODE_PREFIX.length());
      int dot = rest.indexOf('.');
      return dot > 0 ? rest.substring(0, dot) : null;
    }
    return null;
  }

  /**
   * After an unsubscribe: an inbox, node id or served operation no longer listened on is given up.
   */
  void released(HubConnection connection, String topic) {
    if (HubConnection.isRequestTopic(topic)) {
      String operationId = operationOf(topic);
      if (!connection.subscribes(
          t -> HubConnection.isRequestTopic(t) && operationOf(t).equals(operationId))) {
        claims.stopped(connection, operationId);
      }
    }
    if (ProtocolTopics.isInbox(topic) && !connection.subscribes(topic::equals)) {
      connection.inboxes.remove(topic);
      release(inboxOwners, topic, connection);
    } else if (topic.startsWith(ProtocolTopics.NODE_PREFIX)) {
      String rest = topic.substring(ProtocolTopics.NODE_PREFIX.length());
      int dot = rest.indexOf('.');
      if (dot > 0) {
        String prefix = ProtocolTopics.NODE_PREFIX + rest.substring(0, dot + 1);
        if (!connection.subscribes(t -> t.startsWith(prefix))) {
          connection.nodes.remove(rest.substring(0, dot));
          release(nodeOwners, rest.substring(0, dot), connection);
        }
      }
    }
  }

  // ------------------------------------------------------------------ publish

  Verdict publishVerdict(HubConnection connection, Broker.Delivery delivery) {
    String topic = delivery.topic;
    if (ProtocolTopics.isInbox(topic)) {
      return replyVerdict(connection, delivery);
    }
    if (HubConnection.isRequestTopic(topic)) {
      return requestVerdict(connection, delivery, operationOf(topic));
    }
    if (topic.startsWith(ProtocolTopics.NODE_PREFIX) && topic.endsWith(".specs")) {
      Peek peek = delivery.peek();
      return ownInboxOrUnreadable(connection, peek.replyTo)
          ? Verdict.allow(peek)
          : Verdict.deny("a reply address must be an inbox this connection subscribed to");
    }
    if (topic.equals(ProtocolTopics.CONTROL)) {
      return controlVerdict(connection, delivery.peek());
    }
    if (topic.equals(ProtocolTopics.NODES)) {
      Peek peek = delivery.peek();
      if ("node.query".equals(peek.type) && !ownInboxOrUnreadable(connection, peek.replyTo)) {
        return Verdict.deny("a reply address must be an inbox this connection subscribed to");
      }
      if (peek.nodeId != null && !claimNode(connection, peek.nodeId)) {
        return Verdict.deny("the node id " + peek.nodeId + " is another connection's");
      }
      return announcementVerdict(connection, peek);
    }
    if (topic.startsWith("ops.")) {
      return Verdict.deny("not a topic a spoke may publish to");
    }
    return permissions.mayUseTopic(connection.identity, topic)
        ? Verdict.ALLOW
        : Verdict.deny(connection.identity.subject() + " may not use the topic " + topic);
  }

  /** A node's announcement names only operations its connection may serve. */
  private Verdict announcementVerdict(HubConnection connection, Peek peek) {
    if (peek.specIds.isEmpty()
        || !("node.hello".equals(peek.type) || "node.specs".equals(peek.type))) {
      return Verdict.allow(peek);
    }
    String denial = claims.announce(connection, peek.specIds);
    return denial == null ? Verdict.allow(peek) : Verdict.deny(denial);
  }

  /** The operation id of a request topic (shared or a node's own). */
  static String operationOf(String requestTopic) {
    if (requestTopic.startsWith(ProtocolTopics.REQUEST_PREFIX)) {
      return requestTopic.substring(ProtocolTopics.REQUEST_PREFIX.length());
    }
    return requestTopic.substring(requestTopic.indexOf(".req.") + 5);
  }

  private Verdict replyVerdict(HubConnection connection, Broker.Delivery delivery) {
    if (connection.inboxes.contains(delivery.topic)) {
      return Verdict.ALLOW;
    }
    Peek peek = delivery.peek();
    if (peek.readable && peek.requestId != null) {
      HubConnection.Served served = connection.served.get(peek.requestId);
      if (served != null && served.replyTo().equals(delivery.topic)) {
        return Verdict.allow(peek);
      }
    }
    if (peek.readable
        && ("node.hello".equals(peek.type) || "node.specs".equals(peek.type))
        && connection.mayReplyAsNode(delivery.topic, System.nanoTime())) {
      return announcementVerdict(connection, peek);
    }
    if (!strictReplies) {
      return Verdict.allow(peek);
    }
    return Verdict.deny(
        "a spoke replies only to the inbox of a request the hub delivered to it, while it runs");
  }

  private Verdict requestVerdict(
      HubConnection connection, Broker.Delivery delivery, String operationId) {
    if (!permissions.mayCall(connection.identity, operationId)) {
      return Verdict.deny(connection.identity.subject() + " may not call " + operationId);
    }
    Peek peek = delivery.peek();
    if (!ownInboxOrUnreadable(connection, peek.replyTo)) {
      return Verdict.deny("a request's replyTo must be an inbox this connection subscribed to");
    }
    if ("call.requested".equals(peek.type)
        && peek.requestId != null
        && CallEvents.isValidRequestId(peek.requestId)
        && peek.replyTo != null
        && ProtocolTopics.isInbox(peek.replyTo)) {
      if (connection.openCalls() >= hub.options.maxPendingCalls) {
        return new Verdict(
            ErrorCode.RESOURCE_EXHAUSTED,
            true,
            "at most " + hub.options.maxPendingCalls + " calls in flight per connection",
            null);
      }
      // Bytes too (D94): what one connection's calls hold wherever they run (the hub's own
      // pipeline keeps each request until its handler ends), whatever their count. One call is
      // always allowed, however large (up to maxMessageBytes).
      if (connection.openCalls() > 0
          && connection.openCallBytes() + delivery.payload.length
              > hub.options.maxPendingCallBytes) {
        return new Verdict(
            ErrorCode.RESOURCE_EXHAUSTED,
            true,
            "at most "
                + hub.options.maxPendingCallBytes
                + " bytes of requests in flight per connection",
            null);
      }
      // Clamped: a huge deadlineMs would overflow nanoTime arithmetic and be forgotten at once,
      // releasing its slot and its ownership check.
      long expires =
          peek.deadlineMs >= 0
              ? System.nanoTime()
                  + TimeUnit.MILLISECONDS.toNanos(Math.min(peek.deadlineMs, MAX_DEADLINE_MS))
                  + DEADLINE_GRACE_NANOS
              : NEVER;
      CallerCall call = new CallerCall(connection, peek.replyTo, peek.hasDemand, expires);
      CallerCall previous = callers.putIfAbsent(peek.requestId, call);
      if (previous != null && previous.caller() != connection) {
        return new Verdict(
            ErrorCode.INVALID_INPUT, false, "the request id is in use by another caller", null);
      }
      // Tracked before it is relayed: its answer may come back before the publish returns.
      connection.callOpened(peek.requestId, delivery.payload.length);
    }
    return Verdict.allow(peek);
  }

  private Verdict controlVerdict(HubConnection connection, Peek peek) {
    if (!peek.readable) {
      return Verdict.allow(peek); // the servers count it as malformed
    }
    if (("call.aborted".equals(peek.type) || "call.demand".equals(peek.type))
        && peek.requestId != null) {
      // Bound to the connection that made the call (D66). An id nobody here holds is relayed:
      // an abort may overtake its own request, and servers remember it.
      if (hubCalls.containsKey(peek.requestId)) {
        return Verdict.deny("the call " + peek.requestId + " is the hub's");
      }
      CallerCall call = callers.get(peek.requestId);
      if (call != null && call.caller() != connection) {
        return Verdict.deny("the call " + peek.requestId + " is another caller's");
      }
    } else if ("call.alive".equals(peek.type)
        && peek.inbox != null
        && !connection.inboxes.contains(peek.inbox)) {
      return Verdict.deny("call.alive names an inbox this connection does not hold");
    }
    return Verdict.allow(peek);
  }

  private static boolean ownInboxOrUnreadable(HubConnection connection, String replyTo) {
    // A reply address that is not an inbox is never answered (serving sides reply to inboxes
    // only), so only an inbox must be the sender's own.
    return replyTo == null
        || !ProtocolTopics.isInbox(replyTo)
        || connection.inboxes.contains(replyTo);
  }

  /** After a spoke's publish was relayed to {@code receivers}. */
  void published(
      HubConnection connection, Broker.Delivery delivery, Verdict verdict, int receivers) {
    Peek peek = verdict.peek();
    if (peek == null || !peek.readable || peek.requestId == null) {
      return;
    }
    if (HubConnection.isRequestTopic(delivery.topic)) {
      if (receivers == 0) {
        forgetCall(peek.requestId, connection);
      }
    } else if (ProtocolTopics.isInbox(delivery.topic)) {
      HubConnection.Served served = connection.served.get(peek.requestId);
      if (served != null && HubConnection.isTerminal(peek, served.stream())) {
        connection.served.remove(peek.requestId);
        servedBy.remove(peek.requestId, connection);
      }
    }
  }

  /** The hub's own code published {@code delivery}: its requests are its own calls (D66). */
  void hubPublished(Broker.Delivery delivery) {
    if (!HubConnection.isRequestTopic(delivery.topic)) {
      return;
    }
    Peek peek = delivery.peek();
    if ("call.requested".equals(peek.type)
        && peek.requestId != null
        && CallEvents.isValidRequestId(peek.requestId)) {
      long expires =
          peek.deadlineMs >= 0
              ? System.nanoTime()
                  + TimeUnit.MILLISECONDS.toNanos(Math.min(peek.deadlineMs, MAX_DEADLINE_MS))
                  + DEADLINE_GRACE_NANOS
              : NEVER;
      hubCalls.put(peek.requestId, new HubCall(peek.hasDemand, expires));
    }
  }

  /** An answer reached an inbox of the hub's own code: a call that ended is forgotten. */
  void hubAnswered(Broker.Delivery delivery) {
    if (hubCalls.isEmpty()) {
      return;
    }
    Peek peek = delivery.peek();
    if (peek.readable && peek.requestId != null) {
      HubCall call = hubCalls.get(peek.requestId);
      if (call != null && HubConnection.isTerminal(peek, call.stream())) {
        hubCalls.remove(peek.requestId, call);
      }
    }
  }

  /** Control events from anywhere (a spoke or the hub's own code): an abort ends its call. */
  void controlRelayed(Broker.Delivery delivery) {
    Peek peek = delivery.peek();
    if (peek.readable && "call.aborted".equals(peek.type) && peek.requestId != null) {
      hubCalls.remove(peek.requestId);
      CallerCall call = callers.get(peek.requestId);
      if (call != null) {
        forgetCall(peek.requestId, call.caller());
      }
      HubConnection server = servedBy.remove(peek.requestId);
      if (server != null) {
        server.served.remove(peek.requestId);
      }
    }
  }

  private void forgetCall(String requestId, HubConnection caller) {
    CallerCall call = callers.get(requestId);
    if (call != null && call.caller() == caller) {
      callers.remove(requestId, call);
    }
    caller.callEnded(requestId);
  }

  private static boolean expired(Holder holder, long now) {
    return holder != HUB && holder.connection() == null && holder.reservedUntil() - now < 0;
  }

  // ------------------------------------------------------------------ deliver

  /** Before a message goes to {@code connection}; false refuses it (the spoke is at its limit). */
  boolean delivering(HubConnection connection, Broker.Delivery delivery) {
    String topic = delivery.topic;
    if (HubConnection.isRequestTopic(topic)) {
      Peek peek = delivery.peek();
      if ("call.requested".equals(peek.type)
          && peek.requestId != null
          && CallEvents.isValidRequestId(peek.requestId)
          && peek.replyTo != null
          && ProtocolTopics.isInbox(peek.replyTo)) {
        if (connection.served.size() >= hub.options.maxPendingCalls) {
          return false;
        }
        connection.served.put(
            peek.requestId, new HubConnection.Served(peek.replyTo, peek.hasDemand));
        servedBy.put(peek.requestId, connection);
      }
    } else if (ProtocolTopics.isInbox(topic)) {
      Peek peek = delivery.peek();
      if (peek.readable && peek.requestId != null) {
        CallerCall call = callers.get(peek.requestId);
        if (call != null
            && call.caller() == connection
            && HubConnection.isTerminal(peek, call.stream())) {
          forgetCall(peek.requestId, connection);
        }
      }
    } else if (topic.equals(ProtocolTopics.NODES)
        || (topic.startsWith(ProtocolTopics.NODE_PREFIX) && topic.endsWith(".specs"))) {
      Peek peek = delivery.peek();
      if (peek.replyTo != null && ProtocolTopics.isInbox(peek.replyTo)) {
        connection.grantNodeReplies(peek.replyTo, System.nanoTime() + NODE_REPLY_GRANT_NANOS);
      }
    }
    return true;
  }

  // ------------------------------------------------------------------ connections

  /** A connection is gone: its claims are released, its callers and servers are told. */
  void closed(HubConnection connection) {
    long now = System.nanoTime();
    claims.closed(connection);
    connection.inboxes.forEach(inbox -> reserve(inboxOwners, inbox, connection, now));
    connection.nodes.forEach(node -> reserve(nodeOwners, node, connection, now));
    CallError gone =
        CallError.of(
            ErrorCode.UNAVAILABLE,
            "The spoke serving the call disconnected from the hub; the outcome is unknown");
    for (var entry : connection.served.entrySet()) {
      String requestId = entry.getKey();
      servedBy.remove(requestId, connection);
      hub.publishAsHub(
          entry.getValue().replyTo(), CallEvents.encode(CallEvents.failed(requestId, gone)));
    }
    connection.served.clear();
    for (String requestId : connection.openCallIds()) {
      CallerCall call = callers.get(requestId);
      if (call != null && call.caller() == connection) {
        callers.remove(requestId, call);
        hub.publishAsHub(
            ProtocolTopics.CONTROL,
            CallEvents.encode(
                new CallEvent.Aborted(requestId, Optional.of("the caller disconnected"))));
      }
    }
    connection.openCallIds().forEach(connection::callEnded);
  }

  /** Forgets calls long past their deadlines whose answers were lost. */
  void sweep(long now) {
    inboxOwners.values().removeIf(h -> expired(h, now));
    hubCalls.values().removeIf(c -> c.expiresAt() != NEVER && c.expiresAt() - now < 0);
    nodeOwners.values().removeIf(h -> expired(h, now));
    claims.sweep(now);
    callers
        .entrySet()
        .removeIf(
            entry -> {
              CallerCall call = entry.getValue();
              if (call.expiresAt() != NEVER && call.expiresAt() - now < 0) {
                call.caller().callEnded(entry.getKey());
                return true;
              }
              return false;
            });
  }
}
