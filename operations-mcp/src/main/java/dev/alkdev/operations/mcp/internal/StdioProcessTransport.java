package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.internal.RateLimitedLog;
import dev.alkdev.operations.mcp.McpClientConfig;
import dev.alkdev.operations.mcp.McpInputHandler;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * MCP over a child process's stdin/stdout: newline-delimited JSON-RPC. Our own rather than the
 * SDK's {@code StdioClientTransport} because that one does not expose the {@link Process}, so it
 * cannot kill the server's whole process tree, and it kills only the direct child.
 */
public final class StdioProcessTransport implements McpClientTransport {
  private static final Logger LOG = LoggerFactory.getLogger(StdioProcessTransport.class);
  private static final RateLimitedLog WARNINGS = RateLimitedLog.of(LOG);

  /** A message line longer than this is dropped (and the stream read on): bounds memory. */
  static final int MAX_LINE_CHARS = 16 * 1024 * 1024;

  /** Server stderr lines are logged cut to this length. */
  static final int MAX_STDERR_LINE_CHARS = 2_000;

  private static final Duration KILL_GRACE = Duration.ofSeconds(2);
  private static final int MAX_JUNK_LOGS = 5;

  /**
   * The {@code data} of a JSON-RPC error this transport makes up for an answer it could not take (a
   * line over {@link #MAX_LINE_CHARS}): the caller's error is RESOURCE_EXHAUSTED, not the server's.
   */
  static final String RESOURCE_EXHAUSTED_MARK = "ops:resource-exhausted";

  /** How long output may still arrive after the process exits before it counts as gone. */
  private static final long EXIT_DRAIN_MILLIS = 200;

  /** Characters of a dropped line's end kept to find its id (servers often write it last). */
  private static final int TAIL_CHARS = 512;

  // A JSON-RPC message's top-level id, at the start ({"jsonrpc":"2.0","id":...) or at the end
  // (...,"jsonrpc":"2.0","id":7}): the places servers write it. Used only for a message that cannot
  // be parsed, to fail the one request it answers instead of leaving it to its timeout.
  private static final String ID_VALUE = "(\"(?:[^\"\\\\]|\\\\.)*\"|-?\\d+)";
  private static final Pattern HEAD_ID =
      Pattern.compile(
          "^\\s*\\{\\s*(?:\"jsonrpc\"\\s*:\\s*\"2\\.0\"\\s*,\\s*)?\"id\"\\s*:\\s*" + ID_VALUE);
  private static final Pattern TAIL_ID =
      Pattern.compile(
          "\"id\"\\s*:\\s*" + ID_VALUE + "\\s*(?:,\\s*\"jsonrpc\"\\s*:\\s*\"2\\.0\"\\s*)?\\}\\s*$");

  private final String serverName;
  private final McpClientConfig.Stdio config;
  private final McpJsonMapper mapper;
  private final CompletableFuture<String> closed = new CompletableFuture<>();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final AtomicInteger junkLines = new AtomicInteger();
  private final Object writeLock = new Object();
  // Starting and killing exclude each other: a kill before the start means no process at all.
  private final Object lifecycle = new Object();
  private volatile Process process;
  private volatile OutputStream stdin;

  /** The era this process speaks; decided at initialize under {@code Era.AUTO}. */
  private volatile McpClientConfig.Era era;

  private final ModernSession modern;
  private volatile Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>>
      sdkHandler;

  /** The answer to the modern probe, while one is awaited. */
  private volatile CompletableFuture<JsonNode> probe;

  private static final String PROBE_ID = CallTrackingTransport.OWN_ID_PREFIX + "discover";

  public StdioProcessTransport(
      String serverName,
      McpClientConfig.Stdio config,
      McpJsonMapper mapper,
      Optional<McpInputHandler> inputHandler) {
    this.serverName = serverName;
    this.config = config;
    this.mapper = mapper;
    this.era = config.era();
    this.modern =
        new ModernSession(
            serverName,
            inputHandler,
            json -> dispatch(json, sdkHandler),
            (original, retry) -> write(retry.toString()));
  }

  /** Whether this process speaks 2026-07-28. */
  boolean isModern() {
    return era == McpClientConfig.Era.MODERN;
  }

  /** Completes with a reason when the process's stdout ended or the transport was closed. */
  public CompletableFuture<String> closedFuture() {
    return closed;
  }

  /** The process, once started. */
  public Process process() {
    return process;
  }

  @Override
  public Mono<Void> connect(
      Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
    return Mono.fromRunnable(() -> start(handler));
  }

