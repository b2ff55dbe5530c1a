package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.Deadline;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.internal.RateLimitedLog;
import dev.alkdev.operations.internal.TraceContext;
import dev.alkdev.operations.mcpserver.McpLogLevel;
import dev.alkdev.operations.mcpserver.McpTaskMode;
import dev.alkdev.operations.serving.CallRequest;
import dev.alkdev.operations.serving.OperationServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * MCP's server side over any transport: the lifecycle, ping, logging level, tools/list and
 * tools/call, cancellation. Transports hand it parsed messages with the session and an {@link
 * Exchange} for the answer; the serving rules are the pipeline's ({@link OperationServer}).
 */
public final class Protocol {
  private static final Logger LOG = LoggerFactory.getLogger(Protocol.class);
  private static final RateLimitedLog HANDLER_FAILED = RateLimitedLog.of(LOG);

  /** The revisions negotiated in initialize, newest first. */
  static final List<String> NEGOTIATED = List.of("2025-11-25", "2025-06-18");

  /**
   * The revisions accepted in the {@code MCP-Protocol-Version} header: the negotiated ones, and
   * 2025-03-26, which the spec says to assume when the header is absent (clients of that revision
   * send none, and some send it by name).
   */
  static final Set<String> HEADER_VERSIONS = Set.of("2025-11-25", "2025-06-18", "2025-03-26");

  static final String DEFAULT_HEADER_VERSION = "2025-03-26";

  private final OperationServer server;
  private final Supplier<ToolCatalog> catalog;
  private final String serverName;
  private final String serverVersion;
  private final Optional<String> instructions;
  private final Duration defaultDeadline;
  private final int maxItems;
  private final long maxItemBytes;
  private final int pageSize;
  private final boolean privateLists;
  final Listens listens;
  private final RequestObserver observer;
  private final Running running = new Running();
  private volatile boolean draining;

  /** The tools/calls running through this protocol, so a drain can wait for the last. */
  static final class Running {
    private int count;

    synchronized void acquire() {
      count++;
    }

    synchronized void release() {
      if (--count == 0) {
        notifyAll();
      }
    }

    synchronized boolean awaitNone(long timeoutMillis) throws InterruptedException {
      long end = System.currentTimeMillis() + timeoutMillis;
      long left;
      while (count > 0 && (left = end - System.currentTimeMillis()) > 0) {
        wait(left);
      }
      return count == 0;
    }
  }

  /**
   * New tools/calls are refused (a retryable UNAVAILABLE tool error, so a client tries again
   * elsewhere or later); waits up to {@code timeoutMillis} for the running ones to end.
   */
  boolean drain(long timeoutMillis) throws InterruptedException {
    draining = true;
    return running.awaitNone(timeoutMillis);
  }

  Protocol(
      OperationServer server,
      Supplier<ToolCatalog> catalog,
      String serverName,
      String serverVersion,
      Optional<String> instructions,
      Duration defaultDeadline,
      int maxItems,
      long maxItemBytes,
      int pageSize,
      boolean privateLists,
      Listens listens,
      RequestObserver observer,
      Function<OperationSpec, McpTaskMode> taskMode,
      Tasks tasks,
      TaskMesh taskMesh) {
    this.server = server;
    this.catalog = catalog;
    this.serverName = serverName;
    this.serverVersion = serverVersion;
    this.instructions = instructions;
    this.defaultDeadline = defaultDeadline;
    this.maxItems = maxItems;
    this.maxItemBytes = maxItemBytes;
    this.pageSize = pageSize;
    this.privateLists = privateLists;
    this.listens = listens;
    this.observer = observer;
    this.taskMode = taskMode;
    this.tasks = tasks;
    this.taskMesh = Optional.ofNullable(taskMesh);
  }

  private final Optional<TaskMesh> taskMesh;

  private final Function<OperationSpec, McpTaskMode> taskMode;
  private final Tasks tasks;

  /**
   * Whether {@code message} is a request (has a method and an id), as opposed to a notification.
   */
  static boolean isRequest(JsonNode message) {
    return message.has("method") && message.has("id");
  }

