package dev.alkdev.operations.transport.websocket.internal;

import java.nio.ByteBuffer;
import java.util.Objects;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

/**
 * The listener Jetty calls for one connection. Jetty finds listener methods by reflection and needs
 * a public class; this one hands every event to the package-private hub and spoke classes.
 */
public final class Endpoint implements Session.Listener.AutoDemanding {
  /** What a connection's owner does with its events. */
  public interface Events {
    void opened(Session session);

    /** A binary or text frame's bytes; the buffer is valid only during the call. */
    void frame(ByteBuffer frame);

    void closed(int statusCode, String reason);

    void failed(Throwable cause);

    /** Something came from the peer (a frame or a pong): it is alive. */
    default void heard() {}
  }

  private final Events events;

  public Endpoint(Events events) {
    this.events = Objects.requireNonNull(events, "events");
  }

  @Override
  public void onWebSocketOpen(Session session) {
    events.opened(session);
  }

  @Override
  public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
    events.heard();
    try {
      events.frame(payload);
    } finally {
      callback.succeed();
    }
  }

  @Override
  public void onWebSocketText(String message) {
    events.heard();
    events.frame(ByteBuffer.wrap(message.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }

  @Override
  public void onWebSocketPong(ByteBuffer payload) {
    events.heard();
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
