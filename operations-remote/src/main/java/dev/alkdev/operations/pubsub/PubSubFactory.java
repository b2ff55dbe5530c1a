package dev.alkdev.operations.pubsub;

import dev.alkdev.operations.protocol.ProtocolTopics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.function.BinaryOperator;
import java.util.function.Function;

/**
 * Connects to a remote transport of one kind ({@code nats}, {@code redis}, {@code ws}) from a URL,
 * so that a host such as {@code ops} can offer every transport on its path without compiling
 * against any. A host asks every factory in turn and uses the first that answers; a factory answers
 * {@code Optional.empty()} for a kind that is not its own ("not mine").
 *
 * <p>Provide one with {@link java.util.ServiceLoader}: {@code provides
 * dev.alkdev.operations.pubsub.PubSubFactory with ...} in the module descriptor and the class name
 * in {@code META-INF/services/dev.alkdev.operations.pubsub.PubSubFactory}. The class needs a public
 * no-argument constructor; it may live in a package the module does not export.
 */
public interface PubSubFactory {

  /**
   * A connected pub/sub for {@code target}, or empty when its kind is not this factory's. Blocks up
   * to the target's connect timeout.
   *
   * @throws IllegalArgumentException when the kind is this factory's but the URL or a setting is
   *     wrong: the message names it and says what was expected
   * @throws dev.alkdev.operations.CallError UNAVAILABLE when the server cannot be reached in time
   */
  Optional<PubSub> connect(Target target);

  /**
   * Every factory {@link java.util.ServiceLoader} finds through {@code loader}: on the module path
   * the transport modules' {@code provides}, on the class path their {@code META-INF/services}. A
   * factory that fails to load is skipped, so one broken jar does not take the other kinds down;
   * its kind is then simply not found.
   */
  static List<PubSubFactory> installed(ClassLoader loader) {
    List<PubSubFactory> factories = new ArrayList<>();
    ServiceLoader.load(PubSubFactory.class, loader).stream()
        .forEach(
            provider -> {
              try {
                factories.add(provider.get());
              } catch (ServiceConfigurationError e) {
                // Skipped: see above.
              }
            });
    return factories;
  }

  /**
   * The connection of the first of {@code factories} whose kind {@code target} is, or empty when
   * none is (the host says which module brings the kind).
   *
   * @throws IllegalArgumentException as {@link #connect}, when the URL or a setting is wrong
   * @throws dev.alkdev.operations.CallError UNAVAILABLE when the server cannot be reached in time
   */
  static Optional<PubSub> connectFirst(List<PubSubFactory> factories, Target target) {
    for (PubSubFactory factory : factories) {
      Optional<PubSub> pubsub = factory.connect(target);
      if (pubsub.isPresent()) {
        return pubsub;
      }
    }
    return Optional.empty();
  }

  /**
   * The broker's own configuration of one user with {@code grant}'s rights, for a transport whose
   * broker enforces permissions (docs/security.md): a nats-server user entry, a Redis ACL line.
   * Empty when the kind is not this factory's, or its transport has no broker to configure (the
   * WebSocket hub decides by itself). None by default.
   *
   * @throws IllegalArgumentException when the kind is this factory's but an operation pattern, the
   *     node id, the user or the password cannot be written: the message says which
   */
  default Optional<String> brokerUser(BrokerGrant grant) {
    return Optional.empty();
  }

