package dev.alkdev.operations.transport.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SerialMailbox;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.transport.redis.internal.Groups;
import dev.alkdev.operations.transport.redis.internal.RateLimitedWarning;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link PubSub} transport on Redis pub/sub: two connections to one Redis server (or the master
 * Sentinel names), through Lettuce.
 *
 * <ul>
 *   <li>Topics are Redis channels unchanged. Topics starting with {@code _ops.} are refused (the
 *       transport's own channels).
 *   <li>Redis has no queue groups: every subscriber of a channel gets every message. A queue-group
 *       subscription listens on a private channel registered in the server, and every publish runs
 *       one script that publishes to the topic and to one live member of each group, so a message
 *       reaches exactly one member of a group (docs/redis.md, decisions D28 and D29).
 *   <li>{@link #publish} completes with the receivers Redis counted: subscribed connections, plus
 *       one per group reached. 0 means nobody listens, and a call to an operation nobody serves
 *       fails with NO_RESPONDERS within a round trip.
 *   <li>Messages are handed off Lettuce's event loop into each subscription's bounded {@link
 *       SerialMailbox}; a full mailbox drops and counts (the publisher, on another connection,
 *       cannot be told). Nothing runs on the event loop: handlers and publish completions run on
 *       the transport's own threads.
 *   <li>While disconnected, publishes fail at once with UNAVAILABLE: Lettuce's reconnection (which
 *       would replay queued and in-flight commands after its caller gave up) is off; a dropped
 *       connection is replaced by a new one, every subscription made again on it, and the {@link
 *       #onDisconnect} actions run at once.
 *   <li>{@link #maxMessageBytes()} is the smaller of the configured limit and the server's hard
 *       {@code client-output-buffer-limit pubsub}, since one larger message would cut every
 *       subscriber.
 *   <li>Payload identities are not trusted ({@link #trustsPayloadIdentity()} is false).
 * </ul>
 */
public final class RedisPubSub implements PubSub {
  private static final Logger LOG = LoggerFactory.getLogger(RedisPubSub.class);
  private static final Duration WARNING_INTERVAL = Duration.ofSeconds(10);
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  /** Group registrations live this long unless renewed (every few pings). */
  static final Duration REGISTRATION_TTL = Duration.ofSeconds(60);

  private static final Object RESOURCES_LOCK = new Object();
  private static ClientResources sharedResources;

  private final RedisOptions options;
  private final String name;
  private final String clientId = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
  private final RedisClient client;
  private final ExecutorService delivery;
  private final ScheduledExecutorService control;
  private final CopyOnWriteArrayList<Runnable> disconnectActions = new CopyOnWriteArrayList<>();
  private final Set<RedisSubscription> subscriptions = ConcurrentHashMap.newKeySet();
  private final Set<CompletableFuture<?>> changesInFlight = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong disconnects = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong outputBufferCuts = new AtomicLong();
  private final AtomicLong droppedByClosedSubscriptions = new AtomicLong();
  private final AtomicInteger generations = new AtomicInteger();
  private final AtomicInteger subscriptionNumbers = new AtomicInteger();
  private final AtomicInteger pings = new AtomicInteger();
  private final RateLimitedWarning slowWarning = new RateLimitedWarning(LOG, WARNING_INTERVAL);
  private final Object lock = new Object(); // channel changes and link replacement
  private volatile Link link;
  private volatile long serverOutputBufferCuts = -1;

  private RedisPubSub(RedisOptions options) {
    this.options = options;
    this.name = options.connectionName().orElse("ops") + "-" + INSTANCES.incrementAndGet();
    this.client = RedisClient.create(resources());
    this.client.setOptions(clientOptions(options));
    this.delivery = Executors.newCachedThreadPool(daemonThreads("ops-" + name + "-delivery-"));
    this.control =
        Executors.newSingleThreadScheduledExecutor(daemonThreads("ops-" + name + "-control-"));
    try {
      this.link = open();
    } catch (RuntimeException e) {
      control.shutdownNow();
      delivery.shutdownNow();
      client.shutdownAsync(0, 2, TimeUnit.SECONDS);
      throw e;
    }
    long every = options.pingInterval().toNanos();
    control.scheduleWithFixedDelay(this::ping, every, every, TimeUnit.NANOSECONDS);
  }

  /**
   * Connects to the server {@code options} names (through Sentinel for a {@code redis-sentinel://}
   * URL).
   *
   * @throws CallError UNAVAILABLE when the server cannot be reached or refuses the credentials
   *     within the connect timeout; INVALID_INPUT when the server is a Redis Cluster node (not
   *     supported: docs/redis.md)
   */
  public static RedisPubSub connect(RedisOptions options) {
    Objects.requireNonNull(options, "options");
    return new RedisPubSub(options);
  }

  // ------------------------------------------------------------------ PubSub

  @Override
  public CompletableFuture<Integer> publish(String topic, byte[] payload) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(payload, "payload");
    if (closed.get()) {
      return CompletableFuture.failedFuture(closedError());
    }
    Optional<String> problem = topicProblem(topic);
    if (problem.isPresent()) {
      return CompletableFuture.failedFuture(
          CallError.of(ErrorCode.INVALID_INPUT, "Topic \"" + topic + "\": " + problem.get()));
    }
    int limit = maxMessageBytes();
    if (payload.length > limit) {
      return CompletableFuture.failedFuture(
          CallError.builder(
                  ErrorCode.RESOURCE_EXHAUSTED,
                  "Message of "
                      + payload.length
                      + " bytes is larger than the transport's limit of "
                      + limit)
              .retryable(false) // the same message is as large next time
              .build());
    }
    Link current = link;
    if (!current.isUp()) {
      return refuse(topic);
    }
    byte[][] keys = {Groups.groupsKey(topic).getBytes(UTF_8)};
    byte[] channel = topic.getBytes(UTF_8);
    CompletableFuture<Long> sent =
        current.eval(current.publishSha, Groups.PUBLISH, keys, channel, payload);
    // Completed off the event loop: whoever waits on a publish must never run on it.
    return sent.handleAsync(
        (count, failure) -> {
          if (failure != null) {
            throw publishFailure(topic, failure);
          }
          return count.intValue();
        },
        delivery);
  }

  @Override
  public Subscription subscribe(String topic, SubscribeOptions options, Consumer<Message> handler) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(handler, "handler");
    if (closed.get()) {
      throw closedError();
    }
    topicProblem(topic)
        .ifPresent(
            p -> {
              throw new IllegalArgumentException("Topic \"" + topic + "\": " + p);
            });
    options
        .queueGroup()
        .ifPresent(
            g -> {
              if (g.isEmpty()) {
                throw new IllegalArgumentException("A queue group name may not be empty");
              }
            });
    RedisSubscription subscription = new RedisSubscription(topic, options, handler);
    synchronized (lock) {
      subscriptions.add(subscription);
      subscription.attach(link);
    }
    if (closed.get()) { // closed meanwhile: close() may have missed it
      subscription.close();
      throw closedError();
    }
    return subscription;
  }

  /** The smaller of the configured limit and the server's hard pub/sub output-buffer limit. */
  @Override
  public int maxMessageBytes() {
    long serverLimit = link.pubsubHardLimit;
    return (int)
        (serverLimit > 0
            ? Math.min(options.maxMessageBytes(), serverLimit)
            : options.maxMessageBytes());
  }

  /** False: any client of the Redis server could write any identity into a payload. */
  @Override
  public boolean trustsPayloadIdentity() {
    return false;
  }

  /**
   * Runs {@code action} each time the connection drops (before a new one is opened) and when the
   * transport closes; at once if it is closed already.
   */
  @Override
  public Registration onDisconnect(Runnable action) {
    Objects.requireNonNull(action, "action");
    disconnectActions.add(action);
    if (closed.get() && disconnectActions.remove(action)) {
      runSafely(action);
    }
    return () -> disconnectActions.remove(action);
  }

  /**
   * Waits until every subscription change made so far (subscriptions, group registrations, closed
   * subscriptions) is in effect on the server, then for a round trip on both connections.
   *
   * @throws CallError UNAVAILABLE when the connection is down or this takes longer than {@code
   *     timeout}
   */
  public void flush(Duration timeout) {
    long end = System.nanoTime() + timeout.toNanos();
    try {
      for (CompletableFuture<?> change : List.copyOf(changesInFlight)) {
        change.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
      Link current = link;
      current
          .pubsub
          .async()
          .ping()
          .toCompletableFuture()
          .get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
      current
          .commands
          .async()
          .ping()
          .toCompletableFuture()
          .get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException | ExecutionException | RuntimeException e) {
      throw CallError.of(
          ErrorCode.UNAVAILABLE, "Redis did not answer a flush: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallError.of(ErrorCode.UNAVAILABLE, "Interrupted while flushing", e);
    }
  }

  /** Whether the connections are up at the moment. */
  public boolean isConnected() {
    return !closed.get() && link.isUp();
  }

  /**
   * The server's client ids of this transport's two connections ({@code CLIENT LIST} names them
   * {@code <name>.cmd} and {@code <name>.sub}), while connected: for operators and fault tests.
   */
  public Optional<ClientIds> clientIds() {
    Link current = link;
    return current.isUp() && !closed.get()
        ? Optional.of(new ClientIds(current.commandClientId, current.pubsubClientId))
        : Optional.empty();
  }

  /** The counters of this transport since it connected. */
  public Stats stats() {
    long dropped = droppedByClosedSubscriptions.get();
    for (RedisSubscription subscription : subscriptions) {
      dropped += subscription.dropped();
    }
    return new Stats(
        disconnects.get(), reconnects.get(), refused.get(), outputBufferCuts.get(), dropped);
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    Link last = link;
    for (RedisSubscription subscription : subscriptions) {
      subscription.mailbox.close();
    }
    // Best effort, briefly: take this node's group members out so publishers stop choosing them
    // (they would otherwise learn it from a PUBLISH that reaches nobody).
    if (last.isUp()) {
      List<CompletableFuture<?>> leaving = new ArrayList<>();
      for (RedisSubscription subscription : subscriptions) {
        subscription.unregister(last).ifPresent(leaving::add);
      }
      try {
        CompletableFuture.allOf(leaving.toArray(CompletableFuture[]::new))
            .get(Math.min(500, options.commandTimeout().toMillis()), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        LOG.debug("{}: group members not all removed at close", name, e);
      }
    }
    last.markDown();
    runDisconnectActions();
    control.shutdownNow();
    last.close();
    client.shutdownAsync(0, 2, TimeUnit.SECONDS);
    delivery.shutdownNow();
  }

  @Override
  public String toString() {
    return "RedisPubSub["
        + name
        + ", "
        + options.displayUrl()
        + (isConnected() ? "" : ", down")
        + "]";
  }

  // ------------------------------------------------------------------ the connections

  private static ClientResources resources() {
    synchronized (RESOURCES_LOCK) {
      // One set of event loops for every transport in the JVM, as Lettuce recommends; its threads
      // are daemons, and a transport's close never shuts them down.
      if (sharedResources == null) {
        sharedResources =
            DefaultClientResources.builder()
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(2)
                .build();
      }
      return sharedResources;
    }
  }

  private static ClientOptions clientOptions(RedisOptions options) {
    ClientOptions.Builder builder =
        ClientOptions.builder()
            // Lettuce's own reconnection replays queued and in-flight commands once reconnected,
            // delivering requests whose callers were told UNAVAILABLE meanwhile. Off: a dropped
            // connection is replaced (open), never revived, and nothing is queued while down.
            .autoReconnect(false)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .requestQueueSize(options.maxPendingCommands())
            .timeoutOptions(TimeoutOptions.enabled(options.commandTimeout()))
            .socketOptions(
                SocketOptions.builder()
                    .connectTimeout(options.connectTimeout())
                    .keepAlive(true)
                    .tcpNoDelay(true)
                    .build());
    options
        .trustedCertificates()
        .ifPresent(
            pem ->
                builder.sslOptions(
                    SslOptions.builder().jdkSslProvider().trustManager(pem.toFile()).build()));
    return builder.build();
  }

  /** Opens both connections, loads the scripts and reads the server's limits. */
  private Link open() {
    int generation = generations.incrementAndGet();
    String base = options.connectionName().orElse("ops-" + clientId);
    Link fresh = new Link(generation);
    try {
      fresh.commands = client.connect(ByteArrayCodec.INSTANCE, options.toUri(base + ".cmd"));
      fresh.commands.addListener(new Watch(fresh));
      String info = fresh.commands.sync().info("cluster");
      if (info != null && info.contains("cluster_enabled:1")) {
        fresh.close();
        throw CallError.of(
            ErrorCode.INVALID_INPUT,
            "Redis at "
                + options.displayUrl()
                + " is a Redis Cluster node: not supported (pub/sub messages and the queue-group"
                + " registry would be spread over the cluster's slots; see docs/redis.md). Use a"
                + " standalone server or Sentinel.");
      }
      fresh.commandClientId = fresh.commands.sync().clientId();
      fresh.publishSha = fresh.commands.sync().scriptLoad(Groups.PUBLISH);
      fresh.registerSha = fresh.commands.sync().scriptLoad(Groups.REGISTER);
      fresh.unregisterSha = fresh.commands.sync().scriptLoad(Groups.UNREGISTER);
      fresh.pubsubHardLimit = pubsubHardLimit(fresh);
      fresh.pubsub = client.connectPubSub(ByteArrayCodec.INSTANCE, options.toUri(base + ".sub"));
      fresh.pubsub.addListener(new Watch(fresh));
      fresh.pubsubClientId = fresh.pubsub.sync().clientId();
      fresh.pubsub.addListener(new Receiver(fresh));
      noteOutputBufferCuts(fresh);
      return fresh;
    } catch (CallError e) {
      fresh.close();
      throw e;
    } catch (RuntimeException e) {
      fresh.close();
      throw CallError.of(
          ErrorCode.UNAVAILABLE,
          "Cannot connect to Redis at " + options.displayUrl() + ": " + e.getMessage(),
          e);
    }
  }

  /** The hard {@code client-output-buffer-limit} of pub/sub clients, 0 when none or unknown. */
  private long pubsubHardLimit(Link fresh) {
    try {
      Map<String, String> config = fresh.commands.sync().configGet("client-output-buffer-limit");
      String value = config.getOrDefault("client-output-buffer-limit", "");
      String[] parts = value.trim().split("\\s+");
      for (int i = 0; i + 1 < parts.length; i++) {
        if (parts[i].equals("pubsub")) {
          return Long.parseLong(parts[i + 1]);
        }
      }
    } catch (RuntimeException e) {
      // CONFIG may be renamed or denied by an ACL: keep the configured limit.
      LOG.debug("{}: cannot read client-output-buffer-limit", name, e);
    }
    return 0;
  }

  /**
   * Reads the server's count of clients it cut for their output buffer; a rise since the last
   * connection is reported: a subscriber of this transport may have been too slow.
   */
  private void noteOutputBufferCuts(Link fresh) {
    try {
      String stats = fresh.commands.sync().info("stats");
      for (String line : stats.split("\r?\n")) {
        if (line.startsWith("client_output_buffer_limit_disconnections:")) {
          long now = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
          long before = serverOutputBufferCuts;
          serverOutputBufferCuts = now;
          if (before >= 0 && now > before) {
            outputBufferCuts.addAndGet(now - before);
            LOG.warn(
                "{}: Redis cut {} client(s) for exceeding client-output-buffer-limit since this"
                    + " transport last connected; if its subscriber connection was one, its"
                    + " subscribers read slower than messages arrive",
                name,
                now - before);
          }
        }
      }
    } catch (RuntimeException e) {
      LOG.debug("{}: cannot read INFO stats", name, e);
    }
  }

  /** The connection {@code source} dropped: tell everyone, then replace it. */
  private void lost(Link source, String why) {
    if (closed.get() || source != link || !source.markDown()) {
      return; // an old connection's late event, or told already
    }
    disconnects.incrementAndGet();
    LOG.warn(
        "{}: the Redis connection dropped ({}); publishes are refused until it is back", name, why);
    runDisconnectActions();
    schedule(source::close, Duration.ZERO);
    schedule(() -> reconnect(1), options.reconnectWait());
  }

  private void reconnect(int attempt) {
    if (closed.get()) {
      return;
    }
    Link fresh;
    try {
      fresh = open();
    } catch (RuntimeException e) {
      if (options.maxReconnects() >= 0 && attempt >= options.maxReconnects()) {
        LOG.error("{}: gave up reconnecting to Redis after {} attempts", name, attempt, e);
        close();
      } else {
        LOG.debug("{}: reconnection attempt {} failed", name, attempt, e);
        schedule(() -> reconnect(attempt + 1), options.reconnectWait());
      }
      return;
    }
    Link old;
    synchronized (lock) {
      if (closed.get()) {
        fresh.close();
        return;
      }
      old = link;
      link = fresh;
      for (RedisSubscription subscription : subscriptions) {
        subscription.attach(fresh);
      }
    }
    for (RedisSubscription subscription : subscriptions) {
      subscription.forgetOldChannel(fresh, old);
    }
    reconnects.incrementAndGet();
    LOG.info("{}: reconnected to Redis with {} subscriptions", name, subscriptions.size());
  }

  /** Pings both connections; one that does not answer counts as dropped. Renews registrations. */
  private void ping() {
    Link current = link;
    if (closed.get() || !current.isUp()) {
      return;
    }
    CompletableFuture<?> a = current.commands.async().ping().toCompletableFuture();
    CompletableFuture<?> b = current.pubsub.async().ping().toCompletableFuture();
    CompletableFuture.allOf(a, b)
        .orTimeout(options.commandTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .whenCompleteAsync(
            (ok, failure) -> {
              if (failure != null) {
                lost(current, "no answer to a ping: " + rootMessage(failure));
              }
            },
            delivery);
    // Renew group registrations about five times per lifetime.
    long renewEvery =
        Math.max(1, REGISTRATION_TTL.toNanos() / 5 / options.pingInterval().toNanos());
    if (pings.incrementAndGet() % renewEvery == 0) {
      for (RedisSubscription subscription : subscriptions) {
        subscription.register(current);
      }
    }
  }

  private void schedule(Runnable task, Duration delay) {
    try {
      control.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      // closed meanwhile: nothing to reconnect
    }
  }

  private void runDisconnectActions() {
    for (Runnable action : disconnectActions) {
      runSafely(action);
    }
  }

  private void runSafely(Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      LOG.error("{}: a disconnect action failed", name, e);
    }
  }

  private CompletableFuture<Integer> refuse(String topic) {
    refused.incrementAndGet();
    if (closed.get()) {
      return CompletableFuture.failedFuture(closedError());
    }
    return CompletableFuture.failedFuture(
        CallError.of(
            ErrorCode.UNAVAILABLE,
            "The Redis connection is down; not publishing to " + topic + " (nothing is buffered)"));
  }

  private CallError publishFailure(String topic, Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (cause instanceof CallError error) {
      return error;
    }
    String message = String.valueOf(cause.getMessage());
    if (message.contains("Request queue size exceeded")) {
      refused.incrementAndGet();
      return CallError.of(
          ErrorCode.RESOURCE_EXHAUSTED,
          "Too many publishes await Redis's answer (maxPendingCommands "
              + options.maxPendingCommands()
              + "); not publishing to "
              + topic,
          cause);
    }
    if (closed.get()) {
      return closedError();
    }
    return CallError.of(
        ErrorCode.UNAVAILABLE,
        "Publishing to " + topic + " failed (outcome unknown): " + message,
        cause);
  }

  private static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
  }

  private CallError closedError() {
    return CallError.of(ErrorCode.UNAVAILABLE, "The Redis transport is closed");
  }

  /** Why {@code topic} cannot be a channel here, if it cannot. */
  private static Optional<String> topicProblem(String topic) {
    if (topic.isEmpty()) {
      return Optional.of("a topic may not be empty");
    }
    if (topic.startsWith("_ops.")) {
      return Optional.of("topics starting with _ops. are the Redis transport's own channels");
    }
    return Optional.empty();
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** One pair of connections: commands (publishes, the group registry) and subscriptions. */
  private final class Link {
    final int generation;
    final AtomicBoolean down = new AtomicBoolean();

    /** Channels subscribed on this link, and who receives from each. */
    final Map<String, List<RedisSubscription>> channels = new ConcurrentHashMap<>();

    volatile StatefulRedisConnection<byte[], byte[]> commands;
    volatile StatefulRedisPubSubConnection<byte[], byte[]> pubsub;
    volatile String publishSha;
    volatile String registerSha;
    volatile String unregisterSha;
    volatile long pubsubHardLimit;
    volatile long commandClientId;
    volatile long pubsubClientId;

    Link(int generation) {
      this.generation = generation;
    }

    boolean isUp() {
      return !down.get()
          && commands != null
          && pubsub != null
          && commands.isOpen()
          && pubsub.isOpen();
    }

    /** True the first time only. */
    boolean markDown() {
      return down.compareAndSet(false, true);
    }

    /** EVALSHA, and EVAL when the server lost the script (SCRIPT FLUSH). */
    CompletableFuture<Long> eval(String sha, String script, byte[][] keys, byte[]... args) {
      CompletableFuture<Long> first =
          commands
              .async()
              .<Long>evalsha(sha, ScriptOutputType.INTEGER, keys, args)
              .toCompletableFuture();
      return first.exceptionallyCompose(
          failure -> {
            Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
            if (cause instanceof RedisNoScriptException) {
              return commands
                  .async()
                  .<Long>eval(script.getBytes(UTF_8), ScriptOutputType.INTEGER, keys, args)
                  .toCompletableFuture();
            }
            return CompletableFuture.failedFuture(failure);
          });
    }

    void close() {
      markDown();
      if (pubsub != null) {
        pubsub.closeAsync();
      }
      if (commands != null) {
        commands.closeAsync();
      }
    }
  }

  /** Tells the transport when either connection of a link closes. */
  private final class Watch implements RedisConnectionStateListener {
    private final Link source;

    Watch(Link source) {
      this.source = source;
    }

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
      // On the event loop: hand over, since the disconnect actions run callers' code.
      try {
        control.execute(() -> lost(source, "connection closed"));
      } catch (RejectedExecutionException closing) {
        // the transport is closing
      }
    }
  }

  /** Hands each message off the event loop into its subscriptions' mailboxes. */
  private final class Receiver extends RedisPubSubAdapter<byte[], byte[]> {
    private final Link source;

    Receiver(Link source) {
      this.source = source;
    }

    @Override
    public void message(byte[] channel, byte[] message) {
      if (source != link) {
        return; // a replaced connection: its subscriptions live on the new one
      }
      List<RedisSubscription> receivers = source.channels.get(new String(channel, UTF_8));
      if (receivers == null) {
        return;
      }
      for (RedisSubscription receiver : receivers) {
        receiver.offer(message == null ? new byte[0] : message);
      }
    }
  }

  /**
   * One subscription. A plain one listens on its topic's channel (shared with this transport's
   * other plain subscriptions of the topic: Redis subscribes a connection once); a queue-group
   * member listens on a private channel, new on each connection, registered in the group's list.
   */
  private final class RedisSubscription implements Subscription {
    private final String topic;
    private final Optional<String> group;
    private final int number = subscriptionNumbers.incrementAndGet();
    private final SerialMailbox mailbox;
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile String channel; // on the current link
    private volatile Link attachedTo;

    RedisSubscription(String topic, SubscribeOptions options, Consumer<Message> handler) {
      this.topic = topic;
      this.group = options.queueGroup();
      this.mailbox =
          SerialMailbox.create(options.bufferSize(), options.overflow(), delivery, handler);
    }

    /** Subscribes on {@code target} (under the transport's lock). */
    void attach(Link target) {
      if (ended.get() || attachedTo == target) {
        return;
      }
      attachedTo = target;
      channel =
          group.isPresent()
              ? Groups.MEMBER_CHANNEL_PREFIX + clientId + "." + target.generation + "." + number
              : topic;
      List<RedisSubscription> receivers =
          target.channels.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>());
      boolean first = receivers.isEmpty();
      receivers.add(this);
      if (!first || !target.isUp()) {
        return; // subscribed already, or the next link subscribes it
      }
      CompletableFuture<?> change =
          target.pubsub.async().subscribe(channel.getBytes(UTF_8)).toCompletableFuture();
      if (group.isPresent()) {
        // Registered only once the server delivers to the channel, or a publisher could pick a
        // member that hears nothing yet (and remove it).
        change = change.thenCompose(ok -> registration(target));
      }
      track(change);
    }

    /** Removes the member channel of the connection before {@code fresh}, now that it is gone. */
    void forgetOldChannel(Link fresh, Link old) {
      if (group.isPresent() && old != null && old != fresh && !ended.get()) {
        String oldChannel =
            Groups.MEMBER_CHANNEL_PREFIX + clientId + "." + old.generation + "." + number;
        track(
            fresh.eval(
                fresh.unregisterSha,
                Groups.UNREGISTER,
                groupKeys(),
                group.get().getBytes(UTF_8),
                oldChannel.getBytes(UTF_8)));
      }
    }

    /** Renews this member's registration on {@code target}. */
    void register(Link target) {
      if (group.isPresent() && !ended.get() && attachedTo == target && target.isUp()) {
        registration(target)
            .exceptionally(
                e -> {
                  LOG.debug("{}: renewing a group registration failed", name, e);
                  return null;
                });
      }
    }

    private CompletableFuture<Long> registration(Link target) {
      return target.eval(
          target.registerSha,
          Groups.REGISTER,
          groupKeys(),
          group.get().getBytes(UTF_8),
          channel.getBytes(UTF_8),
          String.valueOf(REGISTRATION_TTL.toMillis()).getBytes(UTF_8));
    }

    /** Takes this member out of its group's list on {@code target}, if it is a member. */
    Optional<CompletableFuture<?>> unregister(Link target) {
      if (group.isEmpty() || attachedTo != target || !target.isUp()) {
        return Optional.empty();
      }
      return Optional.of(
          target.eval(
              target.unregisterSha,
              Groups.UNREGISTER,
              groupKeys(),
              group.get().getBytes(UTF_8),
              channel.getBytes(UTF_8)));
    }

    private byte[][] groupKeys() {
      return new byte[][] {
        Groups.groupsKey(topic).getBytes(UTF_8),
        Groups.membersKey(group.get(), topic).getBytes(UTF_8)
      };
    }

    private void track(CompletableFuture<?> change) {
      changesInFlight.add(change);
      change.whenComplete(
          (ok, failure) -> {
            changesInFlight.remove(change);
            if (failure != null) {
              // The connection dropped meanwhile: the next one subscribes again.
              LOG.debug("{}: a subscription change for {} failed", name, topic, failure);
            }
          });
    }

    void offer(byte[] payload) {
      SerialMailbox.Outcome outcome = mailbox.offer(new Message(topic, payload, Optional.empty()));
      if (outcome == SerialMailbox.Outcome.DROPPED || outcome == SerialMailbox.Outcome.REJECTED) {
        slowWarning.warn(
            "{}: a subscriber of {} is slower than its messages: its buffer is full, dropped {}"
                + " so far",
            name,
            topic,
            dropped());
      }
    }

    @Override
    public String topic() {
      return topic;
    }

    @Override
    public long dropped() {
      return mailbox.dropped() + mailbox.rejected();
    }

    @Override
    public void close() {
      if (!ended.compareAndSet(false, true)) {
        return;
      }
      mailbox.close();
      synchronized (lock) {
        subscriptions.remove(this);
        droppedByClosedSubscriptions.addAndGet(dropped());
        Link target = attachedTo;
        if (target == null) {
          return;
        }
        List<RedisSubscription> receivers = target.channels.get(channel);
        if (receivers != null) {
          receivers.remove(this);
          if (receivers.isEmpty()) {
            target.channels.remove(channel);
          }
        }
        if (!target.isUp()) {
          return;
        }
        CompletableFuture<?> change = CompletableFuture.completedFuture(null);
        if (group.isPresent()) {
          change = unregister(target).orElse(change);
        }
        if (receivers == null || receivers.isEmpty()) {
          String gone = channel;
          change =
              change.thenCompose(
                  ok ->
                      target
                          .pubsub
                          .async()
                          .unsubscribe(gone.getBytes(UTF_8))
                          .toCompletableFuture());
        }
        track(change);
      }
    }
  }

  /**
   * The server's ids of a transport's connections ({@code CLIENT KILL ID <id>} cuts one).
   *
   * @param commands the connection that publishes and keeps the group registry
   * @param subscriber the connection that receives
   */
  public record ClientIds(long commands, long subscriber) {}

  /**
   * What a {@link RedisPubSub} counted since it connected.
   *
   * @param disconnects times the connection dropped
   * @param reconnects times new connections replaced dropped ones
   * @param refusedPublishes publishes refused: the connection was down or closed, or too many
   *     awaited an answer
   * @param outputBufferCuts clients the server reported cutting for their output buffer limit
   *     between two connections of this transport (one of them may have been its own subscriber)
   * @param droppedMessages messages subscriptions lost because their buffer was full
   */
  public record Stats(
      long disconnects,
      long reconnects,
      long refusedPublishes,
      long outputBufferCuts,
      long droppedMessages) {}
}
