package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.mcpserver.McpLogLevel;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.node.ObjectNode;

/**
 * One MCP session: the negotiated revision, the client's log level, its running calls (by JSON-RPC
 * id, for notifications/cancelled) and the channel for messages outside any request. Bound to the
 * identity that opened it: another identity presenting its id is told it does not exist.
 */
final class Session {
  /** The id of the stdio process's session. */
  static final String STDIO = "stdio";

  /** The id of a modern HTTP request's own session, which no client knows. */
  static final String STATELESS = "stateless";

  final String id;
  final Identity identity;

  /** Who holds it, for the per-client cap and fair shares: a subject, or a remote address. */
  final String client;

  final ConcurrentHashMap<String, McpCall> calls = new ConcurrentHashMap<>();
  volatile String protocolVersion = Protocol.DEFAULT_HEADER_VERSION;
  volatile McpLogLevel logLevel = McpLogLevel.INFO;
  volatile boolean initialized;

  /** Whether initialize was answered: a legacy session serves nothing else before it. */
  volatile boolean opened;

  /** Its open subscriptions/listen streams by JSON-RPC id, each ended by running it. */
  final ConcurrentHashMap<String, Runnable> listens = new ConcurrentHashMap<>();

  volatile long lastUsedNanos = System.nanoTime();

  /** What the client declared at initialize (2025): what its calls' handlers may ask it. */
  volatile tools.jackson.databind.JsonNode clientCapabilities;

  /** Requests a handler sent the client (McpAsk), by JSON-RPC id, waiting for its answer. */
  final ConcurrentHashMap<
          String, java.util.concurrent.CompletableFuture<tools.jackson.databind.JsonNode>>
      asks = new ConcurrentHashMap<>();

  final java.util.concurrent.atomic.AtomicLong askIds =
      new java.util.concurrent.atomic.AtomicLong();
  private volatile Channel channel;
  private volatile boolean closed;
  private volatile boolean used;

  Session(String id, Identity identity, String client) {
    this.id = id;
    this.identity = identity;
    this.client = client;
  }

  boolean overStdio() {
    return STDIO.equals(id);
  }

  /** The id a 2025 HTTP client holds, if this is such a session. */
  java.util.Optional<String> clientVisibleId() {
    return STDIO.equals(id) || STATELESS.equals(id)
        ? java.util.Optional.empty()
        : java.util.Optional.of(id);
  }

  /** Marks the session used: it got a request other than initialize, or opened its stream. */
  void markUsed() {
    used = true;
  }

  boolean isUsed() {
    return used;
  }

  void touch() {
    lastUsedNanos = System.nanoTime();
  }

  /** Sets the channel for messages outside requests; the one it replaces is closed. */
  void channel(Channel next) {
    Channel previous;
    synchronized (this) {
      previous = channel;
      channel = closed ? null : next;
    }
    if (previous != null && previous != next) {
      previous.close();
    }
    if (closed && next != null) {
      next.close();
    }
  }

  void dropChannel(Channel which) {
    synchronized (this) {
      if (channel == which) {
        channel = null;
      }
    }
  }

  boolean send(ObjectNode message) {
    Channel current = channel;
    return current != null && current.send(message);
  }

  boolean hasChannel() {
    return channel != null;
  }

  boolean isClosed() {
    return closed;
  }

  /** Ends the session: its running calls are cancelled, its channel closed. */
  void close(String why) {
    closed = true;
    for (McpCall call : calls.values()) {
      call.cancelByServer(why);
    }
    channel(null);
  }
}
