package dev.alkdev.operations.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A spoke facing a hub that stops answering: connections it gives up are closed, and publishes the
 * hub never acknowledges fail. The "hub" here is a hand-written WebSocket server that misbehaves.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpokeTimeoutsTest {

  /** Upgrades every connection; greets as told, then reads everything and answers nothing. */
  private static final class MuteHub implements AutoCloseable {
    final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    final List<Socket> open = new CopyOnWriteArrayList<>();
    final AtomicInteger accepted = new AtomicInteger();
    final Thread acceptor;

    /**
     * @param greet which connections (0-based) get a HELLO; the first one is then cut
     */
    MuteHub(java.util.function.IntPredicate greet, boolean cutFirst) throws IOException {
      acceptor =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try {
                    Socket socket = server.accept();
                    int n = accepted.getAndIncrement();
                    open.add(socket);
                    Thread t = new Thread(() -> serve(socket, greet.test(n), cutFirst && n == 0));
                    t.setDaemon(true);
                    t.start();
                  } catch (IOException e) {
                    return;
                  }
                }
              },
              "mute-hub");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    URI uri() {
      return URI.create("ws://127.0.0.1:" + server.getLocalPort() + "/ws");
    }

    private void serve(Socket socket, boolean greet, boolean cut) {
      try (socket) {
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        String key = null;
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
          if (c == '\n') {
            String header = line.toString().trim();
            if (header.isEmpty()) {
              break;
            }
            if (header.toLowerCase().startsWith("sec-websocket-key:")) {
              key = header.substring(header.indexOf(':') + 1).trim();
            }
            line.setLength(0);
          } else {
            line.append((char) c);
          }
        }
        String accept =
            Base64.getEncoder()
                .encodeToString(
                    MessageDigest.getInstance("SHA-1")
                        .digest(
                            (key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
                                .getBytes(StandardCharsets.US_ASCII)));
        out.write(
            ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: "
                    + accept
                    + "\r\nSec-WebSocket-Protocol: ops.v1\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        if (greet) {
          byte[] hello =
              "HELLO 1 1048576 {\"subject\":\"anonymous\",\"scopes\":[]}\n"
                  .getBytes(StandardCharsets.UTF_8);
          out.write(new byte[] {(byte) 0x82, (byte) hello.length});
          out.write(hello);
          out.flush();
        }
        if (cut) {
          Thread.sleep(500); // connected by then; now the connection drops
          socket.shutdownOutput();
          return;
        }
        while (in.read() >= 0) {
          // read and ignore: no ACK, no close answer
        }
      } catch (Exception e) {
        // the peer went away
      } finally {
        open.remove(socket);
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
      for (Socket socket : open) {
        socket.close();
      }
    }
  }

  @Test
  void connectionsGivenUpOnWhileReconnectingAreClosed() throws Exception {
    // The first connection is greeted and cut; every later one is upgraded but never greeted, so
    // each reconnect attempt times out. Those connections must not stay open.
    try (MuteHub hub = new MuteHub(n -> n == 0, true);
        WebSocketSpoke spoke =
            WebSocketSpoke.connect(
                SpokeOptions.builder(hub.uri())
                    .connectTimeout(Duration.ofMillis(2000))
                    .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(50))
                    .build())) {
      WebSocketHubTest.Waits.eventually("several attempts", () -> hub.accepted.get() >= 3);
      // At most the attempt under way is open; before the fix every abandoned one stayed.
      WebSocketHubTest.Waits.eventually("abandoned connections closed", () -> hub.open.size() <= 1);
      assertThat(spoke.toString()).contains(hub.uri().toString());
    }
  }

  @Test
  void aPublishTheHubNeverAcknowledgesFails() throws Exception {
    try (MuteHub hub = new MuteHub(n -> true, false);
        WebSocketSpoke spoke =
            WebSocketSpoke.connect(
                SpokeOptions.builder(hub.uri()).requestTimeout(Duration.ofMillis(500)).build())) {
      CompletableFuture<Integer> sent =
          spoke.publish("anything", "x".getBytes(StandardCharsets.UTF_8));
      try {
        sent.get(10, TimeUnit.SECONDS);
        throw new AssertionError("acknowledged by a hub that never answers");
      } catch (ExecutionException e) {
        CallError error = (CallError) e.getCause();
        assertThat(error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(error.getMessage()).contains("did not acknowledge");
      }
    }
  }
}
