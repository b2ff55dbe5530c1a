package dev.alkdev.operations.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.pubsub.InProcessPubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.serving.OperationServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * Issue 14, findings 1 and 4: a serving side notices callers that are gone (call.alive and the
 * lease), refuses to reply anywhere but to an inbox, and caps what one caller runs.
 */
class CallerLivenessTest {
  static final Duration LEASE = Duration.ofMillis(300);

  /** As on JDK 17 without virtual threads: blocking emitters share 16 threads. */
  final ExecutorService sixteenThreads = Executors.newFixedThreadPool(16);

  final OperationRegistry registry = OperationRegistry.builder().executor(sixteenThreads).build();
  final InProcessPubSub pubsub = InProcessPubSub.create();
  OperationServer server = OperationServer.create(registry);
  CallHandler handler;

  CallerLivenessTest() {
    // A blocking emitter that emits for ever, as fast as it is asked: one thread per stream.
    registry.register(
        OperationSpec.builder("demo", "ticks").type(OperationType.SUBSCRIPTION).build(),
        Handler.emitter(
            (in, ctx, emitter) -> {
              for (int i = 0; ; i++) {
                emitter.emit(i);
                if (in.path("pauseMs").asInt() > 0) {
                  Thread.sleep(in.path("pauseMs").asInt());
                }
              }
            }));
    registry.register(
        OperationSpec.builder("demo", "block").build(),
        (in, ctx) -> {
          Thread.sleep(5);
          return "done";
        });
    registry.register(OperationSpec.builder("demo", "echo").build(), (in, ctx) -> in);
  }

  @AfterEach
  void close() {
    if (handler != null) {
      handler.close();
    }
    server.close();
    registry.close();
    pubsub.close();
    sixteenThreads.shutdownNow();
  }

  void serve(Duration lease) {
    handler = CallHandler.builder(server, pubsub).callerLeaseTimeout(lease).build();
  }

  /** A caller's inbox nobody answers from: what a hung process leaves subscribed. */
  List<CallEvent> rawInbox(String inbox) {
    List<CallEvent> received = new CopyOnWriteArrayList<>();
    pubsub.subscribe(
        inbox,
        SubscribeOptions.defaults(),
        m -> received.add(CallEvents.decode(m.payload(), Integer.MAX_VALUE)));
    return received;
  }

  static String newInbox() {
    return ProtocolTopics.INBOX_PREFIX + OperationContext.newRequestId();
  }

  /** A call.requested as a client in any language writes it: no call.alive will follow. */
  void rawRequest(String operationId, String replyTo, String extraFields) {
    String json =
        "{\"v\": 1, \"type\": \"call.requested\", \"requestId\": \"%s\", \"replyTo\": \"%s\","
                .formatted(OperationContext.newRequestId(), replyTo)
            + " \"operationId\": \"%s\"%s, \"input\": {}}".formatted(operationId, extraFields);
    pubsub.publish(ProtocolTopics.request(operationId), json.getBytes(StandardCharsets.UTF_8));
  }

