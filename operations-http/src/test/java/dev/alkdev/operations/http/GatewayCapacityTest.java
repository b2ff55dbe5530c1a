package dev.alkdev.operations.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.serving.OperationServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Serving capacity seen from HTTP clients (issue 31): open streams do not stop other calls, a
 * caller over its fair share hears 429 with Retry-After while other addresses do not, readiness
 * reports saturation, and streams whose clients never read are cut.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class GatewayCapacityTest extends GatewayTestSupport {

  @Test
  void unaryCallsAnswerWhileManyBlockingStreamsAreOpen() throws Exception {
    Fixtures fixtures = new Fixtures();
    List<Socket> streams = new ArrayList<>();
    try (HttpGateway gateway = HttpGateway.builder(fixtures.registry).start()) {
      // Emitters that sleep a second between ticks: each holds a thread of the stream lane. 48 is
      // three times the fixed pool that used to run every blocking handler on JDK 17.
      for (int i = 0; i < 48; i++) {
        Socket socket = openStream(gateway, "/ops/demo.ticks?intervalMs=1000", null);
        assertThat(readHead(socket)).startsWith("HTTP/1.1 200");
        streams.add(socket);
      }
      waitUntil(() -> gateway.server().stats().streams() == 48);
      for (int i = 0; i < 20; i++) {
        HttpResponse<String> echo = get(gateway, "/ops/demo.echo?message=m" + i);
        assertThat(echo.statusCode()).isEqualTo(200);
        assertThat(json(echo).at("/data").asString()).isEqualTo("m" + i);
      }
      assertThat(get(gateway, "/readyz").statusCode()).isEqualTo(200);
    } finally {
      closeAll(streams);
      fixtures.registry.close();
    }
  }

  @Test
  void anAddressOverItsShareHears429WhileOthersAreServed() throws Exception {
    Fixtures fixtures = new Fixtures();
    List<Socket> streams = new ArrayList<>();
    try (OperationServer server =
            OperationServer.builder(fixtures.registry).maxStreamsPerIdentity(4).build();
        HttpGateway gateway = HttpGateway.builder(server).start()) {
      for (int i = 0; i < 4; i++) {
        Socket socket = openStream(gateway, "/ops/demo.ticks?intervalMs=1000", null);
        assertThat(readHead(socket)).startsWith("HTTP/1.1 200");
        streams.add(socket);
      }
      Socket refused = openStream(gateway, "/ops/demo.ticks?intervalMs=1000", null);
      streams.add(refused);
      String head = readHead(refused);
      assertThat(head).startsWith("HTTP/1.1 429").containsIgnoringCase("Retry-After: 1");

      // Another address still opens streams; unary calls of the full address still run.
      Socket other = openStream(gateway, "/ops/demo.ticks?intervalMs=1000", "127.0.0.2");
      streams.add(other);
      assertThat(readHead(other)).startsWith("HTTP/1.1 200");
      assertThat(get(gateway, "/ops/demo.echo?message=x").statusCode()).isEqualTo(200);
      assertThat(server.stats().refusedCallerShare()).isEqualTo(1);
      assertThat(server.stats().callers()).isEqualTo(2);
    } finally {
      closeAll(streams);
      fixtures.registry.close();
    }
  }

  @Test
  void readinessSaysSaturatedWhileLivenessStaysUp() throws Exception {
    Fixtures fixtures = new Fixtures();
    List<Socket> streams = new ArrayList<>();
    try (OperationServer server =
            OperationServer.builder(fixtures.registry)
                .maxConcurrentStreams(2)
                .maxStreamsPerIdentity(2)
                .build();
        HttpGateway gateway = HttpGateway.builder(server).start()) {
      assertThat(get(gateway, "/readyz").statusCode()).isEqualTo(200);
      for (int i = 0; i < 2; i++) {
        Socket socket = openStream(gateway, "/ops/demo.ticks?intervalMs=1000", null);
        assertThat(readHead(socket)).startsWith("HTTP/1.1 200");
        streams.add(socket);
      }
      HttpResponse<String> ready = get(gateway, "/readyz");
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(ready.headers().firstValue("Retry-After")).contains("1");
      assertThat(json(ready).get("status").asString()).isEqualTo("saturated");
      assertThat(json(ready).get("streams").asInt()).isEqualTo(2);
      assertThat(get(gateway, "/healthz").statusCode()).isEqualTo(200);
      // Unary calls have a lane of their own.
      assertThat(get(gateway, "/ops/demo.echo?message=x").statusCode()).isEqualTo(200);

      closeAll(streams);
      waitUntil(() -> server.stats().streams() == 0);
      assertThat(get(gateway, "/readyz").statusCode()).isEqualTo(200);
    } finally {
      closeAll(streams);
      fixtures.registry.close();
    }
  }

  @Test
  void streamsWhoseClientsNeverReadAreCutAndOthersAreServed() throws Exception {
    Fixtures fixtures = new Fixtures();
    List<Socket> stalled = new ArrayList<>();
    try (HttpGateway gateway =
        HttpGateway.builder(fixtures.registry)
            .idleTimeout(Duration.ofSeconds(1))
            .keepAliveInterval(Duration.ofMillis(200)) // the stall check runs on this tick
            .start()) {
      // demo.big emits 64 KiB items as fast as demand allows; these clients never read a byte.
      for (int i = 0; i < 100; i++) {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(4096);
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), gateway.port()));
        send(socket, "/ops/demo.big");
        stalled.add(socket);
      }
      // Every stream is cut: none is left in the pipeline, and every handler that ran has ended
      // (one whose stream was cut before its thread started never runs). Some handler must have
      // started first: before any stream is registered, the pipeline is empty too.
      waitUntil(
          () ->
              fixtures.bigStarted.get() > 0
                  && gateway.server().stats().streams() == 0
                  && fixtures.bigEnded.get() == fixtures.bigStarted.get(),
          () ->
              "emitters started "
                  + fixtures.bigStarted.get()
                  + ", ended "
                  + fixtures.bigEnded.get()
                  + ", "
                  + gateway.server().stats());
      assertThat(fixtures.bigStarted.get()).as("handlers that ran").isPositive();
      HttpResponse<String> echo = get(gateway, "/ops/demo.echo?message=still");
      assertThat(echo.statusCode()).isEqualTo(200);
    } finally {
      closeAll(stalled);
      fixtures.registry.close();
    }
  }

  private static Socket openStream(HttpGateway gateway, String path, String fromAddress)
      throws IOException {
    Socket socket = new Socket();
    if (fromAddress != null) {
      socket.bind(new InetSocketAddress(InetAddress.getByName(fromAddress), 0));
    }
    socket.setSoTimeout(10_000);
    socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), gateway.port()));
    send(socket, path);
    return socket;
  }

  private static void send(Socket socket, String path) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(
        ("GET "
                + path
                + " HTTP/1.1\r\nHost: 127.0.0.1:"
                + socket.getPort()
                + "\r\nAccept: text/event-stream\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** Reads the response head (to the blank line); the body stays unread. */
  private static String readHead(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    StringBuilder head = new StringBuilder();
    int c;
    while ((c = in.read()) != -1) {
      head.append((char) c);
      if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
        break;
      }
    }
    return head.toString();
  }

  private static void closeAll(List<Socket> sockets) {
    for (Socket socket : sockets) {
      try {
        socket.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }

  private static void waitUntil(BooleanSupplier condition) throws InterruptedException {
    waitUntil(condition, () -> "");
  }

  private static void waitUntil(BooleanSupplier condition, Supplier<String> state)
      throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("condition not met within 60 s " + state.get());
      }
      Thread.sleep(20);
    }
  }
}
