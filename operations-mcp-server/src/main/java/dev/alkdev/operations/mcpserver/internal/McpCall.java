package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.mcpserver.McpLogLevel;
import dev.alkdev.operations.serving.CallSink;
import dev.alkdev.operations.serving.ServedCall;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One {@code tools/call} being served: the pipeline's {@link CallSink} for it, turning its outcome
 * into the JSON-RPC response, and the place cancellation reaches it from the client (a {@code
 * notifications/cancelled}), the session (closed) or the transport (the client went away). Its
 * handler's questions to the client ({@code McpAsk}) go out from here: on the call's stream (2025),
 * as input rounds the client answers by sending the call again (2026-07-28), or through its task.
 */
final class McpCall implements CallSink {
  private final Session session;
  private final String key;
  private volatile JsonNode rpcId;
  private final ToolCatalog.Tool tool;
  private volatile Exchange exchange;
  private final JsonNode progressToken;
  private final String requestId;
  private final boolean subscription;
  private final int maxItems;
  private final long maxItemBytes;
  private final AtomicBoolean done = new AtomicBoolean();
  private final Protocol.Running running;
  private final LogFilter logs;
  private volatile ServedCall served;

  // Asking the client (McpAsk). In 2026-07-28 the asks of a round go out together as one
  // InputRequiredResult, and the call waits for the client to send it again with the answers.
  private final Object askLock = new Object();
  private final Map<String, PendingAsk> asks = new LinkedHashMap<>();
  private boolean roundScheduled; // guarded by askLock
  private boolean waitingForRetry; // guarded by askLock
  private String requestState; // guarded by askLock
  private volatile Modern.Meta meta;
  private volatile InputRounds rounds;

  /** The answers the current 2026-07-28 request carries (inputResponses), used once each. */
  private ObjectNode responses = Json.object(); // guarded by askLock

  private record PendingAsk(String method, ObjectNode params, CompletableFuture<JsonNode> answer) {}

  /** How long the asks of one round are gathered before they go out together. */
  private static final long ROUND_GATHER_MILLIS = 20;

  /** How long a call waits for its client to send it again with the input it asked for. */
  static final long INPUT_WAIT_SECONDS = 120;

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

  /**
   * A 2026-07-28 call: its request's metadata, where it waits for a retry with input, and the
   * answers its request already carries.
   */
  McpCall modern(Modern.Meta meta, InputRounds rounds, JsonNode inputResponses) {
    this.meta = meta;
    this.rounds = rounds;
    synchronized (askLock) {
      this.responses =
          inputResponses instanceof ObjectNode given ? given.deepCopy() : Json.object();
    }
    return this;
  }

  /** Whether the client declared {@code capability} (on this request in 2026-07-28). */
  boolean canAsk(String capability) {
    Modern.Meta current = meta;
    if (current != null) {
      return current.hasCapability(capability);
    }
    JsonNode declared = session.clientCapabilities;
    return declared != null && declared.path(capability).isObject();
  }

  /**
   * An answer fit for {@code method}: an elicitation's has an action, a sampling's content, a roots
   * request's roots; anything else is treated as no answer (asked again).
   */
  private static boolean fits(String method, JsonNode answer) {
    if (!(answer instanceof ObjectNode object)) {
      return false;
    }
    return switch (method) {
      case "elicitation/create" -> object.path("action").isString();
      case "sampling/createMessage" -> object.has("content");
      default -> object.path("roots").isArray();
    };
  }

  ToolCatalog.Tool tool() {
    return tool;
  }

  String callerSubject() {
    return session.identity.subject();
  }

