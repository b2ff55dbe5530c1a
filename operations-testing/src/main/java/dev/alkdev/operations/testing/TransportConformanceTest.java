package dev.alkdev.operations.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallEvent;
import dev.alkdev.operations.protocol.CallEvents;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The conformance suite of the call protocol: every pub/sub transport's tests extend this class and
 * say how to connect a serving side and a calling side ({@link #createPeers()}). Each test serves a
 * registry with a {@link CallHandler} on the serving side and calls it through a {@link
 * PendingRequestMap} on the calling side, then checks what a caller is promised: results, errors,
 * streams and their demand, cancellation both ways, deadlines, NO_RESPONDERS, 10,000 concurrent
 * calls, malformed and oversized messages, late responses and a dropped connection.
 *
 * <p>The tests are grouped by area in {@link Nested} classes ({@link Unary}, {@link Errors}, {@link
 * AccessControl}, {@link Streams}, {@link Cancelling}, {@link Deadlines}, {@link NoResponders},
 * {@link Concurrency}, {@link Malformed}, {@link Limits}, {@link LateResponses}, {@link
 * TransportDrop}); a subclass inherits every group, and each test runs on a fresh pair of peers
 * from the subclass's {@link #createPeers()}. Reports name a test by its group, for example {@code
 * TransportConformanceTest$Streams}, inside the subclass's report.
 *
 * <p>Every wait is bounded ({@link #WAIT}), and the class has a timeout per test as a backstop, so
 * a broken transport fails the suite instead of hanging it.
 *
 * <pre>{@code
 * class InProcessTransportConformanceTest extends TransportConformanceTest {
 *   protected Peers createPeers() {
 *     return Peers.shared(InProcessPubSub.create());
 *   }
 * }
 * }</pre>
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class TransportConformanceTest extends CallConformance {
  /** For subclasses: one per transport under test. */
  protected TransportConformanceTest() {}

  /** The caller's deadline ends a call or a stream promptly, and the handler with it. */
  @Nested
  public class Deadlines {
    @Test
    public void theCallersDeadlineFailsTheCallPromptlyAndCancelsTheHandler() throws Exception {
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch cancelled = new CountDownLatch(1);
      AtomicReference<Duration> handlerDeadline = new AtomicReference<>();
      serve(
          query("late"),
          Handler.blocking(
              (in, ctx) -> {
                handlerDeadline.set(ctx.deadline().map(d -> d.remaining()).orElse(null));
                ctx.cancellation().onCancel(cancelled::countDown);
                started.countDown();
                return blockUntilCancelled(ctx);
              }));
      Duration deadline = Duration.ofMillis(300);

      long start = System.nanoTime();
      CallError error = awaitFailure(calls.call(id("late"), null, timeout(deadline)));
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(error.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
      assertThat(took).isGreaterThanOrEqualTo(deadline.minusMillis(20)).isLessThan(PROMPTLY);
      awaitLatch(started, "the handler started");
      assertThat(handlerDeadline.get())
          .as("the handler's context carries the caller's deadline")
          .isNotNull()
          .isLessThanOrEqualTo(deadline);
      awaitLatch(cancelled, "the handler was cancelled", PROMPTLY);
      eventually("nothing pending", () -> nothingPending());
    }

    @Test
    public void aStreamsDeadlineFailsItWithDeadlineExceeded() throws Exception {
      CountDownLatch released = new CountDownLatch(1);
      serve(
          stream("stalled"),
          Handler.emitter(
              (in, ctx, emitter) -> {
                try {
                  emitter.emit("only");
                  blockUntilCancelled(ctx);
                } finally {
                  released.countDown();
                }
              }));
      StreamRecorder recorder = recorder(Long.MAX_VALUE);

      calls.subscribe(id("stalled"), null, timeout(Duration.ofMillis(300))).subscribe(recorder);

      assertThat(recorder.awaitError().code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
      assertThat(recorder.received()).hasSize(1);
      awaitLatch(released, "the handler was released", PROMPTLY);
      eventually("nothing pending", () -> nothingPending());
    }
  }

  /** A call nobody serves fails at once, not at its deadline. */
  @Nested
  public class NoResponders {
    @Test
    public void aCallNobodyServesFailsAtOnceWithNoResponders() throws Exception {
      long start = System.nanoTime();
      CallError error =
          awaitFailure(calls.call(id("nobody"), null, timeout(Duration.ofMinutes(1))), PROMPTLY);

      assertThat(error.code()).isEqualTo(ErrorCode.NO_RESPONDERS);
      assertThat(error.retryable()).isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(PROMPTLY);

      StreamRecorder recorder = recorder(1);
      calls.subscribe(id("nobody"), null, CallOptions.defaults()).subscribe(recorder);
      assertThat(recorder.awaitError().code()).isEqualTo(ErrorCode.NO_RESPONDERS);
      assertThat(recorder.violations()).isEmpty();
      assertNothingPending();
    }
  }

  /** Many calls at once are each answered once, with their own answer. */
  @Nested
  public class Concurrency {
    @Test
    public void tenThousandConcurrentCallsAreEachAnsweredOnceAndCorrectly() throws Exception {
      serve(query("echo"), Handler.blocking((in, ctx) -> in));
      int total = 10_000;
      int window = 256;
      Semaphore inFlight = new Semaphore(window);
      AtomicInteger running = new AtomicInteger();
      AtomicInteger mostRunning = new AtomicInteger();
      AtomicIntegerArray answers = new AtomicIntegerArray(total);
      ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();

      for (int i = 0; i < total; i++) {
        if (!inFlight.tryAcquire(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
          fail("no call finished within " + WAIT + "; " + running.get() + " in flight");
        }
        mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
        int n = i;
        String token = "call-" + i + "-" + Integer.toHexString(i * 31 + 7);
        calls
            .call(
                id("echo"),
                JSON.createObjectNode().put("n", n).put("token", token),
                timeout(WAIT.multipliedBy(3)))
            .whenComplete(
                (envelope, error) -> {
                  try {
                    if (error != null) {
                      problems.add("call " + n + " failed: " + error);
                    } else if (envelope.data().get("n").asInt() != n
                        || !envelope.data().get("token").asString().equals(token)) {
                      problems.add("call " + n + " got the answer of " + envelope.data());
                    } else {
                      answers.incrementAndGet(n);
                    }
                  } finally {
                    running.decrementAndGet();
                    inFlight.release();
                  }
                });
      }
      if (!inFlight.tryAcquire(window, WAIT.toMillis() * 3, TimeUnit.MILLISECONDS)) {
        fail(running.get() + " calls never finished");
      }

      assertThat(problems).isEmpty();
      List<Integer> notAnsweredOnce =
          IntStream.range(0, total).filter(i -> answers.get(i) != 1).boxed().toList();
      assertThat(notAnsweredOnce).as("calls not answered exactly once").isEmpty();
      assertThat(mostRunning.get()).isLessThanOrEqualTo(window);
      assertNothingPending();
    }
  }

  /** Malformed messages are counted, answered where the sender is known, and serving goes on. */
  @Nested
  public class Malformed {
    @Test
    public void malformedRequestsAreCountedAnsweredWhereTheSenderIsKnownAndServingGoesOn()
        throws Exception {
      serve(query("echo"), Handler.blocking((in, ctx) -> in));
      RawInbox inbox = rawInbox(peers.calling());
      String topic = ProtocolTopics.request(id("echo"));
      String badField = OperationContext.newRequestId();
      String badVersion = OperationContext.newRequestId();
      String badType = OperationContext.newRequestId();
      long before = server.stats().malformed();

      List<byte[]> garbage =
          List.of(
              new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1, 2, '{'},
              utf8("[1, 2, 3]"),
              utf8("{\"hello\": \"world\"}"),
              utf8(
                  """
                  {"v": 1, "type": "call.requested", "requestId": "%s", "operationId": "%s",
                   "input": {}, "replyTo": "%s", "deadlineMs": -5}"""
                      .formatted(badField, id("echo"), inbox.topic)),
              utf8(
                  """
                  {"v": 99, "type": "call.requested", "requestId": "%s", "operationId": "%s",
                   "input": {}, "replyTo": "%s"}"""
                      .formatted(badVersion, id("echo"), inbox.topic)),
              utf8(
                  """
                  {"v": 1, "type": "call.exploded", "requestId": "%s", "replyTo": "%s"}"""
                      .formatted(badType, inbox.topic)));
      for (byte[] message : garbage) {
        await(peers.calling().publish(topic, message));
      }

      Map<String, CallEvent> answers = new java.util.HashMap<>();
      for (int i = 0; i < 3; i++) {
        CallEvent event = inbox.next();
        answers.put(((CallEvent.CallScoped) event).requestId(), event);
      }
      assertThat(answers.keySet()).containsExactlyInAnyOrder(badField, badVersion, badType);
      assertThat(answers.values())
          .allSatisfy(
              event -> {
                assertThat(event).isInstanceOf(CallEvent.Failed.class);
                assertThat(((CallEvent.Failed) event).code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);
              });
      assertThat(((CallEvent.Failed) answers.get(badVersion)).message()).contains("version");
      eventually(
          "every malformed request counted",
          () -> server.stats().malformed() >= before + garbage.size());
      ObjectNode input = JSON.createObjectNode().put("still", "serving");
      assertThat(await(calls.call(id("echo"), input, timeout(WAIT))).data()).isEqualTo(input);
      assertThat(inbox.isEmpty()).as("garbage without a reply address is not answered").isTrue();
    }

    @Test
    public void malformedResponsesAreCountedAndFailTheCallTheyNameWhileTheInboxGoesOn()
        throws Exception {
      FakeServer fake = fakeServer("fake");
      long before = calls.stats().malformed();

      // Garbage with no request id: dropped and counted.
      await(peers.serving().publish(calls.inbox(), new byte[] {0, 1, 2, (byte) 0xc3}));
      await(peers.serving().publish(calls.inbox(), utf8("{\"type\": \"call.responded\"}")));
      // A request does not belong in an inbox.
      await(
          peers
              .serving()
              .publish(
                  calls.inbox(),
                  CallEvents.encode(
                      new CallEvent.Aborted(OperationContext.newRequestId(), Optional.empty()))));
      eventually("garbage counted", () -> calls.stats().malformed() >= before + 3);

      // A response whose envelope is broken fails the call it names.
      CompletableFuture<ResponseEnvelope<JsonNode>> broken =
          calls.call(id("fake"), null, timeout(WAIT.multipliedBy(3)));
      CallEvent.Requested request = fake.next();
      fake.reply(
          request,
          """
          {"v": 1, "type": "call.responded", "requestId": "%s", "output": {"data": 1}}"""
              .formatted(request.requestId()));
      assertThat(awaitFailure(broken, PROMPTLY).code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);

      // So does a response in a protocol version this side does not speak.
      CompletableFuture<ResponseEnvelope<JsonNode>> newer =
          calls.call(id("fake"), null, timeout(WAIT.multipliedBy(3)));
      request = fake.next();
      fake.reply(
          request,
          """
          {"v": 2, "type": "call.completed", "requestId": "%s"}"""
              .formatted(request.requestId()));
      assertThat(awaitFailure(newer, PROMPTLY).code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);

      // And the inbox keeps working: garbage, then the right answer.
      CompletableFuture<ResponseEnvelope<JsonNode>> fine =
          calls.call(id("fake"), null, timeout(WAIT));
      request = fake.next();
      fake.reply(request, "not json at all");
      fake.reply(request, respondedJson(request.requestId(), "ok"));
      assertThat(await(fine).data().asString()).isEqualTo("ok");
      eventually("every malformed response counted", () -> calls.stats().malformed() >= before + 6);
      assertNothingPending();
    }
  }

  /** Messages larger than the transport carries end as RESOURCE_EXHAUSTED, never as silence. */
  @Nested
  public class Limits {
    @Test
    public void anOversizedRequestFailsAtTheCallerWithResourceExhausted() throws Exception {
      AtomicInteger ran = new AtomicInteger();
      serve(query("sink"), Handler.blocking((in, ctx) -> ran.incrementAndGet()));
      String huge = "x".repeat(peers.calling().maxMessageBytes() + 1);

      CallError error = awaitFailure(calls.call(id("sink"), huge, timeout(WAIT)), PROMPTLY);

      assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      assertThat(ran).hasValue(0);
      assertNothingPending();
      await(calls.call(id("sink"), "small", timeout(WAIT)));
      assertThat(ran).hasValue(1);
    }

    @Test
    public void anOversizedResponseReachesTheCallerAsResourceExhausted() throws Exception {
      int limit = peers.serving().maxMessageBytes();
      serve(query("huge"), Handler.blocking((in, ctx) -> "y".repeat(limit + 1)));
      CountDownLatch released = new CountDownLatch(1);
      serve(
          stream("swelling"),
          Handler.emitter(
              (in, ctx, emitter) -> {
                try {
                  emitter.emit("small");
                  emitter.emit("z".repeat(limit + 1));
                  blockUntilCancelled(ctx);
                } finally {
                  released.countDown();
                }
              }));

      CallError error = awaitFailure(calls.call(id("huge"), null, timeout(WAIT)), PROMPTLY);
      assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);

      StreamRecorder recorder = recorder(Long.MAX_VALUE);
      calls.subscribe(id("swelling"), null, CallOptions.defaults()).subscribe(recorder);
      assertThat(recorder.awaitError().code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      assertThat(recorder.received().stream().map(e -> e.data().asString()))
          .containsExactly("small");
      awaitLatch(released, "the stream's handler was released", PROMPTLY);
      eventually("nothing pending", () -> nothingPending());
    }

    @Test
    public void anErrorWithOversizedDetailsStillReachesTheCaller() throws Exception {
      int limit = peers.serving().maxMessageBytes();
      serve(
          query("verbose"),
          Handler.blocking(
              (in, ctx) -> {
                throw CallError.builder(ErrorCode.UNAVAILABLE, "The backend is down")
                    .details(JSON.createObjectNode().put("dump", "d".repeat(limit + 1)))
                    .build();
              }));

      CallError error = awaitFailure(calls.call(id("verbose"), null, timeout(WAIT)), PROMPTLY);

      assertThat(error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
      assertThat(error.getMessage()).startsWith("The backend is down");
      assertThat(error.retryable()).isTrue();
    }

    @Test
    public void anOversizedRawMessageOnARequestTopicDoesNotStopTheServer() throws Exception {
      serve(query("echo"), Handler.blocking((in, ctx) -> in));
      long before = server.stats().malformed();
      byte[] huge = new byte[peers.calling().maxMessageBytes() + 1];
      java.util.Arrays.fill(huge, (byte) ' ');

      CompletableFuture<Integer> published =
          peers.calling().publish(ProtocolTopics.request(id("echo")), huge);

      try {
        published.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        // The transport carried it: the server must have refused it.
        eventually("the oversized message counted", () -> server.stats().malformed() > before);
      } catch (ExecutionException e) {
        assertThat(e.getCause()).isInstanceOf(CallError.class);
        assertThat(((CallError) e.getCause()).code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      }
      assertThat(await(calls.call(id("echo"), "after", timeout(WAIT))).data().asString())
          .isEqualTo("after");
    }
  }

  /**
   * Responses nobody waits for are dropped and counted; {@code respond()} delivers only envelopes.
   */
  @Nested
  public class LateResponses {
    @Test
    public void lateAndUnknownResponsesAreDroppedAndCounted() throws Exception {
      FakeServer fake = fakeServer("fake");
      CompletableFuture<ResponseEnvelope<JsonNode>> call =
          calls.call(id("fake"), null, timeout(WAIT));
      CallEvent.Requested request = fake.next();
      long lateBefore = calls.stats().late();

      fake.reply(request, respondedJson(request.requestId(), "first"));
      assertThat(await(call).data().asString()).isEqualTo("first");
      fake.reply(request, respondedJson(request.requestId(), "second"));
      fake.reply(request, respondedJson(OperationContext.newRequestId(), "stranger"));

      eventually("both late responses counted", () -> calls.stats().late() >= lateBefore + 2);
      assertThat(call.join().data().asString()).isEqualTo("first");
      assertNothingPending();
    }

    @Test
    public void respondDeliversEnvelopesAndRefusesAnythingElse() throws Exception {
      FakeServer fake = fakeServer("fake");
      CompletableFuture<ResponseEnvelope<JsonNode>> call =
          calls.call(id("fake"), null, timeout(WAIT));
      String requestId = fake.next().requestId();

      assertThatThrownBy(() -> calls.respond(requestId, "a raw value"))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> calls.respond(requestId, Map.of("data", 1)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> calls.respond(requestId, null))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(
              () ->
                  calls.respond(
                      requestId, JSON.readTree("{\"data\": 1, \"meta\": {\"source\": \"local\"}}")))
          .as("an envelope's shape with a broken meta")
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(call).isNotDone();

      ResponseEnvelope<String> envelope = Envelopes.localEnvelope("done", id("fake"));
      calls.respond(requestId, envelope);

      ResponseEnvelope<JsonNode> result = await(call);
      assertThat(result.data().asString()).isEqualTo("done");
      assertThat(result.meta()).isEqualTo(envelope.meta());
      assertNothingPending();
    }
  }

  /** A caller cut off its transport has its calls fail at once. */
  /**
   * Caller liveness (docs/protocol.md, "the caller goes away"): a serving side ends the calls of a
   * caller it has not heard from for its lease, keeps those of a caller that says {@code
   * call.alive}, and replies only to inboxes.
   */
  @Nested
  public class Liveness {
    private final Duration lease = Duration.ofMillis(500);

    /** A second serving side, on its own registry, whose callers' lease is short. */
    private CallHandler shortLeaseServer() throws Exception {
      OperationRegistry own = closeAfterTest(OperationRegistry.create());
      own.register(
          stream("endless"),
          Handler.emitter(
              (in, ctx, emitter) -> {
                for (int i = 0; ; i++) {
                  emitter.emit(i);
                }
              }));
      CallHandler handler =
          closeAfterTest(
              CallHandler.builder(own, peers.serving()).callerLeaseTimeout(lease).build());
      awaitPropagation();
      return handler;
    }

    @Test
    public void aCallerThatVanishesLosesItsStreamByTheLease() throws Exception {
      shortLeaseServer();
      RawInbox inbox = rawInbox(peers.calling());
      // A caller in any language that asks for one item, then never speaks again.
      await(
          peers
              .calling()
              .publish(
                  ProtocolTopics.request(id("endless")),
                  CallEvents.encode(
                      new CallEvent.Requested(
                          OperationContext.newRequestId(),
                          id("endless"),
                          JSON.nullNode(),
                          Optional.empty(),
                          Optional.empty(),
                          OptionalLong.empty(),
                          Optional.of(inbox.topic),
                          OptionalLong.of(1)))));

      assertThat(inbox.next()).isInstanceOf(CallEvent.Responded.class);
      CallEvent end = inbox.next();
      assertThat(end).isInstanceOf(CallEvent.Failed.class);
      assertThat(((CallEvent.Failed) end).code()).isEqualTo(ErrorCode.CANCELLED);
      assertThat(((CallEvent.Failed) end).message()).contains("The caller is gone");
    }

    @Test
    public void aCallerThatSaysAliveKeepsItsStreamForManyLeases() throws Exception {
      shortLeaseServer();
      PendingRequestMap alive =
          closeAfterTest(
              PendingRequestMap.builder(peers.calling())
                  .aliveInterval(Duration.ofMillis(100))
                  .build());
      StreamRecorder recorder = recorder(1);
      alive.subscribe(id("endless"), null, CallOptions.defaults()).subscribe(recorder);
      eventually("the first item", () -> recorder.received().size() == 1);

      Thread.sleep(4 * lease.toMillis()); // nothing but call.alive speaks for the caller

      assertThat(recorder.received()).hasSize(1);
      assertThat(recorder.violations()).isEmpty();
      recorder.request(2);
      eventually("two more items", () -> recorder.received().size() == 3);
      recorder.cancel();
      eventually("nothing pending", () -> alive.stats().pending() == 0);
    }

    @Test
    public void repliesGoOnlyToInboxes() throws Exception {
      CallHandler shortLease = shortLeaseServer();
      String notAnInbox = ProtocolTopics.request(id("elsewhere"));
      AtomicInteger published = new AtomicInteger();
      closeAfterTest(
          peers
              .calling()
              .subscribe(
                  notAnInbox, SubscribeOptions.defaults(), m -> published.incrementAndGet()));
      awaitPropagation();
      long malformedBefore = shortLease.stats().malformed();
      // A request for an endless stream, no demand, no deadline, replies to a request topic.
      String request =
          ("{\"v\": 1, \"type\": \"call.requested\", \"requestId\": \"%s\", \"replyTo\":"
                  + " \"%s\", \"operationId\": \"%s\"}")
              .formatted(OperationContext.newRequestId(), notAnInbox, id("endless"));
      await(peers.calling().publish(ProtocolTopics.request(id("endless")), utf8(request)));
      eventually(
          "the request is dropped as malformed",
          () -> shortLease.stats().malformed() == malformedBefore + 1);
      // A stream that may be answered runs on the same server; had the first one run, its items
      // would have reached the other topic by the time this one's first item arrives.
      StreamRecorder recorder = recorder(1);
      calls.subscribe(id("endless"), null, CallOptions.defaults()).subscribe(recorder);
      eventually("a stream that may be answered runs", () -> recorder.received().size() == 1);
      recorder.cancel();

      assertThat(published).as("nothing was published to " + notAnInbox).hasValue(0);
    }
  }

  @Nested
  public class TransportDrop {
    @Test
    public void droppingTheCallersConnectionFailsPendingCallsAtOnce() throws Exception {
      CountDownLatch started = new CountDownLatch(1);
      serve(query("slow"), blockingUntilCancelled(started, new CountDownLatch(1)));
      serve(
          stream("waiting"),
          Handler.emitter(
              (in, ctx, emitter) -> {
                emitter.emit("first");
                blockUntilCancelled(ctx);
              }));
      CompletableFuture<ResponseEnvelope<JsonNode>> call =
          calls.call(id("slow"), null, timeout(Duration.ofMinutes(1)));
      StreamRecorder recorder = recorder(Long.MAX_VALUE);
      calls.subscribe(id("waiting"), null, CallOptions.defaults()).subscribe(recorder);
      awaitLatch(started, "the handler started");
      assertThat(recorder.next().data().asString()).isEqualTo("first");

      dropCallingConnection(peers);

      CallError error = awaitFailure(call, PROMPTLY);
      assertThat(error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
      assertThat(error.retryable()).isTrue();
      assertThat(recorder.awaitError().code()).isEqualTo(ErrorCode.UNAVAILABLE);
      assertThat(calls.stats().pending()).isZero();
    }
  }
}
