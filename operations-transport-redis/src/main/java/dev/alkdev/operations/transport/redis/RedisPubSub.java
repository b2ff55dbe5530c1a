package dev.alkdev.operations.transport.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.DeliveryBatch;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SerialMailbox;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.pubsub.TransportCounters;
import dev.alkdev.operations.pubsub.TransportStats;
import dev.alkdev.operations.remote.internal.ReplyFuture;
import dev.alkdev.operations.transport.redis.internal.ConsolidatedFlushes;
import dev.alkdev.operations.transport.redis.internal.Groups;
import dev.alkdev.operations.transport.redis.internal.PinnedEventLoop;
import dev.alkdev.operations.transport.redis.internal.RateLimitedWarning;
import io.lettuce.core.ClientListArgs;
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
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
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
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
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
  private final ClientResources resources; // the shared ones, with this transport's own loop
  private final RedisClient client;
  private final ExecutorService delivery;
  private final ExecutorService completions;
  private final ScheduledExecutorService control;
  private final CopyOnWriteArrayList<Runnable> disconnectActions = new CopyOnWriteArrayList<>();
  private final Set<RedisSubscription> subscriptions = ConcurrentHashMap.newKeySet();
  private final Set<CompletableFuture<?>> changesInFlight = ConcurrentHashMap.newKeySet();
  // The going-out of the last publish that waited for subscription changes (publishAfterChanges).
  private final Object gateLock = new Object();
  private volatile CompletableFuture<Void> publishGate = CompletableFuture.completedFuture(null);
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong disconnects = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong outputBufferCuts = new AtomicLong();
  // Messages and bytes out and in; drops, reconnects and cuts are the counters above and below.
  private final TransportCounters traffic = TransportCounters.create();
  private final AtomicLong droppedByClosedSubscriptions = new AtomicLong();
  private final AtomicLong oversizedMessages = new AtomicLong();
  private final RateLimitedWarning oversizedWarning = new RateLimitedWarning(LOG, WARNING_INTERVAL);
  private final AtomicInteger generations = new AtomicInteger();
  private final AtomicInteger subscriptionNumbers = new AtomicInteger();
  private final AtomicInteger pings = new AtomicInteger();
  private final RateLimitedWarning slowWarning = new RateLimitedWarning(LOG, WARNING_INTERVAL);
  private final Object lock = new Object(); // channel changes and connection replacement
  // The two connections, each replaced by a new one when it drops (never revived in place).
  private volatile Commands commands;
  private volatile Subscriber subscriber;
  // What the server held for the subscriber connection at the last look (CLIENT LIST omem).
  private volatile long subscriberBacklog;
  private volatile Thread controlThread;
  private final AtomicLong backlogSightings = new AtomicLong();

  private RedisPubSub(RedisOptions options) {
    this.options = options;
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
    this.delivery = pool("ops-" + name + "-delivery-", Math.max(4, cpus()));
    // Apart from handlers, so handlers that wait (for a publish, say) never hold up its answer.
    this.completions = pool("ops-" + name + "-completion-", 2);
    ThreadFactory controlThreads = daemonThreads("ops-" + name + "-control-");
    this.control =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = controlThreads.newThread(r);
              controlThread = t;
              return t;
            });
    try {
      this.commands = openCommands();
      this.subscriber = openSubscriber();
      this.subscriber.ready = true; // nothing to restore
    } catch (RuntimeException e) {
      if (commands != null) {
        commands.close();
      }
      control.shutdownNow();
      delivery.shutdownNow();
      completions.shutdownNow();
      shutDownClient();
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
    Commands current = commands;
    if (!current.isUp() || !subscriber.isReady()) {
      // Also while the subscriber connection is down or its subscriptions are being restored: a
      // request published now would have its reply sent to an inbox nobody hears yet.
      return refuse(topic);
    }
    // Counted once per publish, though the script may be run again with the topic's groups.
    traffic.published(payload.length);
    List<String> groups = knownGroups.getOrDefault(topic, List.of());
    CompletableFuture<Integer> sent;
    CompletableFuture<Void> gate = publishGate;
    if (changesInFlight.isEmpty() && gate.isDone()) {
      sent = publishOnce(current, topic, payload, groups);
    } else {
      sent = publishAfterChanges(current, topic, payload, groups);
    }
    // Whoever waits on a publish must never run on the event loop: the answer is delivered to a
    // reply future, whose dependents run on the reply lane, one wake-up per run of answers (D86),
    // and whose waiter in get() completes it on its own thread.
    ReplyFuture<Integer> result = new ReplyFuture<>();
    sent.whenComplete(
        (count, failure) ->
            EventLoopRuns.deliver(
                () -> {
                  if (failure != null) {
                    result.deliverError(publishFailure(topic, failure));
                  } else {
                    result.deliver(count);
                  }
                }));
    result.publish();
    return result;
  }

  /**
   * Subscriptions go out on the subscriber connection and publishes on the command connection, so
   * Redis may run a publish before a SUBSCRIBE sent earlier: an answer to that publish (a node's
   * hello to a new catalog's inbox, a call's reply) would reach an inbox Redis does not deliver to
   * yet, and be lost. So a publish made while subscription changes are in flight waits for them (a
   * round trip, only right after a subscribe: at steady state none are), and so does every publish
   * after it until it has gone out, which keeps one publisher's messages in order. NATS keeps this
   * order with one connection; the WebSocket spoke by confirming each subscribe.
   */
  private CompletableFuture<Integer> publishAfterChanges(
      Commands current, String topic, byte[] payload, List<String> groups) {
    CompletableFuture<Void> dispatched = new CompletableFuture<>();
    CompletableFuture<?> before;
    synchronized (gateLock) {
      List<CompletableFuture<?>> waits = new ArrayList<>(changesInFlight);
      waits.add(publishGate);
      before = CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new));
      publishGate = dispatched;
    }
    return before
        .handle((ok, failed) -> null) // a failed change: its connection's successor redoes it
        .thenCompose(
            ignored -> {
              try {
                return publishOnce(current, topic, payload, groups);
              } finally {
                dispatched.complete(null); // sent (or failed): later publishes may go
              }
            });
  }

  /**
   * Runs the publish script with the members lists of {@code groups} in KEYS. The script delivers
   * whether or not they are the topic's groups, so messages go out in the order they were published
   * (D85); when they were not, its answer names the topic's groups and this remembers them for the
   * next publish. A topic that cannot have groups goes out as a plain PUBLISH (D83): its answer is
   * what the script's first branch would have returned.
   */
  private CompletableFuture<Integer> publishOnce(
      Commands current, String topic, byte[] payload, List<String> groups) {
    if (withoutGroups(topic)) {
      return current.publish(topic.getBytes(UTF_8), payload).thenApply(Long::intValue);
    }
    byte[][] keys = new byte[groups.size() + 1][];
    byte[][] args = new byte[groups.size() + 2][];
    keys[0] = Groups.groupsKey(topic).getBytes(UTF_8);
    args[0] = topic.getBytes(UTF_8);
    args[1] = payload;
    for (int i = 0; i < groups.size(); i++) {
      keys[i + 1] = Groups.membersKey(groups.get(i), topic).getBytes(UTF_8);
      args[i + 2] = groups.get(i).getBytes(UTF_8);
    }
    return current
        .<List<Object>>eval(current.publishSha, Groups.PUBLISH, ScriptOutputType.MULTI, keys, args)
        .thenApply(
            answer -> {
              if (answer.size() > 1) {
                List<String> actual = new ArrayList<>(answer.size() - 2);
                for (Object group : answer.subList(2, answer.size())) {
                  actual.add(new String((byte[]) group, UTF_8));
                }
                rememberGroups(topic, actual);
              }
              return ((Long) answer.get(0)).intValue();
            });
  }

  /** The queue groups last seen per topic (only topics that have any), bounded. */
  private final ConcurrentHashMap<String, List<String>> knownGroups = new ConcurrentHashMap<>();

  private static final int MAX_KNOWN_GROUP_TOPICS = 10_000;

  private void rememberGroups(String topic, List<String> groups) {
    if (groups.isEmpty()) {
      knownGroups.remove(topic);
      return;
    }
    if (knownGroups.size() >= MAX_KNOWN_GROUP_TOPICS) {
      knownGroups.clear(); // a cache: the script tells a publisher what it misses
    }
    knownGroups.put(topic, List.copyOf(groups));
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
              if (withoutGroups(topic)) {
                throw new IllegalArgumentException(
                    "Topic \""
                        + topic
                        + "\": refused a subscription in queue group \""
                        + g
                        + "\": callers' inboxes ("
                        + ProtocolTopics.INBOX_PREFIX
                        + "*) and serving nodes' own topics ("
                        + ProtocolTopics.NODE_PREFIX
                        + "*) have one plain subscriber by the call protocol's rules, and the"
                        + " Redis transport publishes to them without its queue-group script,"
                        + " so a group member there would never receive (D83)");
              }
            });
    RedisSubscription subscription = new RedisSubscription(topic, options, handler);
    synchronized (lock) {
      subscriptions.add(subscription);
      subscription.attach(subscriber);
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
    long serverLimit = commands.pubsubHardLimit;
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
   * Runs {@code action} each time the subscriber connection drops (messages to this transport's
   * subscriptions, replies to its callers' inboxes among them, may have been lost: a caller fails
   * its pending calls at once) and when the transport closes; at once if it is closed already. The
   * other connection, which publishes, dropping alone does not lose anything in flight to this
   * transport, and only refuses publishes until it is replaced.
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
   * @throws CallError UNAVAILABLE when a connection is down or this takes longer than {@code
   *     timeout}
   */
  public void flush(Duration timeout) {
    long end = System.nanoTime() + timeout.toNanos();
    try {
      for (CompletableFuture<?> change : List.copyOf(changesInFlight)) {
        change.get(left(end), TimeUnit.NANOSECONDS);
      }
      subscriber
          .connection
          .async()
          .ping()
          .toCompletableFuture()
          .get(left(end), TimeUnit.NANOSECONDS);
      commands.connection.async().ping().toCompletableFuture().get(left(end), TimeUnit.NANOSECONDS);
    } catch (TimeoutException | ExecutionException | RuntimeException e) {
      throw CallError.of(
          ErrorCode.UNAVAILABLE, "Redis did not answer a flush: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallError.of(ErrorCode.UNAVAILABLE, "Interrupted while flushing", e);
    }
  }

  private static long left(long end) {
    return Math.max(0, end - System.nanoTime());
  }

  /** Whether both connections are up at the moment. */
  public boolean isConnected() {
    return !closed.get() && commands.isUp() && subscriber.isReady();
  }

  /**
   * The server's client ids of this transport's two connections ({@code CLIENT LIST} names them
   * {@code <name>.cmd} and {@code <name>.sub}), while connected: for operators and fault tests.
   */
  public Optional<ClientIds> clientIds() {
    Commands c = commands;
    Subscriber s = subscriber;
    return c.isUp() && s.isUp() && !closed.get()
        ? Optional.of(new ClientIds(c.clientId, s.clientId))
        : Optional.empty();
  }

  /**
   * {@inheritDoc} Published: messages written to the command connection; received: messages a
   * subscription's buffer took; dropped: {@link #stats()}'s dropped and oversized messages;
   * reconnects as in {@link #stats()}; slow-consumer events are the subscriber connection's
   * output-buffer cuts.
   */
  @Override
  public TransportStats transportStats() {
    TransportStats t = traffic.snapshot();
    Stats s = stats();
    return new TransportStats(
        t.published(),
        t.publishedBytes(),
        t.received(),
        t.receivedBytes(),
        s.droppedMessages() + s.oversizedMessages(),
        s.reconnects(),
        s.outputBufferCuts());
  }

  /** The counters of this transport since it connected. */
  public Stats stats() {
    long dropped = droppedByClosedSubscriptions.get();
    for (RedisSubscription subscription : subscriptions) {
      dropped += subscription.dropped();
    }
    return new Stats(
        disconnects.get(),
        reconnects.get(),
        refused.get(),
        subscriberBacklog,
        backlogSightings.get(),
        outputBufferCuts.get(),
        dropped,
        oversizedMessages.get());
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    Commands lastCommands = commands;
    Subscriber lastSubscriber = subscriber;
    for (RedisSubscription subscription : subscriptions) {
      subscription.mailbox.close();
    }
    // Best effort, briefly: take this transport's group members out so publishers stop choosing
    // them (they would otherwise learn it from a PUBLISH that reaches nobody).
    if (lastCommands.isUp()) {
      List<CompletableFuture<?>> leaving = new ArrayList<>();
      for (RedisSubscription subscription : subscriptions) {
        subscription.unregister(lastCommands).ifPresent(leaving::add);
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
    lastCommands.markDown();
    lastSubscriber.markDown();
    runDisconnectActions();
    control.shutdownNow();
    if (Thread.currentThread() != controlThread) {
      // A connection attempt under way finishes first (it sees the transport closed and closes
      // what it opened), rather than failing half-way on an event loop shut down under it.
      try {
        control.awaitTermination(options.connectTimeout().toMillis() + 500, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    // Closes every connection the client still has open (closing them one by one as well would
    // close them twice).
    shutDownClient();
    delivery.shutdownNow();
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

  // ------------------------------------------------------------------ the connections

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

  private String baseName() {
    return options.connectionName().orElse("ops-" + clientId);
  }

  /** Opens the command connection: refuses a Cluster node, loads the scripts, reads limits. */
  private Commands openCommands() {
    Commands fresh = new Commands();
    try {
      fresh.connection =
          client.connect(ByteArrayCodec.INSTANCE, options.toUri(baseName() + ".cmd"));
      fresh.connection.addListener(new Watch(() -> lostCommands(fresh, "connection closed")));
      var sync = fresh.connection.sync();
      String info = sync.info("cluster");
      if (info != null && info.contains("cluster_enabled:1")) {
        throw CallError.of(
            ErrorCode.INVALID_INPUT,
            "Redis at "
                + options.displayUrl()
                + " is a Redis Cluster node: not supported (pub/sub messages and the queue-group"
                + " registry would be spread over the cluster's slots; see docs/redis.md). Use a"
                + " standalone server or Sentinel.");
      }
      fresh.clientId = sync.clientId();
      fresh.publishSha = sync.scriptLoad(Groups.PUBLISH);
      fresh.registerSha = sync.scriptLoad(Groups.REGISTER);
      fresh.unregisterSha = sync.scriptLoad(Groups.UNREGISTER);
      fresh.pubsubHardLimit = pubsubHardLimit(fresh);
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

  /** Opens the subscriber connection (its subscriptions are attached by the caller). */
  private Subscriber openSubscriber() {
    Subscriber fresh = new Subscriber(generations.incrementAndGet());
    try {
      fresh.connection =
          client.connectPubSub(ByteArrayCodec.INSTANCE, options.toUri(baseName() + ".sub"));
      fresh.connection.addListener(new Watch(() -> lostSubscriber(fresh, "connection closed")));
      fresh.clientId = fresh.connection.sync().clientId();
      fresh.connection.addListener(new Receiver(fresh));
      return fresh;
    } catch (RuntimeException e) {
      fresh.close();
      throw CallError.of(
          ErrorCode.UNAVAILABLE,
          "Cannot connect to Redis at " + options.displayUrl() + ": " + e.getMessage(),
          e);
    }
  }

  /** The hard {@code client-output-buffer-limit} of pub/sub clients, 0 when none or unknown. */
  private long pubsubHardLimit(Commands fresh) {
    try {
      Map<String, String> config = fresh.connection.sync().configGet("client-output-buffer-limit");
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

  /** The subscriber connection dropped: tell everyone, then replace it. */
  private void lostSubscriber(Subscriber source, String why) {
    if (closed.get() || source != subscriber || !source.markDown()) {
      return; // an old connection's late event, or told already
    }
    disconnects.incrementAndGet();
    long backlog = subscriberBacklog;
    subscriberBacklog = 0;
    if (backlog > 0) {
      // A healthy subscriber's backlog on the server is 0 at almost every look: one that was
      // behind when its connection dropped was most likely cut by client-output-buffer-limit.
      outputBufferCuts.incrementAndGet();
      LOG.warn(
          "{}: the Redis subscriber connection dropped ({}) while the server held {} bytes for it"
              + " (pub/sub hard limit {}): most likely cut by client-output-buffer-limit, its"
              + " subscriptions read slower than their messages arrive; messages in flight to it"
              + " are lost",
          name,
          why,
          backlog,
          commands.pubsubHardLimit);
    } else {
      LOG.warn(
          "{}: the Redis subscriber connection dropped ({}); messages in flight to it are lost",
          name,
          why);
    }
    runDisconnectActions();
    schedule(source::close, Duration.ZERO);
    schedule(() -> replaceSubscriber(1), Duration.ZERO); // then every reconnectWait
  }

  /** The command connection dropped: publishes are refused until it is replaced. */
  private void lostCommands(Commands source, String why) {
    if (closed.get() || source != commands || !source.markDown()) {
      return;
    }
    disconnects.incrementAndGet();
    LOG.warn(
        "{}: the Redis command connection dropped ({}); publishes are refused until it is back",
        name,
        why);
    schedule(source::close, Duration.ZERO);
    schedule(() -> replaceCommands(1), Duration.ZERO); // then every reconnectWait
  }

  private void replaceSubscriber(int attempt) {
    if (closed.get()) {
      return;
    }
    if (!commands.isUp()) {
      // Subscribed only once it can answer: a node would otherwise take requests whose replies it
      // cannot publish, and its callers would wait for their deadlines.
      schedule(() -> replaceSubscriber(attempt), options.reconnectWait());
      return;
    }
    Subscriber fresh;
    try {
      fresh = openSubscriber();
    } catch (RuntimeException e) {
      retryOrGiveUp(attempt, e, () -> replaceSubscriber(attempt + 1));
      return;
    }
    Subscriber old;
    synchronized (lock) {
      if (closed.get()) {
        fresh.close();
        return;
      }
      old = subscriber;
      subscriber = fresh;
      List<CompletableFuture<?>> restoring = new ArrayList<>();
      for (RedisSubscription subscription : subscriptions) {
        subscription.attach(fresh).ifPresent(restoring::add);
      }
      // Publishes wait for the subscriptions (callers' inboxes among them) to be back.
      CompletableFuture.allOf(restoring.toArray(CompletableFuture[]::new))
          .orTimeout(options.commandTimeout().toMillis(), TimeUnit.MILLISECONDS)
          .whenCompleteAsync(
              (ok, failure) -> {
                if (failure == null) {
                  fresh.ready = true;
                } else {
                  lostSubscriber(
                      fresh, "restoring its subscriptions failed: " + rootMessage(failure));
                }
              },
              control);
    }
    Commands current = commands;
    for (RedisSubscription subscription : subscriptions) {
      subscription.forgetChannelOf(old, current);
    }
    reconnects.incrementAndGet();
    LOG.info("{}: new subscriber connection with {} subscriptions", name, subscriptions.size());
  }

  private void replaceCommands(int attempt) {
    if (closed.get()) {
      return;
    }
    Commands fresh;
    try {
      fresh = openCommands();
    } catch (RuntimeException e) {
      retryOrGiveUp(attempt, e, () -> replaceCommands(attempt + 1));
      return;
    }
    synchronized (lock) {
      if (closed.get()) {
        fresh.close();
        return;
      }
      commands = fresh;
    }
    // The server may be a new one (restarted, or a failover): the group registry may be gone.
    for (RedisSubscription subscription : subscriptions) {
      subscription.register(fresh);
    }
    reconnects.incrementAndGet();
    LOG.info("{}: new command connection", name);
  }

  private void retryOrGiveUp(int attempt, RuntimeException e, Runnable retry) {
    if (options.maxReconnects() >= 0 && attempt >= options.maxReconnects()) {
      LOG.error("{}: gave up reconnecting to Redis after {} attempts", name, attempt, e);
      close();
    } else {
      LOG.debug("{}: reconnection attempt {} failed", name, attempt, e);
      schedule(retry, options.reconnectWait());
    }
  }

  /**
   * Pings both connections; one that does not answer within the command timeout counts as dropped
   * (a silent network). Renews group registrations about five times per lifetime.
   */
  private void ping() {
    if (closed.get()) {
      return;
    }
    Commands c = commands;
    Subscriber s = subscriber;
    if (c.isUp()) {
      c.connection
          .async()
          .ping()
          .toCompletableFuture()
          .orTimeout(options.commandTimeout().toMillis(), TimeUnit.MILLISECONDS)
          .whenCompleteAsync(
              (ok, failure) -> {
                if (failure != null) {
                  lostCommands(c, "no answer to a ping: " + rootMessage(failure));
                }
              },
              completions);
    }
    if (s.isUp()) {
      s.connection
          .async()
          .ping()
          .toCompletableFuture()
          .orTimeout(options.commandTimeout().toMillis(), TimeUnit.MILLISECONDS)
          .whenCompleteAsync(
              (ok, failure) -> {
                if (failure != null) {
                  lostSubscriber(s, "no answer to a ping: " + rootMessage(failure));
                }
              },
              completions);
    }
    if (c.isUp() && s.isUp()) {
      c.connection
          .async()
          .clientList(ClientListArgs.Builder.ids(s.clientId))
          .thenAcceptAsync(list -> noteBacklog(s, list), completions); // it may log
    }
    long renewEvery =
        Math.max(1, REGISTRATION_TTL.toNanos() / 5 / options.pingInterval().toNanos());
    if (pings.incrementAndGet() % renewEvery == 0 && c.isUp()) {
      for (RedisSubscription subscription : subscriptions) {
        subscription.register(c);
      }
    }
  }

  /** Reads {@code omem} (bytes the server holds for the client) from a CLIENT LIST line. */
  private void noteBacklog(Subscriber s, String clientList) {
    if (s != subscriber || clientList == null) {
      return;
    }
    int at = clientList.indexOf(" omem=");
    if (at < 0) {
      return;
    }
    int end = clientList.indexOf(' ', at + 6);
    try {
      long omem =
          Long.parseLong(clientList.substring(at + 6, end < 0 ? clientList.length() : end).trim());
      subscriberBacklog = omem;
      if (omem > 0) {
        backlogSightings.incrementAndGet();
        slowWarning.warn(
            "{}: Redis holds {} bytes for the subscriber connection (pub/sub hard limit {}): its"
                + " subscriptions read slower than their messages arrive",
            name,
            omem,
            commands.pubsubHardLimit);
      }
    } catch (NumberFormatException e) {
      LOG.debug("{}: unreadable CLIENT LIST line {}", name, clientList);
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

  /**
   * Whether {@code topic} is one the call protocol never gives queue groups: a caller's inbox (only
   * the caller subscribes) or a serving node's own topic (only that node subscribes). These carry
   * every reply and every discovery-routed request, so they skip the publish script: a plain
   * PUBLISH takes the server about 0.2 us against 2.5 or more for the script (D83). Decided by
   * prefix, so the rule holds for names {@link ProtocolTopics#isInbox} would not accept as well:
   * one rule, one test of it.
   */
  private static boolean withoutGroups(String topic) {
    return topic.startsWith(ProtocolTopics.INBOX_PREFIX)
        || topic.startsWith(ProtocolTopics.NODE_PREFIX);
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

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** The connection that publishes and keeps the group registry. */
  private static final class Commands {
    final AtomicBoolean down = new AtomicBoolean();
    volatile StatefulRedisConnection<byte[], byte[]> connection;
    volatile String publishSha;
    volatile String registerSha;
    volatile String unregisterSha;
    volatile long pubsubHardLimit;
    volatile long clientId;

    boolean isUp() {
      return !down.get() && connection != null && connection.isOpen();
    }

    /** True the first time only. */
    boolean markDown() {
      return down.compareAndSet(false, true);
    }

    /** PUBLISH: its answer is the number of connections subscribed to {@code channel}. */
    CompletableFuture<Long> publish(byte[] channel, byte[] payload) {
      return connection.async().publish(channel, payload).toCompletableFuture();
    }

    /** EVALSHA, and EVAL when the server lost the script (SCRIPT FLUSH). */
    CompletableFuture<Long> eval(String sha, String script, byte[][] keys, byte[]... args) {
      return eval(sha, script, ScriptOutputType.INTEGER, keys, args);
    }

    <T> CompletableFuture<T> eval(
        String sha, String script, ScriptOutputType type, byte[][] keys, byte[]... args) {
      CompletableFuture<T> first =
          connection.async().<T>evalsha(sha, type, keys, args).toCompletableFuture();
      return first.exceptionallyCompose(
          failure -> {
            Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
            if (cause instanceof RedisNoScriptException) {
              return connection
                  .async()
                  .<T>eval(script.getBytes(UTF_8), type, keys, args)
                  .toCompletableFuture();
            }
            return CompletableFuture.failedFuture(failure);
          });
    }

    void close() {
      markDown();
      if (connection != null) {
        connection.closeAsync();
      }
    }
  }

  /** The connection that receives; a new one gets a new generation (new member channels). */
  private static final class Subscriber {
    final int generation;
    final AtomicBoolean down = new AtomicBoolean();

    /** Channels subscribed on this connection, and who receives from each. */
    final Map<String, List<RedisSubscription>> channels = new ConcurrentHashMap<>();

    volatile StatefulRedisPubSubConnection<byte[], byte[]> connection;
    volatile long clientId;
    volatile boolean ready; // its subscriptions are restored

    Subscriber(int generation) {
      this.generation = generation;
    }

    boolean isUp() {
      return !down.get() && connection != null && connection.isOpen();
    }

    boolean isReady() {
      return ready && isUp();
    }

    boolean markDown() {
      return down.compareAndSet(false, true);
    }

    void close() {
      markDown();
      if (connection != null) {
        connection.closeAsync();
      }
    }
  }

  /** Tells the transport when a connection closes (on the event loop: hands over at once). */
  private final class Watch implements RedisConnectionStateListener {
    private final Runnable onLost;

    Watch(Runnable onLost) {
      this.onLost = onLost;
    }

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
      try {
        control.execute(onLost); // the disconnect actions run callers' code
      } catch (RejectedExecutionException closing) {
        // the transport is closing
      }
    }
  }

  /**
   * Runs of deliveries on Lettuce's event loops (D86): the messages and command answers of one read
   * are handed over back to back on the event loop, and a task queued on it runs once they all are
   * and ends the run, so the replies among them wake the reply lane once.
   */
  private static final class EventLoopRuns {
    // Per event loop thread: whether its run's end is queued.
    private static final ThreadLocal<boolean[]> END_QUEUED =
        ThreadLocal.withInitial(() -> new boolean[1]);
    private static final Runnable END =
        () -> {
          END_QUEUED.get()[0] = false;
          DeliveryBatch.endRun();
        };

    private EventLoopRuns() {}

    /** Runs {@code delivery} as part of this read's run on an event loop, else just runs it. */
    static void deliver(Runnable delivery) {
      boolean[] endQueued = END_QUEUED.get();
      if (!endQueued[0]) {
        EventExecutor loop = ThreadExecutorMap.currentExecutor();
        if (loop == null) {
          delivery.run(); // not on an event loop (a publish that failed before it was sent)
          return;
        }
        try {
          loop.execute(END);
        } catch (RejectedExecutionException shuttingDown) {
          delivery.run();
          return;
        }
        endQueued[0] = true;
      }
      DeliveryBatch.deliver(delivery, true);
    }
  }

  /** Hands each message off the event loop into its subscriptions' mailboxes. */
  private final class Receiver extends RedisPubSubAdapter<byte[], byte[]> {
    private final Subscriber source;

    Receiver(Subscriber source) {
      this.source = source;
    }

    @Override
    public void message(byte[] channel, byte[] message) {
      if (source != subscriber) {
        return; // a replaced connection: its subscriptions live on the new one
      }
      List<RedisSubscription> receivers = source.channels.get(new String(channel, UTF_8));
      if (receivers == null) {
        return;
      }
      // Any client of the server can publish to a channel: what this transport would refuse to
      // send, it does not hand to its handlers either.
      int limit = maxMessageBytes();
      if (message != null && message.length > limit) {
        oversizedMessages.incrementAndGet();
        oversizedWarning.warn(
            "{}: dropped a message of {} bytes on {}, larger than the limit of {} bytes",
            RedisPubSub.this,
            message.length,
            new String(channel, UTF_8),
            limit);
        return;
      }
      byte[] payload = message == null ? new byte[0] : message;
      EventLoopRuns.deliver(
          () -> {
            for (RedisSubscription receiver : receivers) {
              receiver.offer(payload);
            }
          });
    }
  }

  /**
   * One subscription. A plain one listens on its topic's channel (shared with this transport's
   * other plain subscriptions of the topic: Redis subscribes a connection once); a queue-group
   * member listens on a private channel, new on each subscriber connection, registered in the
   * group's list through the command connection.
   */
  private final class RedisSubscription implements Subscription {
    private final String topic;
    private final Optional<String> group;
    private final int number = subscriptionNumbers.incrementAndGet();
    private final SerialMailbox mailbox;
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile String channel; // on the current subscriber connection
    private volatile Subscriber attachedTo;

    RedisSubscription(String topic, SubscribeOptions options, Consumer<Message> handler) {
      this.topic = topic;
      this.group = options.queueGroup();
      // A handler that promised never to block (SubscribeOptions.withNonBlockingHandler: the call
      // protocol's serving side) starts on Lettuce's event loop, saving a hand-off per message
      // (D74). Inline without a depth bound: only the event loop offers, and a handler running on
      // it cannot make it offer again before returning (a publish goes to the server and back), so
      // these runs never nest; a busy mailbox still yields to the delivery pool after a batch.
      this.mailbox =
          options.nonBlockingHandler()
              ? SerialMailbox.create(
                  options.bufferSize(), options.overflow(), delivery, Runnable::run, handler)
              : SerialMailbox.create(options.bufferSize(), options.overflow(), delivery, handler);
    }

    private String channelOn(Subscriber target) {
      return group.isPresent()
          ? Groups.MEMBER_CHANNEL_PREFIX + clientId + "." + target.generation + "." + number
          : topic;
    }

    /** Subscribes on {@code target} (under the transport's lock); the change, if one was sent. */
    Optional<CompletableFuture<?>> attach(Subscriber target) {
      if (ended.get() || attachedTo == target) {
        return Optional.empty();
      }
      attachedTo = target;
      channel = channelOn(target);
      List<RedisSubscription> receivers =
          target.channels.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>());
      boolean first = receivers.isEmpty();
      receivers.add(this);
      if (!first || !target.isUp()) {
        return Optional.empty(); // subscribed already, or the next connection subscribes it
      }
      CompletableFuture<?> change =
          target.connection.async().subscribe(channel.getBytes(UTF_8)).toCompletableFuture();
      if (group.isPresent()) {
        // Registered only once the server delivers to the channel, or a publisher could pick a
        // member that hears nothing yet (and remove it).
        change =
            change.thenCompose(
                ok -> {
                  Commands current = commands;
                  return current.isUp()
                      ? registration(current)
                      : CompletableFuture.completedFuture(0L); // a new one registers all
                });
      }
      track(change);
      return Optional.of(change);
    }

    /** Takes the member channel of the replaced connection {@code old} out of the group. */
    void forgetChannelOf(Subscriber old, Commands current) {
      if (group.isEmpty() || old == null || ended.get() || !current.isUp()) {
        return;
      }
      track(
          current.eval(
              current.unregisterSha,
              Groups.UNREGISTER,
              groupKeys(),
              group.get().getBytes(UTF_8),
              channelOn(old).getBytes(UTF_8)));
    }

    /** Registers (again) this member's current channel, if it is a live member. */
    void register(Commands current) {
      Subscriber target = attachedTo;
      if (group.isEmpty() || ended.get() || target == null || !target.isUp()) {
        return;
      }
      track(registration(current));
    }

    private CompletableFuture<Long> registration(Commands current) {
      return current.eval(
          current.registerSha,
          Groups.REGISTER,
          groupKeys(),
          group.get().getBytes(UTF_8),
          channel.getBytes(UTF_8),
          String.valueOf(REGISTRATION_TTL.toMillis()).getBytes(UTF_8));
    }

    /** Takes this member out of its group's list, if it is a member. */
    Optional<CompletableFuture<?>> unregister(Commands current) {
      if (group.isEmpty() || attachedTo == null || !current.isUp()) {
        return Optional.empty();
      }
      return Optional.of(
          current.eval(
              current.unregisterSha,
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
              // A connection dropped meanwhile: its replacement subscribes or registers again.
              LOG.debug("{}: a subscription change for {} failed", name, topic, failure);
            }
          });
    }

    void offer(byte[] payload) {
      SerialMailbox.Outcome outcome = mailbox.offer(new Message(topic, payload, Optional.empty()));
      if (outcome == SerialMailbox.Outcome.ACCEPTED) {
        traffic.received(payload.length);
      }
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
        Subscriber target = attachedTo;
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
        CompletableFuture<?> change = CompletableFuture.completedFuture(null);
        Commands current = commands;
        if (group.isPresent() && current.isUp()) {
          change =
              current.eval(
                  current.unregisterSha,
                  Groups.UNREGISTER,
                  groupKeys(),
                  group.get().getBytes(UTF_8),
                  channel.getBytes(UTF_8));
        }
        if ((receivers == null || receivers.isEmpty()) && target.isUp()) {
          String gone = channel;
          change =
              change.thenCompose(
                  ok ->
                      target
                          .connection
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