  /**
   * Checks the envelope of a JSON-RPC message: an object with {@code jsonrpc: "2.0"} and a string
   * method or a result/error. Returns the problem, or null when it is well-formed.
   */
  static String malformed(JsonNode message) {
    if (message == null || !message.isObject()) {
      return message != null && message.isArray()
          ? "JSON-RPC batches are not supported (MCP 2025-06-18 removed them)"
          : "A JSON-RPC message must be an object";
    }
    JsonNode version = message.get("jsonrpc");
    if (version == null || !"2.0".equals(version.asString(""))) {
      return "jsonrpc must be \"2.0\"";
    }
    JsonNode method = message.get("method");
    if (method != null && !method.isString()) {
      return "method must be a string";
    }
    if (method == null && !message.has("result") && !message.has("error")) {
      return "A message needs a method, or a result or error";
    }
    JsonNode id = message.get("id");
    if (id != null && !(id.isString() || id.isIntegralNumber())) {
      return "id must be a string or an integer";
    }
    return null;
  }

  /** Handles a notification (or a client's response, which this server never asks for). */
  void notification(Session session, JsonNode message) {
    if (!message.has("method") && message.get("id") != null) {
      answered(session, message);
      return;
    }
    String method = message.path("method").asString("");
    switch (method) {
      case "notifications/initialized" -> session.initialized = session.opened;
      case "notifications/cancelled" -> {
        JsonNode params = message.path("params");
        JsonNode id = params.get("requestId");
        if (id != null) {
          Runnable listen = session.listens.get(key(id));
          if (listen != null) {
            listen.run();
          }
          McpCall call = session.calls.get(key(id));
          if (call != null) {
            String reason = params.path("reason").asString("Cancelled by the client");
            call.cancelByClient(reason.isEmpty() ? "Cancelled by the client" : reason);
          }
        }
      }
      default -> {
        // Other notifications (roots/list_changed, progress from the client) need nothing.
      }
    }
  }

  /**
   * The client's answer to a request a handler sent it (McpAsk, 2025): completes the handler's
   * future; an answer to nothing asked is dropped.
   */
  private static void answered(Session session, JsonNode message) {
    java.util.concurrent.CompletableFuture<JsonNode> ask =
        session.asks.remove(message.get("id").asString(""));
    if (ask == null) {
      return;
    }
    JsonNode error = message.get("error");
    if (error != null) {
      ask.completeExceptionally(
          CallError.of(
              ErrorCode.EXECUTION_ERROR,
              "The client answered with an error: "
                  + error.path("message").asString("")
                  + " ("
                  + error.path("code").asInt()
                  + ")"));
    } else {
      ask.complete(message.path("result"));
    }
  }

  /**
   * Handles a legacy (2025) request; its answer goes to {@code exchange}, now or when the call
   * ends. Before initialize only initialize and ping are served.
   */
  void request(Session session, JsonNode message, Exchange transport) {
    JsonNode id = message.get("id");
    String method = message.get("method").asString();
    JsonNode params = message.path("params");
    RequestObserver.Observation observation =
        observe(session, method, params, id, session.protocolVersion);
    Exchange exchange = observed(transport, observation);
    try {
      if (!session.opened && !method.equals("initialize") && !method.equals("ping")) {
        exchange.reply(
            Json.error(
                id,
                Json.INVALID_REQUEST,
                "Send initialize first, or give the request's params._meta "
                    + Modern.PROTOCOL_VERSION
                    + " "
                    + Modern.VERSION
                    + " and "
                    + Modern.CLIENT_CAPABILITIES,
                null));
        return;
      }
      switch (method) {
        case "initialize" -> exchange.reply(Json.result(id, initialize(session, params)));
        case "ping" -> exchange.reply(Json.result(id, Json.object()));
        case "tools/list" -> exchange.reply(toolsList(session, id, params));
        case "tools/call" ->
            toolsCall(session, id, params, exchange, Optional.empty(), observation);
        case "logging/setLevel" -> exchange.reply(setLevel(session, id, params));
        default ->
            exchange.reply(
                Json.error(id, Json.METHOD_NOT_FOUND, "Method not found: " + method, null));
      }
    } catch (RuntimeException e) {
      HANDLER_FAILED.warn("MCP request {} failed", method, e);
      exchange.reply(Json.error(id, Json.INTERNAL_ERROR, "Internal error", null));
    }
  }

