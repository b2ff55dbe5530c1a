package dev.alkdev.operations.pubsub;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

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
