package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.mcpserver.McpLogLevel;
import dev.alkdev.operations.serving.CallSink;
import dev.alkdev.operations.serving.ServedCall;
import java.util.concurrent.atomic.AtomicBoolean;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One {@code tools/call} being served: the pipeline's {@link CallSink} for it, turning its outcome
 * into the JSON-RPC response, and the place cancellation reaches it from the client (a {@code
 * notifications/cancelled}), the session (closed) or the transport (the client went away).
 */
final class McpCall implements CallSink {
  private final Session session;
  private final String key;
  private final JsonNode rpcId;
  private final ToolCatalog.Tool tool;
  private final Exchange exchange;
  private final JsonNode progressToken;
  private final String requestId;
  private final boolean subscription;
  private final int maxItems;
  private final long maxItemBytes;
  private final AtomicBoolean done = new AtomicBoolean();
  private final Protocol.Running running;
  private final LogFilter logs;
  private volatile ServedCall served;
  private volatile CallError cancelBeforeStart;

  // Touched only from the sink's signals, which the pipeline runs one at a time.
  private ArrayNode items;
  private long itemBytes;

  McpCall(
      Session session,
      String key,
      JsonNode rpcId,
      ToolCatalog.Tool tool,
      Exchange exchange,
      JsonNode progressToken,
      String requestId,
      int maxItems,
      long maxItemBytes,
      Protocol.Running running,
      LogFilter logs) {
    this.running = running;
    this.logs = logs;
    this.session = session;
    this.key = key;
    this.rpcId = rpcId;
    this.tool = tool;
    this.exchange = exchange;
    this.progressToken = progressToken;
    this.requestId = requestId;
    this.subscription = tool.spec().type() == OperationType.SUBSCRIPTION;
    this.maxItems = maxItems;
    this.maxItemBytes = maxItemBytes;
    this.items = subscription ? Json.NODES.arrayNode() : null;
  }

  String requestId() {
    return requestId;
  }

  boolean isSubscription() {
    return subscription;
  }

  /** Before serving: the call is findable by its JSON-RPC id and by its request id. */
  void register() {
    LiveCalls.add(requestId, this);
    exchange.onBroken(
        () -> cancel(CallError.of(ErrorCode.CANCELLED, "The client went away"), false));
  }

  @Override
  public void onStart(ServedCall call) {
    served = call;
    CallError early = cancelBeforeStart;
    if (early != null) {
      cancel(early, true);
    }
  }

  @Override
  public void onResult(ResponseEnvelope<JsonNode> result) {
    finish(Json.result(rpcId, ResultMapper.result(result, tool.objectOutput())));
  }

  @Override
  public void onItem(ResponseEnvelope<JsonNode> item) {
    if (!subscription) {
      onResult(item); // a unary operation served to a stream consumer: never asked for here
      return;
    }
    JsonNode data = item.data();
    long size = Json.bytes(data).length;
    if (itemBytes + size > maxItemBytes) {
      cut("size: the next item would pass " + maxItemBytes + " bytes of items");
      return;
    }
    items.add(data);
    itemBytes += size;
    if (progressToken != null) {
      ObjectNode params = Json.object();
      params.set("progressToken", progressToken);
      params.put("progress", items.size());
      params.put("message", Json.text(data));
      exchange.notify(Json.notification("notifications/progress", params));
    }
    if (items.size() >= maxItems) {
      cut("count: " + maxItems + " items");
    }
  }

  private void cut(String why) {
    ServedCall call = served;
    if (call != null && call.cancel(CallError.of(ErrorCode.CANCELLED, "Cut: " + why))) {
      finish(Json.result(rpcId, ResultMapper.items(items, "cut at " + why, false)));
    }
  }

  @Override
  public void onComplete() {
    if (subscription) {
      finish(Json.result(rpcId, ResultMapper.items(items, "complete", true)));
    } else {
      finish(Json.error(rpcId, Json.INTERNAL_ERROR, "The call ended without a result", null));
    }
  }

  @Override
  public void onError(CallError error) {
    if (subscription && error.code() == ErrorCode.DEADLINE_EXCEEDED) {
      finish(Json.result(rpcId, ResultMapper.items(items, "cut at the deadline", false)));
      return;
    }
    if (error.code() == ErrorCode.ACCESS_DENIED && done.compareAndSet(false, true)) {
      cleanup();
      if (!exchange.refuseInsufficientScope(
          error.getMessage(), tool.spec().accessControl().requiredScopes())) {
        exchange.reply(rpcError(error));
      }
      return;
    }
    ResultMapper.Outcome outcome = ResultMapper.error(error, tool.name());
    finish(outcome.isResult() ? Json.result(rpcId, outcome.result()) : rpcError(error));
  }

  private ObjectNode rpcError(CallError error) {
    ResultMapper.Outcome outcome = ResultMapper.error(error, tool.name());
    return Json.error(rpcId, outcome.rpcCode(), outcome.rpcMessage(), outcome.rpcData());
  }

  /** A log message from the handler ({@code McpNotifications.log}), filtered as the era says. */
  void log(McpLogLevel level, String logger, JsonNode data) {
    if (done.get() || !logs.passes(level, session)) {
      return;
    }
    ObjectNode params = Json.object();
    params.put("level", level.wireName());
    params.put("logger", logger);
    params.set("data", data);
    exchange.notify(Json.notification("notifications/message", params));
  }

  /** notifications/cancelled: the handler's context is cancelled; no response is owed. */
  void cancelByClient(String reason) {
    cancel(CallError.of(ErrorCode.CANCELLED, reason), false);
  }

  /** The session was closed (DELETE, expiry, shutdown): the call ends with an error response. */
  void cancelByServer(String why) {
    cancel(CallError.of(ErrorCode.UNAVAILABLE, why), true);
  }

  private void cancel(CallError reason, boolean respond) {
    ServedCall call = served;
    if (call == null) {
      cancelBeforeStart = reason;
      call = served; // onStart may have run meanwhile
      if (call == null) {
        return;
      }
    }
    if (call.cancel(reason) && done.compareAndSet(false, true)) {
      cleanup();
      if (respond) {
        exchange.reply(rpcError(reason));
      } else {
        exchange.cancelled();
      }
    }
  }

  private void finish(ObjectNode response) {
    if (done.compareAndSet(false, true)) {
      cleanup();
      exchange.reply(response);
    }
  }

  private void cleanup() {
    session.calls.remove(key, this);
    LiveCalls.remove(requestId, this);
    running.release();
  }
}