  static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("never: " + what);
      }
      Thread.sleep(10);
    }
  }

  static CallEvent.Failed lastError(List<CallEvent> inbox) {
    assertThat(inbox).isNotEmpty();
    CallEvent last = inbox.get(inbox.size() - 1);
    assertThat(last).isInstanceOf(CallEvent.Failed.class);
    return (CallEvent.Failed) last;
  }

  @Test
  void abandonedStreamsEndByTheLeaseAndTheirThreadsServeOthers() throws Exception {
    serve(LEASE);
    List<List<CallEvent>> inboxes = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      String inbox = newInbox();
      inboxes.add(rawInbox(inbox));
      rawRequest("demo.ticks", inbox, ", \"demand\": 1");
    }
    // Every stream has sent its one item, and holds its thread waiting for demand.
    eventually("16 streams hold 16 threads", () -> inboxes.stream().allMatch(i -> i.size() == 1));
    assertThat(server.stats().running()).isEqualTo(16);

    eventually("the abandoned streams end", () -> server.stats().running() == 0);
    assertThat(handler.stats().pending()).isZero();
    for (List<CallEvent> inbox : inboxes) {
      // The last word, in case the caller was only slow.
      eventually("the caller is told", () -> inbox.size() == 2);
      CallEvent.Failed gone = lastError(inbox);
      assertThat(gone.code()).isEqualTo(ErrorCode.CANCELLED);
      assertThat(gone.message()).contains("The caller is gone").contains("300 ms");
    }
    // The threads are free again: a blocking call gets one.
    try (PendingRequestMap calls = PendingRequestMap.create(pubsub)) {
      ResponseEnvelope<JsonNode> done =
          calls
              .call("demo.block", null, CallOptions.defaults().withTimeout(Duration.ofSeconds(5)))
              .get(10, TimeUnit.SECONDS);
      assertThat(done.data().asString()).isEqualTo("done");
    }
  }

  @Test
  void aStreamWithoutDemandOrDeadlineFromAVanishedCallerEndsByTheLease() throws Exception {
    serve(LEASE);
    String inbox = newInbox();
    List<CallEvent> received = rawInbox(inbox);
    rawRequest("demo.ticks", inbox, ""); // unbounded demand, no deadline
    eventually("the stream runs", () -> received.size() > 3);
    eventually("the stream ends", () -> server.stats().running() == 0);
    eventually(
        "the caller is told", () -> received.get(received.size() - 1) instanceof CallEvent.Failed);
    int seen = received.size();
    assertThat(lastError(received).code()).isEqualTo(ErrorCode.CANCELLED);
    Thread.sleep(LEASE.toMillis());
    assertThat(received).as("nothing follows the end").hasSize(seen);
  }

  @Test
  void aCallerThatSaysAliveKeepsItsStreamForManyLeases() throws Exception {
    serve(LEASE);
    try (PendingRequestMap calls =
        PendingRequestMap.builder(pubsub).aliveInterval(Duration.ofMillis(100)).build()) {
      List<Object> signals = new CopyOnWriteArrayList<>();
      AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
      calls
          .subscribe("demo.ticks", null)
          .subscribe(
              new Flow.Subscriber<>() {
                @Override
                public void onSubscribe(Flow.Subscription s) {
                  subscription.set(s);
                  s.request(1);
                }

                @Override
                public void onNext(ResponseEnvelope<JsonNode> item) {
                  signals.add(item.data().asInt());
                }

                @Override
                public void onError(Throwable error) {
                  signals.add(error);
                }

                @Override
                public void onComplete() {
                  signals.add("complete");
                }
              });
      eventually("the first item", () -> signals.size() == 1);
      // Five lease periods without a request or an item: only call.alive speaks for the caller.
      Thread.sleep(5 * LEASE.toMillis());
      assertThat(server.stats().running()).isEqualTo(1);
      assertThat(signals).containsExactly(0);
      subscription.get().request(2);
      eventually("two more items", () -> signals.size() == 3);
      assertThat(signals).containsExactly(0, 1, 2);
      subscription.get().cancel();
      eventually("the stream ends", () -> server.stats().running() == 0);
    }
  }

  @Test
  void aSilentCallerLosesItsStreamsWhateverItsTransportSays() throws Exception {
    serve(LEASE);
    // A real map, but its call.alive comes far too rarely for this server.
    try (PendingRequestMap calls =
        PendingRequestMap.builder(pubsub).aliveInterval(Duration.ofSeconds(60)).build()) {
      List<Throwable> errors = new CopyOnWriteArrayList<>();
      calls
          .subscribe("demo.ticks", null)
          .subscribe(
              new Flow.Subscriber<>() {
                @Override
                public void onSubscribe(Flow.Subscription s) {
                  s.request(1);
                }

                @Override
                public void onNext(ResponseEnvelope<JsonNode> item) {}

                @Override
                public void onError(Throwable error) {
                  errors.add(error);
                }

                @Override
                public void onComplete() {}
              });
      eventually("the caller hears that the server gave up", () -> errors.size() == 1);
      assertThat(((CallError) errors.get(0)).code()).isEqualTo(ErrorCode.CANCELLED);
      assertThat(server.stats().running()).isZero();
      assertThat(calls.stats().pending()).isZero();
    }
  }

  @Test
  void unaryCallsOfAVanishedCallerEndToo() throws Exception {
    serve(LEASE);
    registry.register(
        OperationSpec.builder("demo", "forever").build(),
        Handler.async((in, ctx) -> new java.util.concurrent.CompletableFuture<>()));
    String inbox = newInbox();
    List<CallEvent> received = rawInbox(inbox);
    rawRequest("demo.forever", inbox, "");
    eventually("the call ends", () -> server.stats().running() == 0 && received.size() == 1);
    assertThat(lastError(received).code()).isEqualTo(ErrorCode.CANCELLED);
  }

  @ParameterizedTest
  @ValueSource(strings = {"ops.ctl", "ops.req.demo.echo", "somewhere.else", "ops.inbox."})
  void repliesGoOnlyToInboxes(String replyTo) throws Exception {
    serve(LEASE);
    AtomicInteger heardThere = new AtomicInteger();
    pubsub.subscribe(replyTo, SubscribeOptions.defaults(), m -> heardThere.incrementAndGet());
    long malformedBefore = handler.stats().malformed();
    // An endless stream, no demand, no deadline: it would flood replyTo for ever.
    rawRequest("demo.ticks", replyTo, "");
    // And a request so broken that only PROTOCOL_ERROR could answer it.
    String broken =
        "{\"v\": 1, \"type\": \"call.requested\", \"requestId\": \"%s\", \"replyTo\": \"%s\","
                .formatted(OperationContext.newRequestId(), replyTo)
            + " \"operationId\": \"demo.ticks\", \"deadlineMs\": -1}";
    pubsub.publish(ProtocolTopics.request("demo.ticks"), broken.getBytes(StandardCharsets.UTF_8));
    eventually("both are counted", () -> handler.stats().malformed() == malformedBefore + 2);
    // A call that works, through the same server, shows the two were handled before it.
    try (PendingRequestMap calls = PendingRequestMap.create(pubsub)) {
      assertThat(calls.call("demo.block", 1).get(5, TimeUnit.SECONDS).data().asString())
          .isEqualTo("done");
    }
    assertThat(server.stats().running()).isZero();
    assertThat(heardThere).as("nothing was published to " + replyTo).hasValue(0);
  }

  @Test
  void oneCallerHitsItsStreamCapWhileAnotherStillGetsIn() throws Exception {
    server.close();
    server = OperationServer.builder(registry).maxStreamsPerIdentity(8).build();
    serve(Duration.ofSeconds(30));
    String inbox = newInbox();
    List<CallEvent> received = rawInbox(inbox);
    for (int i = 0; i < 12; i++) {
      rawRequest(
          "demo.ticks",
          inbox,
          ", \"demand\": 1, \"identity\": {\"subject\": \"mallory\", \"scopes\": []}");
    }
    eventually("8 items and 4 refusals", () -> received.size() == 12);
    List<CallEvent.Failed> refusals =
        received.stream()
            .filter(CallEvent.Failed.class::isInstance)
            .map(CallEvent.Failed.class::cast)
            .toList();
    assertThat(refusals).hasSize(4);
    for (CallEvent.Failed refusal : refusals) {
      assertThat(refusal.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      assertThat(refusal.retryable()).isTrue();
      assertThat(refusal.message()).contains("mallory").contains("maxStreamsPerIdentity = 8");
    }
    assertThat(server.stats().running()).isEqualTo(8);

    try (PendingRequestMap calls = PendingRequestMap.create(pubsub)) {
      CallOptions alice = CallOptions.defaults().withIdentity(Identity.of("alice"));
      assertThat(calls.call("demo.echo", "hi", alice).get(5, TimeUnit.SECONDS).data().asString())
          .isEqualTo("hi");
      List<Integer> items = new CopyOnWriteArrayList<>();
      calls
          .subscribe("demo.ticks", null, alice)
          .subscribe(
              new Flow.Subscriber<>() {
                @Override
                public void onSubscribe(Flow.Subscription s) {
                  s.request(3);
                }

                @Override
                public void onNext(ResponseEnvelope<JsonNode> item) {
                  items.add(item.data().asInt());
                }

                @Override
                public void onError(Throwable error) {}

                @Override
                public void onComplete() {}
              });
      eventually("alice's stream flows", () -> items.size() == 3);
    }
  }

  @Test
  void aliveForAnInboxWithNoCallsHereCostsNothing() throws Exception {
    serve(LEASE);
    for (int i = 0; i < 1000; i++) {
      pubsub.publish(ProtocolTopics.CONTROL, CallEvents.encode(new CallEvent.Alive(newInbox())));
    }
    try (PendingRequestMap calls = PendingRequestMap.create(pubsub)) {
      assertThat(calls.call("demo.echo", 2).get(5, TimeUnit.SECONDS).data().asInt()).isEqualTo(2);
    }
    assertThat(handler.stats().malformed()).isZero();
    assertThat(handler.trackedCallers()).isZero();
  }

  @Test
  void theLeaseMustBePositive() {
    assertThatThrownBy(() -> CallHandler.builder(server, pubsub).callerLeaseTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> PendingRequestMap.builder(pubsub).aliveInterval(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
