package dev.alkdev.operations.mcpserver.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.IteratingCallback;
import tools.jackson.databind.node.ObjectNode;

/**
 * An SSE response written without blocking: events queue and are written one at a time (Jetty
 * allows one pending write). The queue is bounded: a client that stops reading fills it, and then
 * the stream is failed and its listeners told (the call is cancelled), instead of the server
 * holding ever more memory for it. Jetty's idle timeout ends a write the client never takes.
 */
final class SseStream implements Channel {
  private static final byte[] PREFIX = "event: message\ndata: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] SUFFIX = "\n\n".getBytes(StandardCharsets.US_ASCII);
  private static final ByteBuffer KEEPALIVE =
      ByteBuffer.wrap(": keepalive\n\n".getBytes(StandardCharsets.US_ASCII)).asReadOnlyBuffer();

  private final Response response;
  private final Callback done;
  private final long maxQueuedBytes;
  private final Writer writer = new Writer();
  private final ArrayDeque<ByteBuffer> queue = new ArrayDeque<>();
  private final List<Runnable> brokenListeners = new ArrayList<>(1);
  private long queuedBytes;
  private boolean ending;
  private boolean lastWritten;
  private boolean broken;

  SseStream(Response response, Callback done, long maxQueuedBytes) {
    this.response = response;
    this.done = done;
    this.maxQueuedBytes = maxQueuedBytes;
  }

  /**
   * One JSON-RPC message as an SSE event (Jackson's JSON has no raw line breaks: one data line).
   */
  static ByteBuffer event(ObjectNode message) {
    byte[] json = Json.bytes(message);
    ByteBuffer buffer = ByteBuffer.allocate(PREFIX.length + json.length + SUFFIX.length);
    buffer.put(PREFIX).put(json).put(SUFFIX).flip();
    return buffer;
  }

  @Override
  public boolean send(ObjectNode message) {
    return offer(event(message), false);
  }

  /** Sends {@code message} as the last event and ends the response. */
  boolean sendLast(ObjectNode message) {
    return offer(event(message), true);
  }

  boolean keepalive() {
    return offer(KEEPALIVE.duplicate(), false);
  }

  /** Ends the response after what is queued. */
  @Override
  public void close() {
    synchronized (this) {
      if (ending || broken) {
        return;
      }
      ending = true;
    }
    writer.iterate();
  }

  void onBroken(Runnable listener) {
    boolean now;
    synchronized (this) {
      now = broken;
      if (!now) {
        brokenListeners.add(listener);
      }
    }
    if (now) {
      listener.run();
    }
  }

  private boolean offer(ByteBuffer buffer, boolean last) {
    boolean overflow = false;
    synchronized (this) {
      if (ending || broken) {
        return false;
      }
      if (queuedBytes + buffer.remaining() > maxQueuedBytes) {
        overflow = true;
      } else {
        queue.add(buffer);
        queuedBytes += buffer.remaining();
        ending = last;
      }
    }
    if (overflow) {
      writer.abort(new IOException("The client does not read its SSE stream; closing it"));
      return false;
    }
    writer.iterate();
    return true;
  }

  private void fail(Throwable cause) {
    List<Runnable> listeners;
    synchronized (this) {
      if (broken) {
        return;
      }
      broken = true;
      queue.clear();
      listeners = new ArrayList<>(brokenListeners);
      brokenListeners.clear();
    }
    done.failed(cause);
    listeners.forEach(Runnable::run);
  }

  private final class Writer extends IteratingCallback {
    @Override
    protected Action process() {
      ByteBuffer next;
      boolean last;
      synchronized (SseStream.this) {
        if (lastWritten) {
          return Action.SUCCEEDED;
        }
        next = queue.poll();
        if (next != null) {
          queuedBytes -= next.remaining();
        }
        if (next == null && !ending) {
          return Action.IDLE;
        }
        last = ending && queue.isEmpty();
        lastWritten = last;
      }
      response.write(last, next == null ? ByteBuffer.allocate(0) : next, this);
      return Action.SCHEDULED;
    }

    @Override
    protected void onCompleteSuccess() {
      done.succeeded();
    }

    @Override
    protected void onCompleteFailure(Throwable cause) {
      fail(cause);
    }
  }
}
