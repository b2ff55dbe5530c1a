package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.CallMetadata;
import dev.alkdev.operations.Deadline;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationDefinition;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.Progress;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.internal.RateLimitedLog;
import dev.alkdev.operations.mcp.McpClientConfig;
import dev.alkdev.operations.mcp.McpClientOptions;
import dev.alkdev.operations.mcp.McpClientWrapper;
import dev.alkdev.operations.mcp.McpInputHandler;
import dev.alkdev.operations.mcp.McpInputRequest;
import dev.alkdev.operations.mcp.McpProgress;
import dev.alkdev.operations.mcp.ToolChange;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

/** The one {@link McpClientWrapper}: an SDK async client plus our transport decorator. */
public final class DefaultMcpClientWrapper implements McpClientWrapper {
  private static final Logger LOG = LoggerFactory.getLogger(DefaultMcpClientWrapper.class);
  private static final RateLimitedLog WARNINGS = RateLimitedLog.of(LOG);

  /**
   * The SDK's client-wide timeout is only a backstop: every request gets its own bound (the
   * caller's deadline or the config's request timeout) through {@code Mono.timeout}.
   */
  private static final Duration SDK_BACKSTOP = Duration.ofHours(1);

  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(3);

  /** A tool as currently known: its name on the server and its operation. */
  private record Tool(String toolName, OperationDefinition definition) {}

  private final String name;
  private final McpClientConfig config;
  private final McpClientOptions options;
  private final CallTrackingTransport transport;
  private final TaskFollower tasks;
  private final Optional<StdioProcessTransport> stdio;
  private final Optional<StreamableHttpTransport> http;
  private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();
  private final List<OperationRegistry> registries = new CopyOnWriteArrayList<>();
  private final Map<Object, ProgressTarget> progressTargets = new ConcurrentHashMap<>();
  private final Object refreshLock = new Object();
  private CompletableFuture<List<ToolChange>> refreshRunning; // guarded by refreshLock
  private CompletableFuture<List<ToolChange>> refreshNext; // guarded by refreshLock
  private volatile McpAsyncClient client;
  private volatile Map<String, Tool> tools = Map.of();
  private volatile boolean closed;

  /** Whom a call's progress goes to: the client's listener, and the call's own. */
  private record ProgressTarget(
      String operationId,
      String requestId,
      Optional<Consumer<Progress>> listener,
      Optional<Consumer<JsonNode>> items) {}

  private DefaultMcpClientWrapper(
      String name,
      McpClientConfig config,
      McpClientOptions options,
      McpClientTransport raw,
      Optional<StdioProcessTransport> stdio) {
    this.http =
        raw instanceof StreamableHttpTransport streamable
            ? Optional.of(streamable)
            : Optional.empty();
    this.name = name;
    this.config = config;
    this.options = options;
    this.transport = new CallTrackingTransport(raw);
    this.tasks = new TaskFollower(transport, name, options.inputHandler());
    this.stdio = stdio;
  }

  /** Connects, initializes and lists the tools; see {@code McpClients.createMcpClient}. */
  public static McpClientWrapper connect(
      String name, McpClientConfig config, McpClientOptions options) {
    return connect(name, config, options, wrapper -> {});
  }

