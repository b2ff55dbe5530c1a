package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.internal.RateLimitedLog;
import dev.alkdev.operations.mcp.McpClientConfig;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

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

  private final String serverName;
  private final McpClientConfig.Stdio config;
  private final McpJsonMapper mapper;
  private final CompletableFuture<String> closed = new CompletableFuture<>();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final AtomicInteger junkLines = new AtomicInteger();
  private final Object writeLock = new Object();
  private volatile Process process;
  private volatile OutputStream stdin;

  public StdioProcessTransport(
      String serverName, McpClientConfig.Stdio config, McpJsonMapper mapper) {
    this.serverName = serverName;
    this.config = config;
    this.mapper = mapper;
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
    List<String> command = new ArrayList<>();
    command.add(config.command());
    command.addAll(config.args());
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(config.env());
    config.cwd().ifPresent(dir -> builder.directory(new File(dir)));
    try {
      process = builder.start();
    } catch (IOException e) {
      closed.complete("could not start: " + e.getMessage());
      throw new java.io.UncheckedIOException(
          "Could not start MCP server " + serverName + " (" + config.command() + ")", e);
    }
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
      boolean tooLong = false;
      int c;
      while ((c = reader.read()) != -1) {
        if (c != '\n') {
          if (line.length() < MAX_LINE_CHARS) {
            line.append((char) c);
          } else {
            tooLong = true;
          }
          continue;
        }
        if (tooLong) {
          WARNINGS.warn(
              "MCP server {} sent a line over {} characters; dropped", serverName, MAX_LINE_CHARS);
        } else {
          dispatch(line.toString(), handler);
        }
        line.setLength(0);
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
    McpSchema.JSONRPCMessage message;
    try {
      message = McpSchema.deserializeJsonRpcMessage(mapper, trimmed);
    } catch (IOException | RuntimeException e) {
      // Servers sometimes print banners or logs to stdout; skip them rather than die.
      if (junkLines.incrementAndGet() <= MAX_JUNK_LOGS) {
        LOG.warn("MCP server {} wrote a non-JSON-RPC line to stdout: {}", serverName, cut(trimmed));
      }
      return;
    }
    handler
        .apply(Mono.just(message))
        .subscribe(
            reply -> {},
            error -> LOG.debug("Handling a message of MCP server {} failed", serverName, error));
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
          OutputStream out = stdin;
          if (out == null || closed.isDone()) {
            throw new IllegalStateException(
                "MCP server " + serverName + " is not running" + closed.getNow(""));
          }
          try {
            byte[] bytes =
                (mapper.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8);
            synchronized (writeLock) {
              out.write(bytes);
              out.flush();
            }
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(
                "Writing to MCP server " + serverName + " failed", e);
          }
        });
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
    Process p = process;
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

  private static String cut(String text) {
    return text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }
}
