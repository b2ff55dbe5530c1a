package dev.alkdev.operations.transport.nats;

import static dev.alkdev.operations.transport.kit.Settings.positive;
import static dev.alkdev.operations.transport.kit.Settings.reconnects;

import dev.alkdev.operations.protocol.CallEvents;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.PubSubFactory;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;

/**
 * How {@link NatsPubSub} connects: the servers of a cluster, credentials, TLS, and how it behaves
 * when the connection drops. Immutable; built with {@link #builder(String...)}.
 *
 * <pre>{@code
 * NatsOptions options =
 *     NatsOptions.builder("tls://nats-1.example:4222", "tls://nats-2.example:4222")
 *         .credentialsFile(Path.of("/etc/ops/node.creds"))
 *         .connectionName("billing-node-1")
 *         .build();
 * }</pre>
 *
 * <p>Credentials are kept out of {@link #toString()}.
 */
public final class NatsOptions {
  /** How long the first connection attempt may take before {@code connect} gives up. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /** The pause between reconnection attempts (jnats adds up to 100 ms of jitter). */
  public static final Duration DEFAULT_RECONNECT_WAIT = Duration.ofSeconds(1);

  /**
   * How often the client pings the server. A silent network (no FIN, no RST) is noticed after two
   * unanswered pings, so this bounds how long a partition goes unnoticed: jnats' default of two
   * minutes would leave calls waiting for their deadlines.
   */
  public static final Duration DEFAULT_PING_INTERVAL = Duration.ofSeconds(5);

  private final List<String> servers;
  private final Optional<String> connectionName;
  private final Optional<Auth> auth;
  private final Optional<SSLContext> sslContext;
  private final int maxReconnects;
  private final Duration reconnectWait;
  private final Duration connectTimeout;
  private final Duration pingInterval;
  private final int maxMessageBytes;
  private final Optional<String> privateToken;

  private NatsOptions(Builder b) {
    this.servers = List.copyOf(b.servers);
    this.connectionName = b.connectionName;
    this.auth = b.auth;
    this.sslContext = b.sslContext;
    this.maxReconnects = b.maxReconnects;
    this.reconnectWait = b.reconnectWait;
    this.connectTimeout = b.connectTimeout;
    this.pingInterval = b.pingInterval;
    this.maxMessageBytes = b.maxMessageBytes;
    this.privateToken = b.privateToken;
  }

  /**
   * Options for the servers at {@code urls} ({@code nats://host:port}, {@code tls://host:port}; the
   * servers of one cluster, tried in random order, and reconnected to when one fails).
   */
  public static Builder builder(String... urls) {
    return new Builder(urls);
  }

  /** The server URLs, as given. */
  public List<String> servers() {
    return servers;
  }

  public Optional<String> connectionName() {
    return connectionName;
  }

  /** Reconnection attempts before the connection is given up (-1: forever). */
  public int maxReconnects() {
    return maxReconnects;
  }

  public Duration reconnectWait() {
    return reconnectWait;
  }

  public Duration connectTimeout() {
    return connectTimeout;
  }

  public Duration pingInterval() {
    return pingInterval;
  }

  /** The largest payload configured; the server's own limit may be smaller. */
  public int maxMessageBytes() {
    return maxMessageBytes;
  }

  /**
   * The connection's private token, when it has one ({@link Builder#privateToken}): its callers'
   * inboxes are then {@code ops.inbox.<token>.<id>} and its receiver probes {@code
   * _OPS.RCV.<token>.<nuid>.*}, which {@link NatsPermissions#privateTo} lets only the user with
   * that token read.
   */
  public Optional<String> privateToken() {
    return privateToken;
  }

  @Override
  public String toString() {
    return "NatsOptions[servers="
        + servers
        + ", connectionName="
        + connectionName.orElse("-")
        + ", auth="
        + auth.map(Auth::kind).orElse("none")
        + ", tls="
        + (sslContext.isPresent() ? "given SSLContext" : "per URL scheme")
        + ", maxReconnects="
        + maxReconnects
        + ", reconnectWait="
        + reconnectWait
        + ", maxMessageBytes="
        + maxMessageBytes
        + ", privateToken="
        + privateToken.orElse("-")
        + "]";
  }

