package dev.alkdev.operations.http.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.serving.CallSink;
import dev.alkdev.operations.serving.ServedCall;
import dev.alkdev.operations.sse.SseEvent;
import dev.alkdev.operations.sse.SseWriter;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import tools.jackson.databind.JsonNode;

/**
 * A stream's sink: items as Server-Sent Events, written by {@link SseWriter}.
 *
 * <p>The pipeline's threads never block here: signals go into a queue and a writer task on the
 * server's pool writes them (one at a time per stream), flushing whenever it has caught up. The
 * caller's demand is a window of {@link #WINDOW} items, topped up as items are written, so a client
 * that reads slowly slows the handler instead of filling memory. An idle stream gets a keep-alive
 * comment every interval; a write that fails (the client went away) cancels the call, and with it
 * the handler.
 *
 * <p>Each item is an event with an id (its number in the stream, counted on from a numeric {@code
 * Last-Event-ID}); the end is an event {@code call.completed}, or {@code call.error} with the error
 * shape as data. A call refused before its stream began is answered as a plain JSON error with its
 * status instead.
 */
final class StreamExchange implements CallSink {
  /** Items the handler may send ahead of what the client has taken. */
  static final int WINDOW = 32;

  private static final Object KEEP_ALIVE = new Object();
  private static final Object START = new Object();
  private static final Object GONE = new Object();

  private record End(CallError error) {}

  private final Request request;
  private final Response response;
  private final Callback callback;
  private final boolean dataOnly;
  private final Executor writers;
  private final ScheduledExecutorService timer;
  private final Duration keepAlive;
  private final Queue<Object> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger pending = new AtomicInteger();
  private volatile ServedCall call;
  private volatile boolean open;
  private volatile boolean wroteSinceTick;
  private volatile ScheduledFuture<?> ticks; // set on the request thread, cancelled from others

  // Only the writer task touches these (one at a time).
  private SseWriter sse;
  private boolean finished;
  private boolean unflushed;
  private long nextId;

  StreamExchange(
      Request request,
      Response response,
      Callback callback,
      boolean dataOnly,
      Executor writers,
      ScheduledExecutorService timer,
      Duration keepAlive) {
    this.request = request;
    this.response = response;
    this.callback = callback;
    this.dataOnly = dataOnly;
    this.writers = writers;
    this.timer = timer;
    this.keepAlive = keepAlive;
    this.nextId = firstId(request);
  }

  private static long firstId(Request request) {
    String last = request.getHeaders().get("Last-Event-ID");
    if (last != null) {
      try {
        long n = Long.parseLong(last.trim());
        if (n >= 0 && n < Long.MAX_VALUE) {
          return n + 1;
        }
      } catch (NumberFormatException e) {
        // not one of ours: count from 1
      }
    }
    return 1;
  }

  /** Before the call is served: a failure of the exchange (client gone, idle) cancels it. */
  void watch() {
    request.addFailureListener(failure -> clientGone());
  }

  @Override
  public void onStart(ServedCall call) {
    this.call = call;
  }