  /**
   * Rights on a broker: {@code roles} (combined in the order CALLER, SERVER, OBSERVER) over {@code
   * operations} (ids, {@code namespace.*} or {@code *}), a server's {@code nodeId} when it is
   * fixed, and the user's {@code privateToken} when its connections are given one (its inboxes are
   * then its own to read: {@link PubSub#inboxPrefix()}), for {@code user} with {@code password}.
   */
  record BrokerGrant(
      String kind,
      Set<Role> roles,
      List<String> operations,
      Optional<String> nodeId,
      Optional<String> privateToken,
      String user,
      String password) {
    public BrokerGrant {
      Objects.requireNonNull(kind, "kind");
      if (roles.isEmpty()) {
        throw new IllegalArgumentException("Name a role: CALLER, SERVER or OBSERVER");
      }
      // In the enum's order, whatever order they were given in: the configuration is the same.
      roles = java.util.Collections.unmodifiableSet(java.util.EnumSet.copyOf(roles));
      operations = List.copyOf(operations);
      Objects.requireNonNull(nodeId, "nodeId");
      Objects.requireNonNull(privateToken, "privateToken");
      Objects.requireNonNull(user, "user");
      Objects.requireNonNull(password, "password");
    }

    /**
     * The permissions of every role granted, each made by {@code ofRole} and joined with {@code
     * and}, in the order CALLER, SERVER, OBSERVER: how a factory writes one user with several
     * roles.
     */
    public <P> P combine(Function<Role, P> ofRole, BinaryOperator<P> and) {
      P all = null;
      for (Role role : roles) {
        P one = ofRole.apply(role);
        all = all == null ? one : and.apply(all, one);
      }
      return all;
    }

    /** What a user does in the call protocol. */
    public enum Role {
      /** Calls the operations. */
      CALLER,
      /** Serves the operations (and announces itself); calls nothing unless also a caller. */
      SERVER,
      /** Lists nodes and asks for their statistics; neither calls nor serves. */
      OBSERVER
    }

    @Override
    public String toString() {
      return kind + " grant " + roles + " " + operations + " for " + user; // never the password
    }
  }

  /**
   * Where to connect: the transport's kind, its URL (credentials may be in it, as the transport's
   * URL syntax allows), how long the first connection may take, and the environment a factory reads
   * secrets from (a credentials file or token named by a variable, never written on a command
   * line).
   */
  record Target(String kind, String url, Duration connectTimeout, Map<String, String> environment) {
    public Target {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(connectTimeout, "connectTimeout");
      environment = Map.copyOf(Objects.requireNonNull(environment, "environment"));
      if (connectTimeout.isNegative() || connectTimeout.isZero()) {
        throw new IllegalArgumentException(
            "connectTimeout must be positive, was " + connectTimeout);
      }
    }

    /** A target with no environment. */
    public static Target of(String kind, String url, Duration connectTimeout) {
      return new Target(kind, url, connectTimeout, Map.of());
    }

    /** The environment variable holding a connection's private token, read by every factory. */
    public static final String PRIVATE_TOKEN_VARIABLE = "OPS_PRIVATE_TOKEN";

    /**
     * The private token {@link #PRIVATE_TOKEN_VARIABLE} gives ({@link PubSub#inboxPrefix()}), if
     * set and not blank.
     *
     * @throws IllegalArgumentException naming the variable when it is no token ({@link
     *     ProtocolTopics#privateInboxPrefix})
     */
    public Optional<String> privateToken() {
      Optional<String> token = variable(PRIVATE_TOKEN_VARIABLE).map(String::trim);
      try {
        token.ifPresent(ProtocolTopics::privateInboxPrefix);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(PRIVATE_TOKEN_VARIABLE + ": " + e.getMessage(), e);
      }
      return token;
    }

    /** The environment variable {@code name}, if set and not blank. */
    public Optional<String> variable(String name) {
      String value = environment.get(name);
      return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
    }

    @Override
    public String toString() {
      // The URL may carry a password or a token.
      return kind + " target " + redacted(url);
    }

    /** {@code url} with anything between "//" and "@" replaced, for messages and logs. */
    public static String redacted(String url) {
      int scheme = url.indexOf("://");
      int at = url.lastIndexOf('@');
      if (scheme < 0 || at < scheme) {
        return url;
      }
      return url.substring(0, scheme + 3) + "***" + url.substring(at);
    }
  }
}
