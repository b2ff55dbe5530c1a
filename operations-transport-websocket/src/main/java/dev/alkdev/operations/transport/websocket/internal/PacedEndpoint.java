package dev.alkdev.operations.transport.websocket.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

/**
 * The listener for a connection whose owner decides when the next frame is read (the hub's side of
 * a spoke's connection). Jetty reads nothing more until {@link Session#demand()} is called: after
 * every frame this hands control back to the owner ({@link Paced#frameDone()}), which demands the
 * next one at once or later (back-pressure: a peer that sends faster than it reads what it is
 * answered is not read until it has read). Jetty finds listener methods by reflection and needs a
 * public class.
 */
public final class PacedEndpoint implements Session.Listener {
  /** A connection's owner that demands every frame itself, the first one included. */
  public interface Paced extends Endpoint.Events {
    /** A frame (of any kind) was handled: demand the next one now or later. */
    void frameDone();
  }

  private final Paced events;
  private volatile Session session;

  public PacedEndpoint(Paced events) {
    this.events = Objects.requireNonNull(events, "events");
  }

  @Override
  public void onWebSocketOpen(Session session) {
    this.session = session;
    events.opened(session);
  }

  @Override
  public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
    events.heard();
    try {
      events.frame(payload);
    } finally {
      callback.succeed();
      events.frameDone();
    }
  }

  @Override
  public void onWebSocketText(String message) {
    events.heard();
    try {
      events.frame(ByteBuffer.wrap(message.getBytes(StandardCharsets.UTF_8)));
    } finally {
      events.frameDone();
    }
  }

  @Override
  public void onWebSocketPing(ByteBuffer payload) {
    events.heard();
    Session s = session;
    if (s != null) {
      // With a listener of its own for pings, Jetty leaves the answer to it.
      s.sendPong(payload, Callback.NOOP);
    }
    events.frameDone();
  }

  @Override
  public void onWebSocketPong(ByteBuffer payload) {
    events.heard();
    events.frameDone();
  }

  @Override
  public void onWebSocketClose(int statusCode, String reason) {
    events.closed(statusCode, reason);
  }

  @Override
  public void onWebSocketError(Throwable cause) {
    events.failed(cause);
  }
}
