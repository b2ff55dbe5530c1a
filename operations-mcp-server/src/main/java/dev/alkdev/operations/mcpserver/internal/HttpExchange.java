package dev.alkdev.operations.mcpserver.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import tools.jackson.databind.node.ObjectNode;

/**
 * One POST's answer. It starts as plain JSON (one write, the fast path) and becomes an SSE stream
 * only when a notification about the request comes before the response and the client accepts
 * {@code text/event-stream}; a client that does not accept it misses the notifications, not the
 * response.
 */
final class HttpExchange implements Exchange {
  private enum State {
    PENDING,
    STREAMING,
    DONE
  }

  private final HttpTransport transport;
  private final Response response;
  private final Callback callback;
  private final boolean acceptsSse;
  private final boolean modern;
  private final List<Runnable> brokenListeners = new ArrayList<>(1);
  private final long createdNanos = System.nanoTime();
  private State state = State.PENDING;
  private SseStream stream;
  private boolean broken;

  HttpExchange(
      HttpTransport transport,
      Response response,
      Callback callback,
      boolean acceptsSse,
      boolean modern) {
    this.transport = transport;
    this.response = response;
    this.callback = callback;
    this.acceptsSse = acceptsSse;
    this.modern = modern;
  }

  @Override
  public void notify(ObjectNode notification) {
    SseStream sse;
    synchronized (this) {
      if (state == State.DONE || (state == State.PENDING && !acceptsSse)) {
        return;
      }
      if (state == State.PENDING) {
        state = State.STREAMING;
        stream = transport.openStream(response, callback);
        stream.onBroken(this::broken);
      }
      sse = stream;
    }
    sse.send(notification);
  }

  @Override
  public void reply(ObjectNode message) {
    SseStream sse;
    synchronized (this) {
      if (state == State.DONE) {
        return;
      }
      boolean json = state == State.PENDING;
      state = State.DONE;
      transport.settled(this);
      if (json) {
        // 2026-07-28 gives its protocol errors HTTP statuses too (404 for an unknown method).
        int status = modern ? Modern.statusOf(message) : 200;
        HttpTransport.writeJson(response, callback, status, Json.bytes(message));
        return;
      }
      sse = stream;
    }
    sse.sendLast(message);
    transport.streamEnded(sse);
  }

  @Override
  public void cancelled() {
    SseStream sse;
    synchronized (this) {
      if (state == State.DONE) {
        return;
      }
      boolean json = state == State.PENDING;
      state = State.DONE;
      transport.settled(this);
      if (json) {
        // No response is owed for a cancelled request; the POST still needs an end.
        response.setStatus(202);
        response.write(true, ByteBuffer.allocate(0), callback);
        return;
      }
      sse = stream;
    }
    sse.close();
    transport.streamEnded(sse);
  }

  @Override
  public boolean refuseInsufficientScope(String message, java.util.Set<String> scopes) {
    synchronized (this) {
      if (state != State.PENDING || !transport.hasAuthenticator()) {
        return false;
      }
      state = State.DONE;
      transport.settled(this);
    }
    response
        .getHeaders()
        .put(
            HttpHeader.WWW_AUTHENTICATE,
            transport.challenge("insufficient_scope", message, String.join(" ", scopes)));
    HttpTransport.writeJson(
        response, callback, 403, Json.bytes(Json.error(null, Json.ACCESS_DENIED, message, null)));
    return true;
  }

  @Override
  public void onBroken(Runnable action) {
    boolean now;
    synchronized (this) {
      now = broken;
      if (!now) {
        brokenListeners.add(action);
      }
    }
    if (now) {
      action.run();
    }
  }

  /** The client went away (the request failed) before the answer was written. */
  void broken() {
    List<Runnable> listeners;
    synchronized (this) {
      if (broken) {
        return;
      }
      broken = true;
      listeners = new ArrayList<>(brokenListeners);
      brokenListeners.clear();
      if (state == State.DONE) {
        return;
      }
      state = State.DONE;
      transport.settled(this);
    }
    listeners.forEach(Runnable::run);
  }

  /**
   * A liveness tick for a request still unanswered: once it is older than {@code afterNanos} its
   * answer starts as a stream (when the client accepts one), and every tick writes a comment to it,
   * so that a client that went away, which the server only learns of by writing, is noticed within
   * a tick or two and its call cancelled. Returns whether the exchange still needs ticks.
   */
  boolean tick(long afterNanos) {
    SseStream sse;
    synchronized (this) {
      if (state == State.DONE) {
        return false;
      }
      if (state == State.PENDING) {
        if (!acceptsSse) {
          return false; // nothing can be written before the answer: no liveness to learn
        }
        if (System.nanoTime() - createdNanos < afterNanos) {
          return true;
        }
        state = State.STREAMING;
        stream = transport.openStream(response, callback);
        stream.onBroken(this::broken);
      }
      sse = stream;
    }
    sse.keepalive();
    return true;
  }

  /**
   * The endpoint is closing: what waits on this exchange is told it broke (a call is cancelled, a
   * listen stream forgotten), and the answer ends now (a 503 if none had started), so the server's
   * stop does not wait on it.
   */
  void shutdown() {
    List<Runnable> listeners;
    SseStream sse;
    boolean json;
    synchronized (this) {
      if (state == State.DONE) {
        return;
      }
      json = state == State.PENDING;
      sse = stream;
      state = State.DONE;
      broken = true;
      listeners = new ArrayList<>(brokenListeners);
      brokenListeners.clear();
    }
    transport.settled(this);
    listeners.forEach(Runnable::run);
    if (json) {
      HttpTransport.writeJson(
          response,
          callback,
          503,
          Json.bytes(Json.error(null, Json.INTERNAL_ERROR, "The server is closing", null)));
    } else {
      sse.close();
      transport.streamEnded(sse);
    }
  }

  /** Whether the answer has not started: Jetty's idle timeout must not end a long call then. */
  synchronized boolean isPending() {
    return state == State.PENDING;
  }
}
