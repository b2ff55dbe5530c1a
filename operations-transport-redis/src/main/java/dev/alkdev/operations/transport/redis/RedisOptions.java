package dev.alkdev.operations.transport.redis;

import static dev.alkdev.operations.transport.kit.Settings.positive;

import dev.alkdev.operations.protocol.ProtocolTopics;
import io.lettuce.core.RedisURI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a {@link RedisPubSub} connects: the server's URL and the transport's limits.
 *
 * <pre>{@code
 * RedisOptions options =
 *     RedisOptions.builder("redis://127.0.0.1:6379/0") // rediss:// for TLS, redis-sentinel:// ...
 *         .connectionName("billing-node-1")
 *         .build();
 * }</pre>
 *
 * <p>URLs: {@code redis://[[user]:password@]host[:port][/database]}, {@code rediss://...} (TLS, the
 * peer verified against the JDK's trust store or {@link Builder#trustedCertificates}), and {@code
 * redis-sentinel://[[user]:password@]host[:port][,host2[:port2]...][/database]#masterName}
 * (Sentinel finds the master at every connection, so a failover is followed). Redis Cluster is
 * refused at connect: see docs/redis.md. Passwords are never printed ({@link #toString}).
 */
public final class RedisOptions {
  private final String url;
  private final Optional<String> connectionName;
  private final Optional<String> username;
  private final char[] password; // null: the URL's, if any
  private final Optional<Path> trustedCertificates;
  private final Duration connectTimeout;
  private final Duration commandTimeout;
  private final Duration pingInterval;
  private final Duration reconnectWait;
  private final int maxReconnects;
  private final int maxMessageBytes;
  private final int maxPendingCommands;
  private final Optional<String> privateToken;

  private RedisOptions(Builder b) {
    this.url = b.url;
    this.connectionName = b.connectionName;
    this.username = b.username;
    this.password = b.password == null ? null : b.password.clone();
    this.trustedCertificates = b.trustedCertificates;
    this.connectTimeout = b.connectTimeout;
    this.commandTimeout = b.commandTimeout;
    this.pingInterval = b.pingInterval;
    this.reconnectWait = b.reconnectWait;
    this.maxReconnects = b.maxReconnects;
    this.maxMessageBytes = b.maxMessageBytes;
    this.maxPendingCommands = b.maxPendingCommands;
    this.privateToken = b.privateToken;
  }

  /**
   * Options for the server at {@code url}.
   *
   * @throws IllegalArgumentException when the URL is not a {@code redis://}, {@code rediss://} or
   *     {@code redis-sentinel://} URL Lettuce can read
   */
  public static Builder builder(String url) {
    Objects.requireNonNull(url, "url");
    parse(url); // fail here, not at connect
    return new Builder(url);
  }

  /** The URL with any password replaced by {@code ***}. */
  public String displayUrl() {
    return url.replaceAll("(//[^@/]*:)[^@/]*@", "$1***@").replaceAll("(//)([^:@/]+)@", "$1***@");
  }

  public Optional<String> connectionName() {
    return connectionName;
  }

  public Duration connectTimeout() {
    return connectTimeout;
  }

  public Duration commandTimeout() {
    return commandTimeout;
  }

  public Duration pingInterval() {
    return pingInterval;
  }

  public Duration reconnectWait() {
    return reconnectWait;
  }

  /** Attempts to replace a dropped connection before the transport closes; -1: for ever. */
  public int maxReconnects() {
    return maxReconnects;
  }

  public int maxMessageBytes() {
    return maxMessageBytes;
  }

  /** Commands (publishes) sent and not yet answered, beyond which publishes are refused. */
  public int maxPendingCommands() {
    return maxPendingCommands;
  }

  /**
   * The transport's private token, when it has one ({@link Builder#privateToken}): its callers'
   * inboxes are then {@code ops.inbox.<token>.<id>}, which {@link RedisAcl#privateTo} lets only the
   * user with that token subscribe to.
   */
  public Optional<String> privateToken() {
    return privateToken;
  }

  Optional<Path> trustedCertificates() {
    return trustedCertificates;
  }

  /** A fresh Lettuce URI for one connection, named {@code name} on the server. */
  RedisURI toUri(String name) {
    RedisURI uri = parse(url);
    if (password != null) {
      if (username.isPresent()) {
        uri.setAuthentication(username.get(), password.clone());
      } else {
        uri.setAuthentication(password.clone());
      }
    }
    uri.setClientName(name);
    uri.setTimeout(commandTimeout);
    return uri;
  }

  /**
   * Everything between "//" and the last "@" replaced: the user and password, whatever they hold.
   */
  private static String redacted(String url) {
    int scheme = url.indexOf("://");
    int at = url.lastIndexOf('@');
    return scheme < 0 || at < scheme
        ? url
        : url.substring(0, scheme + 3) + "***" + url.substring(at);
  }

  private static RedisURI parse(String url) {
    String scheme = url.contains("://") ? url.substring(0, url.indexOf("://")) : "";
    if (!scheme.equals("redis") && !scheme.equals("rediss") && !scheme.equals("redis-sentinel")) {
      throw new IllegalArgumentException(
          "Not a Redis URL: \""
              + redacted(url)
              + "\"; expected redis://host:port[/db], rediss://host:port[/db] or"
              + " redis-sentinel://host:port[,host:port]/db#master");
    }
    try {
      return RedisURI.create(url);
    } catch (RuntimeException e) {
      // Not the cause, nor its message: java.net.URI quotes the whole input, password included.
      throw new IllegalArgumentException(
          "Cannot read the Redis URL \""
              + redacted(url)
              + "\" ("
              + e.getClass().getSimpleName()
              + "); check its syntax: redis://[user:password@]host:port[/db]");
    }
  }

  @Override
  public String toString() {
    return "RedisOptions[" + displayUrl() + connectionName.map(n -> ", name " + n).orElse("") + "]";
  }

  /** Builds {@link RedisOptions}; every setting has a default but the URL. */
  public static final class Builder {
    private final String url;
    private Optional<String> connectionName = Optional.empty();
    private Optional<String> username = Optional.empty();
    private char[] password;
    private Optional<Path> trustedCertificates = Optional.empty();
    private Duration connectTimeout = Duration.ofSeconds(2);
    private Duration commandTimeout = Duration.ofSeconds(5);
    private Duration pingInterval = Duration.ofSeconds(2);
    private Duration reconnectWait = Duration.ofSeconds(1);
    private int maxReconnects = -1;
    private int maxMessageBytes = 1024 * 1024;
    private int maxPendingCommands = 65_536;
    private Optional<String> privateToken = Optional.empty();

    private Builder(String url) {
      this.url = url;
    }

    /**
     * Shown by the server's {@code CLIENT LIST}: the two connections are named {@code <name>.cmd}
     * and {@code <name>.sub}. Letters, digits and {@code -_.:} only.
     */
    public Builder connectionName(String name) {
      Objects.requireNonNull(name, "name");
      if (name.isEmpty() || !name.matches("[A-Za-z0-9_.:-]+")) {
        throw new IllegalArgumentException(
            "A connection name takes letters, digits and -_.: only, was \"" + name + "\"");
      }
      this.connectionName = Optional.of(name);
      return this;
    }

    /** An ACL user and password (Redis 6+), instead of those in the URL. Copied in. */
    public Builder credentials(String username, char[] password) {
      Objects.requireNonNull(username, "username");
      Objects.requireNonNull(password, "password");
      this.username = Optional.of(username);
      this.password = password.clone();
      return this;
    }

    /** The default user's password ({@code requirepass}), instead of the URL's. Copied in. */
    public Builder password(char[] password) {
      Objects.requireNonNull(password, "password");
      this.username = Optional.empty();
      this.password = password.clone();
      return this;
    }

    /**
     * PEM certificates to trust for {@code rediss://} (a private CA, say), instead of the JDK's
     * trust store.
     */
    public Builder trustedCertificates(Path pemFile) {
      Objects.requireNonNull(pemFile, "pemFile");
      if (!Files.isReadable(pemFile)) {
        throw new IllegalArgumentException("Cannot read the certificates file " + pemFile);
      }
      this.trustedCertificates = Optional.of(pemFile);
      return this;
    }

    /** One attempt to open a connection; {@code connect} throws UNAVAILABLE after it. */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positive(timeout, "connectTimeout");
      return this;
    }

    /**
     * How long a command (a publish, a subscription, a ping) may wait for its answer. Lettuce's
     * default of 60 s would leave a publish to a stalled server hanging for a minute.
     */
    public Builder commandTimeout(Duration timeout) {
      this.commandTimeout = positive(timeout, "commandTimeout");
      return this;
    }

    /**
     * Both connections are pinged this often; one that does not answer within the command timeout
     * counts as dropped. A silent network (no reset) is thus noticed in about {@code pingInterval +
     * commandTimeout}.
     */
    public Builder pingInterval(Duration interval) {
      this.pingInterval = positive(interval, "pingInterval");
      return this;
    }

    /** The pause before each attempt to replace a dropped connection. */
    public Builder reconnectWait(Duration wait) {
      this.reconnectWait = positive(wait, "reconnectWait");
      return this;
    }

    /** Attempts to replace a dropped connection before the transport closes; -1 for ever. */
    public Builder maxReconnects(int attempts) {
      if (attempts < -1) {
        throw new IllegalArgumentException("maxReconnects is -1 or more, was " + attempts);
      }
      this.maxReconnects = attempts;
      return this;
    }

    /**
     * The largest payload published; larger ones are refused before sending. The transport reports
     * the smaller of this and the server's hard pub/sub output-buffer limit.
     */
    public Builder maxMessageBytes(int bytes) {
      if (bytes <= 0 || bytes > 512 * 1024 * 1024) {
        throw new IllegalArgumentException(
            "maxMessageBytes is between 1 and 512 MiB, was " + bytes);
      }
      this.maxMessageBytes = bytes;
      return this;
    }

    /**
     * Publishes awaiting the server's answer beyond which new ones fail with RESOURCE_EXHAUSTED
     * (Lettuce's queue is unbounded by default).
     */
    public Builder maxPendingCommands(int commands) {
      if (commands < 16) {
        throw new IllegalArgumentException("maxPendingCommands is 16 or more, was " + commands);
      }
      this.maxPendingCommands = commands;
      return this;
    }

    /**
     * Gives the transport a private token: its callers ({@code PendingRequestMap}, {@code
     * RemoteCatalog}) make their inboxes under {@code ops.inbox.<token>.} ({@link
     * RedisPubSub#inboxPrefix()}), so that a user whose ACL is {@link RedisAcl#privateTo
     * privateTo(token)} can subscribe to its own replies and nobody else's. Give each user its own
     * token (it names the user's channels; it is no secret, and no credential: the ACL does the
     * protecting). Without one, inboxes are {@code ops.inbox.<id>}, open to every user allowed
     * {@code &ops.inbox.*}.
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

    public RedisOptions build() {
      return new RedisOptions(this);
    }
  }
}
