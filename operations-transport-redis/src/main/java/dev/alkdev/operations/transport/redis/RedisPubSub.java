package dev.alkdev.operations.transport.redis;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.pubsub.TransportStats;
import dev.alkdev.operations.transport.kit.Backoff;
import dev.alkdev.operations.transport.kit.ConnectionKeeper;
import dev.alkdev.operations.transport.redis.internal.ConsolidatedFlushes;
import dev.alkdev.operations.transport.redis.internal.PinnedEventLoop;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The {@link PubSub} transport on Redis pub/sub: two connections to one Redis server (or the master
 * Sentinel names), through Lettuce.
 *
 * <ul>
 *   <li>Topics are Redis channels unchanged. Topics starting with {@code _ops.} are refused (the
 *       transport's own channels).
 *   <li>Redis has no queue groups: every subscriber of a channel gets every message. A queue-group
 *       subscription listens on a private channel registered in the server, and a publish runs one
 *       script that publishes to the topic and to one live member of each group, so a message
 *       reaches exactly one member of a group (docs/redis.md, decisions D28 and D29). Callers'
 *       inboxes and serving nodes' own topics ({@code ops.inbox.*}, {@code ops.node.*}) can have no
 *       groups by the call protocol's rules: they are published with a plain PUBLISH, and a
 *       queue-group subscription to them is refused (D83).
 *   <li>{@link #publish} completes with the receivers Redis counted: subscribed connections, plus
 *       one per group reached. 0 means nobody listens, and a call to an operation nobody serves
 *       fails with NO_RESPONDERS within a round trip.
 *   <li>Messages are handed off Lettuce's event loop into each subscription's bounded {@link
 *       SerialMailbox}; a full mailbox drops and counts (the publisher, on another connection,
 *       cannot be told). Handlers run on the transport's own threads, except those whose subscriber
 *       promised they never block ({@link SubscribeOptions#withNonBlockingHandler()}: the call
 *       protocol's serving side), which start on the event loop (D74). A publish's future never
 *       runs its dependents on the event loop: a thread waiting in {@code get()} completes it, or
 *       the reply lane does, once per run of answers (D86).
 *   <li>While disconnected, publishes fail at once with UNAVAILABLE: Lettuce's reconnection (which
 *       would replay queued and in-flight commands after its caller gave up) is off; a dropped
 *       connection is replaced by a new one, every subscription made again on it, and the {@link
 *       #onDisconnect} actions run at once.
 *   <li>{@link #maxMessageBytes()} is the smaller of the configured limit and the server's hard
 *       {@code client-output-buffer-limit pubsub}, since one larger message would cut every
 *       subscriber.
 *   <li>Payload identities are not trusted ({@link #trustsPayloadIdentity()} is false).
 *   <li>With a private token ({@link RedisOptions.Builder#privateToken}), callers on this transport
 *       make their inboxes under {@code ops.inbox.<token>.} ({@link #inboxPrefix()}): channels that
 *       {@link RedisAcl#privateTo} keeps to the user with that token. They are inboxes all the same
 *       (plain PUBLISH, no queue groups).
 * </ul>
 */
public final class RedisPubSub implements PubSub {
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private static final Object RESOURCES_LOCK = new Object();
  private static ClientResources sharedResources;

  private final RedisOptions options;
  private final String name;
  private final ClientResources resources; // the shared ones, with this transport's own loop
  private final RedisClient client;
  private final ExecutorService completions;
  private final RedisConnector connector;
  private final ConnectionKeeper<RedisConnector.Subscriber> keeper;
  private final String inboxPrefix;

  private RedisPubSub(RedisOptions options) {
    this.options = options;
    this.inboxPrefix =
        options
            .privateToken()
            .map(ProtocolTopics::privateInboxPrefix)
            .orElse(ProtocolTopics.INBOX_PREFIX);
    this.name = options.connectionName().orElse("ops") + "-" + INSTANCES.incrementAndGet();
    ClientResources shared = resources();
    // The transport's own resources: the shared ones (D87), with all its connections on one of
    // the shared event loops and their flushes consolidated. Every component is the shared one's,
    // so this one's shutdown stops none of them (ClientResources.mutate() would: its copies own
    // what the original owned).
    this.resources =
        DefaultClientResources.builder()
            .eventLoopGroupProvider(new PinnedEventLoop(shared.eventLoopGroupProvider()))
            .nettyCustomizer(new ConsolidatedFlushes())
            .eventExecutorGroup(shared.eventExecutorGroup())
            .timer(shared.timer())
            .eventBus(shared.eventBus())
            .commandLatencyRecorder(CommandLatencyRecorder.disabled())
            .build();
    this.client = RedisClient.create(this.resources);
    this.client.setOptions(clientOptions(options));
    // Apart from handlers, so handlers that wait (for a publish, say) never hold up its answer.
    this.completions = pool("ops-" + name + "-completion-", 2);
    String clientId = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    RedisConnector opened = null;
    try {
      opened = new RedisConnector(options, name, clientId, client, completions);
      this.connector = opened;
      this.keeper =
          ConnectionKeeper.builder(name, "Redis", connector)
              .maxMessageBytes(this::maxMessageBytes)
              .backoff(Backoff.fixed(options.reconnectWait()))
              .maxReconnects(options.maxReconnects())
              .restoreTimeout(options.commandTimeout())
              .delivery(pool("ops-" + name + "-delivery-", Math.max(4, cpus())))
              .connect();
    } catch (RuntimeException e) {
      if (opened != null) {
        opened.closeCommands();
      }
      completions.shutdownNow();
      shutDownClient();
      throw e;
    }
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
    Optional<String> problem = topicProblem(topic);
    if (problem.isPresent()) {
      return CompletableFuture.failedFuture(
          CallError.of(ErrorCode.INVALID_INPUT, "Topic \"" + topic + "\": " + problem.get()));
    }
    // Subscriptions go out on the subscriber connection and publishes on the command connection,
    // so Redis may run a publish before a SUBSCRIBE sent earlier: the keeper holds a publish made
    // while subscription changes are in flight until they are done, in order (D81).
    return keeper.publish(topic, payload);
  }

  @Override
  public Subscription subscribe(String topic, SubscribeOptions options, Consumer<Message> handler) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(handler, "handler");
    if (keeper.isClosed()) {
      throw keeper.closedError();
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
              if (RedisConnector.withoutGroups(topic)) {
                throw new IllegalArgumentException(
                    "Topic \""
                        + topic
                        + "\": refused a subscription in queue group \""
                        + g
                        + "\": callers' inboxes ("
                        + ProtocolTopics.INBOX_PREFIX
                        + "*, private ones included) and serving nodes' own topics ("
                        + ProtocolTopics.NODE_PREFIX
                        + "*) have one plain subscriber by the call protocol's rules, and the"
                        + " Redis transport publishes to them without its queue-group script,"
                        + " so a group member there would never receive (D83)");
              }
            });
    return keeper.subscribe(topic, options, handler);
  }

  /**
   * {@code ops.inbox.<token>.} with a private token ({@link RedisOptions.Builder#privateToken}),
   * {@link ProtocolTopics#INBOX_PREFIX} without.
   */
  @Override
  public String inboxPrefix() {
    return inboxPrefix;
  }

  /** The smaller of the configured limit and the server's hard pub/sub output-buffer limit. */
  @Override
  public int maxMessageBytes() {
    long serverLimit = connector.commands().pubsubHardLimit;
    return (int)
        (serverLimit > 0
            ? Math.min(options.maxMessageBytes(), serverLimit)
            : options.maxMessageBytes());
  }

  /**
   * Runs {@code action} each time the subscriber connection drops (messages to this transport's
   * subscriptions, replies to its callers' inboxes among them, may have been lost: a caller fails
   * its pending calls at once) and when the transport closes; at once if it is closed already. The
   * other connection, which publishes, dropping alone does not lose anything in flight to this
   * transport, and only refuses publishes until it is replaced.
   */
  @Override
  public Registration onDisconnect(Runnable action) {
    return keeper.onDisconnect(action);
  }

  /**
   * Waits until every subscription change made so far (subscriptions, group registrations, closed
   * subscriptions) is in effect on the server, then for a round trip on both connections.
   *
   * @throws CallError UNAVAILABLE when a connection is down or this takes longer than {@code
   *     timeout}
   */
  public void flush(Duration timeout) {
    long end = System.nanoTime() + timeout.toNanos();
    keeper.awaitChanges(timeout);
    try {
      connector.pingBoth(end);
    } catch (CallError e) {
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallError.of(ErrorCode.UNAVAILABLE, "Interrupted while flushing", e);
    } catch (Exception e) {
      throw CallError.of(
          ErrorCode.UNAVAILABLE, "Redis did not answer a flush: " + e.getMessage(), e);
    }
  }

  /** Whether both connections are up at the moment. */
  @Override
  public boolean isConnected() {
    return keeper.isConnected() && connector.commands().isUp();
  }

  /**
   * The server's client ids of this transport's two connections ({@code CLIENT LIST} names them
   * {@code <name>.cmd} and {@code <name>.sub}), while connected: for operators and fault tests.
   */
  public Optional<ClientIds> clientIds() {
    RedisConnector.Commands c = connector.commands();
    return keeper
        .connection()
        .filter(s -> c.isUp() && s.isUp())
        .map(s -> new ClientIds(c.clientId, s.clientId));
  }

  /**
   * {@inheritDoc} Published: messages written to the command connection; received: messages a
   * subscription's buffer took; dropped: {@link #stats()}'s dropped and oversized messages;
   * reconnects as in {@link #stats()}; slow-consumer events are the subscriber connection's
   * output-buffer cuts.
   */
  @Override
  public TransportStats transportStats() {
    return keeper.transportStats(connector.oversizedMessages(), connector.commandReconnects());
  }

  /** The counters of this transport since it connected. */
  public Stats stats() {
    return new Stats(
        keeper.disconnects() + connector.commandDisconnects(),
        keeper.reconnects() + connector.commandReconnects(),
        keeper.refusedPublishes(),
        connector.subscriberBacklog(),
        connector.backlogSightings(),
        connector.outputBufferCuts(),
        keeper.droppedMessages(),
        connector.oversizedMessages());
  }

  @Override
  public void close() {
    if (keeper.isClosed()) {
      return;
    }
    keeper.close();
    connector.closeCommands();
    // Closes every connection the client still has open (closing them one by one as well would
    // close them twice).
    shutDownClient();
    completions.shutdownNow();
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

  // ------------------------------------------------------------------ the client

  /**
   * Closes the client's connections and gives its loop back; the transport's own resources share
   * every component with the shared ones, so their shutdown only marks them done.
   */
  private void shutDownClient() {
    client
        .shutdownAsync(0, 2, TimeUnit.SECONDS)
        .whenComplete((ok, failed) -> resources.shutdown(0, 0, TimeUnit.SECONDS));
  }

  private static ClientResources resources() {
    synchronized (RESOURCES_LOCK) {
      // One set of event loops for every transport in the JVM, as Lettuce recommends; its threads
      // are daemons, and a transport's close never shuts them down.
      if (sharedResources == null) {
        sharedResources =
            DefaultClientResources.builder()
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(2)
                // Lettuce times every command into a histogram on the event loop whenever
                // LatencyUtils is on the class path (Micrometer brings it); nothing here reads it.
                .commandLatencyRecorder(CommandLatencyRecorder.disabled())
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

  /** The most threads each of the two pools ever has, compensating threads included (D67). */
  static final int MAX_DELIVERY_THREADS = 64;

  private static int cpus() {
    return Runtime.getRuntime().availableProcessors();
  }

  /**
   * Where work leaves Lettuce's event loop (D67): messages for handlers ({@code delivery}), and
   * publishes' and pings' answers ({@code completions}). {@code parallelism} threads, more only to
   * compensate for a thread waiting on a {@code CompletableFuture} (a handler that joins a
   * publish), and never more than {@link #MAX_DELIVERY_THREADS}; past that a waiting thread waits
   * without compensation rather than failing. Submitting never blocks (the queue is unbounded; the
   * subscriptions' mailboxes bound what is in it), so the event loop is never held up.
   */
  private static ExecutorService pool(String prefix, int parallelism) {
    AtomicInteger count = new AtomicInteger();
    ForkJoinPool.ForkJoinWorkerThreadFactory threads =
        pool -> {
          ForkJoinWorkerThread thread =
              ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
          thread.setName(prefix + count.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        };
    return new ForkJoinPool(
        parallelism,
        threads,
        null,
        true, // FIFO for tasks that are never joined
        0,
        Math.max(parallelism, MAX_DELIVERY_THREADS),
        1,
        pool -> true,
        30,
        TimeUnit.SECONDS);
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
   * @param disconnects times a connection (either of the two) dropped
   * @param reconnects times a new connection replaced a dropped one
   * @param refusedPublishes publishes refused: the connection was down or closed, or too many
   *     awaited an answer
   * @param subscriberBacklog bytes the server held for the subscriber connection at the last look
   *     (every ping: its {@code omem} in {@code CLIENT LIST}); above 0 it is falling behind
   * @param backlogSightings pings that found a backlog
   * @param outputBufferCuts times the subscriber connection dropped while the server held a backlog
   *     for it: most likely cut by {@code client-output-buffer-limit pubsub}
   * @param droppedMessages messages subscriptions lost because their buffer was full
   * @param oversizedMessages messages received larger than {@link #maxMessageBytes()}, dropped
   *     before any handler saw them
   */
  public record Stats(
      long disconnects,
      long reconnects,
      long refusedPublishes,
      long subscriberBacklog,
      long backlogSightings,
      long outputBufferCuts,
      long droppedMessages,
      long oversizedMessages) {}
}
