package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.internal.RateLimitedLog;
import dev.alkdev.operations.mcpserver.McpStdioEndpoint;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * MCP's stdio transport: one JSON-RPC message per line in, one per line out, one session. The
 * output carries protocol messages only (logs go through SLF4J, which the CLI sends to stderr). A
 * writer thread owns the output, so the pipeline's signals never block on a host that is slow to
 * read; past {@code maxQueuedStreamBytes} unread the host is taken to be gone and the session ends.
 */
final class StdioTransport implements McpStdioEndpoint {
  private static final Logger LOG = LoggerFactory.getLogger(StdioTransport.class);
  private static final RateLimitedLog BAD_INPUT = RateLimitedLog.of(LOG);

  private final Engine engine;
  private final InputStream in;
  private final OutputStream out;
  final Session session;
  private final Thread reader;
  private final Thread writer;
  private final ArrayDeque<byte[]> queue = new ArrayDeque<>();
  private final CountDownLatch closed = new CountDownLatch(1);
  private long queuedBytes;
  private boolean ending;

  StdioTransport(Engine engine, InputStream in, OutputStream out) {
    this.engine = engine;
    this.in = in;
    this.out = out;
    this.session = new Session(Session.STDIO, engine.config.stdioIdentity(), "mcp stdio");
    this.session.channel(
        new Channel() {
          @Override
          public boolean send(ObjectNode message) {
            return write(message);
          }

          @Override
          public void close() {}
        });
    this.reader = new Thread(this::read, "ops-mcp-stdio-in");
    this.reader.setDaemon(true);
    this.writer = new Thread(this::drain, "ops-mcp-stdio-out");
    this.writer.setDaemon(true);
  }

  void start() {
    writer.start();
    reader.start();
  }

  private void read() {
    int max = engine.config.maxRequestBytes();
    ByteArrayOutputStream line = new ByteArrayOutputStream(1024);
    boolean tooLong = false;
    byte[] buffer = new byte[16 * 1024];
    try {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        int start = 0;
        for (int i = 0; i < n; i++) {
          if (buffer[i] != '\n') {
            continue;
          }
          if (!tooLong && line.size() + (i - start) <= max) {
            line.write(buffer, start, i - start);
            handle(line.toByteArray());
          } else {
            BAD_INPUT.warn("A stdio message over {} bytes was dropped", max);
            write(
                Json.error(
                    null,
                    Json.INVALID_REQUEST,
                    "Message too large: at most " + max + " bytes",
                    null));
          }
          line.reset();
          tooLong = false;
          start = i + 1;
        }
        int rest = n - start;
        if (!tooLong && line.size() + rest <= max) {
          line.write(buffer, start, rest);
        } else {
          tooLong = true;
          line.reset();
        }
      }
    } catch (IOException e) {
      LOG.debug("stdio input failed", e);
    } finally {
      end();
    }
  }

  private void handle(byte[] bytes) {
    int from = 0;
    int to = bytes.length;
    while (from < to && Character.isWhitespace(bytes[from])) {
      from++;
    }
    while (to > from && Character.isWhitespace(bytes[to - 1])) {
      to--;
    }
    if (from == to) {
      return;
    }
    JsonNode message;
    try {
      message = Json.read(bytes, from, to - from);
    } catch (CallError e) {
      write(Json.error(null, Json.PARSE_ERROR, e.getMessage(), null));
      return;
    }
    String problem = Protocol.malformed(message);
    if (problem != null) {
      JsonNode id = message != null && message.isObject() ? message.get("id") : null;
      write(Json.error(id, Json.INVALID_REQUEST, problem, null));
      return;
    }
    session.touch();
    if (!Protocol.isRequest(message)) {
      engine.protocol.notification(session, message);
      return;
    }
    if (Modern.isModern(false, null, message)) {
      // 2026-07-28 on stdio: each request carries its version; the process is no session.
      JsonNode id = message.get("id");
      Optional<Modern.Refusal> refusal = Modern.checkMeta(id, message);
      if (refusal.isEmpty()) {
        refusal = Modern.checkVersion(id, Modern.meta(message).protocolVersion());
      }
      if (refusal.isPresent()) {
        write(refusal.get().error());
        return;
      }
      engine.protocol.modernRequest(session, message, new StdioExchange());
      return;
    }
    engine.protocol.request(session, message, new StdioExchange());
  }

  /** Queues one line; false when the output is closed or the host stopped reading. */
  boolean write(ObjectNode message) {
    byte[] json = Json.bytes(message);
    boolean overflow = false;
    synchronized (queue) {
      if (ending) {
        return false;
      }
      if (queuedBytes + json.length > engine.config.maxQueuedStreamBytes()) {
        overflow = true;
      } else {
        queue.add(json);
        queuedBytes += json.length;
        queue.notifyAll();
      }
    }
    if (overflow) {
      LOG.error("The MCP host does not read stdout; ending the stdio session");
      close();
      return false;
    }
    return true;
  }

  private void drain() {
    try {
      while (true) {
        byte[] next;
        synchronized (queue) {
          while (queue.isEmpty() && !ending) {
            queue.wait();
          }
          next = queue.poll();
          if (next == null) {
            break;
          }
          queuedBytes -= next.length;
        }
        out.write(next);
        out.write('\n');
        boolean drained;
        synchronized (queue) {
          drained = queue.isEmpty();
        }
        if (drained) {
          // Outside the lock: a host that stops reading blocks this flush, and the writers must
          // still reach the queue (and its byte bound) meanwhile.
          out.flush();
        }
      }
      out.flush();
    } catch (IOException e) {
      LOG.debug("stdio output failed", e);
      close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closed.countDown();
    }
  }

  /** The input ended: running calls are cancelled, then the output drains and closes. */
  private void end() {
    session.close("The stdio input ended");
    synchronized (queue) {
      ending = true;
      queue.notifyAll();
    }
    engine.stdioEnded(this);
  }

  @Override
  public boolean awaitClosed(Duration timeout) throws InterruptedException {
    return closed.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    session.close("The server is closing");
    synchronized (queue) {
      ending = true;
      queue.notifyAll();
    }
    try {
      in.close(); // ends the reader's blocking read on most streams
    } catch (IOException e) {
      LOG.debug("closing stdio input failed", e);
    }
    engine.stdioEnded(this);
  }

  /** One request's answers: lines on the shared output. */
  private final class StdioExchange implements Exchange {
    @Override
    public void notify(ObjectNode notification) {
      write(notification);
    }

    @Override
    public void reply(ObjectNode response) {
      write(response);
    }

    @Override
    public void cancelled() {
      // MCP: no response to a cancelled request; on stdio nothing else needs ending.
    }

    @Override
    public void onBroken(Runnable action) {
      // The session's close cancels every call; nothing breaks one request alone here.
    }
  }
}