  /**
   * {@link #connect(String, McpClientConfig, McpClientOptions)}, handing the client to {@code
   * started} before the handshake begins, so a host that gives up waiting can close it (and kill a
   * stdio server's process tree) while it is still connecting.
   */
  public static McpClientWrapper connect(
      String name,
      McpClientConfig config,
      McpClientOptions options,
      java.util.function.Consumer<McpClientWrapper> started) {
    Objects.requireNonNull(started, "started");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(options, "options");
    if (!OperationSpec.isValidId(name + ".x")) {
      throw new IllegalArgumentException(
          "MCP server name must match [A-Za-z0-9_-]{1,64} (it is the namespace), was " + name);
    }
    McpJsonMapper mapper = McpJsonDefaults.getMapper();
    Optional<StdioProcessTransport> stdio = Optional.empty();
    McpClientTransport raw;
    if (config instanceof McpClientConfig.Stdio s) {
      StdioProcessTransport t = new StdioProcessTransport(name, s, mapper, options.inputHandler());
      stdio = Optional.of(t);
      raw = t;
    } else {
      raw =
          new StreamableHttpTransport(
              name, (McpClientConfig.StreamableHttp) config, mapper, options.inputHandler());
    }
    DefaultMcpClientWrapper wrapper =
        new DefaultMcpClientWrapper(name, config, options, raw, stdio);
    try {
      started.accept(wrapper);
      if (wrapper.closed) {
        throw CallError.of(ErrorCode.CANCELLED, "MCP client " + name + " closed while connecting");
      }
      wrapper.start();
      return wrapper;
    } catch (RuntimeException e) {
      wrapper.close();
      throw e;
    }
  }

  private void start() {
    McpClient.AsyncSpec spec = McpClient.async(transport);
    options.inputHandler().ifPresent(handler -> answerServerRequests(spec, handler));
    client =
        spec.clientInfo(new McpSchema.Implementation("operations-java", "0.1.0"))
            .requestTimeout(SDK_BACKSTOP)
            // Ours (Mono.timeout below) fires first and gives the clear error; the SDK's is a
            // backstop.
            .initializationTimeout(connectTimeout().plusSeconds(5))
            .toolsChangeConsumer(
                listed -> {
                  // The SDK lists one page; our refresh follows every page.
                  refresh()
                      .exceptionally(
                          e -> {
                            LOG.warn("Refreshing the tools of MCP server {} failed", name, e);
                            return List.of();
                          });
                  return Mono.empty();
                })
            .progressConsumer(
                note -> {
                  onProgress(note);
                  return Mono.empty();
                })
            .build();
    Duration timeout = connectTimeout();
    CompletableFuture<?> init = client.initialize().timeout(timeout).toFuture();
    stdio.ifPresent(
        t ->
            t.closedFuture()
                .thenAccept(
                    why ->
                        init.completeExceptionally(
                            CallError.of(
                                ErrorCode.UNAVAILABLE,
                                "MCP server " + name + " stopped during initialize: " + why))));
    try {
      init.get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallError.of(ErrorCode.CANCELLED, "Interrupted while connecting to " + name, e);
    } catch (java.util.concurrent.TimeoutException e) {
      throw initTimeout(e);
    } catch (java.util.concurrent.ExecutionException e) {
      // A stdio server that could not start or stopped says why better than the SDK's error.
      Optional<String> gone =
          stdio.flatMap(t -> Optional.ofNullable(t.closedFuture().getNow(null)));
      if (gone.isPresent()) {
        throw CallError.of(ErrorCode.UNAVAILABLE, "MCP server " + name + " " + gone.get(), e);
      }
      CallError mapped = ErrorMapper.map(e, "Connecting to MCP server " + name);
      if (mapped.code() == ErrorCode.DEADLINE_EXCEEDED) {
        throw initTimeout(e);
      }
      throw mapped;
    }
    stdio.ifPresent(t -> t.closedFuture().thenAccept(this::serverGone));
    try {
      tools = toolMap(listAllTools().join());
    } catch (java.util.concurrent.CompletionException e) {
      throw ErrorMapper.map(e, "Listing the tools of MCP server " + name);
    }
  }