  private void start(
      Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
    this.sdkHandler = handler;
    List<String> command = new ArrayList<>();
    command.add(config.command());
    command.addAll(config.args());
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(config.env());
    config.cwd().ifPresent(dir -> builder.directory(new File(dir)));
    synchronized (lifecycle) {
      if (closing.get()) {
        closed.complete("closed before it started");
        throw new IllegalStateException(
            "MCP server " + serverName + " was closed before it started");
      }
      try {
        process = builder.start();
      } catch (IOException e) {
        closed.complete("could not start: " + e.getMessage());
        throw new java.io.UncheckedIOException(
            "Could not start MCP server " + serverName + " (" + config.command() + ")", e);
      }
    }
    // A server whose own process exits is gone even when a child it left holds stdout open.
    process
        .onExit()
        .thenRunAsync(
            () -> closed.complete(closing.get() ? "closed" : "exited" + exitNote()),
            CompletableFuture.delayedExecutor(EXIT_DRAIN_MILLIS, TimeUnit.MILLISECONDS));
    stdin = process.getOutputStream();
    Thread out = new Thread(() -> readStdout(handler), "mcp-" + serverName + "-stdout");
    out.setDaemon(true);
    out.start();
    Thread err = new Thread(this::drainStderr, "mcp-" + serverName + "-stderr");
    err.setDaemon(true);
    err.start();
  }

