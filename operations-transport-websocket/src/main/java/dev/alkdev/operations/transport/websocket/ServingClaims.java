package dev.alkdev.operations.transport.websocket;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.internal.RateLimitedLog;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who serves which operation through the hub (docs/security.md, "Serving"; D102). Three rules, on
 * top of {@link SpokePermissions#mayServe}, for every subscription to a request topic and every
 * announcement:
 *
 * <ul>
 *   <li>an id the hub's own code serves is never served by a spoke, and requests for it are never
 *       delivered to one, even a spoke that subscribed before the hub began to serve it;
 *   <li>the first identity to serve an id holds it: another identity may serve it only when {@link
 *       SpokePermissions#mayServeAlongside} says so. When the holder's last connection serving it
 *       closes, the id stays reserved for that identity for {@link HubRules#RECLAIM_NANOS}, so a
 *       restarting server gets it back and nobody else slips in;
 *   <li>every refusal is counted and logged (rate limited) with who tried.
 * </ul>
 */
final class ServingClaims {
  private static final Logger LOG = LoggerFactory.getLogger(ServingClaims.class);

  /** The identity that holds an id: its live connections serving it, or reserved until a time. */
  private record Claim(String subject, int connections, long reservedUntil) {}

  private final SpokePermissions permissions;
  private final ConcurrentHashMap<String, Integer> hubServed = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Claim> claims = new ConcurrentHashMap<>();
  private final AtomicLong refused = new AtomicLong();
  private final RateLimitedLog refusedLog = RateLimitedLog.of(LOG, 1, Duration.ofSeconds(10));

  ServingClaims(SpokePermissions permissions) {
    this.permissions = permissions;
  }

  // ------------------------------------------------------------------ the hub's own

  /**
   * Whether the hub's own code serves with a subscription: on an operation's shared request topic,
   * in the servers' queue group (as {@code CallHandler} does). A plain listener there only watches;
   * the hub's node topics are its own already (D66).
   */
  static boolean serves(String topic, SubscribeOptions options) {
    return topic.startsWith(ProtocolTopics.REQUEST_PREFIX)
        && options.queueGroup().filter(ProtocolTopics.SERVER_GROUP::equals).isPresent();
  }

  /** The hub's own code joined the servers of {@code operationId}. */
  void hubServes(String operationId) {
    hubServed.merge(operationId, 1, Integer::sum);
  }

  /** The hub's own code left the servers of {@code operationId}. */
  void hubStops(String operationId) {
    hubServed.computeIfPresent(operationId, (id, n) -> n > 1 ? n - 1 : null);
  }

  /**
   * Whether a message on {@code topic} may be delivered to a spoke: anything but a request for an
   * operation the hub serves itself.
   */
  boolean spokeMayReceive(String topic) {
    return hubServed.isEmpty()
        || !HubConnection.isRequestTopic(topic)
        || !hubServed.containsKey(HubRules.operationOf(topic));
  }

  // ------------------------------------------------------------------ spokes

  /**
   * Why {@code connection} may not begin to serve {@code operationId} (subscribe to one of its
   * request topics); null when it may, and then its claim is counted until {@link #stopped}.
   */
  String serve(HubConnection connection, String operationId) {
    String why = denial(connection.identity, operationId);
    if (why != null) {
      return refuse(connection, operationId, why);
    }
    if (connection.servedOperations.contains(operationId)) {
      return null; // another of its request topics (the shared one, or its node's)
    }
    String subject = connection.identity.subject();
    long now = System.nanoTime();
    Claim claim =
        claims.compute(
            operationId,
            (id, c) -> {
              if (c == null || (c.connections() == 0 && c.reservedUntil() - now < 0)) {
                return new Claim(subject, 1, 0);
              }
              if (c.subject().equals(subject)) {
                return new Claim(subject, c.connections() + 1, 0);
              }
              return c; // another identity's: it may only serve alongside
            });
    if (!claim.subject().equals(subject)
        && !permissions.mayServeAlongside(connection.identity, operationId, claim.subject())) {
      return refuse(
          connection, operationId, operationId + " is served by " + claim.subject() + " already");
    }
    connection.servedOperations.add(operationId);
    return null;
  }

  /**
   * Why {@code connection} may not announce that it serves {@code operationIds}; null when it may.
   * An announcement claims nothing: the subscriptions do.
   */
  String announce(HubConnection connection, Collection<String> operationIds) {
    long now = System.nanoTime();
    for (String operationId : operationIds) {
      String why = denial(connection.identity, operationId);
      if (why == null) {
        Claim claim = claims.get(operationId);
        if (claim != null
            && !claim.subject().equals(connection.identity.subject())
            && (claim.connections() > 0 || claim.reservedUntil() - now >= 0)
            && !permissions.mayServeAlongside(connection.identity, operationId, claim.subject())) {
          why = operationId + " is served by " + claim.subject() + " already";
        }
      }
      if (why != null) {
        return refuse(connection, operationId, "announces " + why);
      }
    }
    return null;
  }

  /** {@code connection} no longer listens on any request topic of {@code operationId}. */
  void stopped(HubConnection connection, String operationId) {
    if (connection.servedOperations.remove(operationId)) {
      release(connection.identity.subject(), operationId, System.nanoTime());
    }
  }

  /** {@code connection} closed: what it served stays its identity's for a while. */
  void closed(HubConnection connection) {
    long now = System.nanoTime();
    for (String operationId : connection.servedOperations) {
      release(connection.identity.subject(), operationId, now);
    }
    connection.servedOperations.clear();
  }

  /** Forgets reservations past their time. */
  void sweep(long now) {
    claims.values().removeIf(c -> c.connections() == 0 && c.reservedUntil() - now < 0);
  }

  /** Subscriptions and announcements refused by these rules since the hub started. */
  long refused() {
    return refused.get();
  }

  private String denial(Identity identity, String operationId) {
    if (hubServed.containsKey(operationId)) {
      return operationId + " is served by the hub itself";
    }
    if (!permissions.mayServe(identity, operationId)) {
      return identity.subject() + " may not serve " + operationId;
    }
    return null;
  }

  private void release(String subject, String operationId, long now) {
    claims.computeIfPresent(
        operationId,
        (id, c) -> {
          if (!c.subject().equals(subject) || c.connections() == 0) {
            return c; // served alongside, or reserved already
          }
          return c.connections() > 1
              ? new Claim(subject, c.connections() - 1, 0)
              : new Claim(subject, 0, now + HubRules.RECLAIM_NANOS);
        });
  }

  private String refuse(HubConnection connection, String operationId, String why) {
    refused.incrementAndGet();
    refusedLog.warn(
        "Refused to let {} (connection from {}) serve {}: {}",
        connection.identity.subject(),
        connection.remote,
        operationId,
        why);
    return why;
  }
}