  /**
   * Handles a modern (2026-07-28) request whose metadata and version the transport checked. There
   * is no session: {@code session} is the request's own (HTTP) or the process's (stdio), used for
   * who calls and for cancellation, never for state between requests.
   */
  void modernRequest(Session session, JsonNode message, Exchange transport) {
    JsonNode id = message.get("id");
    String method = message.get("method").asString();
    JsonNode params = message.path("params");
    Modern.Meta meta = Modern.meta(message);
    RequestObserver.Observation observation =
        observe(session, method, params, id, meta.protocolVersion());
    Exchange exchange = new ModernExchange(observed(transport, observation), serverInfo());
    try {
      switch (method) {
        case "server/discover" -> exchange.reply(Json.result(id, discover()));
        case "tools/list" -> exchange.reply(cacheable(toolsList(session, id, params)));
        case "tools/call" ->
            toolsCall(session, id, params, exchange, Optional.of(meta), observation);
        case "subscriptions/listen" -> listens.listen(session, id, params, exchange);
        case "tasks/get", "tasks/update", "tasks/cancel" ->
            task(session, id, method, params, meta, exchange);
        default ->
            exchange.reply(
                Json.error(
                    id,
                    Json.METHOD_NOT_FOUND,
                    "Method not found: " + Modern.printable(method) + removedIn(method),
                    null));
      }
    } catch (RuntimeException e) {
      HANDLER_FAILED.warn("MCP request {} failed", method, e);
      exchange.reply(Json.error(id, Json.INTERNAL_ERROR, "Internal error", null));
    }
  }

  private RequestObserver.Observation observe(
      Session session, String method, JsonNode params, JsonNode id, String protocolVersion) {
    if (observer == RequestObserver.NONE) {
      return RequestObserver.Observation.NONE;
    }
    JsonNode name = params.get("name");
    Optional<String> target =
        method.equals("tools/call") && name != null && name.isString()
            ? Optional.of(name.asString())
            : Optional.empty();
    return observer.start(
        new RequestObserver.RequestInfo(
            method,
            target,
            protocolVersion,
            session.clientVisibleId(),
            id,
            session.overStdio(),
            params.path("_meta")));
  }

  private static Exchange observed(Exchange transport, RequestObserver.Observation observation) {
    return observation == RequestObserver.Observation.NONE
        ? transport
        : new ObservedExchange(transport, observation);
  }

  /** Why a method a 2025 client knows is not found in 2026-07-28, so the error says so. */
  private static String removedIn(String method) {
    return switch (method) {
      case "initialize" -> " (2026-07-28 has no handshake: send server/discover, or any request)";
      case "ping", "logging/setLevel" -> " (removed in 2026-07-28)";
      default -> "";
    };
  }

  /** server/discover: the revisions, capabilities and instructions, for any client to probe. */
  private ObjectNode discover() {
    ObjectNode result = Json.object();
    result.set("supportedVersions", Modern.supportedList());
    ObjectNode capabilities = result.putObject("capabilities");
    capabilities.putObject("tools").put("listChanged", true);
    capabilities.putObject("logging");
    if (catalog.get().tools().stream().anyMatch(t -> modeOf(t) != McpTaskMode.FORBIDDEN)) {
      capabilities.putObject("extensions").putObject(Tasks.EXTENSION);
    }
    instructions.ifPresent(text -> result.put("instructions", text));
    cacheHints(result);
    return result;
  }

  private ObjectNode serverInfo() {
    return Json.object().put("name", serverName).put("version", serverVersion);
  }

  /** A list response with the revision's cache hints on its result. */
  private ObjectNode cacheable(ObjectNode response) {
    if (response.get("result") instanceof ObjectNode result) {
      cacheHints(result);
    }
    return response;
  }

  /**
   * No freshness promised ({@code ttlMs} 0): the registry can change at any moment, and a client
   * that wants to know subscribes to list changes. Private when tools are listed per identity.
   */
  private void cacheHints(ObjectNode result) {
    result.put("ttlMs", 0);
    result.put("cacheScope", privateLists ? "private" : "public");
  }

  private ObjectNode initialize(Session session, JsonNode params) {
    String asked = params.path("protocolVersion").asString("");
    String version = NEGOTIATED.contains(asked) ? asked : NEGOTIATED.get(0);
    session.protocolVersion = version;
    session.opened = true;
    if (params.get("capabilities") instanceof ObjectNode declared) {
      session.clientCapabilities = declared;
    }
    ObjectNode result = Json.object();
    result.put("protocolVersion", version);
    ObjectNode capabilities = result.putObject("capabilities");
    capabilities.putObject("tools").put("listChanged", true);
    capabilities.putObject("logging");
    result.putObject("serverInfo").put("name", serverName).put("version", serverVersion);
    instructions.ifPresent(text -> result.put("instructions", text));
    return result;
  }

