package dev.alkdev.operations.transport.websocket;

import dev.alkdev.operations.Identity;
import java.util.Objects;

/**
 * What a spoke's identity may do through the hub, decided per operation. The hub applies it with
 * rules of its own that no policy relaxes (docs/websocket.md, "Permissions"): a spoke subscribes
 * only to its own inbox (the first connection to claim an inbox holds it), replies only to the
 * inbox of a request the hub delivered to it, and names only its own inbox as a request's {@code
 * replyTo}.
 *
 * <p>The hub's default is {@link #denyAll()}: a spoke can then neither call nor serve anything.
 */
public interface SpokePermissions {
  /** Whether {@code identity} may send requests for {@code operationId}. */
  boolean mayCall(Identity identity, String operationId);

  /**
   * Whether {@code identity} may serve {@code operationId}: subscribe to its request topics and
   * announce it. The hub adds two rules no policy relaxes: an operation the hub serves itself is
   * never served by a spoke, and the first identity to serve an operation holds it (see {@link
   * #mayServeAlongside}).
   */
  boolean mayServe(Identity identity, String operationId);

  /**
   * Whether {@code identity} may serve {@code operationId} while the identity whose subject is
   * {@code holder} serves it already (the first to serve an operation holds it, and keeps it for a
   * minute after its last connection closes). No by default: a second server under another name is
   * how a rogue process would take calls, so sharing an operation between identities is a decision
   * a deployment states here.
   */
  default boolean mayServeAlongside(Identity identity, String operationId, String holder) {
    return false;
  }

  /**
   * Whether {@code identity} may publish to and subscribe to {@code topic}, a topic outside the
   * call protocol's {@code ops.} names (plain pub/sub between spokes). Denied by default.
   */
  default boolean mayUseTopic(Identity identity, String topic) {
    return false;
  }

  /** Nothing: the default. */
  static SpokePermissions denyAll() {
    return new SpokePermissions() {
      @Override
      public boolean mayCall(Identity identity, String operationId) {
        return false;
      }

      @Override
      public boolean mayServe(Identity identity, String operationId) {
        return false;
      }
    };
  }

  /**
   * Everything, to every connection, including plain topics: only for a hub whose every spoke is
   * trusted code (tests, a loopback development setup). The hub's own rules still apply.
   */
  static SpokePermissions allowAll() {
    return new SpokePermissions() {
      @Override
      public boolean mayCall(Identity identity, String operationId) {
        return true;
      }

      @Override
      public boolean mayServe(Identity identity, String operationId) {
        return true;
      }

      @Override
      public boolean mayServeAlongside(Identity identity, String operationId, String holder) {
        return true;
      }

      @Override
      public boolean mayUseTopic(Identity identity, String topic) {
        return true;
      }
    };
  }

  /**
   * Decided by the identity's scopes: {@code ops:call:<operationId>}, {@code
   * ops:call:<namespace>.*} or {@code ops:call:*} to call; {@code ops:serve:...} alike to serve.
   * Plain topics are denied. An operation's own required scopes are still checked by whoever serves
   * it.
   */
  static SpokePermissions byScopes() {
    return new SpokePermissions() {
      @Override
      public boolean mayCall(Identity identity, String operationId) {
        return holds(identity, "ops:call:", operationId);
      }

      @Override
      public boolean mayServe(Identity identity, String operationId) {
        return holds(identity, "ops:serve:", operationId);
      }
    };
  }

  private static boolean holds(Identity identity, String prefix, String operationId) {
    Objects.requireNonNull(identity, "identity");
    if (identity.hasScope(prefix + "*") || identity.hasScope(prefix + operationId)) {
      return true;
    }
    int dot = operationId.indexOf('.');
    return dot > 0 && identity.hasScope(prefix + operationId.substring(0, dot) + ".*");
  }
}