  /**
   * With an input handler, the client declares elicitation and sampling, and a 2025 server's {@code
   * elicitation/create} and {@code sampling/createMessage} requests go to the handler, as
   * 2026-07-28's input requests do (the transport asks it for those).
   */
  private void answerServerRequests(McpClient.AsyncSpec spec, McpInputHandler handler) {
    McpJsonMapper mapper = McpJsonDefaults.getMapper();
    spec.capabilities(McpSchema.ClientCapabilities.builder().elicitation().sampling().build())
        .elicitation(
            request -> {
              // Built by hand: the SDK's own mapping of a form request fails (its type id "mode").
              Map<String, Object> params = new LinkedHashMap<>();
              params.put("mode", "form");
              params.put("message", request.message());
              params.put("requestedSchema", request.requestedSchema());
              return ask(
                  handler, mapper, "elicitation/create", params, McpSchema.ElicitResult.class);
            })
        .sampling(
            request ->
                ask(
                    handler,
                    mapper,
                    "sampling/createMessage",
                    request,
                    McpSchema.CreateMessageResult.class));
  }

  private <T> Mono<T> ask(
      McpInputHandler handler,
      McpJsonMapper mapper,
      String method,
      Object request,
      Class<T> resultType) {
    return Mono.defer(
        () -> {
          JsonNode params;
          try {
            params =
                request instanceof Map<?, ?> map
                    ? ToolMapper.JSON.valueToTree(map)
                    : ToolMapper.JSON.readTree(mapper.writeValueAsString(request));
          } catch (java.io.IOException e) {
            return Mono.error(e);
          }
          // A 2025 server's request is not tied to a call the client can name.
          return Mono.fromFuture(handler.answer(new McpInputRequest(name, "", method, params)))
              .map(
                  answer ->
                      mapper.convertValue(
                          ToolMapper.JSON.convertValue(answer, Object.class), resultType));
        });
  }

  private CallError initTimeout(Throwable cause) {
    return CallError.of(
        ErrorCode.DEADLINE_EXCEEDED,
        "MCP server "
            + name
            + " did not answer initialize within "
            + connectTimeout().toMillis()
            + " ms",
        cause);
  }

  /**
   * The bound on connecting: the initialize timeout, and for a server that may ask for OAuth, the
   * time the user has to authorize on top of it.
   */
  private Duration connectTimeout() {
    Duration timeout = config.initializeTimeout();
    if (config instanceof McpClientConfig.StreamableHttp http && http.oauth().isPresent()) {
      timeout = timeout.plus(http.oauth().get().authorizationTimeout());
    }
    return timeout;
  }

  private void serverGone(String why) {
    if (closed) {
      return;
    }
    LOG.warn("MCP server {} went away: {}", name, why);
    CallError error = CallError.of(ErrorCode.UNAVAILABLE, "MCP server " + name + ": " + why);
    inFlight.forEach(f -> f.completeExceptionally(error));
    transport.failAll(error);
  }

  private CompletableFuture<List<McpSchema.Tool>> listAllTools() {
    McpSchema.ServerCapabilities capabilities = client.getServerCapabilities();
    if (capabilities != null && capabilities.tools() == null) {
      // A server may offer no tools (only prompts or resources): it has none to list, which is
      // not a failure to connect.
      LOG.info("MCP server {} offers no tools", name);
      return CompletableFuture.completedFuture(List.of());
    }
    CompletableFuture<List<McpSchema.Tool>> result = new CompletableFuture<>();
    listPage(null, new ArrayList<>(), new HashSet<>(), 0, result);
    return result;
  }

  private void listPage(
      String cursor,
      List<McpSchema.Tool> acc,
      Set<String> seen,
      int page,
      CompletableFuture<List<McpSchema.Tool>> result) {
    Mono<McpSchema.ListToolsResult> request =
        cursor == null ? client.listTools() : client.listTools(cursor);
    request
        .timeout(config.requestTimeout())
        .subscribe(
            listed -> {
              if (listed.tools() != null) {
                acc.addAll(listed.tools());
              }
              String next = listed.nextCursor();
              if (next == null || next.isEmpty()) {
                result.complete(acc);
              } else if (page + 1 >= options.maxToolPages() || !seen.add(next)) {
                LOG.warn(
                    "MCP server {}: stopped listing tools after {} pages (limit or repeated cursor)",
                    name,
                    page + 1);
                result.complete(acc);
              } else {
                listPage(next, acc, seen, page + 1, result);
              }
            },
            error ->
                result.completeExceptionally(
                    ErrorMapper.map(error, "Listing the tools of MCP server " + name)));
  }