  private ObjectNode setLevel(Session session, JsonNode id, JsonNode params) {
    Optional<McpLogLevel> level = McpLogLevel.fromWire(params.path("level").asString(""));
    if (level.isEmpty()) {
      return Json.error(
          id,
          Json.INVALID_PARAMS,
          "level must be one of debug, info, notice, warning, error,"
              + " critical, alert, emergency",
          null);
    }
    session.logLevel = level.get();
    return Json.result(id, Json.object());
  }

  private ObjectNode toolsList(Session session, JsonNode id, JsonNode params) {
    List<ToolCatalog.Tool> visible = catalog.get().visibleTo(session.identity);
    int from = 0;
    JsonNode cursor = params.get("cursor");
    if (cursor != null && !cursor.isNull()) {
      try {
        from = Integer.parseInt(cursor.asString(""));
      } catch (NumberFormatException e) {
        from = -1;
      }
      if (from < 0 || from > visible.size()) {
        return Json.error(id, Json.INVALID_PARAMS, "Invalid cursor", null);
      }
    }
    int to = Math.min(visible.size(), from + pageSize);
    ObjectNode result = Json.object();
    ArrayNode tools = result.putArray("tools");
    for (int i = from; i < to; i++) {
      tools.add(visible.get(i).json());
    }
    if (to < visible.size()) {
      result.put("nextCursor", Integer.toString(to));
    }
    return Json.result(id, result);
  }

  private void toolsCall(
      Session session,
      JsonNode id,
      JsonNode params,
      Exchange exchange,
      Optional<Modern.Meta> modern,
      RequestObserver.Observation observation) {
    JsonNode name = params.get("name");
    if (name == null || !name.isString()) {
      exchange.reply(Json.error(id, Json.INVALID_PARAMS, "params.name must be a string", null));
      return;
    }
    JsonNode arguments = params.get("arguments");
    if (arguments != null && !arguments.isNull() && !arguments.isObject()) {
      exchange.reply(
          Json.error(id, Json.INVALID_PARAMS, "params.arguments must be an object", null));
      return;
    }
    ToolCatalog.Tool tool = catalog.get().byName(name.asString());
    if (tool == null) {
      exchange.reply(Json.error(id, Json.INVALID_PARAMS, "Unknown tool: " + name.asString(), null));
      return;
    }
    Optional<JsonNode> input = inputOf(tool, arguments);
    JsonNode requestState = params.get("requestState");
    if (modern.isPresent() && requestState != null && !requestState.isNull()) {
      resume(session, id, params, tool, requestState, exchange, modern.get());
      return;
    }
    if (modern.isPresent()) {
      McpTaskMode mode = modeOf(tool);
      boolean declared = Tasks.declared(modern.get().clientCapabilities());
      if (mode == McpTaskMode.REQUIRED && !declared) {
        exchange.reply(
            Tasks.missingCapability(id, "Tool " + tool.name() + " runs only as a task: it"));
        return;
      }
      if (declared
          && mode != McpTaskMode.FORBIDDEN
          && !draining
          && tool.spec().accessControl().allows(session.identity)) {
        startTask(session, id, tool, input, params, modern.get(), exchange, observation);
        return;
      }
    }
    JsonNode progressToken = params.path("_meta").get("progressToken");
    if (progressToken != null && !(progressToken.isString() || progressToken.isIntegralNumber())) {
      progressToken = null;
    }
    if (draining) {
      CallError closing =
          CallError.of(ErrorCode.UNAVAILABLE, "The server is shutting down; try again");
      exchange.reply(Json.result(id, ResultMapper.error(closing, tool.name()).result()));
      return;
    }
    String key = key(id);
    String requestId = OperationContext.newRequestId();
    McpCall call =
        new McpCall(
            session,
            key,
            id,
            tool,
            exchange,
            progressToken,
            requestId,
            maxItems,
            maxItemBytes,
            running,
            modern.map(meta -> LogFilter.ofRequest(meta.logLevel())).orElse(LogFilter.SESSION));
    modern.ifPresent(meta -> call.modern(meta, inputRounds, params.get("inputResponses")));
    if (session.calls.putIfAbsent(key, call) != null) {
      exchange.reply(
          Json.error(id, Json.INVALID_REQUEST, "Request id " + id + " is already running", null));
      return;
    }
    running.acquire();
    call.register();
    CallRequest.Builder request =
        CallRequest.builder(tool.spec().id())
            .requestId(requestId)
            .identity(session.identity)
            .client(session.client) // an anonymous client's fair share is its own
            .deadline(Deadline.after(defaultDeadline))
            .metadata(observation.traceContext(traceContext(params.path("_meta"))));
    input.ifPresent(request::input);
    if (tool.spec().type() == OperationType.SUBSCRIPTION) {
      request.demand(maxItems);
    }
    server.serve(request.build(), call);
  }

