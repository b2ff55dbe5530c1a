package dev.alkdev.operations.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.serving.ConnectionLimits;
import dev.alkdev.operations.testing.SlowClients;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hub's connections cannot be held open or made to hold unbounded memory (issue 31, findings 4
 * and 5): a trickled upgrade head is cut, an address over its cap is refused while others connect,
 * and what the hub queues for a spoke that never reads stays within its byte bound until the spoke
 * is cut, while a well-behaved reader loses nothing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HubConnectionLimitsTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void livenessAndReadinessAreAnswered() throws Exception {
    try (WebSocketHub hub = WebSocketHostileTest.hub().start()) {
      for (String path : List.of("/healthz", "/readyz")) {
        assertThat(statusOf(hub, path)).as(path).isEqualTo("HTTP/1.1 200");
      }
    }
  }

  /** The status line of a GET of {@code path} on the hub's port (a raw socket). */
  private static String statusOf(WebSocketHub hub, String path) throws Exception {
    try (Socket socket = SlowClients.connect(hub.port(), "127.0.0.1")) {
      socket
          .getOutputStream()
          .write(
              ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + hub.port() + "\r\n\r\n")
                  .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      socket.setSoTimeout(10_000);
      return new String(
          socket.getInputStream().readNBytes(12), java.nio.charset.StandardCharsets.US_ASCII);
    }
  }

  @Test
  void aTrickledUpgradeHeadIsCut() throws Exception {
    try (WebSocketHub hub =
        WebSocketHostileTest.hub()
            .connectionLimits(
                ConnectionLimits.defaults().withRequestHeadTimeout(Duration.ofMillis(500)))
            .start()) {
      assertThat(
              SlowClients.trickleHead(
                  hub.port(), "/ws", Duration.ofMillis(100), Duration.ofSeconds(20)))
          .isTrue();
      assertThat(hub.connectionStats().cutSlowHead()).isEqualTo(1);
      WebSocketHostileTest.othersAreUnaffected(hub);
    }
  }

  @Test
  void anAddressOverItsCapIsRefusedWhileAnotherConnects() throws Exception {
    List<Socket> held = new ArrayList<>();
    try (WebSocketHub hub =
        WebSocketHostileTest.hub()
            .connectionLimits(ConnectionLimits.defaults().withMaxConnectionsPerClient(3))
            .start()) {
      for (int i = 0; i < 3; i++) {
        Socket socket = SlowClients.connect(hub.port(), "127.0.0.1");
        held.add(socket);
        // Answered on a connection kept open: the hub has opened (and counted) it.
        socket
            .getOutputStream()
            .write(
                ("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:" + hub.port() + "\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        socket.setSoTimeout(10_000);
        byte[] status = socket.getInputStream().readNBytes(12);
        assertThat(new String(status, java.nio.charset.StandardCharsets.US_ASCII))
            .isEqualTo("HTTP/1.1 200");
      }
      Socket fourth = SlowClients.connect(hub.port(), "127.0.0.1");
      held.add(fourth);
      assertThat(SlowClients.closedWithin(fourth, WAIT)).isTrue();
      Socket other = SlowClients.connect(hub.port(), "127.0.0.2");
      held.add(other);
      assertThat(SlowClients.closedWithin(other, Duration.ofMillis(300))).isFalse();
      assertThat(hub.connectionStats().refusedPerClient()).isEqualTo(1);
      for (Socket socket : held) {
        socket.close();
      }
      long end = System.nanoTime() + WAIT.toNanos();
      while (hub.connectionStats().open() > 0 && System.nanoTime() < end) {
        Thread.sleep(10);
      }
      WebSocketHostileTest.othersAreUnaffected(hub);
    } finally {
      for (Socket socket : held) {
        socket.close();
      }
    }
  }

  @Test
  void whatTheHubQueuesForASpokeThatNeverReadsStaysWithinItsBound() throws Exception {
    long bound = 256 * 1024;
    try (WebSocketHub hub =
            WebSocketHostileTest.hub()
                .maxQueuedBytes(bound)
                .writeTimeout(Duration.ofSeconds(30))
                .start();
        RawSocket stuck = RawSocket.open(hub.uri(), false);
        WebSocketSpoke publisher = WebSocketHostileTest.spoke(hub);
        WebSocketSpoke reader = WebSocketHostileTest.spoke(hub)) {
      stuck.send("SUB 1 flood\n");
      AtomicInteger received = new AtomicInteger();
      reader.subscribe(
          "flood",
          SubscribeOptions.defaults().withBufferSize(100_000),
          m -> received.incrementAndGet());
      publisher.flush(WAIT);
      stuck.send("SYNC 1\n");
      Thread.sleep(200);
      byte[] chunk = new byte[16 * 1024];
      int sent = 0;
      AtomicLong mostQueued = new AtomicLong();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (hub.stats().cut() == 0 && System.nanoTime() < deadline) {
        publisher.publish("flood", chunk).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        sent++;
        mostQueued.accumulateAndGet(hub.stats().queuedBytes(), Math::max);
      }
      assertThat(hub.stats().cut()).as("the stuck spoke was cut").isEqualTo(1);
      // The stuck spoke's share never passed its bound (the reader's is near zero: it reads).
      assertThat(mostQueued.get()).isLessThanOrEqualTo(bound + 2L * (chunk.length + 256));
      int total = sent;
      long end = System.nanoTime() + WAIT.toNanos();
      while (received.get() < total && System.nanoTime() < end) {
        Thread.sleep(10);
      }
      assertThat(received.get()).as("the reader got everything").isEqualTo(total);
      WebSocketHostileTest.othersAreUnaffected(hub);
    }
  }
}
