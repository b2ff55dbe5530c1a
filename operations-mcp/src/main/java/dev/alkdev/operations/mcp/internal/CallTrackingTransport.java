package dev.alkdev.operations.mcp.internal;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Wraps the SDK transport to do what the SDK client does not: learn the JSON-RPC id of each tool
 * call (matched through the {@code progressToken} we put in its {@code _meta}), keep the raw result
 * (so content block types the SDK does not know survive), and on a local timeout or cancel send
 * {@code notifications/cancelled} and answer the SDK's pending request so its slot is freed.
 */
public final class CallTrackingTransport implements McpClientTransport {
  private static final Logger LOG = LoggerFactory.getLogger(CallTrackingTransport.class);

  /** One tool call in flight. */
  public static final class TrackedCall {
    final String token;
    volatile Object requestId;
    volatile Object rawResult;

    TrackedCall(String token) {
      this.token = token;
    }

    /** The raw {@code result} of the JSON-RPC response, once received. */
    public Object rawResult() {
      return rawResult;
    }
  }

  private final McpClientTransport delegate;
  private final Map<String, TrackedCall> byToken = new ConcurrentHashMap<>();
  private final Map<Object, TrackedCall> byRequestId = new ConcurrentHashMap<>();
  private volatile Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler;

  public CallTrackingTransport(McpClientTransport delegate) {
    this.delegate = delegate;
  }

  public McpClientTransport delegate() {
    return delegate;
  }

  /** Starts tracking the call whose request carries {@code progressToken}. */
  public TrackedCall track(String progressToken) {
    TrackedCall call = new TrackedCall(progressToken);
    byToken.put(progressToken, call);
    return call;
  }

  /** Stops tracking; call when the call is over, however it ended. */
  public void untrack(TrackedCall call) {
    byToken.remove(call.token);
    Object id = call.requestId;
    if (id != null) {
      byRequestId.remove(id);
    }
  }

  /**
   * Tells the server the call is cancelled and completes the SDK's pending request with an error,
   * so neither side keeps waiting for it.
   */
  public void cancel(TrackedCall call, String reason) {
    Object id = call.requestId;
    untrack(call);
    if (id == null) {
      return; // Never sent: nothing to cancel on the server.
    }
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("requestId", id);
    params.put("reason", reason);
    delegate
        .sendMessage(
            new McpSchema.JSONRPCNotification(
                McpSchema.JSONRPC_VERSION, "notifications/cancelled", params))
        .subscribe(ok -> {}, error -> LOG.debug("Sending notifications/cancelled failed", error));
    Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> h = handler;
    if (h != null) {
      McpSchema.JSONRPCResponse release =
          new McpSchema.JSONRPCResponse(
              McpSchema.JSONRPC_VERSION,
              id,
              null,
              new McpSchema.JSONRPCResponse.JSONRPCError(-32800, "Request cancelled: " + reason));
      h.apply(Mono.just(release)).subscribe(ok -> {}, error -> {});
    }
  }

  @Override
  public Mono<Void> connect(
      Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
    this.handler = handler;
    return delegate.connect(messages -> handler.apply(messages.doOnNext(this::inbound)));
  }

  private void inbound(McpSchema.JSONRPCMessage message) {
    if (message instanceof McpSchema.JSONRPCResponse response && response.id() != null) {
      TrackedCall call = byRequestId.get(response.id());
      if (call != null) {
        call.rawResult = response.result();
      }
    }
  }

  @Override
  public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
    if (message instanceof McpSchema.JSONRPCRequest request
        && McpSchema.METHOD_TOOLS_CALL.equals(request.method())) {
      Object token = progressToken(request.params());
      TrackedCall call = token == null ? null : byToken.get(token.toString());
      if (call != null) {
        call.requestId = request.id();
        byRequestId.put(request.id(), call);
      }
    }
    return delegate.sendMessage(message);
  }

  private static Object progressToken(Object params) {
    Map<String, Object> meta = null;
    if (params instanceof McpSchema.CallToolRequest call) {
      meta = call.meta();
    } else if (params instanceof Map<?, ?> map && map.get("_meta") instanceof Map<?, ?> m) {
      @SuppressWarnings("unchecked")
      Map<String, Object> cast = (Map<String, Object>) m;
      meta = cast;
    }
    return meta == null ? null : meta.get("progressToken");
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
