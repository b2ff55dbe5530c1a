package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.Identity;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The HTTP endpoint's sessions: random ids (128 bits from {@link SecureRandom}), bound to the
 * identity that opened them, at most {@code maxSessions}, expired after {@code idleTimeout} without
 * a request. A session with a running call or an open GET stream is in use and does not expire.
 * When full, expired sessions are swept first; then new sessions are refused (HTTP 503) rather than
 * evicting live ones, so a flood of abandoned sessions cannot log a working client out.
 */
final class SessionStore {
  private final ConcurrentHashMap<String, Session> sessions = new ConcurrentHashMap<>();
  private final SecureRandom random = new SecureRandom();
  private final int maxSessions;
  private final long idleNanos;

  SessionStore(int maxSessions, Duration idleTimeout) {
    this.maxSessions = maxSessions;
    this.idleNanos = idleTimeout.toNanos();
  }

  Optional<Session> create(Identity identity) {
    if (sessions.size() >= maxSessions) {
      sweep();
      if (sessions.size() >= maxSessions) {
        return Optional.empty();
      }
    }
    byte[] bytes = new byte[16];
    random.nextBytes(bytes);
    String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    Session session = new Session(id, identity);
    sessions.put(id, session);
    return Optional.of(session);
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
      session.close(why);
    }
    return removed;
  }

  /** Closes the sessions idle for longer than the timeout; returns how many. */
  int sweep() {
    long now = System.nanoTime();
    int swept = 0;
    for (Session session : sessions.values()) {
      boolean inUse = !session.calls.isEmpty() || session.hasChannel();
      if (!inUse && now - session.lastUsedNanos > idleNanos) {
        if (remove(session, "The session expired")) {
          swept++;
        }
      }
    }
    return swept;
  }

  int size() {
    return sessions.size();
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