  private Map<String, Tool> toolMap(List<McpSchema.Tool> listed) {
    Map<String, Tool> map = new LinkedHashMap<>();
    Set<String> operationNames = new HashSet<>();
    for (McpSchema.Tool tool : listed) {
      if (tool == null || tool.name() == null || map.containsKey(tool.name())) {
        continue;
      }
      OperationSpec spec = ToolMapper.spec(name, tool, options.schemaOptions());
      if (!operationNames.add(spec.name())) {
        LOG.warn("MCP server {}: tool {} maps to a taken name; skipped", name, tool.name());
        continue;
      }
      String toolName = tool.name();
      Handler handler =
          spec.type() == OperationType.SUBSCRIPTION
              ? Handler.emitter(
                  (input, context, emitter) -> stream(spec, toolName, input, context, emitter))
              : Handler.async(
                  (input, context) -> call(spec, toolName, input, context, Optional.empty()));
      map.put(toolName, new Tool(toolName, new OperationDefinition(spec, handler)));
    }
    return java.util.Collections.unmodifiableMap(map);
  }

  /** The end of a stream's call: its result, or its failure. */
  private record StreamEnd(ResponseEnvelope<JsonNode> result, Throwable failure) {}

  /**
   * A stream served by an operations server: each item arrives as a {@code notifications/progress}
   * whose message is its JSON and is emitted at once; the final result ends the stream (and carries
   * every item, so any that did not arrive as progress are emitted then; an error result fails the
   * stream). Cancelling the subscription cancels the call.
   */
  private void stream(
      OperationSpec spec,
      String toolName,
      JsonNode input,
      OperationContext context,
      dev.alkdev.operations.EmitterSubscriptionHandler.Emitter emitter)
      throws Exception {
    java.util.concurrent.BlockingQueue<Object> arrivals =
        new java.util.concurrent.LinkedBlockingQueue<>();
    CompletableFuture<ResponseEnvelope<JsonNode>> result =
        call(spec, toolName, input, context, Optional.of(arrivals::add));
    result.whenComplete((envelope, failure) -> arrivals.add(new StreamEnd(envelope, failure)));
    int emitted = 0;
    try {
      while (true) {
        Object next = arrivals.poll(100, TimeUnit.MILLISECONDS);
        if (emitter.isCancelled()) {
          result.cancel(true);
          return;
        }
        if (next == null) {
          continue;
        }
        if (next instanceof StreamEnd end) {
          if (end.failure() != null) {
            Throwable cause =
                end.failure() instanceof java.util.concurrent.CompletionException c
                        && c.getCause() != null
                    ? c.getCause()
                    : end.failure();
            throw cause instanceof Exception e ? e : new IllegalStateException(cause);
          }
          finish(spec, end.result(), emitted, emitter);
          return;
        }
        emitter.emit(next);
        emitted++;
      }
    } catch (InterruptedException e) {
      result.cancel(true);
      throw e;
    }
  }

  /** The stream's final result: items not yet emitted, or its error. */
  private static void finish(
      OperationSpec spec,
      ResponseEnvelope<JsonNode> envelope,
      int emitted,
      dev.alkdev.operations.EmitterSubscriptionHandler.Emitter emitter)
      throws InterruptedException {
    if (envelope.meta() instanceof dev.alkdev.operations.envelope.McpResponseMeta meta
        && meta.isError()) {
      String text =
          meta.content().stream()
              .filter(block -> block instanceof dev.alkdev.operations.envelope.McpContentBlock.Text)
              .map(block -> ((dev.alkdev.operations.envelope.McpContentBlock.Text) block).text())
              .findFirst()
              .orElse("the stream failed");
      throw CallError.of(ErrorCode.EXECUTION_ERROR, spec.id() + ": " + text);
    }
    JsonNode items = envelope.data().path("items");
    for (int i = emitted; i < items.size(); i++) {
      emitter.emit(items.get(i));
    }
  }

