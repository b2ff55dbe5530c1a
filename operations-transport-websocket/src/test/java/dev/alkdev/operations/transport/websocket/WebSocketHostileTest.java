package dev.alkdev.operations.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.protocol.CallEvent;
import dev.alkdev.operations.protocol.CallEvents;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.json.JsonMapper;

/**
 * Peers that break the rules: each is refused or cut, and the others go on. Every test checks that
 * a well-behaved spoke still calls an operation afterwards.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WebSocketHostileTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  static WebSocketHub.Builder hub() {
    return WebSocketHub.builder().permissions(SpokePermissions.allowAll());
  }

  static WebSocketSpoke spoke(WebSocketHub hub) {
    return WebSocketSpoke.connect(SpokeOptions.builder(hub.uri()).build());
  }

  /** A well-behaved spoke calls an operation another serves: the hub is still fine. */
  static void othersAreUnaffected(WebSocketHub hub) throws Exception {
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
  void aSpokeThatSendsGarbageFramesIsCut() throws Exception {
    try (WebSocketHub hub = hub().start()) {
      for (byte[] garbage :
          new byte[][] {
            new byte[] {0, 1, 2, 3},
            "HELLO there\n".getBytes(StandardCharsets.UTF_8),
            "PUB x topic\npayload".getBytes(StandardCharsets.UTF_8),
            "SUB 1\n".getBytes(StandardCharsets.UTF_8)
          }) {
        try (RawSocket raw = RawSocket.open(hub.uri(), true)) {
          assertThat(raw.next()).startsWith("HELLO");
          raw.send(garbage);
          assertThat(raw.next()).startsWith("BYE PROTOCOL_ERROR");
          assertThat(raw.closed.get(10, TimeUnit.SECONDS)).isEqualTo(1008);
        }
      }
      assertThat(hub.stats().malformedFrames()).isEqualTo(4);
      othersAreUnaffected(hub);
    }
  }

  @Test
  void aFrameLargerThanTheLimitCutsTheConnection() throws Exception {
    try (WebSocketHub hub = hub().maxMessageBytes(64 * 1024).start();
        RawSocket raw = RawSocket.open(hub.uri(), true)) {
      assertThat(raw.next()).startsWith("HELLO 1 65536 ");
      byte[] huge = new byte[200 * 1024];
      byte[] header = "PUB 1 big\n".getBytes(StandardCharsets.UTF_8);
      System.arraycopy(header, 0, huge, 0, header.length);
      raw.send(huge);
      assertThat(raw.closed.get(10, TimeUnit.SECONDS)).isEqualTo(1009); // message too big
      othersAreUnaffected(hub);
    }
  }

  @Test
  void aSpokeThatFloodsRequestsIsRefusedPastItsPendingCallLimit() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (WebSocketHub hub = hub().maxPendingCalls(16).start();
        WebSocketSpoke server = spoke(hub);
        OperationRegistry registry = OperationRegistry.create();
        CallHandler handler = CallHandler.serve(registry, server);
        WebSocketSpoke flooder = spoke(hub);
        PendingRequestMap calls = PendingRequestMap.create(flooder)) {
      registry.register(
          OperationSpec.builder("slow", "wait").build(),
          Handler.blocking(
              (in, ctx) -> {
                release.await(20, TimeUnit.SECONDS);
                return "done";
              }));
      server.flush(WAIT);
      flooder.flush(WAIT);
      List<CompletableFuture<?>> sent = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        sent.add(calls.call("slow.wait", null));
      }
      int refused = 0;
      for (CompletableFuture<?> call : sent.subList(16, 40)) {
        CallError error = failure(call);
        assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
        assertThat(error.retryable()).isTrue();
        refused++;
      }
      assertThat(refused).isEqualTo(24);
      othersAreUnaffected(hub);
      release.countDown();
      for (CompletableFuture<?> call : sent.subList(0, 16)) {
        call.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      }
      // Answered calls are forgotten: the spoke may call again.
      assertThat(hub.stats().openCalls()).isZero();
      assertThat(calls.call("slow.wait", null).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).data())
          .hasToString("\"done\"");
    }
  }

  @Test
  void aSpokeThatOpensAThousandSubscriptionsIsRefusedPastItsLimit() throws Exception {
    try (WebSocketHub hub = hub().start();
        WebSocketSpoke greedy = spoke(hub)) {
      int accepted = 0;
      CallError refusal = null;
      for (int i = 0; i < 1000; i++) {
        try {
          greedy.subscribe("greedy." + i, SubscribeOptions.defaults(), m -> {});
          accepted++;
        } catch (CallError e) {
          refusal = e;
        }
      }
      assertThat(accepted).isEqualTo(256);
      assertThat(refusal.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      assertThat(hub.stats().topics()).isLessThanOrEqualTo(256 + 8);
      othersAreUnaffected(hub);
    }
  }

  @Test
  void aSpokeThatNeverReadsIsCutAndTheOthersKeepReceiving() throws Exception {
    try (WebSocketHub hub = hub().maxQueuedFrames(64).writeTimeout(Duration.ofMillis(500)).start();
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
      stuck.send("SYNC 1\n"); // the subscription is in place once the hub handled this
      Thread.sleep(200);
      byte[] chunk = new byte[32 * 1024];
      int sent = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (hub.stats().cut() == 0 && System.nanoTime() < deadline) {
        publisher.publish("flood", chunk).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        sent++;
      }
      assertThat(hub.stats().cut()).as("the stuck spoke was cut").isEqualTo(1);
      int total = sent;
      WebSocketHubTest.Waits.eventually("the reader got everything", () -> received.get() == total);
      assertThat(hub.stats().connections()).isEqualTo(2);
      othersAreUnaffected(hub);
    }
  }

  @Test
  void aSpokeCannotAbortOrReuseAnotherCallersCall() throws Exception {
    try (WebSocketHub hub = hub().start();
        WebSocketSpoke server = spoke(hub);
        OperationRegistry registry = OperationRegistry.create();
        CallHandler handler = CallHandler.serve(registry, server);
        WebSocketSpoke alice = spoke(hub);
        PendingRequestMap calls = PendingRequestMap.create(alice);
        WebSocketSpoke mallory = spoke(hub)) {
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      registry.register(
          OperationSpec.builder("slow", "answer").build(),
          Handler.blocking(
              (in, ctx) -> {
                started.countDown();
                release.await(10, TimeUnit.SECONDS);
                return 42;
              }));
      server.flush(WAIT);
      alice.flush(WAIT);
      // Mallory listens to the control topic (allowed) but cannot abort what alice made.
      mallory.subscribe(ProtocolTopics.CONTROL, SubscribeOptions.defaults(), m -> {});
      CompletableFuture<?> call = calls.call("slow.answer", null);
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      String requestId = hub.rules.callers.keySet().iterator().next();
      CallError refused =
          failure(
              mallory.publish(
                  ProtocolTopics.CONTROL,
                  CallEvents.encode(new CallEvent.Aborted(requestId, Optional.of("mine now")))));
      assertThat(refused.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
      release.countDown();
      assertThat(call.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isNotNull();
      WebSocketHubTest.Waits.eventually(
          "the call is forgotten", () -> hub.stats().openCalls() == 0);
      // A request naming a request id alice has in flight is refused too.
      CountDownLatch secondStarted = new CountDownLatch(1);
      CountDownLatch secondRelease = new CountDownLatch(1);
      registry.register(
          OperationSpec.builder("slow", "second").build(),
          Handler.blocking(
              (in, ctx) -> {
                secondStarted.countDown();
                secondRelease.await(10, TimeUnit.SECONDS);
                return 43;
              }));
      server.flush(WAIT);
      CompletableFuture<?> second = calls.call("slow.second", null);
      assertThat(secondStarted.await(10, TimeUnit.SECONDS)).isTrue();
      String inFlight = hub.rules.callers.keySet().iterator().next();
      try (PendingRequestMap malloryCalls = PendingRequestMap.create(mallory)) {
        mallory.flush(WAIT);
        byte[] request =
            CallEvents.encode(
                new CallEvent.Requested(
                    inFlight,
                    "slow.answer",
                    JsonMapper.builder().build().nullNode(),
                    Optional.empty(),
                    Optional.empty(),
                    OptionalLong.of(5000),
                    Optional.of(malloryCalls.inbox()),
                    OptionalLong.empty()));
        CallError reused = failure(mallory.publish(ProtocolTopics.request("slow.answer"), request));
        assertThat(reused.code()).isEqualTo(ErrorCode.INVALID_INPUT);
      }
      secondRelease.countDown();
      second.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  @Test
  void subscribingToAnotherNodesTopicsIsRefused() throws Exception {
    try (WebSocketHub hub = hub().start();
        WebSocketSpoke first = spoke(hub);
        WebSocketSpoke second = spoke(hub)) {
      first.subscribe("ops.node.n1.specs", SubscribeOptions.defaults(), m -> {});
      CallError taken =
          catchThrowableOfType(
              CallError.class,
              () -> second.subscribe("ops.node.n1.req.a.b", SubscribeOptions.defaults(), m -> {}));
      assertThat(taken.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
      String hello = "{\"v\":1,\"type\":\"node.bye\",\"nodeId\":\"n1\",\"drainMs\":0}";
      assertThat(
              failure(second.publish(ProtocolTopics.NODES, hello.getBytes(StandardCharsets.UTF_8)))
                  .code())
          .isEqualTo(ErrorCode.ACCESS_DENIED);
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
