package dev.alkdev.operations.transport.redis;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.Message;
import dev.alkdev.operations.remote.internal.Failures;
import dev.alkdev.operations.remote.internal.ReplyFuture;
import dev.alkdev.operations.transport.kit.ConnectionKeeper;
import dev.alkdev.operations.transport.kit.Connector;
import dev.alkdev.operations.transport.kit.TransportSubscription;
import dev.alkdev.operations.transport.redis.internal.Groups;
import io.lettuce.core.ClientListArgs;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redis's side of the transport kit. The kit keeps the subscriber connection, whose loss loses
 * messages; this keeps the command connection as well (it publishes and holds the queue-group
 * registry, and is replaced on its own when it drops), and the groups' registrations in step with
 * both (docs/redis.md, D28, D29).
 */
final class RedisConnector implements Connector<RedisConnector.Subscriber> {
  private static final Logger LOG = LoggerFactory.getLogger(RedisConnector.class);

  /** Group registrations live this long unless renewed (every few pings). */
  static final Duration REGISTRATION_TTL = Duration.ofSeconds(60);

  private final RedisOptions options;
  private final String name;
  private final String clientId;
  private final RedisClient client;
  private final ExecutorService completions;
  private final AtomicInteger generations = new AtomicInteger();
  private final AtomicInteger pings = new AtomicInteger();
  private final AtomicLong commandDisconnects = new AtomicLong();
  private final AtomicLong commandReconnects = new AtomicLong();
  private final AtomicLong backlogSightings = new AtomicLong();
  private final AtomicLong outputBufferCuts = new AtomicLong();
  private final AtomicLong oversizedMessages = new AtomicLong();
  // What the server held for the subscriber connection at the last look (CLIENT LIST omem).
  private volatile long subscriberBacklog;
  private volatile Commands commands;
  private volatile ConnectionKeeper<Subscriber> keeper;

  RedisConnector(
      RedisOptions options,
      String name,
      String clientId,
      RedisClient client,
      ExecutorService completions) {
    this.options = options;
    this.name = name;
    this.clientId = clientId;
    this.client = client;
    this.completions = completions;
    this.commands = openCommands();
  }

  @Override
  public void keptBy(ConnectionKeeper<Subscriber> keeper) {
    this.keeper = keeper;
    keeper.every(options.pingInterval(), this::ping);
  }

  Commands commands() {
    return commands;
  }

  // ------------------------------------------------------------------ the subscriber connection

  /** Opens the subscriber connection, once the command connection can answer what it receives. */
  @Override
  public Subscriber connect() {
    if (!commands.isUp()) {
      // Subscribed only once it can answer: a node would otherwise take requests whose replies it
      // cannot publish, and its callers would wait for their deadlines.
      throw CallError.of(ErrorCode.UNAVAILABLE, "The Redis command connection is down");
    }
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

  /**
   * A plain subscription listens on its topic's channel (shared with the other plain subscriptions
   * of the topic: Redis subscribes a connection once); a queue-group member on a private channel,
   * new on each subscriber connection, registered in the group's list once the server delivers to
   * it (or a publisher could pick a member that hears nothing yet, and remove it).
   */
  @Override
  public CompletableFuture<Void> attach(
      Subscriber target, TransportSubscription<Subscriber> subscription) {
    String channel = channelOn(target, subscription);
    CompletableFuture<Void> subscribed;
    synchronized (target) {
      List<TransportSubscription<Subscriber>> receivers =
          target.channels.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>());
      receivers.add(subscription);
      subscribed =
          target.subscribed.computeIfAbsent(
              channel,
              c ->
                  target.isUp()
                      ? target
                          .connection
                          .async()
                          .subscribe(c.getBytes(UTF_8))
                          .toCompletableFuture()
                          .thenApply(ok -> (Void) null)
                          // Refused by the ACL: the keeper ends the subscription and says so;
                          // any other failure is the connection going.
                          .exceptionallyCompose(
                              failure ->
                                  CompletableFuture.failedFuture(
                                      aclRefusal(failure, "the subscription to " + c)
                                          .map(Throwable.class::cast)
                                          .orElse(failure)))
                      : CompletableFuture.failedFuture(
                          CallError.of(
                              ErrorCode.UNAVAILABLE, "The subscriber connection is down")));
    }
    if (subscription.queueGroup().isEmpty()) {
      return subscribed;
    }
    return subscribed.thenCompose(
        ok -> {
          Commands current = commands;
          return current.isUp()
              ? register(current, subscription, channel).thenApply(n -> (Void) null)
              : CompletableFuture.completedFuture(null); // a new one registers all
        });
  }