  private CompletableFuture<ResponseEnvelope<JsonNode>> call(
      OperationSpec spec,
      String toolName,
      JsonNode input,
      OperationContext context,
      Optional<Consumer<JsonNode>> items) {
    CompletableFuture<ResponseEnvelope<JsonNode>> future = new CompletableFuture<>();
    if (closed) {
      future.completeExceptionally(
          CallError.of(ErrorCode.UNAVAILABLE, "MCP client " + name + " is closed"));
      return future;
    }
    Map<String, Object> arguments;
    if (input == null || input.isNull() || input.isMissingNode()) {
      arguments = Map.of();
    } else if (input.isObject()) {
      arguments = ToolMapper.JSON.convertValue(input, MAP_TYPE);
    } else {
      future.completeExceptionally(
          CallError.of(ErrorCode.INVALID_INPUT, "MCP tool arguments must be a JSON object"));
      return future;
    }
    // The call's deadline, or the client's request timeout for a call without one.
    OperationContext bounded =
        context.deadline().isPresent()
            ? context
            : context.toBuilder().timeout(config.requestTimeout()).build();
    try {
      bounded.throwIfDone();
    } catch (CallError e) {
      future.completeExceptionally(e);
      return future;
    }
    String id = transport.newRequestId();
    // Not a method reference: linking one would load the telemetry classes (and OpenTelemetry's
    // API, an optional dependency) even for a client without telemetry.
    CallObserver observer =
        options.telemetry().isPresent() ? options.telemetry().get().observer() : CallObserver.NONE;
    CallObserver.Observation observation =
        observer.start(
            name, toolName, protocolVersion(), id, stdio.isPresent(), context.metadata());
    CallMetadata traceContext = observation.traceContext(context.metadata());
    progressTargets.put(
        id,
        new ProgressTarget(
            spec.id(), context.requestId(), context.attribute(Progress.LISTENER), items));
    inFlight.add(future);
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("name", toolName);
    params.put("arguments", arguments);
    // The progress token is the request id: progress and cancellation need no other lookup.
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("progressToken", id);
    // W3C trace context from the call's metadata, as MCP's tracing proposal carries it in _meta,
    // so a server that traces continues the caller's trace.
    traceContext.get("traceparent").ifPresent(value -> meta.put("traceparent", value));
    traceContext.get("tracestate").ifPresent(value -> meta.put("tracestate", value));
    params.put("_meta", meta);
    boolean modern = ModernWire.VERSION.equals(protocolVersion());
    if (!modern && transport.requiresTask(toolName)) {
      // 2025-11-25's experimental tasks: a tool that runs only as a task is asked to, for as long
      // as the caller will wait.
      params.put(
          "task", Map.of("ttl", bounded.deadline().map(Deadline::remainingMillis).orElse(60_000L)));
    }
    String what = "Calling " + spec.id();
    // A call the server turns into a task is followed to its end; its id is kept, so a cancel or
    // the deadline cancels the task (a task is not cancelled by notifications/cancelled).
    java.util.concurrent.atomic.AtomicReference<String> taskId =
        new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.atomic.AtomicReference<CompletableFuture<Object>> following =
        new java.util.concurrent.atomic.AtomicReference<>();
    CompletableFuture<Object> answered =
        transport
            .request(id, McpSchema.METHOD_TOOLS_CALL, params)
            .thenCompose(
                raw -> {
                  Optional<JsonNode> task =
                      TaskFollower.mayBeTask(raw)
                          ? TaskFollower.created(ToolMapper.JSON.valueToTree(raw))
                          : Optional.empty();
                  if (task.isEmpty()) {
                    return CompletableFuture.completedFuture(raw);
                  }
                  taskId.set(task.get().path("taskId").asString());
                  CompletableFuture<Object> follow = tasks.follow(task.get(), modern, toolName);
                  following.set(follow);
                  return follow;
                });
    // Cancelling the call, or its deadline, fails the request here; the server is told below.
    bounded
        .bind(answered)
        .whenComplete(
            (raw, error) -> {
              if (future.isDone()) {
                return;
              }
              if (error == null) {
                try {
                  future.complete(
                      ResultMapper.envelope(ToolMapper.JSON.valueToTree(raw), spec.outputSchema()));
                } catch (RuntimeException e) {
                  future.completeExceptionally(ErrorMapper.map(e, what));
                }
                return;
              }
              CallError mapped = ErrorMapper.map(error, what);
              CompletableFuture<Object> follow = following.get();
              if (follow != null) {
                follow.cancel(false); // no more polling
              }
              if (taskId.get() != null
                  && (mapped.code() == ErrorCode.DEADLINE_EXCEEDED
                      || context.cancellation().isCancelled())) {
                tasks.cancel(taskId.get());
              } else if (mapped.code() == ErrorCode.DEADLINE_EXCEEDED) {
                // The server hears why: a deadline cancels the context too, so it is asked first.
                transport.cancel(id, "deadline exceeded");
              } else if (context.cancellation().isCancelled()) {
                transport.cancel(
                    id,
                    context
                        .cancellation()
                        .reason()
                        .map(Throwable::getMessage)
                        .orElse("cancelled by the caller"));
              }
              future.completeExceptionally(mapped);
            });
    future.whenComplete(
        (ok, error) -> {
          inFlight.remove(future);
          progressTargets.remove(id);
          observation.end(errorType(ok, error));
        });
    return future;
  }