  private final InputRounds inputRounds = new InputRounds();

  /**
   * A 2026-07-28 call sent again with the input it asked for: the waiting call takes the new
   * request over. A state this server did not give (altered, replayed, expired), or one for another
   * tool or caller, is refused.
   */
  private void resume(
      Session session,
      JsonNode id,
      JsonNode params,
      ToolCatalog.Tool tool,
      JsonNode requestState,
      Exchange exchange,
      Modern.Meta meta) {
    McpCall waiting = requestState.isString() ? inputRounds.take(requestState.asString()) : null;
    if (waiting == null
        || !waiting.tool().name().equals(tool.name())
        || !waiting.callerSubject().equals(session.identity.subject())) {
      exchange.reply(
          Json.error(
              id,
              Json.INVALID_PARAMS,
              "params.requestState is not one this server gave for this call, or it has expired",
              null));
      return;
    }
    JsonNode responses = params.path("inputResponses");
    if (!waiting.resume(id, exchange, meta, responses.isObject() ? responses : Json.object())) {
      exchange.reply(
          Json.error(id, Json.INVALID_PARAMS, "The call of that requestState has ended", null));
    }
  }

  private McpTaskMode modeOf(ToolCatalog.Tool tool) {
    McpTaskMode mode = taskMode.apply(tool.spec());
    return mode == null ? McpTaskMode.FORBIDDEN : mode;
  }

  /**
   * A tools/call run as a task: the task is kept first (so a tasks/get for it resolves as soon as
   * the client hears of it), then the call starts with the task's time to live as its deadline, and
   * the client is answered with the task at once. The call's answer finishes the task.
   */
  private void startTask(
      Session session,
      JsonNode id,
      ToolCatalog.Tool tool,
      Optional<JsonNode> input,
      JsonNode params,
      Modern.Meta meta,
      Exchange exchange,
      RequestObserver.Observation observation) {
    Optional<Tasks.Task> created = tasks.create(session.identity);
    if (created.isEmpty()) {
      exchange.reply(
          Json.error(id, Listens.OVERLOADED, "Too many tasks are kept; try again later", null));
      return;
    }
    Tasks.Task task = created.get();
    String requestId = OperationContext.newRequestId();
    McpCall call =
        new McpCall(
            session,
            "task:" + task.id,
            id,
            tool,
            new Tasks.TaskExchange(task),
            // A token of the call's own, so a SUBSCRIPTION's items count in the task's status.
            Json.NODES.textNode(task.id),
            requestId,
            maxItems,
            maxItemBytes,
            running,
            LogFilter.ofRequest(Optional.empty()));
    task.onCancel(() -> call.cancelByClient("Cancelled by the client (tasks/cancel)"));
    call.modern(meta, inputRounds, null);
    task.onUpdate(responses -> call.answerTask(task, responses));
    running.acquire();
    call.register();
    CallRequest.Builder request =
        CallRequest.builder(tool.spec().id())
            .requestId(requestId)
            .identity(session.identity)
            .client(session.client)
            .deadline(Deadline.after(tasks.ttl()))
            .metadata(observation.traceContext(traceContext(params.path("_meta"))));
    input.ifPresent(request::input);
    if (tool.spec().type() == OperationType.SUBSCRIPTION) {
      request.demand(maxItems);
    }
    ObjectNode result = task.json(false);
    result.put("resultType", "task");
    server.serve(request.build(), call);
    exchange.reply(Json.result(id, result));
  }