  /**
   * The jnats options, with what this transport relies on: no buffering of publishes while
   * reconnecting (a request buffered there would reach a server after its caller gave up), and the
   * no-responders status on.
   */
  Options.Builder toJnats() {
    Options.Builder b =
        new Options.Builder()
            .servers(servers.toArray(String[]::new))
            .maxReconnects(maxReconnects)
            .reconnectWait(reconnectWait)
            .connectionTimeout(connectTimeout)
            .pingInterval(pingInterval)
            .reconnectBufferSize(0);
    connectionName.ifPresent(b::connectionName);
    sslContext.ifPresent(b::sslContext);
    auth.ifPresent(a -> a.apply(b));
    return b;
  }

  /** One way to authenticate; secrets are copied in and never printed. */
  private interface Auth {
    String kind();

    void apply(Options.Builder b);
  }

  /** Builds {@link NatsOptions}. */
  public static final class Builder {
    private final List<String> servers;
    private Optional<String> connectionName = Optional.empty();
    private Optional<Auth> auth = Optional.empty();
    private Optional<SSLContext> sslContext = Optional.empty();
    private int maxReconnects = -1;
    private Duration reconnectWait = DEFAULT_RECONNECT_WAIT;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration pingInterval = DEFAULT_PING_INTERVAL;
    private int maxMessageBytes = CallEvents.DEFAULT_MAX_MESSAGE_BYTES;
    private Optional<String> privateToken = Optional.empty();

    private Builder(String[] urls) {
      Objects.requireNonNull(urls, "urls");
      if (urls.length == 0) {
        throw new IllegalArgumentException("Name at least one server URL, e.g. nats://host:4222");
      }
      for (String url : urls) {
        Objects.requireNonNull(url, "a server URL");
        if (url.isBlank()) {
          throw new IllegalArgumentException("A server URL is blank");
        }
        checkHostAndPort(url);
      }
      this.servers = List.of(urls);
    }

    /**
     * A URL jnats would fail on with a message about its own internals (a port left empty,
     * "nats://host:", gives a NullPointerException there): said here in the user's terms.
     */
    private static void checkHostAndPort(String url) {
      String shown = PubSubFactory.Target.redacted(url);
      int scheme = url.indexOf("://");
      String authority = scheme < 0 ? url : url.substring(scheme + 3);
      int end = authority.indexOf('/');
      if (end >= 0) {
        authority = authority.substring(0, end);
      }
      authority = authority.substring(authority.lastIndexOf('@') + 1);
      // [::1]:4222 keeps its colons inside the brackets
      int hostEnd = authority.startsWith("[") ? authority.indexOf(']') + 1 : 0;
      int colon = authority.indexOf(':', hostEnd);
      String host = colon >= 0 ? authority.substring(0, colon) : authority;
      if (host.isEmpty()) {
        throw new IllegalArgumentException(
            "The server URL " + shown + " has no host (expected e.g. nats://127.0.0.1:4222)");
      }
      if (colon >= 0) {
        String port = authority.substring(colon + 1);
        int number;
        try {
          number = Integer.parseInt(port);
        } catch (NumberFormatException e) {
          number = -1;
        }
        if (number < 1 || number > 65535) {
          throw new IllegalArgumentException(
              "The server URL "
                  + shown
                  + (port.isEmpty() ? " has an empty port" : " has a port that is not 1 to 65535")
                  + " (expected e.g. nats://127.0.0.1:4222, or no port for 4222)");
        }
      }
    }

    /** The name the servers show for this connection (monitoring, logs). */
    public Builder connectionName(String name) {
      this.connectionName = Optional.of(Objects.requireNonNull(name, "name"));
      return this;
    }

    /** Authenticates with a user name and password. */
    public Builder userPassword(String user, char[] password) {
      Objects.requireNonNull(user, "user");
      char[] secret = Objects.requireNonNull(password, "password").clone();
      return auth("user/password", b -> b.userInfo(user.toCharArray(), secret.clone()));
    }