  /** A call's error type for telemetry: its error code, or tool_error for an isError result. */
  private static Optional<String> errorType(ResponseEnvelope<JsonNode> result, Throwable error) {
    if (error != null) {
      Throwable cause =
          error instanceof java.util.concurrent.CompletionException && error.getCause() != null
              ? error.getCause()
              : error;
      return Optional.of(
          cause instanceof CallError callError
              ? callError.code().name()
              : cause instanceof java.util.concurrent.CancellationException
                  ? ErrorCode.CANCELLED.name()
                  : cause.getClass().getName());
    }
    return result != null
            && result.meta() instanceof dev.alkdev.operations.envelope.McpResponseMeta meta
            && meta.isError()
        ? Optional.of("tool_error")
        : Optional.empty();
  }

  private static final tools.jackson.core.type.TypeReference<Map<String, Object>> MAP_TYPE =
      new tools.jackson.core.type.TypeReference<>() {};

  private void onProgress(McpSchema.ProgressNotification note) {
    if (note.progressToken() == null) {
      return;
    }
    ProgressTarget target = progressTargets.get(note.progressToken().toString());
    if (target == null) {
      return;
    }
    if (target.items().isPresent()) {
      // A stream's progress is its items: the message is the item's JSON.
      if (note.message() != null) {
        try {
          target.items().get().accept(ToolMapper.JSON.readTree(note.message()));
        } catch (RuntimeException e) {
          WARNINGS.warn(
              "MCP server {}: a progress message of stream {} is not JSON; skipped",
              name,
              target.operationId());
        }
      }
      return;
    }
    double progress = note.progress() == null ? 0 : note.progress();
    Optional<Double> total = Optional.ofNullable(note.total());
    Optional<String> message = Optional.ofNullable(note.message());
    // The call's own listener (in its context), then the client's.
    target
        .listener()
        .ifPresent(
            listener -> {
              try {
                listener.accept(new Progress(progress, total, message));
              } catch (RuntimeException e) {
                WARNINGS.warn("A progress listener of a call to MCP server {} failed", name, e);
              }
            });
    if (options.progressListener().isEmpty()) {
      return;
    }
    try {
      options
          .progressListener()
          .get()
          .progress(
              new McpProgress(target.operationId(), target.requestId(), progress, total, message));
    } catch (RuntimeException e) {
      WARNINGS.warn("A progress listener of MCP server {} failed", name, e);
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public McpClientConfig config() {
    return config;
  }

  @Override
  public String protocolVersion() {
    if ((http.isPresent() && http.get().isModern())
        || (stdio.isPresent() && stdio.get().isModern())) {
      return ModernWire.VERSION;
    }
    McpAsyncClient c = client;
    McpSchema.InitializeResult init = c == null ? null : c.getCurrentInitializationResult();
    return init == null ? "" : init.protocolVersion();
  }

  @Override
  public List<OperationDefinition> operations() {
    return tools.values().stream().map(Tool::definition).toList();
  }

  @Override
  public Map<String, String> renamedTools() {
    Map<String, String> renamed = new LinkedHashMap<>();
    for (Tool tool : tools.values()) {
      String operation = tool.definition().spec().name();
      if (!operation.equals(tool.toolName())) {
        renamed.put(operation, tool.toolName());
      }
    }
    return Map.copyOf(renamed);
  }

  /**
   * One listing at a time: listings that overlapped were applied in the order they completed, so a
   * listing taken before a tool was removed could land after the one taken since, put the tool
   * back, and stay (no notification follows). A refresh asked for while one runs joins the next,
   * which starts when the running one ends, and so lists what the server has after every
   * notification that asked for it.
   */
  @Override
  public CompletableFuture<List<ToolChange>> refresh() {
    if (closed) {
      return CompletableFuture.failedFuture(closedError());
    }
    CompletableFuture<List<ToolChange>> start;
    synchronized (refreshLock) {
      if (refreshRunning != null) {
        if (refreshNext == null) {
          refreshNext = new CompletableFuture<>();
        }
        return refreshNext;
      }
      start = new CompletableFuture<>();
      refreshRunning = start;
    }
    runRefresh(start);
    return start;
  }

  private void runRefresh(CompletableFuture<List<ToolChange>> result) {
    CompletableFuture<List<McpSchema.Tool>> listing;
    try {
      listing = listAllTools();
    } catch (RuntimeException e) {
      listing = CompletableFuture.failedFuture(e);
    }
    listing.whenComplete(
        (listed, error) -> {
          List<ToolChange> changes = null;
          Throwable failure = error;
          if (failure == null) {
            try {
              changes = apply(toolMap(listed));
            } catch (RuntimeException e) {
              failure = e;
            }
          }
          CompletableFuture<List<ToolChange>> next;
          synchronized (refreshLock) {
            next = refreshNext;
            refreshNext = null;
            refreshRunning = next; // null when nobody waits
          }
          if (failure == null) {
            result.complete(changes);
          } else {
            result.completeExceptionally(failure);
          }
          if (next == null) {
            return;
          }
          if (closed) {
            synchronized (refreshLock) {
              refreshRunning = null;
            }
            next.completeExceptionally(closedError());
          } else {
            runRefresh(next);
          }
        });
  }

  private CallError closedError() {
    return CallError.of(ErrorCode.UNAVAILABLE, "MCP client " + name + " is closed");
  }

  private List<ToolChange> apply(Map<String, Tool> fresh) {
    List<ToolChange> changes = new ArrayList<>();
    synchronized (refreshLock) {
      Map<String, Tool> old = tools;
      for (Tool before : old.values()) {
        Tool after = fresh.get(before.toolName());
        OperationSpec oldSpec = before.definition().spec();
        if (after == null) {
          changes.add(
              new ToolChange(
                  ToolChange.Kind.REMOVED,
                  before.toolName(),
                  Optional.of(oldSpec),
                  Optional.empty(),
                  Set.of()));
          continue;
        }
        Set<ToolChange.Aspect> aspects = diff(oldSpec, after.definition().spec());
        if (!aspects.isEmpty()) {
          changes.add(
              new ToolChange(
                  ToolChange.Kind.CHANGED,
                  before.toolName(),
                  Optional.of(oldSpec),
                  Optional.of(after.definition().spec()),
                  aspects));
        }
      }
      for (Tool after : fresh.values()) {
        if (!old.containsKey(after.toolName())) {
          changes.add(
              new ToolChange(
                  ToolChange.Kind.ADDED,
                  after.toolName(),
                  Optional.empty(),
                  Optional.of(after.definition().spec()),
                  Set.of()));
        }
      }
      tools = fresh;
      for (OperationRegistry registry : registries) {
        update(registry, changes, fresh);
      }
    }
    if (!changes.isEmpty()) {
      LOG.info("MCP server {}: tools changed: {}", name, changes.size());
      options.toolChangeListener().ifPresent(l -> notify(l, changes));
    }
    return List.copyOf(changes);
  }

  private void notify(dev.alkdev.operations.mcp.ToolChangeListener listener, List<ToolChange> c) {
    try {
      listener.toolsChanged(name, List.copyOf(c));
    } catch (RuntimeException e) {
      LOG.warn("A tool change listener of MCP server {} failed", name, e);
    }
  }

  private static Set<ToolChange.Aspect> diff(OperationSpec before, OperationSpec after) {
    Set<ToolChange.Aspect> aspects = EnumSet.noneOf(ToolChange.Aspect.class);
    if (!before.description().equals(after.description())) {
      aspects.add(ToolChange.Aspect.DESCRIPTION);
    }
    if (!before.inputSchema().json().equals(after.inputSchema().json())) {
      aspects.add(ToolChange.Aspect.INPUT_SCHEMA);
    }
    if (!before.outputSchema().json().equals(after.outputSchema().json())) {
      aspects.add(ToolChange.Aspect.OUTPUT_SCHEMA);
    }
    if (before.type() != after.type()) {
      aspects.add(ToolChange.Aspect.TYPE);
    }
    return aspects;
  }

  private static void update(
      OperationRegistry registry, List<ToolChange> changes, Map<String, Tool> fresh) {
    for (ToolChange change : changes) {
      change.oldSpec().ifPresent(spec -> registry.unregister(spec.id()));
      if (change.newSpec().isPresent()) {
        registry.register(fresh.get(change.toolName()).definition());
      }
    }
  }

  @Override
  public Registration registerInto(OperationRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    synchronized (refreshLock) {
      registry.registerAll(operations());
      registries.add(registry);
    }
    return () -> {
      synchronized (refreshLock) {
        if (registries.remove(registry)) {
          operations().forEach(op -> registry.unregister(op.id()));
        }
      }
    };
  }

  @Override
  public boolean isOpen() {
    return !closed;
  }

  @Override
  public void close() {
    synchronized (refreshLock) {
      if (closed) {
        return;
      }
      closed = true;
      for (OperationRegistry registry : registries) {
        operations().forEach(op -> registry.unregister(op.id()));
      }
      registries.clear();
    }
    CallError error = CallError.of(ErrorCode.UNAVAILABLE, "MCP client " + name + " closed");
    inFlight.forEach(f -> f.completeExceptionally(error));
    transport.failAll(error);
    McpAsyncClient c = client;
    if (c != null) {
      try {
        c.closeGracefully().timeout(CLOSE_TIMEOUT).block(CLOSE_TIMEOUT.plusSeconds(1));
      } catch (RuntimeException e) {
        LOG.debug("Closing MCP client {} gracefully failed", name, e);
        c.close();
      }
    }
    stdio.ifPresent(StdioProcessTransport::kill);
  }

  @Override
  public String toString() {
    return "McpClientWrapper["
        + name
        + ", "
        + tools.size()
        + " tools"
        + (closed ? ", closed" : "")
        + "]";
  }
}
