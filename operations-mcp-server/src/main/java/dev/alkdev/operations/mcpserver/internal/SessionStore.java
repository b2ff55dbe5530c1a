package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.Identity;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The HTTP endpoint's sessions: random ids (128 bits from {@link SecureRandom}), bound to the
 * identity that opened them, and held so that no client can lock another out (D93):
 *
 * <ul>
 *   <li>a session never used after {@code initialize} (no request but initialize, no GET stream)
 *       expires after {@code unusedTimeout}; a used one after {@code idleTimeout} without a
 *       request. A session with a running call or an open GET stream is in use and never expires
 *       nor is evicted;
 *   <li>one client (its identity's subject, or its remote address when anonymous) holds at most
 *       {@code maxPerClient} sessions: its next {@code initialize} evicts its own idlest session,
 *       never-used ones first, and is refused (429) only when all of them are in use;
 *   <li>at {@code maxSessions} the idlest session of the whole table is evicted for a newcomer,
 *       never-used ones first; a newcomer is refused (503) only when every session is in use.
 * </ul>
 *
 * An evicted or expired session's id is unknown from then on (404), so its client initializes
 * again. Eviction scans the client's sessions (at most {@code maxPerClient}) or, with the table
 * full, the table: one pass per initialize that finds it full.
 */
final class SessionStore {
  /** Why {@link #create} made no session. */
  enum Refusal {
    CLIENT_FULL,
    TABLE_FULL
  }

  /** A new session, or why there is none. */
  record Created(Optional<Session> session, Optional<Refusal> refusal) {}

  private final ConcurrentHashMap<String, Session> sessions = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Integer> perClient = new ConcurrentHashMap<>();
  private final SecureRandom random = new SecureRandom();
  private final int maxSessions;
  private final int maxPerClient;
  private final long idleNanos;
  private final long unusedNanos;
  private final LongAdder expired = new LongAdder();
  private final LongAdder evicted = new LongAdder();
  private final LongAdder refused = new LongAdder();

  SessionStore(int maxSessions, int maxPerClient, Duration idleTimeout, Duration unusedTimeout) {
    this.maxSessions = maxSessions;
    this.maxPerClient = maxPerClient;
    this.idleNanos = idleTimeout.toNanos();
    this.unusedNanos = unusedTimeout.toNanos();
  }

  /** A new session for {@code identity} from {@code client}, evicting as the rules say. */
  synchronized Created create(Identity identity, String client) {
    if (perClient.getOrDefault(client, 0) >= maxPerClient && !evictIdlest(client)) {
      refused.increment();
      return new Created(Optional.empty(), Optional.of(Refusal.CLIENT_FULL));
    }
    if (sessions.size() >= maxSessions) {
      sweep();
      if (sessions.size() >= maxSessions && !evictIdlest(null)) {
        refused.increment();
        return new Created(Optional.empty(), Optional.of(Refusal.TABLE_FULL));
      }
    }
    byte[] bytes = new byte[16];
    random.nextBytes(bytes);
    String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    Session session = new Session(id, identity, client);
    sessions.put(id, session);
    perClient.merge(client, 1, Integer::sum);
    return new Created(Optional.of(session), Optional.empty());
  }

  /**
   * The session {@code id} if it exists and belongs to exactly {@code identity}: the same subject
   * with the same scopes. A request authenticated with other scopes (a downscoped token, say) does
   * not find it and must initialize a session of its own, so no call runs with the scopes the
   * session was opened with rather than the ones presented now.
   */
  Optional<Session> get(String id, Identity identity) {
    Session session = sessions.get(id);
    if (session == null || !Objects.equals(session.identity, identity)) {
      return Optional.empty();
    }
    session.touch();
    return Optional.of(session);
  }

  boolean remove(Session session, String why) {
    boolean removed = sessions.remove(session.id, session);
    if (removed) {
      perClient.computeIfPresent(session.client, (c, n) -> n > 1 ? n - 1 : null);
      session.close(why);
    }
    return removed;
  }

  /** Closes the sessions past their expiry (unused or idle); returns how many. */
  int sweep() {
    long now = System.nanoTime();
    int swept = 0;
    for (Session session : sessions.values()) {
      if (inUse(session)) {
        continue;
      }
      long idle = now - session.lastUsedNanos;
      boolean past = idle > (session.isUsed() ? idleNanos : Math.min(idleNanos, unusedNanos));
      if (past && remove(session, "The session expired")) {
        expired.increment();
        swept++;
      }
    }
    return swept;
  }

  /**
   * Evicts the idlest session not in use, of {@code client} or (null) of anyone: never-used ones
   * before used ones, then the least recently used.
   */
  private boolean evictIdlest(String client) {
    Session idlest = null;
    for (Session session : sessions.values()) {
      if ((client != null && !client.equals(session.client)) || inUse(session)) {
        continue;
      }
      if (idlest == null || idler(session, idlest)) {
        idlest = session;
      }
    }
    if (idlest != null && remove(idlest, "The session was evicted for a newer one")) {
      evicted.increment();
      return true;
    }
    return false;
  }

  private static boolean idler(Session a, Session b) {
    if (a.isUsed() != b.isUsed()) {
      return !a.isUsed();
    }
    return a.lastUsedNanos < b.lastUsedNanos;
  }

  private static boolean inUse(Session session) {
    return !session.calls.isEmpty() || session.hasChannel();
  }

  int size() {
    return sessions.size();
  }

  long expired() {
    return expired.sum();
  }

  long evicted() {
    return evicted.sum();
  }

  long refused() {
    return refused.sum();
  }

  Iterable<Session> all() {
    return sessions.values();
  }

  void closeAll(String why) {
    for (Session session : sessions.values()) {
      remove(session, why);
    }
  }
}
