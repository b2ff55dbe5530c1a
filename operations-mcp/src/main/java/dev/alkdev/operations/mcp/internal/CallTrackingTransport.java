package dev.alkdev.operations.mcp.internal;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Sits between the SDK client and the wire. The SDK client does the handshake, listings and
 * notifications; tool calls take a shorter path of their own through here: we pick the JSON-RPC id
 * (so cancelling needs no lookup), send the request, and take its response out of the inbound
 * stream before the SDK sees it. That path skips the SDK's per-request machinery (the measured cost
 * of a call through it was about 2x a raw POST), keeps the raw result (so content block types the
 * SDK does not know survive), and lets a timeout or cancel send {@code notifications/cancelled}
 * with nothing left pending on either side.
 */
public final class CallTrackingTransport implements McpClientTransport {
  private static final Logger LOG = LoggerFactory.getLogger(CallTrackingTransport.class);
  static final String OWN_ID_PREFIX = "ops-";

  /** The SDK has no constant for it. */
  static final String METHOD_NOTIFICATION_CANCELLED = "notifications/cancelled";

  private final McpClientTransport delegate;
  private final Map<Object, CompletableFuture<Object>> pending = new ConcurrentHashMap<>();

  /** The SDK's tools/list requests in flight, so their answers can be read for task support. */
  private final Set<Object> listings = ConcurrentHashMap.newKeySet();

  /** Tools whose listing says they run only as tasks (2025-11-25's execution.taskSupport). */
  private final Set<String> taskOnly = ConcurrentHashMap.newKeySet();

  private final AtomicLong ids = new AtomicLong();

  public CallTrackingTransport(McpClientTransport delegate) {
    this.delegate = delegate;
  }

  /** A request id of our own; the SDK's ids look different, so the two never clash. */
  public String newRequestId() {
    return OWN_ID_PREFIX + ids.incrementAndGet();
  }

  /** Whether a request id is one of ours (a tool call on our own path). */
  static boolean isOwnId(String id) {
    return id.startsWith(OWN_ID_PREFIX);
  }

  /**
   * Sends a request outside the SDK client. The future completes with the raw {@code result}, or
   * with an {@link McpError} for a JSON-RPC error, or with the send failure.
   */
  public CompletableFuture<Object> request(String id, String method, Object params) {
    CompletableFuture<Object> response = new CompletableFuture<>();
    pending.put(id, response);
    response.whenComplete((result, error) -> pending.remove(id));
    delegate
        .sendMessage(new McpSchema.JSONRPCRequest(McpSchema.JSONRPC_VERSION, method, id, params))
        .subscribe(ok -> {}, response::completeExceptionally);
    return response;
  }

  /**
   * Forgets the request and tells the server it is cancelled (over HTTP, sending that also ends the
   * request's own stream).
   */
  public void cancel(String id, String reason) {
    CompletableFuture<Object> response = pending.remove(id);
    if (response != null) {
      response.cancel(false);
    }
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("requestId", id);
    params.put("reason", reason);
    delegate
        .sendMessage(
            new McpSchema.JSONRPCNotification(
                McpSchema.JSONRPC_VERSION, METHOD_NOTIFICATION_CANCELLED, params))
        .subscribe(ok -> {}, error -> LOG.debug("Sending notifications/cancelled failed", error));
  }

  /**
   * Whether the tool's listing said {@code execution.taskSupport: "required"} (2025-11-25): the
   * SDK's tool type drops {@code execution}, so the listing's raw answer is read here.
   */
  boolean requiresTask(String tool) {
    return taskOnly.contains(tool);
  }

  /** Fails every request of ours still waiting, e.g. when the server went away. */
  public void failAll(Throwable error) {
    pending.values().forEach(response -> response.completeExceptionally(error));
  }

  @Override
  public Mono<Void> connect(
      Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
    return delegate.connect(messages -> handler.apply(messages.filter(this::forSdk)));
  }

  /** Completes our own requests' responses; everything else goes on to the SDK client. */
  private boolean forSdk(McpSchema.JSONRPCMessage message) {
    if (message instanceof McpSchema.JSONRPCResponse response
        && response.id() != null
        && listings.remove(response.id())
        && response.result() instanceof Map<?, ?> result
        && result.get("tools") instanceof List<?> tools) {
      for (Object tool : tools) {
        if (tool instanceof Map<?, ?> t && t.get("name") instanceof String toolName) {
          if (t.get("execution") instanceof Map<?, ?> execution
              && "required".equals(execution.get("taskSupport"))) {
            taskOnly.add(toolName);
          } else {
            taskOnly.remove(toolName);
          }
        }
      }
    }
    if (message instanceof McpSchema.JSONRPCResponse response && response.id() != null) {
      CompletableFuture<Object> mine = pending.get(response.id());
      if (mine != null) {
        if (response.error() != null) {
          mine.completeExceptionally(new McpError(response.error()));
        } else {
          mine.complete(response.result());
        }
        return false;
      }
      return !(response.id() instanceof String s && isOwnId(s));
    }
    return true;
  }

  @Override
  public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
    if (message instanceof McpSchema.JSONRPCRequest request
        && McpSchema.METHOD_TOOLS_LIST.equals(request.method())) {
      listings.add(request.id());
    }
    return delegate.sendMessage(message);
  }

  @Override
  public void setExceptionHandler(Consumer<Throwable> handler) {
    delegate.setExceptionHandler(handler);
  }

  @Override
  public Mono<Void> closeGracefully() {
    return delegate.closeGracefully();
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
    return delegate.unmarshalFrom(data, typeRef);
  }

  @Override
  public List<String> protocolVersions() {
    return delegate.protocolVersions();
  }
}