  /**
   * The handler asks the client ({@code McpAsk}). A 2025 session gets the request on the call's
   * stream and its answer comes back on the session; in 2026-07-28 it joins this round's
   * InputRequiredResult. Refused at once when the client did not declare the capability.
   */
  CompletableFuture<JsonNode> ask(String key, String method, ObjectNode params) {
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    if (done.get()) {
      answer.completeExceptionally(CallError.of(ErrorCode.CANCELLED, "The call has ended"));
      return answer;
    }
    String capability = LiveCalls.ASKABLE.get(method);
    Modern.Meta current = meta;
    if (exchange instanceof Tasks.TaskExchange taskExchange) {
      if (current == null || !current.hasCapability(capability)) {
        answer.completeExceptionally(missing(capability));
        return answer;
      }
      ObjectNode requests;
      synchronized (askLock) {
        PendingAsk earlier = asks.get(key);
        if (earlier != null && !earlier.answer().isDone()) {
          return earlier.answer();
        }
        asks.put(key, new PendingAsk(method, params, answer));
        requests = unanswered();
      }
      taskExchange.task().inputRequired(requests);
      return answer;
    }
    if (current != null) {
      if (!current.hasCapability(capability)) {
        answer.completeExceptionally(missing(capability));
        return answer;
      }
      synchronized (askLock) {
        JsonNode given = responses.remove(key);
        if (given != null && fits(method, given)) {
          answer.complete(given);
          return answer;
        }
        PendingAsk earlier = asks.get(key);
        if (earlier != null && !earlier.answer().isDone()) {
          return earlier.answer(); // the same question, not answered yet
        }
        asks.put(key, new PendingAsk(method, params, answer));
        scheduleRound();
      }
      return answer;
    }
    JsonNode declared = session.clientCapabilities;
    if (declared == null || !declared.path(capability).isObject()) {
      answer.completeExceptionally(missing(capability));
      return answer;
    }
    String id = "ops-ask-" + session.askIds.incrementAndGet();
    session.asks.put(id, answer);
    answer.whenComplete((ok, error) -> session.asks.remove(id, answer));
    ObjectNode request = Json.object();
    request.put("jsonrpc", "2.0");
    request.put("id", id);
    request.put("method", method);
    request.set("params", params);
    exchange.notify(request);
    return answer;
  }

  private static CallError missing(String capability) {
    MissingCapability why = new MissingCapability(capability);
    return CallError.of(ErrorCode.PROTOCOL_ERROR, why.getMessage(), why);
  }

  /** The asks not answered yet, as {@code inputRequests}; the caller holds askLock. */
  private ObjectNode unanswered() {
    ObjectNode requests = Json.object();
    asks.forEach(
        (key, ask) -> {
          if (!ask.answer().isDone()) {
            ObjectNode request = requests.putObject(key);
            request.put("method", ask.method());
            request.set("params", ask.params());
          }
        });
    return requests;
  }

  /**
   * A task's tasks/update: each answer that fits completes its ask, and the task then lists what is
   * still asked (or works again). Keys not asked, or already answered, are ignored.
   */
  void answerTask(Tasks.Task task, JsonNode responses) {
    List<Runnable> answered = new ArrayList<>();
    ObjectNode still;
    synchronized (askLock) {
      for (Iterator<Map.Entry<String, PendingAsk>> it = asks.entrySet().iterator();
          it.hasNext(); ) {
        Map.Entry<String, PendingAsk> entry = it.next();
        PendingAsk ask = entry.getValue();
        JsonNode response = responses.get(entry.getKey());
        if (ask.answer().isDone()) {
          it.remove();
        } else if (response != null && fits(ask.method(), response)) {
          answered.add(() -> ask.answer().complete(response));
          it.remove();
        }
      }
      still = unanswered();
    }
    // The task's status first, so a tasks/get right after the acknowledgement sees it.
    task.inputRequired(still);
    answered.forEach(Runnable::run);
  }

  private void giveUpWaiting(String state) {
    synchronized (askLock) {
      if (!waitingForRetry || !state.equals(requestState)) {
        return;
      }
    }
    cancel(
        CallError.of(
            ErrorCode.CANCELLED,
            "The client did not send the call again with its input within "
                + INPUT_WAIT_SECONDS
                + " s"),
        false);
  }

