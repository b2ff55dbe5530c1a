package dev.alkdev.operations.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
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

  private static WebSocketHub.Builder hub() {
    return WebSocketHub.builder().permissions(SpokePermissions.allowAll());
  }

  private static WebSocketSpoke spoke(WebSocketHub hub) {
    return WebSocketSpoke.connect(SpokeOptions.builder(hub.uri()).build());
  }

  private static void callsStillWork(WebSocketHub hub) throws Exception {
    try (WebSocketSpoke server = spoke(hub);
        OperationRegistry registry = OperationRegistry.create();
        CallHandler handler = CallHandler.serve(registry, server);
        WebSocketSpoke caller = spoke(hub);
        PendingRequestMap calls = PendingRequestMap.create(caller)) {
      registry.register(
          OperationSpec.builder("check", "ping").build(), Handler.blocking((in, ctx) -> "pong"));
      server.flush(WAIT);
      caller.flush(WAIT);
      assertThat(calls.call("check.ping", null).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).data())
          .hasToString("\"pong\"");
    }
  }

  @Test
  void aTrickledUpgradeHeadIsCut() throws Exception {
    try (WebSocketHub hub =
        hub()
            .connectionLimits(
                ConnectionLimits.defaults().withRequestHeadTimeout(Duration.ofMillis(500)))
            .start()) {
      assertThat(
              SlowClients.trickleHead(
                  hub.port(), "/ws", Duration.ofMillis(100), Duration.ofSeconds(20)))
          .isTrue();
      assertThat(hub.connectionStats().cutSlowHead()).isEqualTo(1);
      callsStillWork(hub);
    }
  }

  @Test
  void anAddressOverItsCapIsRefusedWhileAnotherConnects() throws Exception {
    List<Socket> held = new ArrayList<>();
    try (WebSocketHub hub =
        hub()
            .connectionLimits(ConnectionLimits.defaults().withMaxConnectionsPerClient(3))
            .start()) {
      for (int i = 0; i < 3; i++) {
        held.add(SlowClients.connect(hub.port(), "127.0.0.1"));
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
      callsStillWork(hub);
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
            hub().maxQueuedBytes(bound).writeTimeout(Duration.ofSeconds(30)).start();
        RawSocket stuck = RawSocket.open(hub.uri(), false);
        WebSocketSpoke publisher = spoke(hub);
        WebSocketSpoke reader = spoke(hub)) {
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
      callsStillWork(hub);
    }
  }
}
