package dev.alkdev.operations.discovery;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.internal.RateLimitedLog;
import dev.alkdev.operations.internal.Scheduler;
import dev.alkdev.operations.remote.internal.SerialExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a caller knows of the serving nodes: each node's specs, liveness and state, and the
 * operations served anywhere (by a node that is alive, known and not leaving). Fed by discovery
 * messages; drops a node whose heartbeats stop for {@code misses} intervals, or sooner when, silent
 * past one interval, nothing listens on its own topic any more (its connection closed: a killed
 * process), and reports the loss so the calls in flight on it can fail at once. Listeners hear of
 * operations that appear and disappear, in order, one change at a time.
 */
final class NodeTable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeTable.class);

  private final int misses;
  private final Optional<TrustedNodes> trust;
  private final Consumer<String> askForSpecs;
  private final Function<String, CompletableFuture<Integer>> probe;
  private final BiConsumer<String, CallError> nodeLost;
  private final Map<String, Node> nodes = new HashMap<>(); // guarded by this
  private Map<String, OperationSpec> index = Map.of(); // guarded by this
  private final CopyOnWriteArrayList<OperationRegistry.Listener> listeners =
      new CopyOnWriteArrayList<>();
  // Changes are queued under the lock (so they keep their order) and told after it is released.
  private final ConcurrentLinkedQueue<Runnable> changes = new ConcurrentLinkedQueue<>();
  private final SerialExecutor notifications = new SerialExecutor(Runnable::run);
  private boolean closed; // guarded by this
  // When the table last learnt something new (a node or its specs), for RemoteCatalog's settling.
  private volatile long lastNews = System.nanoTime();
  private final AtomicInteger reading = new AtomicInteger();
  private final AtomicLong unverifiedHellos = new AtomicLong();
  private final RateLimitedLog identityWarning = RateLimitedLog.of(LOG, 1, Duration.ofSeconds(10));
  private final RateLimitedLog trustWarning = RateLimitedLog.of(LOG, 1, Duration.ofSeconds(10));

  /** One serving node as this caller knows it. */
  private static final class Node {
    final String id;
    long intervalNanos;
    long lastSeen;
    String digest; // of the specs announced last
    Map<String, OperationSpec> specs; // null until known
    String specsDigest; // the digest of `specs`
    int inFlight;
    boolean leaving;
    long askedAt; // when its specs were last asked for
    SpecParts.Assembly assembly;
    Scheduler.Timer expiry;
    String identity; // proven or claimed; null when nothing says
    boolean verified;
    String provenDigest; // the digest a verified hello signed

    Node(String id) {
      this.id = id;
    }
  }

  /**
   * @param askForSpecs asks a node for its specs
   * @param probe publishes a small message to a node's own topic (one it answers harmlessly);
   *     completes with how many subscriptions received it, 0 when the node's connection is gone
   * @param nodeLost told when a node is dropped, with why
   */
  NodeTable(
      int misses,
      Optional<TrustedNodes> trust,
      Consumer<String> askForSpecs,
      Function<String, CompletableFuture<Integer>> probe,
      BiConsumer<String, CallError> nodeLost) {
    this.misses = misses;
    this.trust = trust;
    this.askForSpecs = askForSpecs;
    this.probe = probe;
    this.nodeLost = nodeLost;
  }

  // ------------------------------------------------------------------ messages

  /**
   * A node's hello, with who sent it as the caller could tell. Where verified nodes are required, a
   * hello that proves nothing does not change a verified node (it would take its calls away), and
   * specs that do not match their signed digest are not believed.
   */
  void onHello(NodeEvent.Hello hello, NodeProof proof) {
    boolean ask;
    synchronized (this) {
      Node known = nodes.get(hello.nodeId());
      if (!proof.verified() && trust.isPresent()) {
        unverifiedHellos.incrementAndGet();
        trustWarning.warn(
            "Node {} is not verified ({}); no calls are routed to it",
            hello.nodeId(),
            proof.why().orElse("its hello is not signed by a trusted key"));
        if (known != null && known.verified) {
          return;
        }
      }
      Node node = touch(hello.nodeId(), hello.heartbeatMillis());
      if (node == null) {
        return;
      }
      node.digest = hello.digest();
      node.identity = proof.identity().orElse(null);
      node.verified = proof.verified();
      node.provenDigest = proof.verified() ? hello.digest() : null;
      if (hello.specs().isPresent() && matchesDigest(hello.digest(), hello.specs().get())) {
        setSpecs(node, hello.digest(), hello.specs().get());
        ask = false;
      } else {
        reindex(); // its verification may have changed
        ask = needsSpecs(node);
      }
    }
    tellListeners();
    if (ask) {
      askForSpecs.accept(hello.nodeId());
    }
  }

  void onHeartbeat(NodeEvent.Heartbeat heartbeat) {
    boolean ask;
    synchronized (this) {
      Node node = touch(heartbeat.nodeId(), heartbeat.heartbeatMillis());
      if (node == null) {
        return;
      }
      node.digest = heartbeat.digest();
      node.inFlight = heartbeat.inFlight();
      if (heartbeat.draining() && !node.leaving) {
        node.leaving = true;
        lastNews = System.nanoTime();
        reindex();
      }
      ask = needsSpecs(node);
    }
    tellListeners();
    if (ask) {
      askForSpecs.accept(heartbeat.nodeId());
    }
  }

  void onBye(NodeEvent.Bye bye) {
    synchronized (this) {
      Node node = nodes.get(bye.nodeId());
      if (node == null) {
        return;
      }
      if (!node.leaving) {
        node.leaving = true; // its running calls finish; no new ones go there
        lastNews = System.nanoTime();
        reindex();
      }
      if (bye.drainMillis() == 0) {
        // Gone. It answered its calls before it said so, but on other topics: give the answers
        // one interval to arrive before the calls still waiting are failed.
        cancel(node.expiry);
        node.expiry =
            Scheduler.schedule(
                () -> drop(node.id, "Node " + node.id + " has left"), node.intervalNanos);
      }
    }
    tellListeners();
  }

  void onSpecs(NodeEvent.Specs part) {
    synchronized (this) {
      Node node = nodes.get(part.nodeId());
      if (node == null || part.digest().equals(node.specsDigest)) {
        return; // unknown (it will say hello) or known already
      }
      if (node.assembly == null || !node.assembly.digest().equals(part.digest())) {
        node.assembly = new SpecParts.Assembly(part.digest(), part.parts());
      }
      node.assembly
          .add(part)
          .filter(specs -> matchesDigest(part.digest(), specs))
          .ifPresent(specs -> setSpecs(node, part.digest(), specs));
    }
    tellListeners();
  }

  // ------------------------------------------------------------------ queries

  /** Every operation served by a live node, by id. */
  synchronized Map<String, OperationSpec> operations() {
    return index;
  }

  /** The nodes that take new calls for {@code operationId}, with the spec each serves. */
  synchronized Map<String, OperationSpec> nodesServing(String operationId) {
    Map<String, OperationSpec> serving = new LinkedHashMap<>();
    for (Node node : nodes.values()) {
      if (routable(node, operationId)) {
        serving.put(node.id, node.specs.get(operationId));
      }
    }
    return serving;
  }

  /**
   * Whether calls for {@code operationId} may go to {@code node}: it serves it and is not leaving;
   * where verified nodes are required, its hello was proven for the specs it serves now, and its
   * identity may serve the operation.
   */
  private boolean routable(Node node, String operationId) {
    if (node.leaving || node.specs == null || !node.specs.containsKey(operationId)) {
      return false;
    }
    return trust.isEmpty()
        || (node.verified
            && node.specsDigest.equals(node.provenDigest)
            && trust.get().mayServe(node.identity, operationId));
  }

  /** Hellos that proved nothing (unsigned, or not by a trusted key) since the catalog started. */
  long unverifiedHellos() {
    return unverifiedHellos.get();
  }

  /** Every known node that announced {@code operationId}, verified or not, leaving or not. */
  synchronized List<RemoteNode> servers(String operationId) {
    List<RemoteNode> out = new ArrayList<>();
    for (Node node : nodes.values()) {
      if (node.specs != null && node.specs.containsKey(operationId)) {
        out.add(view(node));
      }
    }
    out.sort((a, b) -> a.nodeId().compareTo(b.nodeId()));
    return out;
  }

  /** When the table last met a new node or new specs ({@link System#nanoTime()}). */
  long lastNews() {
    return lastNews;
  }

  /** Marks now as news: a query went out, so answers are due. */
  void expectNews() {
    lastNews = System.nanoTime();
  }

  /**
   * A discovery message arrived and is being read: reading a hello builds its specs (JSON Schemas
   * compiled), which can take longer than the quiet period on a cold JVM, so the catalog is not
   * settled while one is read ({@link #isReading}). The message itself is not news: a heartbeat of
   * a node known with its specs changes nothing, and counting every message would keep a caller
   * from ever settling among nodes whose heartbeats, together, come more often than its quiet
   * period (a fast heartbeat, many nodes, or a quiet period stretched by a loaded machine). What a
   * message brings that is new (a node, specs) marks the news itself.
   */
  void reading(boolean started) {
    if (started) {
      reading.incrementAndGet();
    } else {
      reading.decrementAndGet();
    }
  }

  /** Whether a discovery message is being read now. */
  boolean isReading() {
    return reading.get() > 0;
  }

  /** Whether every node known has told its specs (none is being asked or assembled). */
  synchronized boolean specsKnown() {
    for (Node node : nodes.values()) {
      if (node.specs == null || !node.digest.equals(node.specsDigest)) {
        return false;
      }
    }
    return true;
  }

  synchronized boolean knows(String nodeId) {
    return nodes.containsKey(nodeId);
  }

  synchronized List<RemoteNode> nodes() {
    List<RemoteNode> out = new ArrayList<>();
    for (Node node : nodes.values()) {
      out.add(view(node));
    }
    out.sort((a, b) -> a.nodeId().compareTo(b.nodeId()));
    return out;
  }

  private static RemoteNode view(Node node) {
    return new RemoteNode(
        node.id,
        node.specs == null ? List.of() : List.copyOf(new TreeMap<>(node.specs).keySet()),
        node.specs != null,
        node.inFlight,
        node.leaving,
        Duration.ofNanos(node.intervalNanos),
        Optional.ofNullable(node.identity),
        node.verified);
  }

  Registration addListener(OperationRegistry.Listener listener) {
    Objects.requireNonNull(listener, "listener");
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /** Forgets every node (the caller closes); their calls are failed by the caller itself. */
  void close() {
    synchronized (this) {
      closed = true;
      nodes.values().forEach(node -> cancel(node.expiry));
      nodes.clear();
    }
  }

  // ------------------------------------------------------------------ internals

  /** The node, created if new, seen now; null when the table is closed. */
  private Node touch(String nodeId, long heartbeatMillis) {
    if (closed) {
      return null;
    }
    Node node = nodes.get(nodeId);
    if (node == null) {
      node = new Node(nodeId);
      nodes.put(nodeId, node);
      lastNews = System.nanoTime();
    }
    node.intervalNanos = Duration.ofMillis(heartbeatMillis).toNanos();
    node.lastSeen = System.nanoTime();
    if (node.expiry == null) {
      armExpiry(node);
    }
    return node;
  }

  /** Whether to ask for the node's specs: unknown or stale, and not asked within an interval. */
  private boolean needsSpecs(Node node) {
    if (node.digest.equals(node.specsDigest)) {
      return false;
    }
    long now = System.nanoTime();
    if (node.askedAt != 0 && now - node.askedAt < node.intervalNanos) {
      return false;
    }
    node.askedAt = now;
    return true;
  }

  private void setSpecs(Node node, String digest, List<OperationSpec> specs) {
    Map<String, OperationSpec> byId = new HashMap<>();
    specs.forEach(spec -> byId.put(spec.id(), spec));
    node.specs = byId;
    node.specsDigest = digest;
    node.assembly = null;
    lastNews = System.nanoTime();
    reindex();
    warnOfOtherIdentities(node);
  }

  /**
   * Where verified nodes are required, specs are believed only if they are what the signed digest
   * names: a signature covers the digest, and the digest covers the specs. Otherwise nothing is
   * checked (the digest is only a cache key).
   */
  private boolean matchesDigest(String digest, List<OperationSpec> specs) {
    if (trust.isEmpty() || NodeEvents.digest(specs).equals(digest)) {
      return true;
    }
    trustWarning.warn("Specs that do not match their digest {} were ignored", digest);
    return false;
  }

  /**
   * Says when an operation of {@code node} is also served by a node of another identity (or one of
   * them is unidentified): two servers of one id under different names is how a rogue server looks,
   * and how a mistaken deployment does.
   */
  private void warnOfOtherIdentities(Node node) {
    List<String> clashes = new ArrayList<>();
    for (String operationId : new TreeMap<>(node.specs).keySet()) {
      for (Node other : nodes.values()) {
        if (other != node
            && other.specs != null
            && other.specs.containsKey(operationId)
            && !Objects.equals(other.identity, node.identity)) {
          clashes.add(
              operationId
                  + " (node "
                  + other.id
                  + " as "
                  + Objects.requireNonNullElse(other.identity, "unidentified")
                  + ")");
          break;
        }
      }
    }
    if (!clashes.isEmpty()) {
      identityWarning.warn(
          "Node {} as {} serves operations other identities serve too: {}",
          node.id,
          Objects.requireNonNullElse(node.identity, "unidentified"),
          clashes.size() > 5
              ? String.join(", ", clashes.subList(0, 5)) + " and " + (clashes.size() - 5) + " more"
              : String.join(", ", clashes));
    }
  }

  /** Silence after which a node is probed: a quarter interval of lateness past its heartbeat. */
  private static long lateNanos(Node node) {
    return node.intervalNanos + node.intervalNanos / 4;
  }

  /**
   * Arms the node's one timer: at its silence's end ({@code misses} intervals), and before that,
   * once it is late, every half interval to probe it.
   */
  private void armExpiry(Node node) {
    long now = System.nanoTime();
    long silence = now - node.lastSeen;
    long due = misses * node.intervalNanos;
    long late = lateNanos(node);
    long next = Math.min(due, silence < late ? late : silence + node.intervalNanos / 2);
    node.expiry = Scheduler.schedule(() -> expire(node), Math.max(0, node.lastSeen + next - now));
  }

  private void expire(Node node) {
    boolean due;
    synchronized (this) {
      if (nodes.get(node.id) != node) {
        return;
      }
      long silence = System.nanoTime() - node.lastSeen;
      due = silence >= misses * node.intervalNanos;
      if (!due) {
        armExpiry(node); // heard from since, or late but not yet due: look again
        if (silence < lateNanos(node)) {
          return;
        }
      }
    }
    if (!due) {
      probe(node);
      return;
    }
    LOG.info("Node {} stopped heart-beating; dropped", node.id);
    drop(
        node.id,
        "Node " + node.id + " stopped answering (no heartbeat for " + misses + " intervals)");
  }

  /**
   * A late node whose own topic nobody listens on any more has lost its connection (a killed
   * process: the broker dropped its subscriptions): dropped now rather than at its silence's end.
   * One that still listens (slow, paused, or cut off in a way the broker has not seen) waits.
   */
  private void probe(Node node) {
    CompletableFuture<Integer> receivers;
    try {
      receivers = probe.apply(node.id);
    } catch (RuntimeException e) {
      return; // the transport could not say; the silence decides
    }
    receivers.whenComplete(
        (count, error) -> {
          if (error != null || count == null || count > 0) {
            return;
          }
          synchronized (this) {
            if (nodes.get(node.id) != node || System.nanoTime() - node.lastSeen < lateNanos(node)) {
              return; // dropped already, or heard from meanwhile
            }
          }
          LOG.info("Node {} is silent and its connection is gone; dropped", node.id);
          drop(
              node.id,
              "Node " + node.id + " stopped answering (silent, and its connection is gone)");
        });
  }

  private void drop(String nodeId, String why) {
    synchronized (this) {
      Node node = nodes.remove(nodeId);
      if (node == null) {
        return;
      }
      cancel(node.expiry);
      reindex();
    }
    tellListeners();
    nodeLost.accept(nodeId, CallError.of(ErrorCode.UNAVAILABLE, why));
  }

  private static void cancel(Scheduler.Timer timer) {
    if (timer != null) {
      timer.cancel();
    }
  }

  /**
   * Recomputes the operations served anywhere and queues the differences for the listeners: an
   * operation whose spec changed is removed, then added. Where nodes disagree on a spec, the node
   * with the smallest id names it (calls are validated against the chosen node's own spec).
   */
  private void reindex() {
    Map<String, OperationSpec> next = new TreeMap<>();
    nodes.values().stream()
        .filter(node -> !node.leaving && node.specs != null)
        .sorted((a, b) -> a.id.compareTo(b.id))
        .forEach(
            node ->
                node.specs.forEach(
                    (id, spec) -> {
                      if (routable(node, id)) {
                        next.putIfAbsent(id, spec);
                      }
                    }));
    Map<String, OperationSpec> before = index;
    index = java.util.Collections.unmodifiableMap(next);
    for (Map.Entry<String, OperationSpec> old : before.entrySet()) {
      OperationSpec now = next.get(old.getKey());
      if (!old.getValue().equals(now)) {
        notify(listener -> listener.removed(old.getValue()));
      }
    }
    for (Map.Entry<String, OperationSpec> now : next.entrySet()) {
      if (!now.getValue().equals(before.get(now.getKey()))) {
        notify(listener -> listener.added(now.getValue()));
      }
    }
  }

  /** Queues a change for the listeners; called under the lock, so changes keep their order. */
  private void notify(Consumer<OperationRegistry.Listener> event) {
    changes.add(
        () -> {
          for (OperationRegistry.Listener listener : listeners) {
            try {
              event.accept(listener);
            } catch (RuntimeException e) {
              LOG.warn("A catalog listener failed", e);
            }
          }
        });
  }

  /** Tells the queued changes, in order, one at a time, outside the lock. */
  private void tellListeners() {
    if (changes.isEmpty()) {
      return;
    }
    notifications.execute(
        () -> {
          Runnable change;
          while ((change = changes.poll()) != null) {
            change.run();
          }
        });
  }

  Optional<OperationSpec> spec(String operationId) {
    return Optional.ofNullable(operations().get(operationId));
  }
}
