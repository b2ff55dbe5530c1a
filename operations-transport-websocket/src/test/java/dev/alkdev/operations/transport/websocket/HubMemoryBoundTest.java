package dev.alkdev.operations.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.transport.websocket.internal.Frames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * What the hub holds for one spoke is bounded (D94): a spoke that floods without reading is not
 * read either, never has more than its bound and one message queued, and is closed; the other
 * spokes' calls are answered meanwhile, and a spoke that reads loses nothing however hard it
 * pushes.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HubMemoryBoundTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final long BOUND = 256 * 1024;
  private static final int MAX_MESSAGE = 64 * 1024;

  /** The most the hub may queue for one spoke: its bound, and one message in a frame. */
  private static final long MOST = BOUND + MAX_MESSAGE + Frames.MAX_HEADER_BYTES + 1;

  private static WebSocketHub.Builder hub() {
    return WebSocketHub.builder()
        .permissions(SpokePermissions.allowAll())
        .maxMessageBytes(MAX_MESSAGE)
        .maxQueuedBytes(BOUND);
  }

  private static WebSocketSpoke spoke(WebSocketHub hub) {
    return WebSocketSpoke.connect(SpokeOptions.builder(hub.uri()).build());
  }

  private static String request(long id, String inbox, String operationId, String input) {
    return "PUB "
        + id
        + " ops.req."
        + operationId
        + "\n{\"v\":1,\"type\":\"call.requested\",\"requestId\":\"flood-"
        + id
        + "\",\"replyTo\":\""
        + inbox
        + "\",\"operationId\":\""
        + operationId
        + "\",\"input\":\""
        + input
        + "\"}";
  }

  @Test
  void aSpokeThatFloodsWithoutReadingIsHeldBackAndClosedWhileOthersAreAnswered() throws Exception {
    try (OperationRegistry hubRegistry = OperationRegistry.create();
        OperationServer hubServer = OperationServer.create(hubRegistry);
        WebSocketHub hub = hub().queueGrace(Duration.ofMillis(500)).serve(hubServer).start();
        WebSocketSpoke server = spoke(hub);
        OperationRegistry spokeRegistry = OperationRegistry.create();
        CallHandler handler = CallHandler.serve(spokeRegistry, server);
        WebSocketSpoke caller = spoke(hub);
        PendingRequestMap calls = PendingRequestMap.create(caller)) {
      hubRegistry.register(
          OperationSpec.builder("hub", "echo").build(), Handler.blocking((in, ctx) -> in));
      spokeRegistry.register(
          OperationSpec.builder("spoke", "echo").build(), Handler.blocking((in, ctx) -> in));
      server.flush(WAIT);
      caller.flush(WAIT);

      DeafSocket deaf = DeafSocket.open(hub.uri());
      String inbox = "ops.inbox.deaf-flooder";
      deaf.send("SUB 1 " + inbox + "\n");
      deaf.send("SUB 2 flood\n");
      String input = "x".repeat(2000);
      long attempts = 1_000_000;
      AtomicLong sent = new AtomicLong();
      Thread flood =
          new Thread(
              () -> {
                try {
                  for (long i = 1; i <= attempts; i++) {
                    // Calls of the hub's own operation and of a spoke's, and plain publishes that
                    // come back to it: every kind of answer it does not read.
                    String op = i % 3 == 0 ? "hub.echo" : "spoke.echo";
                    deaf.send(
                        i % 2 == 0
                            ? request(i, inbox, op, input)
                            : "PUB " + i + " flood\n" + input);
                    sent.incrementAndGet();
                  }
                } catch (Exception e) {
                  // The hub closed it: the flood ends.
                }
              },
              "deaf-flooder");
      flood.setDaemon(true);
      flood.start();
      try {
        // Meanwhile the well-behaved caller is answered, every time, by both servers.
        int answered = 0;
        while (hub.stats().cutForBound() == 0 && answered < 10_000) {
          String op = answered % 2 == 0 ? "hub.echo" : "spoke.echo";
          assertThat(
                  calls.call(op, "n" + answered).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).data())
              .hasToString("\"n" + answered + "\"");
          answered++;
        }
        for (int i = 0; i < 50; i++) {
          String op = i % 2 == 0 ? "hub.echo" : "spoke.echo";
          assertThat(calls.call(op, i).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).data())
              .hasToString(Integer.toString(i));
        }
        WebSocketHubTest.Waits.eventually(
            "the flooder is closed", () -> hub.stats().cutForBound() == 1);
        flood.join(WAIT.toMillis());
        assertThat(flood.isAlive()).as("the flood ended when the hub closed it").isFalse();
        HubStats stats = hub.stats();
        // Its reading is paused only when the hub sees its queue at half the bound between two
        // of its frames; answers other connections' threads queue for it can take it past the
        // whole bound in between (seen once on Temurin 25 in CI), and then it is cut unpaused.
        // Either way the flood is held back and the queue stays bounded, as checked here.
        assertThat(sent.get()).as("TCP held the flood back").isLessThan(attempts);
        assertThat(stats.queuedBytesHighWater())
            .as("never more than the bound and one message queued for one spoke")
            .isLessThanOrEqualTo(MOST);
        assertThat(stats.cut()).isEqualTo(1);
        WebSocketHubTest.Waits.eventually(
            "the flooder's calls are forgotten", () -> hub.stats().openCalls() == 0);
        assertThat(hub.stats().connections()).isEqualTo(2);
      } finally {
        deaf.close();
      }
    }
  }

  @Test
  void aSpokeThatReadsTooSlowlyIsClosedWith1008AndSeesWhy() throws Exception {
    try (WebSocketHub hub = hub().start();
        RawSocket slow = RawSocket.open(hub.uri(), false);
        WebSocketSpoke publisher = spoke(hub);
        WebSocketSpoke reader = spoke(hub)) {
      slow.send("SUB 1 news\n");
      slow.send("SYNC 1\n");
      AtomicLong received = new AtomicLong();
      reader.subscribe(
          "news",
          SubscribeOptions.defaults().withBufferSize(100_000),
          m -> received.incrementAndGet());
      publisher.flush(WAIT);
      reader.flush(WAIT);
      byte[] chunk = new byte[16 * 1024];
      int published = 0;
      int receivers = 0;
      while (receivers < 2 && published < 1000) { // until the hub has read the raw SUB too
        receivers = publisher.publish("news", chunk).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        published++;
      }
      assertThat(receivers).isEqualTo(2);
      long mostQueued = 0;
      while (hub.stats().cutForBound() == 0 && published < 100_000) {
        publisher.publish("news", chunk).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        published++;
        mostQueued = Math.max(mostQueued, hub.stats().queuedBytes());
      }
      assertThat(hub.stats().cutForBound()).isEqualTo(1);
      assertThat(mostQueued).isLessThanOrEqualTo(MOST);
      assertThat(hub.stats().queuedBytesHighWater()).isLessThanOrEqualTo(MOST);
      // It reads at last: what was already on its way, then the close and its reason.
      slow.startReading();
      assertThat(slow.closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(1008);
      int total = published;
      WebSocketHubTest.Waits.eventually("the reader got everything", () -> received.get() == total);
    }
  }

  @Test
  void aBurstOfManySmallMessagesIsBoundInBytesNotCutForItsFrameCount() throws Exception {
    // More small frames wait for the subscriber than Jetty's frame cap once was (4,096), while
    // their bytes, overhead counted, stay under the bound: it is not cut and gets them all.
    long bound = 16L * 1024 * 1024;
    int messages = 40_000;
    byte[] payload = new byte[100];
    try (WebSocketHub hub =
            WebSocketHub.builder()
                .permissions(SpokePermissions.allowAll())
                .maxQueuedBytes(bound)
                .start();
        RawSocket subscriber = RawSocket.open(hub.uri(), false);
        WebSocketSpoke publisher = spoke(hub)) {
      subscriber.send("SUB 1 burst\n");
      subscriber.send("SYNC 1\n");
      WebSocketHubTest.Waits.eventually(
          "the hub has the subscription", () -> publisher.publish("burst", payload).join() == 1);
      int published = 1;
      while (published < messages) {
        List<CompletableFuture<Integer>> window = new ArrayList<>();
        for (int i = 0; i < 1_000 && published < messages; i++, published++) {
          window.add(publisher.publish("burst", payload));
        }
        for (CompletableFuture<Integer> ack : window) {
          assertThat(ack.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(1);
        }
      }
      long frameBytes = payload.length + "MSG 1 burst -\n".length();
      assertThat(
              hub.stats().queuedBytesHighWater()
                  / (frameBytes + HubConnection.FRAME_OVERHEAD_BYTES))
          .as("frames that waited for the subscriber at once")
          .isGreaterThan(4_096);
      subscriber.startReading();
      int total = published;
      WebSocketHubTest.Waits.eventually(
          "the subscriber got every message",
          () -> subscriber.frames.stream().filter(f -> f.startsWith("MSG ")).count() == total);
      assertThat(hub.stats().cut()).isZero();
      assertThat(hub.stats().cutForBound()).isZero();
      assertThat(hub.stats().queuedBytesHighWater()).isLessThanOrEqualTo(bound);
    }
  }

  @Test
  void aSpokeThatReadsLosesNothingWhileItsReadingIsPaced() throws Exception {
    // Half the bound is where reading pauses; the other half holds the answers to what is in
    // flight: 8 calls of 3 KB here.
    try (WebSocketHub hub = hub().maxQueuedBytes(128 * 1024).start();
        WebSocketSpoke server = spoke(hub);
        OperationRegistry registry = OperationRegistry.create();
        CallHandler handler = CallHandler.serve(registry, server);
        WebSocketSpoke busy = spoke(hub);
        PendingRequestMap calls = PendingRequestMap.create(busy)) {
      registry.register(
          OperationSpec.builder("pace", "echo").build(), Handler.blocking((in, ctx) -> in));
      AtomicLong looped = new AtomicLong();
      busy.subscribe(
          "loop",
          SubscribeOptions.defaults().withBufferSize(100_000),
          m -> looped.incrementAndGet());
      server.flush(WAIT);
      busy.flush(WAIT);
      // It publishes to itself as fast as the hub takes it, 256 publishes in flight, and calls
      // beside: what it is sent grows faster than one connection writes, so its reading is paced.
      byte[] chunk = new byte[3000];
      String input = "y".repeat(3000);
      int publishes = 5000;
      int total = 400;
      Semaphore publishWindow = new Semaphore(256);
      Semaphore callWindow = new Semaphore(8);
      List<CompletableFuture<Integer>> acks = new ArrayList<>();
      List<CompletableFuture<ResponseEnvelope<JsonNode>>> all = new ArrayList<>();
      for (int i = 0; i < publishes; i++) {
        publishWindow.acquire();
        CompletableFuture<Integer> ack = busy.publish("loop", chunk);
        ack.whenComplete((r, e) -> publishWindow.release());
        acks.add(ack);
        if (i % (publishes / total) == 0 && all.size() < total) {
          callWindow.acquire();
          CompletableFuture<ResponseEnvelope<JsonNode>> call =
              calls.call("pace.echo", input + all.size());
          call.whenComplete((r, e) -> callWindow.release());
          all.add(call);
        }
      }
      for (CompletableFuture<Integer> ack : acks) {
        assertThat(ack.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(1);
      }
      for (int i = 0; i < all.size(); i++) {
        assertThat(all.get(i).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).data().asString())
            .isEqualTo(input + i);
      }
      assertThat(all).hasSize(total);
      WebSocketHubTest.Waits.eventually(
          "every message it published came back", () -> looped.get() == publishes);
      HubStats stats = hub.stats();
      assertThat(stats.cutForBound()).isZero();
      assertThat(stats.cut()).isZero();
      assertThat(stats.connections()).isEqualTo(2);
      assertThat(stats.queuedBytesHighWater()).isLessThanOrEqualTo(128 * 1024);
    }
  }

  @Test
  void aCallerOverItsBytesInFlightIsRefusedRetryablyAndTheOthersRun() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (WebSocketHub hub = hub().maxPendingCallBytes(64 * 1024).start();
        WebSocketSpoke server = spoke(hub);
        OperationRegistry registry = OperationRegistry.create();
        CallHandler handler = CallHandler.serve(registry, server);
        WebSocketSpoke caller = spoke(hub);
        PendingRequestMap calls = PendingRequestMap.create(caller)) {
      registry.register(
          OperationSpec.builder("big", "wait").build(),
          Handler.blocking(
              (in, ctx) -> {
                release.await(20, TimeUnit.SECONDS);
                return "done";
              }));
      server.flush(WAIT);
      caller.flush(WAIT);
      String input = "z".repeat(15_000); // about 15.1 KB a request: four fit in 64 KiB
      List<CompletableFuture<?>> sent = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        sent.add(calls.call("big.wait", input));
      }
      for (CompletableFuture<?> call : sent.subList(4, 8)) {
        CallError error = failure(call);
        assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
        assertThat(error.retryable()).isTrue();
        assertThat(error.getMessage()).contains("bytes of requests in flight");
      }
      assertThat(hub.stats().openCalls()).isEqualTo(4);
      release.countDown();
      for (CompletableFuture<?> call : sent.subList(0, 4)) {
        call.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      }
      WebSocketHubTest.Waits.eventually(
          "answered calls are forgotten", () -> hub.stats().openCalls() == 0);
      assertThat(calls.call("big.wait", input).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).data())
          .hasToString("\"done\"");
    }
  }

  private static CallError failure(CompletableFuture<?> future) throws Exception {
    try {
      future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      return (CallError) e.getCause();
    }
    throw new AssertionError("expected a failure");
  }
}