  /**
   * Called once {@code serve} has returned: a refusal that came meanwhile becomes a JSON error;
   * otherwise the stream starts (headers go out at once, so an EventSource opens).
   */
  void open(ServedCall served) {
    this.call = served;
    queue.add(START);
    open = true;
    try {
      ticks =
          timer.scheduleAtFixedRate(
              this::tick, keepAlive.toMillis(), keepAlive.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // the gateway is stopping: the stream ends with it
    }
    schedule();
  }

  @Override
  public void onResult(ResponseEnvelope<JsonNode> result) {
    onItem(result);
    onComplete();
  }

  @Override
  public void onItem(ResponseEnvelope<JsonNode> item) {
    queue.add(item);
    schedule();
  }

  @Override
  public void onComplete() {
    queue.add(new End(null));
    schedule();
  }

  @Override
  public void onError(CallError error) {
    queue.add(new End(error));
    schedule();
  }

  private void tick() {
    if (!wroteSinceTick) {
      queue.add(KEEP_ALIVE);
      schedule();
    }
    wroteSinceTick = false;
  }

  private void schedule() {
    if (!open) {
      return;
    }
    if (pending.getAndIncrement() == 0) {
      try {
        writers.execute(this::drain);
      } catch (RejectedExecutionException e) {
        pending.set(0);
        clientGone();
      }
    }
  }

  private void drain() {
    int missed = 1;
    while (true) {
      Object next;
      while (!finished && (next = queue.poll()) != null) {
        try {
          int written = write(next);
          if (written > 0 && !finished) {
            // Demand goes back as soon as an item is in the writer's buffer; a producer that
            // answers at once (on this thread) refills the queue and the loop goes on writing.
            call.request(written);
          }
          if (!finished && queue.isEmpty() && unflushed) {
            // Caught up: what the buffer holds goes out now. A busy stream is flushed when the
            // writer's buffer fills, as a bare writer would, not once per item.
            sse.flush();
            unflushed = false;
          }
        } catch (RuntimeException e) {
          // The client went away (or the stream broke): stop the handler, end the exchange.
          finished = true;
          stop();
          if (call != null) {
            call.cancel(UnaryExchange.CLIENT_GONE);
          }
          callback.failed(e);
        }
      }
      if (finished) {
        queue.clear();
      }
      missed = pending.addAndGet(-missed);
      if (missed == 0) {
        return;
      }
    }
  }

  /** Writes one signal; returns the items written (for the window). */
  private int write(Object next) {
    if (next == GONE) {
      finished = true;
      callback.failed(UnaryExchange.CLIENT_GONE);
      return 0;
    }
    if (sse == null && next instanceof End end && end.error() != null) {
      // Refused before the stream began: a plain JSON error with its status.
      finished = true;
      stop();
      GatewayHandler.writeError(request, response, callback, end.error());
      return 0;
    }
    ensureStarted();
    wroteSinceTick = true;
    if (next == START) {
      sse.flush(); // the headers go out: the client's EventSource opens
      return 0;
    }
    if (next == KEEP_ALIVE) {
      sse.comment("");
      sse.flush();
      return 0;
    }
    if (next instanceof End end) {
      finished = true;
      stop();
      if (end.error() == null) {
        sse.write(SseEvent.message("{}").withType("call.completed"));
      } else {
        sse.write(
            SseEvent.message(Inputs.JSON.writeValueAsString(Errors.body(end.error())))
                .withType("call.error"));
      }
      sse.close(); // flushes and ends the response
      callback.succeeded();
      return 0;
    }
    @SuppressWarnings("unchecked")
    ResponseEnvelope<JsonNode> item = (ResponseEnvelope<JsonNode>) next;
    JsonNode data = dataOnly ? item.data() : item.toJson();
    sse.write(
        SseEvent.message(Inputs.JSON.writeValueAsString(data)).withId(Long.toString(nextId++)));
    unflushed = true;
    return 1;
  }

  private void ensureStarted() {
    if (sse != null) {
      return;
    }
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
    response.getHeaders().put("X-Accel-Buffering", "no");
    if (dataOnly) {
      response.getHeaders().put("Preference-Applied", "return=minimal");
    }
    OutputStream out = Content.Sink.asOutputStream(response);
    sse = SseWriter.to(out);
  }

  /** The exchange failed under us (client gone, idle timeout, server stopping). */
  private void clientGone() {
    ServedCall c = call;
    if (c != null && c.cancel(UnaryExchange.CLIENT_GONE)) {
      // The sink hears nothing more; wake the writer so it notices and ends.
      queue.add(GONE);
      stop();
      schedule();
    }
  }

  private void stop() {
    ScheduledFuture<?> t = ticks;
    if (t != null) {
      t.cancel(false);
    }
  }
}
