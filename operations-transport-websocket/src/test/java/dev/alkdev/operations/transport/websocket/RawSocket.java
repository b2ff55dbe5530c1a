package dev.alkdev.operations.transport.websocket;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/**
 * A WebSocket client that speaks the frames by hand, for tests of what the hub does with a peer
 * that does not follow the rules: garbage, floods, never reading. A socket that does not read asks
 * Jetty for no frames, so Jetty stops reading its connection and the hub's writes back up.
 */
public final class RawSocket implements Session.Listener, AutoCloseable {
  private final WebSocketClient client;
  private volatile boolean reading;
  final LinkedBlockingQueue<String> frames = new LinkedBlockingQueue<>();
  final CompletableFuture<Integer> closed = new CompletableFuture<>();
  private volatile Session session;

  private RawSocket(WebSocketClient client, boolean reading) {
    this.client = client;
    this.reading = reading;
  }

  static RawSocket open(URI uri, boolean reading, String... subprotocols) throws Exception {
    WebSocketClient client = new WebSocketClient();
    client.setMaxBinaryMessageSize(64 * 1024 * 1024);
    client.start();
    RawSocket socket = new RawSocket(client, reading);
    ClientUpgradeRequest request = new ClientUpgradeRequest(uri);
    if (subprotocols.length > 0) {
      request.setSubProtocols(subprotocols);
    }
    try {
      client.connect(socket, request).get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      client.stop();
      throw e;
    }
    return socket;
  }

  /** A socket opened as not reading starts reading (what waited for it, then the rest). */
  void startReading() {
    reading = true;
    session.demand();
  }

  Session session() {
    return session;
  }

  void send(String frame) {
    send(frame.getBytes(StandardCharsets.UTF_8));
  }

  void send(byte[] frame) {
    session.sendBinary(ByteBuffer.wrap(frame), Callback.NOOP);
  }

  /** The next frame, as text, within 10 s. */
  String next() throws InterruptedException {
    String frame = frames.poll(10, TimeUnit.SECONDS);
    if (frame == null) {
      throw new AssertionError("no frame from the hub within 10 s");
    }
    return frame;
  }

  @Override
  public void onWebSocketOpen(Session session) {
    this.session = session;
    if (reading) {
      session.demand();
    }
  }

  @Override
  public void onWebSocketBinary(ByteBuffer payload, org.eclipse.jetty.websocket.api.Callback cb) {
    frames.add(StandardCharsets.UTF_8.decode(payload).toString());
    cb.succeed();
    if (reading) {
      session.demand();
    }
  }

  @Override
  public void onWebSocketClose(int statusCode, String reason) {
    closed.complete(statusCode);
  }

  @Override
  public void onWebSocketError(Throwable cause) {
    closed.complete(-1);
  }

  @Override
  public void close() throws Exception {
    Session s = session;
    if (s != null) {
      s.disconnect();
    }
    client.stop();
  }
}