  /**
   * tasks/get, tasks/update, tasks/cancel: only for a client that declares the extension (checked
   * before the id, as the extension says), and only on the caller's own tasks; an unknown or
   * expired id, or another caller's, is -32602 alike. A task another server of the mesh runs is
   * asked of that server.
   */
  private void task(
      Session session,
      JsonNode id,
      String method,
      JsonNode params,
      Modern.Meta meta,
      Exchange exchange) {
    if (!Tasks.declared(meta.clientCapabilities())) {
      exchange.reply(Tasks.missingCapability(id, method));
      return;
    }
    JsonNode taskIdNode = params.get("taskId");
    if (taskIdNode == null || !taskIdNode.isString()) {
      exchange.reply(Json.error(id, Json.INVALID_PARAMS, "params.taskId must be a string", null));
      return;
    }
    String taskId = taskIdNode.asString();
    Optional<String> owner = taskMesh.flatMap(mesh -> mesh.ownerElsewhere(taskId));
    if (owner.isPresent()) {
      String op = method.equals("tasks/cancel") ? "cancel" : "get";
      taskMesh
          .get()
          .ask(owner.get(), op, taskId, session.identity)
          .whenComplete(
              (task, error) -> {
                if (error != null) {
                  exchange.reply(
                      Json.error(
                          id,
                          Json.INTERNAL_ERROR,
                          CallError.from(error, ErrorCode.UNAVAILABLE, "Asking for task " + taskId)
                              .getMessage(),
                          null));
                } else if (!task.has("taskId")) {
                  exchange.reply(notFound(id));
                } else {
                  exchange.reply(
                      Json.result(
                          id, method.equals("tasks/get") ? (ObjectNode) task : Json.object()));
                }
              });
      return;
    }
    Optional<Tasks.Task> found = tasks.find(taskId, session.identity);
    if (found.isEmpty()) {
      exchange.reply(notFound(id));
      return;
    }
    Tasks.Task task = found.get();
    switch (method) {
      case "tasks/get" -> exchange.reply(Json.result(id, task.json(true)));
      case "tasks/cancel" -> {
        task.cancel();
        exchange.reply(Json.result(id, Json.object()));
      }
      default -> {
        JsonNode responses = params.path("inputResponses");
        task.update(responses.isObject() ? responses : Json.object());
        exchange.reply(Json.result(id, Json.object()));
      }
    }
  }

  private static ObjectNode notFound(JsonNode id) {
    return Json.error(id, Json.INVALID_PARAMS, "Failed to retrieve task: Task not found", null);
  }

  /**
   * The client's W3C trace context from the request's {@code _meta} (as MCP's tracing proposal puts
   * it), so the call's trace continues the client's; checked as the HTTP gateway checks its headers
   * (a malformed or non-string value is dropped, never an error).
   */
  static CallMetadata traceContext(JsonNode meta) {
    JsonNode traceparent = meta.get(TraceContext.TRACEPARENT);
    if (traceparent == null || !traceparent.isString()) {
      return CallMetadata.empty();
    }
    JsonNode tracestate = meta.get(TraceContext.TRACESTATE);
    Map<String, String> entries = new HashMap<>(4);
    TraceContext.putFromClient(
        entries,
        traceparent.asString(),
        tracestate != null && tracestate.isString() ? tracestate.asString() : null);
    return CallMetadata.of(entries);
  }

  /**
   * The call's input from the tool's arguments; empty when none were given, so the serving pipeline
   * applies the operation's no-input rule as it does for every surface.
   */
  private static Optional<JsonNode> inputOf(ToolCatalog.Tool tool, JsonNode arguments) {
    if (arguments == null || arguments.isNull()) {
      return Optional.empty();
    }
    if (tool.wrapsInput()) {
      JsonNode inner = arguments.get(ToolCatalog.WRAPPED_INPUT);
      return Optional.of(inner == null ? Json.NODES.nullNode() : inner);
    }
    return Optional.of(arguments);
  }

  /** The tool of that name in the catalog now, or null. */
  ToolCatalog.Tool tool(String name) {
    return catalog.get().byName(name);
  }

  /** A JSON-RPC id as a map key: {@code "7"} and {@code 7} are different ids. */
  static String key(JsonNode id) {
    return id.isString() ? "s:" + id.asString() : "n:" + id.asString();
  }

  /** tools/list_changed to every session with a channel for it. */
  static ObjectNode listChanged() {
    return Json.notification("notifications/tools/list_changed", null);
  }
}