  private void readStdout(
      Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
    try (Reader reader = new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)) {
      StringBuilder line = new StringBuilder();
      StringBuilder tail = new StringBuilder();
      boolean tooLong = false;
      int c;
      while ((c = reader.read()) != -1) {
        if (c != '\n') {
          if (line.length() < MAX_LINE_CHARS) {
            line.append((char) c);
          } else {
            tooLong = true;
            tail.append((char) c);
            if (tail.length() > 2 * TAIL_CHARS) {
              tail.delete(0, tail.length() - TAIL_CHARS);
            }
          }
          continue;
        }
        if (tooLong) {
          WARNINGS.warn(
              "MCP server {} sent a line over {} characters; dropped", serverName, MAX_LINE_CHARS);
          answerUnreadable(
              line,
              tail,
              "The answer of MCP server "
                  + serverName
                  + " is over "
                  + MAX_LINE_CHARS
                  + " characters; it was dropped",
              RESOURCE_EXHAUSTED_MARK,
              handler);
        } else {
          dispatch(line.toString(), handler);
        }
        line.setLength(0);
        tail.setLength(0);
        tooLong = false;
      }
    } catch (IOException e) {
      if (!closing.get()) {
        LOG.debug("Reading MCP server {} failed", serverName, e);
      }
    } finally {
      closed.complete(closing.get() ? "closed" : "the server's stdout ended" + exitNote());
    }
  }

  private void dispatch(
      String line,
      Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
    String trimmed = line.strip();
    if (trimmed.isEmpty()) {
      return;
    }
    CompletableFuture<JsonNode> awaitingProbe = probe;
    if (awaitingProbe != null && trimmed.contains(PROBE_ID)) {
      try {
        JsonNode answer = ToolMapper.JSON.readTree(trimmed);
        if (PROBE_ID.equals(answer.path("id").asString(""))) {
          awaitingProbe.complete(answer);
          return;
        }
      } catch (RuntimeException e) {
        // not the probe's answer: read on
      }
    }
    if (era == McpClientConfig.Era.MODERN) {
      ModernSession.Incoming incoming = modern.incoming(trimmed);
      if (incoming.json() == null) {
        return;
      }
      trimmed = incoming.json();
    }
    McpSchema.JSONRPCMessage message;
    try {
      message = McpSchema.deserializeJsonRpcMessage(mapper, trimmed);
    } catch (IOException | RuntimeException e) {
      if (trimmed.startsWith("{") && trimmed.contains("\"jsonrpc\"")) {
        // A message we cannot read (nested too deep, say): its request must not wait it out.
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
          root = root.getCause(); // the SDK says "Failed to read value"; Jackson says why
        }
        String why = root.getMessage() == null ? root.toString() : root.getMessage();
        int newline = why.indexOf('\n');
        answerUnreadable(
            trimmed,
            "",
            "Could not read the answer of MCP server "
                + serverName
                + ": "
                + (newline > 0 ? why.substring(0, newline) : why),
            null,
            handler);
        return;
      }
      // Servers sometimes print banners or logs to stdout; skip them rather than die.
      if (junkLines.incrementAndGet() <= MAX_JUNK_LOGS) {
        LOG.warn(
            "MCP server {} wrote a non-JSON-RPC line to stdout: {}",
            serverName,
            Texts.oneLine(trimmed));
      }
      return;
    }
    handler
        .apply(Mono.just(message))
        .subscribe(
            reply -> {},
            error -> LOG.debug("Handling a message of MCP server {} failed", serverName, error));
  }

  /**
   * Answers the request an unreadable message was for, found by its id, with a JSON-RPC error made
   * here (PARSE_ERROR, or {@link #RESOURCE_EXHAUSTED_MARK} in its data for a line too long), so the
   * call (or the SDK's listing) fails at once. A message whose id cannot be found is only logged.
   */
  private void answerUnreadable(
      CharSequence head,
      CharSequence tail,
      String message,
      Object data,
      Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
    Optional<Object> id = findId(head, tail);
    if (id.isEmpty()) {
      WARNINGS.warn("{} (no request id found in it)", message);
      return;
    }
    McpSchema.JSONRPCResponse made =
        new McpSchema.JSONRPCResponse(
            McpSchema.JSONRPC_VERSION,
            id.get(),
            null,
            new McpSchema.JSONRPCResponse.JSONRPCError(
                McpSchema.ErrorCodes.PARSE_ERROR, message, data));
    handler
        .apply(Mono.just(made))
        .subscribe(
            reply -> {},
            error -> LOG.debug("Answering an unreadable message of {} failed", serverName, error));
  }

  /** The top-level id of a message that could not be parsed, where servers write it. */
  static Optional<Object> findId(CharSequence head, CharSequence tail) {
    Matcher m = HEAD_ID.matcher(head);
    String token = null;
    if (m.find()) {
      token = m.group(1);
    } else {
      CharSequence end =
          tail.length() > 0
              ? tail
              : head.subSequence(Math.max(0, head.length() - TAIL_CHARS), head.length());
      Matcher t = TAIL_ID.matcher(end);
      if (t.find()) {
        token = t.group(1);
      }
    }
    if (token == null) {
      return Optional.empty();
    }
    if (token.startsWith("\"")) {
      return Optional.of(ToolMapper.JSON.readValue(token, String.class));
    }
    try {
      return Optional.of(Integer.parseInt(token));
    } catch (NumberFormatException e) {
      return Optional.of(Long.parseLong(token));
    }
  }

  private void drainStderr() {
    InputStream err = process.getErrorStream();
    try (Reader reader = new InputStreamReader(err, StandardCharsets.UTF_8)) {
      StringBuilder line = new StringBuilder();
      int c;
      while ((c = reader.read()) != -1) {
        if (c == '\n') {
          LOG.info("[{} stderr] {}", serverName, line);
          line.setLength(0);
        } else if (line.length() < MAX_STDERR_LINE_CHARS) {
          line.append((char) c);
        }
      }
      if (line.length() > 0) {
        LOG.info("[{} stderr] {}", serverName, line);
      }
    } catch (IOException e) {
      // The process is gone; nothing more to drain.
    }
  }

  private String exitNote() {
    Process p = process;
    if (p == null) {
      return "";
    }
    try {
      if (p.waitFor(200, java.util.concurrent.TimeUnit.MILLISECONDS)) {
        return " (exit code " + p.exitValue() + ")";
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "";
  }

  @Override
  public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
    return Mono.fromRunnable(
        () -> {
          if (message instanceof McpSchema.JSONRPCRequest request
              && McpSchema.METHOD_INITIALIZE.equals(request.method())
              && era != McpClientConfig.Era.LEGACY) {
            open(request, true);
          } else if (era == McpClientConfig.Era.MODERN) {
            sendModern(message);
          } else {
            write(json(message));
          }
        });
  }

  /**
   * The SDK's initialize, under AUTO or MODERN: a modern {@code server/discover} first, as the
   * revision's stdio probe. A modern answer makes the process modern and the SDK gets an initialize
   * result made from it; a -32022 that lists 2026-07-28 gets one more probe; any other answer, or
   * none within a few seconds, sends the initialize itself, unless the config asks for the modern
   * era only.
   */
  private void open(McpSchema.JSONRPCRequest initialize, boolean mayRetry) {
    JsonNode asked = ToolMapper.JSON.readTree(json(initialize.params()));
    modern.initializing(asked);
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    probe = answer;
    write(
        modern
            .ownRequest(PROBE_ID, "server/discover", ToolMapper.JSON.createObjectNode())
            .toString());
    long wait = Math.max(500, Math.min(config.initializeTimeout().toMillis() / 2, 5_000));
    answer
        .orTimeout(wait, TimeUnit.MILLISECONDS)
        .whenComplete(
            (reply, failure) -> {
              probe = null;
              JsonNode result = reply == null ? null : reply.get("result");
              if (result != null
                  && result.path("supportedVersions").toString().contains(ModernWire.VERSION)) {
                era = McpClientConfig.Era.MODERN;
                dispatch(
                    ModernSession.initializeResult(initialize.id(), asked, result, serverName),
                    sdkHandler);
                if (result.at("/capabilities/tools/listChanged").asBoolean(false)) {
                  ObjectNode params = ToolMapper.JSON.createObjectNode();
                  params.putObject("notifications").put("toolsListChanged", true);
                  write(
                      modern
                          .ownRequest(
                              CallTrackingTransport.OWN_ID_PREFIX + "listen",
                              "subscriptions/listen",
                              params)
                          .toString());
                }
                return;
              }
              if (mayRetry
                  && reply != null
                  && ModernWire.isModernError(reply)
                  && reply.at("/error/data/supported").toString().contains(ModernWire.VERSION)) {
                open(initialize, false);
                return;
              }
              if (config.era() == McpClientConfig.Era.MODERN) {
                ObjectNode error = ToolMapper.JSON.createObjectNode();
                error.put("jsonrpc", "2.0");
                error.set("id", ToolMapper.JSON.valueToTree(initialize.id()));
                error
                    .putObject("error")
                    .put("code", McpSchema.ErrorCodes.INTERNAL_ERROR)
                    .put(
                        "message",
                        "MCP server "
                            + serverName
                            + " does not speak MCP "
                            + ModernWire.VERSION
                            + (reply == null
                                ? " (no answer to server/discover)"
                                : " (server/discover answered "
                                    + Texts.oneLine(reply.toString())
                                    + ")"));
                dispatch(error.toString(), sdkHandler);
                return;
              }
              era = McpClientConfig.Era.LEGACY;
              try {
                write(json(initialize));
              } catch (RuntimeException e) {
                LOG.debug("Sending initialize to MCP server {} failed", serverName, e);
              }
            });
  }

  /**
   * A message in the modern era: a request goes out with its metadata; {@code
   * notifications/cancelled} is stdio's cancellation and goes as it is; ping (which the revision
   * removed) is answered here, and the SDK's other notifications have no modern counterpart.
   */
  private void sendModern(McpSchema.JSONRPCMessage message) {
    if (message instanceof McpSchema.JSONRPCNotification n) {
      if (CallTrackingTransport.METHOD_NOTIFICATION_CANCELLED.equals(n.method())) {
        if (n.params() instanceof Map<?, ?> params) {
          modern.forget(params.get("requestId"));
        }
        write(json(message));
      }
      return;
    }
    if (message instanceof McpSchema.JSONRPCRequest request) {
      if (McpSchema.METHOD_PING.equals(request.method())) {
        ObjectNode pong = ToolMapper.JSON.createObjectNode();
        pong.put("jsonrpc", "2.0");
        pong.set("id", ToolMapper.JSON.valueToTree(request.id()));
        pong.putObject("result");
        dispatch(pong.toString(), sdkHandler);
        return;
      }
      ObjectNode body = (ObjectNode) ToolMapper.JSON.readTree(json(message));
      write(modern.outgoing(body).toString());
      return;
    }
    write(json(message));
  }

  private String json(Object sdkObject) {
    try {
      return mapper.writeValueAsString(sdkObject);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Writes one line to the server's stdin. */
  private void write(String line) {
    OutputStream out = stdin;
    if (out == null || closed.isDone()) {
      throw new IllegalStateException(
          "MCP server " + serverName + " is not running" + closed.getNow(""));
    }
    try {
      byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
      synchronized (writeLock) {
        out.write(bytes);
        out.flush();
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("Writing to MCP server " + serverName + " failed", e);
    }
  }

  @Override
  public Mono<Void> closeGracefully() {
    return Mono.fromRunnable(this::kill);
  }

  /** Closes stdin and kills the process tree; idempotent, blocks up to the grace period. */
  public void kill() {
    if (!closing.compareAndSet(false, true)) {
      return;
    }
    Process p;
    synchronized (lifecycle) {
      p = process; // a start that comes later sees `closing` and starts nothing
    }
    if (p != null) {
      try {
        p.getOutputStream().close();
      } catch (IOException e) {
        // Already closed by the process exiting.
      }
      ProcessTrees.kill(p.toHandle(), KILL_GRACE);
    }
    closed.complete("closed");
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
    return mapper.convertValue(data, typeRef);
  }
}