  @Override
  public CompletableFuture<Void> detach(
      Subscriber target, TransportSubscription<Subscriber> subscription) {
    String channel = channelOn(target, subscription);
    boolean last;
    synchronized (target) {
      List<TransportSubscription<Subscriber>> receivers = target.channels.get(channel);
      if (receivers == null || !receivers.remove(subscription)) {
        return CompletableFuture.completedFuture(null);
      }
      last = receivers.isEmpty();
      if (last) {
        target.channels.remove(channel);
        target.subscribed.remove(channel);
      }
    }
    CompletableFuture<?> change = CompletableFuture.completedFuture(null);
    Commands current = commands;
    if (subscription.queueGroup().isPresent() && current.isUp()) {
      change = unregister(current, subscription, channel);
    }
    if (last && target.isUp()) {
      change =
          change.thenCompose(
              ok ->
                  target
                      .connection
                      .async()
                      .unsubscribe(channel.getBytes(UTF_8))
                      .toCompletableFuture());
    }
    return change.thenApply(ok -> (Void) null);
  }

  /**
   * Runs the publish script on the command connection (a plain PUBLISH for a topic without groups).
   * Whoever waits on a publish must never run on the event loop: the answer is delivered to a reply
   * future, whose dependents run on the reply lane, one wake-up per run of answers (D86), and whose
   * waiter in get() completes it on its own thread.
   */
  @Override
  public CompletableFuture<Integer> publish(Subscriber target, String topic, byte[] payload) {
    Commands current = commands;
    if (!current.isUp()) {
      throw new IllegalStateException("the command connection is down");
    }
    List<String> groups = knownGroups.getOrDefault(topic, List.of());
    CompletableFuture<Integer> sent = publishOnce(current, topic, payload, groups);
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

  @Override
  public boolean isOpen(Subscriber target) {
    return target.isUp();
  }

  @Override
  public void dropped(Subscriber target, CallError why) {
    target.markDown();
  }

  /**
   * Best effort, briefly: takes this transport's group members out so that publishers stop choosing
   * them (they would otherwise learn it from a publish that reaches nobody).
   */
  @Override
  public void closing(Subscriber last) {
    Commands current = commands;
    if (!current.isUp()) {
      return;
    }
    List<CompletableFuture<?>> leaving = new ArrayList<>();
    for (TransportSubscription<Subscriber> subscription : keeper.subscriptions()) {
      if (subscription.queueGroup().isPresent() && subscription.isAttachedTo(last)) {
        leaving.add(unregister(current, subscription, channelOn(last, subscription)));
      }
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

  /** Closes a dropped subscriber connection, and takes its member channels out of their groups. */
  @Override
  public void discard(Subscriber old) {
    old.close();
    Commands current = commands;
    ConnectionKeeper<Subscriber> k = keeper;
    if (k == null || k.isClosed() || !current.isUp()) {
      return; // the registrations expire, and publishers drop members that hear nothing
    }
    for (TransportSubscription<Subscriber> subscription : k.subscriptions()) {
      if (subscription.queueGroup().isPresent()) {
        k.track(unregister(current, subscription, channelOn(old, subscription)));
      }
    }
  }

  /** The subscriber connection dropped: was it most likely cut for reading too slowly? */
  private void lostSubscriber(Subscriber source, String why) {
    ConnectionKeeper<Subscriber> k = keeper;
    if (k == null || source.isDown()) {
      return;
    }
    long backlog = subscriberBacklog;
    subscriberBacklog = 0;
    if (backlog > 0) {
      // A healthy subscriber's backlog on the server is 0 at almost every look: one that was
      // behind when its connection dropped was most likely cut by client-output-buffer-limit.
      outputBufferCuts.incrementAndGet();
      k.slowConsumer(
          "{}: the Redis subscriber connection dropped while the server held {} bytes for it"
              + " (pub/sub hard limit {}): most likely cut by client-output-buffer-limit, its"
              + " subscriptions read slower than their messages arrive",
          name,
          backlog,
          commands.pubsubHardLimit);
    }
    k.lost(source, why + "; messages in flight to it are lost");
  }

  private String channelOn(Subscriber target, TransportSubscription<Subscriber> subscription) {
    return subscription.queueGroup().isPresent()
        ? Groups.memberChannel(clientId, target.generation, subscription.id(), subscription.topic())
        : subscription.topic();
  }

  // ------------------------------------------------------------------ the command connection

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

  /** The command connection dropped: publishes are refused until it is replaced. */
  private void lostCommands(Commands source, String why) {
    ConnectionKeeper<Subscriber> k = keeper;
    if (k == null || k.isClosed() || source != commands || !source.markDown()) {
      return;
    }
    commandDisconnects.incrementAndGet();
    LOG.warn(
        "{}: the Redis command connection dropped ({}); publishes are refused until it is back",
        name,
        why);
    source.close();
    k.after(Duration.ZERO, () -> replaceCommands(1)); // then every reconnectWait
  }

  private void replaceCommands(int attempt) {
    ConnectionKeeper<Subscriber> k = keeper;
    if (k.isClosed()) {
      return;
    }
    Commands fresh;
    try {
      fresh = openCommands();
    } catch (RuntimeException e) {
      if (options.maxReconnects() >= 0 && attempt >= options.maxReconnects()) {
        LOG.error("{}: gave up reconnecting to Redis after {} attempts", name, attempt, e);
        k.close();
      } else {
        LOG.debug("{}: reconnection attempt {} failed", name, attempt, e);
        k.after(options.reconnectWait(), () -> replaceCommands(attempt + 1));
      }
      return;
    }
    if (k.isClosed()) {
      fresh.close();
      return;
    }
    commands = fresh;
    // The server may be a new one (restarted, or a failover): the group registry may be gone.
    registerAll(fresh);
    commandReconnects.incrementAndGet();
    LOG.info("{}: new command connection", name);
  }

  /** Registers (again) every live group member's channel; publishes wait for it. */
  private void registerAll(Commands current) {
    Optional<Subscriber> subscriber = keeper.connection().filter(Subscriber::isUp);
    if (subscriber.isEmpty()) {
      return; // the next subscriber connection registers them as it subscribes
    }
    for (TransportSubscription<Subscriber> subscription : keeper.subscriptions()) {
      String channel = channelOn(subscriber.get(), subscription);
      if (subscription.queueGroup().isPresent()
          && subscriber.get().subscribed.containsKey(channel)) {
        keeper.track(register(current, subscription, channel));
      }
    }
  }

  private CompletableFuture<Long> register(
      Commands current, TransportSubscription<Subscriber> subscription, String channel) {
    return current.eval(
        current.registerSha,
        Groups.REGISTER,
        groupKeys(subscription),
        subscription.queueGroup().get().getBytes(UTF_8),
        channel.getBytes(UTF_8),
        String.valueOf(REGISTRATION_TTL.toMillis()).getBytes(UTF_8));
  }

  private CompletableFuture<Long> unregister(
      Commands current, TransportSubscription<Subscriber> subscription, String channel) {
    return current.eval(
        current.unregisterSha,
        Groups.UNREGISTER,
        groupKeys(subscription),
        subscription.queueGroup().get().getBytes(UTF_8),
        channel.getBytes(UTF_8));
  }

  private static byte[][] groupKeys(TransportSubscription<?> subscription) {
    return new byte[][] {
      Groups.groupsKey(subscription.topic()).getBytes(UTF_8),
      Groups.membersKey(subscription.queueGroup().get(), subscription.topic()).getBytes(UTF_8)
    };
  }

  // ------------------------------------------------------------------ pings

  /**
   * Pings both connections; one that does not answer within the command timeout counts as dropped
   * (a silent network). Renews group registrations about five times per lifetime.
   */
  private void ping() {
    ConnectionKeeper<Subscriber> k = keeper;
    if (k.isClosed()) {
      return;
    }
    Commands c = commands;
    Optional<Subscriber> s = k.connection();
    if (c.isUp()) {
      pingOrLose(c.connection.async().ping().toCompletableFuture(), why -> lostCommands(c, why));
    }
    if (s.isPresent() && s.get().isUp()) {
      Subscriber subscriber = s.get();
      pingOrLose(
          subscriber.connection.async().ping().toCompletableFuture(),
          why -> lostSubscriber(subscriber, why));
      if (c.isUp()) {
        c.connection
            .async()
            .clientList(ClientListArgs.Builder.ids(subscriber.clientId))
            .thenAcceptAsync(list -> noteBacklog(subscriber, list), completions); // it may log
      }
    }
    long renewEvery =
        Math.max(1, REGISTRATION_TTL.toNanos() / 5 / options.pingInterval().toNanos());
    if (pings.incrementAndGet() % renewEvery == 0 && c.isUp()) {
      registerAll(c);
    }
  }

  /** A connection whose ping is not answered within the command timeout is taken as dropped. */
  private void pingOrLose(CompletableFuture<String> ping, Consumer<String> lose) {
    ping.orTimeout(options.commandTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .whenCompleteAsync(
            (ok, failure) -> {
              if (failure != null) {
                lose.accept("no answer to a ping: " + Failures.rootMessage(failure));
              }
            },
            completions);
  }

  /** Reads {@code omem} (bytes the server holds for the client) from a CLIENT LIST line. */
  private void noteBacklog(Subscriber s, String clientList) {
    if (s.isDown() || clientList == null) {
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
        keeper.warn(
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

  /**
   * Waits for a round trip on both connections.
   *
   * @throws CallError UNAVAILABLE when a connection is down or does not answer before {@code end}
   */
  void pingBoth(long end) throws Exception {
    Subscriber s =
        keeper
            .connection()
            .orElseThrow(() -> CallError.of(ErrorCode.UNAVAILABLE, "The Redis connection is down"));
    s.connection.async().ping().toCompletableFuture().get(left(end), TimeUnit.NANOSECONDS);
    commands.connection.async().ping().toCompletableFuture().get(left(end), TimeUnit.NANOSECONDS);
  }

  private static long left(long end) {
    return Math.max(0, end - System.nanoTime());
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
      keeper.countRefused();
      return CallError.of(
          ErrorCode.RESOURCE_EXHAUSTED,
          "Too many publishes await Redis's answer (maxPendingCommands "
              + options.maxPendingCommands()
              + "); not publishing to "
              + topic,
          cause);
    }
    if (keeper.isClosed()) {
      return keeper.closedError();
    }
    Optional<CallError> refused = aclRefusal(cause, "publishing to " + topic);
    if (refused.isPresent()) {
      return refused.get();
    }
    return CallError.of(
        ErrorCode.UNAVAILABLE,
        "Publishing to " + topic + " failed (outcome unknown): " + message,
        cause);
  }

  /**
   * ACCESS_DENIED (not retryable) when {@code failure} is the server's ACL refusing a command
   * ({@code NOPERM}: the command did nothing, and sending it again changes nothing), rather than
   * UNAVAILABLE, which a caller would take as "outcome unknown" and retry. A command a script runs
   * that the ACL refuses fails the script with another error (some of its commands may have run):
   * that stays UNAVAILABLE.
   */
  private static Optional<CallError> aclRefusal(Throwable failure, String what) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    String message = String.valueOf(cause.getMessage());
    if (!message.startsWith("NOPERM")) {
      return Optional.empty();
    }
    return Optional.of(
        CallError.of(
            ErrorCode.ACCESS_DENIED,
            "The Redis server's ACL refused " + what + " (" + message + ")",
            cause));
  }

  /**
   * Whether {@code topic} is one the call protocol never gives queue groups: a caller's inbox (only
   * the caller subscribes) or a serving node's own topic (only that node subscribes). These carry
   * every reply and every discovery-routed request, so they skip the publish script: a plain
   * PUBLISH takes the server about 0.2 us against 2.5 or more for the script (D83). Decided by
   * prefix, so the rule holds for names {@link ProtocolTopics#isInbox} would not accept as well:
   * one rule, one test of it.
   */
  static boolean withoutGroups(String topic) {
    return topic.startsWith(ProtocolTopics.INBOX_PREFIX)
        || topic.startsWith(ProtocolTopics.NODE_PREFIX);
  }

  // ------------------------------------------------------------------ counters

  long commandDisconnects() {
    return commandDisconnects.get();
  }

  long commandReconnects() {
    return commandReconnects.get();
  }

  long subscriberBacklog() {
    return subscriberBacklog;
  }

  long backlogSightings() {
    return backlogSightings.get();
  }

  long outputBufferCuts() {
    return outputBufferCuts.get();
  }

  long oversizedMessages() {
    return oversizedMessages.get();
  }

  void closeCommands() {
    commands.close();
  }

  // ------------------------------------------------------------------ connections

  /** The connection that publishes and keeps the group registry. */
  static final class Commands {
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
  static final class Subscriber {
    final int generation;
    final AtomicBoolean down = new AtomicBoolean();

    /** Channels subscribed on this connection, and who receives from each. */
    final Map<String, List<TransportSubscription<Subscriber>>> channels = new ConcurrentHashMap<>();

    /** The SUBSCRIBE of each channel, done or in flight. */
    final Map<String, CompletableFuture<Void>> subscribed = new ConcurrentHashMap<>();

    volatile StatefulRedisPubSubConnection<byte[], byte[]> connection;
    volatile long clientId;

    Subscriber(int generation) {
      this.generation = generation;
    }

    boolean isUp() {
      return !down.get() && connection != null && connection.isOpen();
    }

    boolean isDown() {
      return down.get();
    }

    void markDown() {
      down.set(true);
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
      ConnectionKeeper<Subscriber> k = keeper;
      if (k != null) {
        k.after(Duration.ZERO, onLost); // the disconnect actions run callers' code
      }
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
      if (source.isDown()) {
        return; // a replaced connection: its subscriptions live on the new one
      }
      List<TransportSubscription<Subscriber>> receivers =
          source.channels.get(new String(channel, UTF_8));
      if (receivers == null) {
        return;
      }
      // Any client of the server can publish to a channel: what this transport would refuse to
      // send, it does not hand to its handlers either.
      long limit = options.maxMessageBytes();
      long hard = commands.pubsubHardLimit;
      if (hard > 0) {
        limit = Math.min(limit, hard);
      }
      if (message != null && message.length > limit) {
        oversizedMessages.incrementAndGet();
        keeper.warn(
            "{}: dropped a message of {} bytes on {}, larger than the limit of {} bytes",
            name,
            message.length,
            new String(channel, UTF_8),
            limit);
        return;
      }
      byte[] payload = message == null ? new byte[0] : message;
      EventLoopRuns.deliver(
          () -> {
            for (TransportSubscription<Subscriber> receiver : receivers) {
              receiver.deliver(new Message(receiver.topic(), payload, Optional.empty()));
            }
          });
    }
  }
}