  /** Sends this round's asks once they had time to gather; the caller holds askLock. */
  private void scheduleRound() {
    if (!roundScheduled) {
      roundScheduled = true;
      CompletableFuture.delayedExecutor(ROUND_GATHER_MILLIS, TimeUnit.MILLISECONDS)
          .execute(this::sendRound);
    }
  }

  /** 2026-07-28: the round's unanswered asks go out as an InputRequiredResult. */
  private void sendRound() {
    ObjectNode result = Json.object();
    Exchange current;
    JsonNode id;
    synchronized (askLock) {
      roundScheduled = false;
      if (done.get() || waitingForRetry) {
        return;
      }
      ObjectNode requests = unanswered();
      if (requests.isEmpty()) {
        return;
      }
      waitingForRetry = true;
      requestState = rounds.suspend(this);
      String state = requestState;
      // A client that never sends the call again (it had no one to ask, or went away) must not
      // hold the call: it is cancelled when no answer came in time.
      CompletableFuture.delayedExecutor(INPUT_WAIT_SECONDS, TimeUnit.SECONDS)
          .execute(() -> giveUpWaiting(state));
      result.put("resultType", "input_required");
      result.set("inputRequests", requests);
      result.put("requestState", requestState);
      current = exchange;
      id = rpcId;
    }
    current.reply(Json.result(id, result));
  }

  /**
   * The client sent the call again with answers: the new request takes over (its id, its exchange,
   * its metadata), each answer completes its ask, and asks left unanswered go out again. False when
   * the call is no longer waiting (it ended meanwhile).
   */
  boolean resume(
      JsonNode newId, Exchange newExchange, Modern.Meta newMeta, JsonNode inputResponses) {
    JsonNode responses = inputResponses;
    List<Runnable> answered = new ArrayList<>();
    boolean askAgain = false;
    synchronized (askLock) {
      if (done.get() || !waitingForRetry) {
        return false;
      }
      waitingForRetry = false;
      requestState = null;
      exchange = newExchange;
      rpcId = newId;
      meta = newMeta;
      for (Iterator<PendingAsk> it = asks.values().iterator(); it.hasNext(); ) {
        PendingAsk ask = it.next();
        if (ask.answer().isDone()) {
          it.remove();
        }
      }
      ObjectNode given = responses instanceof ObjectNode object ? object.deepCopy() : Json.object();
      for (Map.Entry<String, PendingAsk> entry : asks.entrySet()) {
        JsonNode response = given.remove(entry.getKey());
        PendingAsk ask = entry.getValue();
        if (response != null && fits(ask.method(), response)) {
          answered.add(() -> ask.answer().complete(response));
        } else {
          askAgain = true;
        }
      }
      this.responses = given; // answers to questions not asked yet
    }
    newExchange.onBroken(
        () -> cancel(CallError.of(ErrorCode.CANCELLED, "The client went away"), false));
    answered.forEach(Runnable::run);
    if (askAgain) {
      synchronized (askLock) {
        scheduleRound();
      }
    }
    return true;
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
    MissingCapability missing = missingIn(error);
    if (missing != null) {
      ObjectNode required = Json.object();
      required.putObject(missing.capability);
      finish(Modern.missingCapability(rpcId, missing.getMessage(), required));
      return;
    }
    ResultMapper.Outcome outcome = ResultMapper.error(error, tool.name());
    finish(outcome.isResult() ? Json.result(rpcId, outcome.result()) : rpcError(error));
  }

  private static MissingCapability missingIn(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof MissingCapability missing) {
        return missing;
      }
    }
    return null;
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
    List<PendingAsk> unanswered;
    synchronized (askLock) {
      if (rounds != null) {
        rounds.forget(requestState, this);
      }
      unanswered = new ArrayList<>(asks.values());
      asks.clear();
    }
    // Outside the lock: what the handler chained on an ask runs here.
    CallError ended = CallError.of(ErrorCode.CANCELLED, "The call has ended");
    unanswered.forEach(ask -> ask.answer().completeExceptionally(ended));
    session.calls.remove(key, this);
    LiveCalls.remove(requestId, this);
    running.release();
  }
}
