package dev.alkdev.operations.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.serving.ConnectionLimits;
import dev.alkdev.operations.testing.SlowClients;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connections that cannot be held open (issue 31, finding 4): a head sent a line at a time and a
 * body a byte at a time are cut, connections over the per-address cap are closed while another
 * address is served, and a healthy stream is never judged by the request rules.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GatewayConnectionLimitsTest extends GatewayTestSupport {
  static final ConnectionLimits FAST =
      ConnectionLimits.defaults()
          .withRequestHeadTimeout(Duration.ofMillis(500))
          .withMinRequestRate(100, Duration.ofMillis(500));

  @Test
  void aTrickledHeadIsCutWhileOthersAreServed() throws Exception {
    Fixtures fixtures = new Fixtures();
    try (HttpGateway gateway =
        HttpGateway.builder(fixtures.registry).connectionLimits(FAST).start()) {
      assertThat(
              SlowClients.trickleHead(
                  gateway.port(), "/ops/demo.echo", Duration.ofMillis(100), Duration.ofSeconds(20)))
          .as("the server closed the connection")
          .isTrue();
      assertThat(gateway.connectionStats().cutSlowHead()).isEqualTo(1);
      assertThat(get(gateway, "/ops/demo.echo?message=x").statusCode()).isEqualTo(200);
    } finally {
      fixtures.registry.close();
    }
  }

  @Test
  void aTrickledBodyIsCut() throws Exception {
    Fixtures fixtures = new Fixtures();
    try (HttpGateway gateway =
        HttpGateway.builder(fixtures.registry).connectionLimits(FAST).start()) {
      assertThat(
              SlowClients.trickleBody(
                  gateway.port(),
                  "/ops/demo.echo",
                  "application/json",
                  1000,
                  Duration.ofMillis(100),
                  Duration.ofSeconds(20)))
          .isTrue();
      assertThat(gateway.connectionStats().cutSlowBody()).isEqualTo(1);
      assertThat(get(gateway, "/ops/demo.echo?message=x").statusCode()).isEqualTo(200);
    } finally {
      fixtures.registry.close();
    }
  }

  @Test
  void anAddressOverItsConnectionCapIsClosedWhileAnotherIsServed() throws Exception {
    Fixtures fixtures = new Fixtures();
    List<Socket> held = new ArrayList<>();
    try (HttpGateway gateway =
        HttpGateway.builder(fixtures.registry)
            .connectionLimits(ConnectionLimits.defaults().withMaxConnectionsPerClient(5))
            .start()) {
      for (int i = 0; i < 5; i++) {
        Socket socket = SlowClients.connect(gateway.port(), "127.0.0.1");
        held.add(socket);
        // Answered on a connection kept open: the server has opened (and counted) it.
        assertThat(keptAlive(socket, gateway.port())).startsWith("HTTP/1.1 200");
      }
      Socket sixth = SlowClients.connect(gateway.port(), "127.0.0.1");
      held.add(sixth);
      assertThat(SlowClients.closedWithin(sixth, Duration.ofSeconds(10))).isTrue();
      assertThat(gateway.connectionStats().refusedPerClient()).isEqualTo(1);

      Socket other = SlowClients.connect(gateway.port(), "127.0.0.2");
      held.add(other);
      assertThat(answer(other, gateway.port(), "/ops/demo.echo?message=y"))
          .startsWith("HTTP/1.1 200");

      // One of the first five leaves: the address may connect again.
      held.get(0).close();
      String answered = "";
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!answered.startsWith("HTTP/1.1 200") && System.nanoTime() < end) {
        Socket again = SlowClients.connect(gateway.port(), "127.0.0.1");
        held.add(again);
        answered = answer(again, gateway.port(), "/ops/demo.echo?message=z");
      }
      assertThat(answered).startsWith("HTTP/1.1 200");

      // Every connection gone, none is still counted: refusals leave nothing behind.
      for (Socket socket : held) {
        socket.close();
      }
      waitUntil(() -> gateway.connectionStats().open() == 0);
    } finally {
      for (Socket socket : held) {
        socket.close();
      }
      fixtures.registry.close();
    }
  }

  @Test
  void theServerCapHoldsBackNewConnections() throws Exception {
    Fixtures fixtures = new Fixtures();
    List<Socket> held = new ArrayList<>();
    try (HttpGateway gateway =
        HttpGateway.builder(fixtures.registry)
            .connectionLimits(ConnectionLimits.defaults().withMaxConnections(3))
            .start()) {
      for (int i = 0; i < 3; i++) {
        held.add(SlowClients.connect(gateway.port(), "127.0.0." + (i + 1)));
      }
      waitUntil(() -> gateway.connectionStats().open() == 3);
      // The fourth waits in the listen backlog: it gets no answer while the three are open.
      Socket fourth = SlowClients.connect(gateway.port(), "127.0.0.4");
      held.add(fourth);
      send(fourth, gateway.port(), "/healthz");
      fourth.setSoTimeout(500);
      assertThat(readSome(fourth)).isEmpty();
      held.get(0).close();
      fourth.setSoTimeout(10_000);
      assertThat(readSome(fourth)).startsWith("HTTP/1.1 200");
    } finally {
      for (Socket socket : held) {
        socket.close();
      }
      fixtures.registry.close();
    }
  }

  @Test
  void aHealthyStreamIsNotJudgedByTheRequestRules() throws Exception {
    Fixtures fixtures = new Fixtures();
    try (HttpGateway gateway =
            HttpGateway.builder(fixtures.registry).connectionLimits(FAST).start();
        Socket stream = SlowClients.connect(gateway.port(), "127.0.0.1")) {
      // Ticks every 200 ms for 3 s: six times the head timeout, with no byte from the client.
      send(stream, gateway.port(), "/ops/demo.ticks?count=15&intervalMs=200");
      stream.setSoTimeout(10_000);
      InputStream in = stream.getInputStream();
      String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(all).contains("event: call.completed").contains("\"n\":15");
      assertThat(gateway.connectionStats().refusedOrCut()).isZero();
    } finally {
      fixtures.registry.close();
    }
  }

  private static void send(Socket socket, int port, String path) throws Exception {
    OutputStream out = socket.getOutputStream();
    out.write(
        ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  private static String keptAlive(Socket socket, int port) throws Exception {
    OutputStream out = socket.getOutputStream();
    out.write(
        ("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    socket.setSoTimeout(10_000);
    return readSome(socket);
  }

  private static String answer(Socket socket, int port, String path) throws Exception {
    send(socket, port, path);
    socket.setSoTimeout(10_000);
    return readSome(socket);
  }

  private static String readSome(Socket socket) throws Exception {
    byte[] buffer = new byte[8192];
    try {
      int n = socket.getInputStream().read(buffer);
      return n <= 0 ? "" : new String(buffer, 0, n, StandardCharsets.US_ASCII);
    } catch (java.net.SocketTimeoutException e) {
      return "";
    }
  }

  private static void waitUntil(java.util.function.BooleanSupplier condition) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("condition not met within 10 s");
      }
      Thread.sleep(10);
    }
  }
}