    /** Authenticates with a token. */
    public Builder token(char[] token) {
      char[] secret = Objects.requireNonNull(token, "token").clone();
      return auth("token", b -> b.token(secret.clone()));
    }

    /**
     * Authenticates with a credentials file (a user JWT and its NKey seed, as {@code nsc} writes
     * them). The file is read at each (re)connection, so a rotated file takes effect.
     */
    public Builder credentialsFile(Path file) {
      Path checked = Objects.requireNonNull(file, "file");
      String path = checked.toString();
      return auth(
          "credentials file",
          b -> {
            // jnats reads the file during the handshake and reports a missing one as an
            // authentication failure; naming the file tells the user what to fix.
            if (!Files.isReadable(checked)) {
              throw new IllegalArgumentException(
                  "The credentials file " + path + " does not exist or cannot be read");
            }
            b.authHandler(Nats.credentials(path));
          });
    }

    /** Authenticates with an NKey alone: {@code seed} is the user's seed ({@code SU...}). */
    public Builder nkeySeed(char[] seed) {
      char[] secret = Objects.requireNonNull(seed, "seed").clone();
      return auth("nkey", b -> b.authHandler(Nats.staticCredentials(null, secret.clone())));
    }

    /**
     * Uses TLS with this context for every server. Without it, {@code tls://} URLs use the JDK's
     * default context (the system trust store) and {@code nats://} URLs are plain TCP.
     */
    public Builder sslContext(SSLContext context) {
      this.sslContext = Optional.of(Objects.requireNonNull(context, "context"));
      return this;
    }

    /** Reconnection attempts before giving up for good; -1 (the default) tries forever. */
    public Builder maxReconnects(int attempts) {
      this.maxReconnects = reconnects(attempts);
      return this;
    }

    /** The pause between reconnection attempts; 1 s by default. */
    public Builder reconnectWait(Duration wait) {
      this.reconnectWait = positive(wait, "reconnectWait");
      return this;
    }

    /** How long one connection attempt may take; 2 s by default. */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positive(timeout, "connectTimeout");
      return this;
    }

    /** How often to ping the server to notice a silent network; 5 s by default. */
    public Builder pingInterval(Duration interval) {
      this.pingInterval = positive(interval, "pingInterval");
      return this;
    }

    /**
     * The largest payload to carry, 1 MiB by default; the transport reports the smaller of this and
     * the server's {@code max_payload}.
     */
    public Builder maxMessageBytes(int bytes) {
      this.maxMessageBytes = positive(bytes, "maxMessageBytes");
      return this;
    }

    /**
     * Gives the connection a private token: its callers ({@code PendingRequestMap}, {@code
     * RemoteCatalog}) make their inboxes under {@code ops.inbox.<token>.} ({@link
     * NatsPubSub#inboxPrefix()}) and its receiver probes under {@code _OPS.RCV.<token>.}, so that a
     * user whose permissions are {@link NatsPermissions#privateTo privateTo(token)} can read its
     * own replies and probes and nobody else's. Give each user its own token (it names the user's
     * subjects; it is no secret, and no credential: the broker's permissions do the protecting).
     * Without one, inboxes are {@code ops.inbox.<id>}, readable by every user allowed {@code
     * ops.inbox.>}.
     *
     * @param token 1 to 64 ASCII letters, digits, '_' or '-'
     * @throws IllegalArgumentException if it is not
     */
    public Builder privateToken(String token) {
      Objects.requireNonNull(token, "token");
      ProtocolTopics.privateInboxPrefix(token); // checks it
      this.privateToken = Optional.of(token);
      return this;
    }

    public NatsOptions build() {
      return new NatsOptions(this);
    }

    private Builder auth(String kind, Consumer<Options.Builder> apply) {
      if (auth.isPresent()) {
        throw new IllegalStateException(
            "Credentials are set already (" + auth.get().kind() + "); give one kind only");
      }
      this.auth =
          Optional.of(
              new Auth() {
                @Override
                public String kind() {
                  return kind;
                }

                @Override
                public void apply(Options.Builder b) {
                  apply.accept(b);
                }
              });
      return this;
    }
  }
}
