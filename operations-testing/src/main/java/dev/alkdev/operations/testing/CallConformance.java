package dev.alkdev.operations.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.Cancellation;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.HttpResponseMeta;
import dev.alkdev.operations.envelope.LocalResponseMeta;
import dev.alkdev.operations.envelope.McpContentBlock;
import dev.alkdev.operations.envelope.McpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallEvent;
import dev.alkdev.operations.protocol.CallEvents;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.schema.SchemaError;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The call protocol's conformance tests of what a caller is promised: results, errors, access
 * control, streams and their demand, cancellation both ways. {@link TransportConformanceTest} adds
 * the rest; a transport's test extends that.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class CallConformance extends ConformanceFixture {
  CallConformance() {}

  // ------------------------------------------------------------------ the tests, by area

  /** A unary call returns the handler's envelope, whatever its source, unchanged. */
  @Nested
  public class Unary {
    @Test
    public void unaryCallReturnsTheHandlersDataInALocalEnvelope() throws Exception {
      serve(query("echo"), Handler.blocking((in, ctx) -> in));
      ObjectNode input = JSON.createObjectNode().put("message", "hi").put("n", 3);

      ResponseEnvelope<JsonNode> result = await(calls.call(id("echo"), input, timeout(WAIT)));

      assertThat(result.data()).isEqualTo(input);
      assertThat(result.meta()).isInstanceOf(LocalResponseMeta.class);
      assertThat(((LocalResponseMeta) result.meta()).operationId()).isEqualTo(id("echo"));
      assertNothingPending();
    }

    @Test
    public void anHttpEnvelopeCrossesUnchanged() throws Exception {
      ResponseEnvelope<JsonNode> sent =
          Envelopes.httpEnvelope(
              (JsonNode) JSON.createObjectNode().put("id", 7),
              HttpResponseMeta.ofHeaderValues(
                  201,
                  Map.of("x-trace", List.of("abc"), "set-cookie", List.of("a=1", "b=2")),
                  "application/json"));
      serve(query("http"), Handler.blocking((in, ctx) -> sent));

      ResponseEnvelope<JsonNode> result = await(calls.call(id("http"), null, timeout(WAIT)));

      assertThat(result.toJson()).isEqualTo(sent.toJson());
      assertThat(result.meta()).isEqualTo(sent.meta());
    }

    @Test
    public void anMcpErrorEnvelopeIsAResponseNotAnError() throws Exception {
      ResponseEnvelope<JsonNode> sent =
          Envelopes.mcpEnvelope(
              (JsonNode) JSON.createArrayNode().add("tool failed"),
              true,
              List.of(McpContentBlock.text("tool failed")));
      serve(query("mcpError"), Handler.blocking((in, ctx) -> sent));

      ResponseEnvelope<JsonNode> result = await(calls.call(id("mcpError"), null, timeout(WAIT)));

      assertThat(result.meta()).isInstanceOf(McpResponseMeta.class);
      McpResponseMeta meta = (McpResponseMeta) result.meta();
      assertThat(meta.isError()).isTrue();
      assertThat(meta.content()).containsExactly(McpContentBlock.text("tool failed"));
      assertThat(result.toJson()).isEqualTo(sent.toJson());
    }

    /**
     * A caller's dependent that blocks (a thenApply waiting on a latch, or on a nested call) runs
     * off the thread that receives replies (D73), so other calls' replies on the same connection
     * still arrive.
     */
    @Test
    public void aBlockingDependentDoesNotHoldUpOtherCallsReplies() throws Exception {
      CountDownLatch gate = new CountDownLatch(1);
      serve(
          query("gated"),
          Handler.blocking(
              (in, ctx) -> {
                if (!gate.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                  throw new IllegalStateException("the gate did not open");
                }
                return in;
              }));
      serve(query("echo"), Handler.blocking((in, ctx) -> in));
      CountDownLatch blocking = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      CompletableFuture<String> continued;
      try {
        // Registered before the reply can come, so it runs wherever the future completes.
        continued =
            calls
                .call(id("gated"), "first", timeout(WAIT))
                .thenApply(
                    envelope -> {
                      blocking.countDown();
                      try {
                        release.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      return envelope.data().asString();
                    });
        gate.countDown();
        assertThat(blocking.await(WAIT.toMillis(), TimeUnit.MILLISECONDS))
            .as("the first call's dependent runs")
            .isTrue();

        ResponseEnvelope<JsonNode> second =
            calls
                .call(id("echo"), "second", timeout(WAIT))
                .get(PROMPTLY.toMillis(), TimeUnit.MILLISECONDS);

        assertThat(second.data().asString()).isEqualTo("second");
      } finally {
        release.countDown();
      }
      assertThat(continued.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("first");
      assertNothingPending();
    }
  }

  /** A handler's failure reaches the caller as a {@link CallError} that says what it may say. */
  @Nested
  public class Errors {
    @Test
    public void aFailingHandlerIsAnExecutionErrorThatNamesTheOperationAndNothingElse()
        throws Exception {
      serve(
          query("boom"),
          Handler.blocking(
              (in, ctx) -> {
                throw new IllegalStateException("secret: jdbc://admin:hunter2@db");
              }));

      CallError error = awaitFailure(calls.call(id("boom"), null, timeout(WAIT)));

      assertThat(error.code()).isEqualTo(ErrorCode.EXECUTION_ERROR);
      assertThat(error.getMessage()).contains(id("boom")).doesNotContain("hunter2", "secret");
      assertThat(error.retryable()).isFalse();
      assertThat(error.details()).isEmpty();
      assertThat(error.getCause()).as("the handler's exception stays on the serving side").isNull();
    }

    @Test
    public void aHandlersCallErrorCrossesWithCodeMessageRetryableAndDetails() throws Exception {
      ObjectNode details = JSON.createObjectNode().put("quota", 10).put("used", 10);
      serve(
          query("quota"),
          Handler.blocking(
              (in, ctx) -> {
                throw CallError.builder(ErrorCode.RESOURCE_EXHAUSTED, "Quota used up")
                    .retryable(false)
                    .details(details)
                    .build();
              }));

      CallError error = awaitFailure(calls.call(id("quota"), null, timeout(WAIT)));

      assertThat(error.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      assertThat(error.getMessage()).isEqualTo("Quota used up");
      assertThat(error.retryable()).as("the handler's flag, not the code's default").isFalse();
      assertThat(error.details()).contains(details);
    }

    @Test
    public void invalidInputListsEveryValidationErrorToTheCaller() throws Exception {
      OperationSpec spec =
          OperationSpec.builder(NS, "strict")
              .inputSchema(
                  """
                  {"type": "object",
                   "required": ["a", "b", "c", "d", "e", "f"],
                   "properties": {"age": {"type": "integer", "minimum": 0}}}""")
              .build();
      AtomicInteger ran = new AtomicInteger();
      serve(
          spec,
          Handler.blocking(
              (in, ctx) -> {
                ran.incrementAndGet();
                return in;
              }));
      ObjectNode input = JSON.createObjectNode().put("age", -3);
      List<SchemaError> expected = spec.inputSchema().validate(input);
      assertThat(expected).hasSizeGreaterThan(5); // more than the message shows

      CallError error = awaitFailure(calls.call(id("strict"), input, timeout(WAIT)));

      assertThat(error.code()).isEqualTo(ErrorCode.INVALID_INPUT);
      assertThat(error.getMessage()).contains(id("strict"));
      assertThat(error.validationErrors()).containsExactlyElementsOf(expected);
      assertThat(error.details()).isPresent();
      assertThat(ran).hasValue(0);
    }

    @Test
    public void anOperationUnregisteredWhileItsRequestIsUnderWayIsNotFound() throws Exception {
      // A registry of our own, so that our listener runs before the CallHandler's: while it runs,
      // the operation is gone from the registry but the server still listens on its topic.
      OperationRegistry own = closeAfterTest(OperationRegistry.create());
      AtomicReference<CompletableFuture<ResponseEnvelope<JsonNode>>> inFlight =
          new AtomicReference<>();
      own.addListener(
          new OperationRegistry.Listener() {
            @Override
            public void added(OperationSpec spec) {}

            @Override
            public void removed(OperationSpec spec) {
              CompletableFuture<ResponseEnvelope<JsonNode>> call =
                  calls.call(spec.id(), null, timeout(WAIT));
              inFlight.set(call);
              try {
                call.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (ExecutionException | TimeoutException e) {
                // Examined below.
              }
            }
          });
      closeAfterTest(CallHandler.serve(own, peers.serving()));
      own.register(query("fleeting"), Handler.blocking((in, ctx) -> "here"));
      awaitPropagation();
      assertThat(await(calls.call(id("fleeting"), null, timeout(WAIT))).data().asString())
          .isEqualTo("here");

      own.unregister(id("fleeting"));

      assertThat(inFlight.get()).isNotNull();
      assertThat(awaitFailure(inFlight.get()).code()).isEqualTo(ErrorCode.OPERATION_NOT_FOUND);
      awaitPropagation();
      assertThat(awaitFailure(calls.call(id("fleeting"), null, timeout(WAIT))).code())
          .as("once the server stopped listening")
          .isEqualTo(ErrorCode.NO_RESPONDERS);
    }
  }

  /**
   * The serving side checks the caller's identity: UNAUTHENTICATED, ACCESS_DENIED, or the call
   * runs.
   */
  @Nested
  public class AccessControl {
    @Test
    public void accessIsCheckedAgainstTheCallersIdentity() throws Exception {
      AtomicReference<Identity> seen = new AtomicReference<>();
      serve(
          OperationSpec.builder(NS, "secret").requiredScopes("conformance.read").build(),
          Handler.blocking(
              (in, ctx) -> {
                seen.set(ctx.identity());
                return "classified";
              }));

      CallError anonymous = awaitFailure(callAs(Identity.anonymous(), id("secret")));
      assertThat(anonymous.code()).isEqualTo(ErrorCode.UNAUTHENTICATED);

      CallError denied = awaitFailure(callAs(Identity.of("mallory"), id("secret")));
      assertThat(denied.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
      assertThat(denied.getMessage()).contains("conformance.read");
      assertThat(seen.get()).as("the handler never ran").isNull();

      Identity reader = Identity.of("alice", "conformance.read");
      assertThat(await(callAs(reader, id("secret"))).data().asString()).isEqualTo("classified");
      assertThat(seen.get().subject()).isEqualTo("alice");
      assertThat(seen.get().scopes()).contains("conformance.read");
    }

    private CompletableFuture<ResponseEnvelope<JsonNode>> callAs(Identity identity, String op)
        throws Exception {
      PubSub connection = callingAs(peers, identity);
      PendingRequestMap map = calls;
      if (connection != peers.calling()) {
        closeAfterTest(connection);
        map = closeAfterTest(PendingRequestMap.create(connection));
        awaitPropagation();
      }
      return map.call(op, null, timeout(WAIT).withIdentity(identity));
    }
  }

  /** A subscription's items arrive in order, then its end, paced by the caller's demand. */
  @Nested
  public class Streams {
    @Test
    public void aStreamDeliversEveryItemInOrderThenCompletes() throws Exception {
      serve(
          stream("count"),
          Handler.emitter(
              (in, ctx, emitter) -> {
                for (int i = 0; i < in.get("to").asInt(); i++) {
                  emitter.emit(i);
                }
              }));
      StreamRecorder recorder = recorder(Long.MAX_VALUE);

      calls
          .subscribe(id("count"), JSON.createObjectNode().put("to", 200), CallOptions.defaults())
          .subscribe(recorder);

      List<ResponseEnvelope<JsonNode>> items = recorder.awaitCompletion();
      assertThat(items.stream().map(e -> e.data().asInt()))
          .containsExactlyElementsOf(IntStream.range(0, 200).boxed().toList());
      assertThat(items).allSatisfy(e -> assertThat(e.meta()).isInstanceOf(LocalResponseMeta.class));
      assertThat(recorder.violations()).isEmpty();
      eventually("nothing pending", () -> nothingPending());
    }

    @Test
    public void aStreamThatFailsMidwayDeliversItsItemsThenTheError() throws Exception {
      serve(
          stream("flaky"),
          Handler.emitter(
              (in, ctx, emitter) -> {
                emitter.emit("a");
                emitter.emit("b");
                emitter.emit("c");
                throw CallError.builder(ErrorCode.UNAVAILABLE, "The backend went away")
                    .details(JSON.createObjectNode().put("backend", "db-2"))
                    .build();
              }));
      StreamRecorder recorder = recorder(Long.MAX_VALUE);

      calls.subscribe(id("flaky"), null, CallOptions.defaults()).subscribe(recorder);

      CallError error = recorder.awaitError();
      assertThat(recorder.received().stream().map(e -> e.data().asString()))
          .containsExactly("a", "b", "c");
      assertThat(error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
      assertThat(error.getMessage()).isEqualTo("The backend went away");
      assertThat(error.details()).contains(JSON.createObjectNode().put("backend", "db-2"));
      assertThat(recorder.violations()).isEmpty();
      eventually("nothing pending", () -> nothingPending());
    }

    @Test
    public void aSlowSubscribersDemandHoldsBackTheHandlerEndToEnd() throws Exception {
      AtomicLong requested = new AtomicLong();
      AtomicLong emitted = new AtomicLong();
      AtomicLong mostAhead = new AtomicLong(Long.MIN_VALUE);
      int total = 12;
      serve(
          stream("paced"),
          Handler.emitter(
              (in, ctx, emitter) -> {
                for (int i = 0; i < total; i++) {
                  emitter.emit(i);
                  long ahead = emitted.incrementAndGet() - requested.get();
                  mostAhead.accumulateAndGet(ahead, Math::max);
                }
              }));
      StreamRecorder recorder = recorder(0);
      calls.subscribe(id("paced"), null, CallOptions.defaults()).subscribe(recorder);

      // A first batch of three, then one at a time; after each item, give a producer that ignores
      // demand the time to run ahead, then check that it did not.
      requested.addAndGet(3);
      recorder.request(3);
      for (int i = 0; i < 3; i++) {
        assertThat(recorder.next().data().asInt()).isEqualTo(i);
      }
      pause();
      assertThat(emitted).as("items emitted after a request of 3").hasValue(3);
      for (int i = 3; i < total; i++) {
        requested.incrementAndGet();
        recorder.request(1);
        assertThat(recorder.next().data().asInt()).isEqualTo(i);
        pause();
        assertThat(emitted.get()).as("items emitted after %d requested", i + 1).isEqualTo(i + 1);
      }
      requested.incrementAndGet();
      recorder.request(1); // room for the completion; nothing more is emitted
      assertThat(recorder.awaitCompletion()).hasSize(total);
      assertThat(mostAhead.get()).as("emitted beyond the caller's demand").isLessThanOrEqualTo(0);
      assertThat(recorder.violations()).isEmpty();
    }

    @Test
    public void demandRequestedBeforeTheFirstItemIsNotLost() throws Exception {
      serve(
          stream("five"),
          Handler.emitter(
              (in, ctx, emitter) -> {
                for (int i = 0; i < 5; i++) {
                  emitter.emit(i);
                }
              }));
      for (int round = 0; round < 20; round++) {
        StreamRecorder recorder = recorder(0);
        calls.subscribe(id("five"), null, CallOptions.defaults()).subscribe(recorder);
        recorder.request(1);
        recorder.request(1); // before the serving side has even seen the request, most likely
        recorder.request(1);
        for (int i = 0; i < 3; i++) {
          assertThat(recorder.next().data().asInt()).isEqualTo(i);
        }
        recorder.request(2);
        assertThat(recorder.awaitCompletion()).hasSize(5);
        assertThat(recorder.violations()).isEmpty();
      }
      assertNothingPending();
    }
  }

  /** Cancelling, from either side, ends the call on both sides and the calls it made. */
  @Nested
  public class Cancelling {
    @Test
    public void cancellingTheFutureCancelsTheHandlerAndItsNestedCalls() throws Exception {
      CountDownLatch nestedStarted = new CountDownLatch(1);
      CountDownLatch nestedCancelled = new CountDownLatch(1);
      CountDownLatch parentStarted = new CountDownLatch(1);
      CountDownLatch parentCancelled = new CountDownLatch(1);
      serve(
          query("nested"),
          Handler.blocking(
              (in, ctx) -> {
                ctx.cancellation().onCancel(nestedCancelled::countDown);
                nestedStarted.countDown();
                return blockUntilCancelled(ctx);
              }));
      serve(
          query("parent"),
          Handler.blocking(
              (in, ctx) -> {
                ctx.cancellation().onCancel(parentCancelled::countDown);
                ctx.env().call(id("nested"), null); // left running: it must end with its parent
                awaitLatch(nestedStarted, "the nested call started");
                parentStarted.countDown();
                return blockUntilCancelled(ctx);
              }));

      CompletableFuture<ResponseEnvelope<JsonNode>> call =
          calls.call(id("parent"), null, timeout(WAIT.multipliedBy(3)));
      awaitLatch(parentStarted, "the handler started");
      call.cancel(true);

      awaitLatch(parentCancelled, "the serving handler was cancelled", PROMPTLY);
      awaitLatch(nestedCancelled, "the handler's nested call was cancelled", PROMPTLY);
      eventually("nothing pending", () -> nothingPending());
    }

    @Test
    public void aCancelledSignalFailsTheCallAndCancelsTheHandler() throws Exception {
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch cancelled = new CountDownLatch(1);
      serve(query("slow"), blockingUntilCancelled(started, cancelled));
      Cancellation signal = Cancellation.create();

      CompletableFuture<ResponseEnvelope<JsonNode>> call =
          calls.call(id("slow"), null, timeout(WAIT.multipliedBy(3)).withCancellation(signal));
      awaitLatch(started, "the handler started");
      signal.cancel(CallError.of(ErrorCode.CANCELLED, "The user pressed stop"));

      CallError error = awaitFailure(call, PROMPTLY);
      assertThat(error.code()).isEqualTo(ErrorCode.CANCELLED);
      assertThat(error.getMessage()).isEqualTo("The user pressed stop");
      awaitLatch(cancelled, "the serving handler was cancelled", PROMPTLY);
      eventually("nothing pending", () -> nothingPending());
    }

    @Test
    public void aSignalCancelledBeforeTheCallNeverRunsTheHandler() throws Exception {
      AtomicInteger ran = new AtomicInteger();
      serve(query("never"), Handler.blocking((in, ctx) -> ran.incrementAndGet()));
      Cancellation signal = Cancellation.create();
      signal.cancel(CallError.of(ErrorCode.CANCELLED, "Cancelled early"));

      CallError error =
          awaitFailure(calls.call(id("never"), null, timeout(WAIT).withCancellation(signal)));

      assertThat(error.code()).isEqualTo(ErrorCode.CANCELLED);
      // A normal call after it: had the first request gone out, it would have run by now.
      await(calls.call(id("never"), null, timeout(WAIT)));
      assertThat(ran).hasValue(1);
      assertNothingPending();
    }

    @Test
    public void callsCancelledJustAfterTheyAreSentLeaveNoHandlerRunning() throws Exception {
      // call.aborted may overtake call.requested (they travel on different topics): the serving
      // side
      // must still not run the call for nobody until its deadline.
      AtomicInteger started = new AtomicInteger();
      AtomicInteger released = new AtomicInteger();
      serve(
          query("abandoned"),
          Handler.blocking(
              (in, ctx) -> {
                started.incrementAndGet();
                try {
                  return blockUntilCancelled(ctx);
                } finally {
                  released.incrementAndGet();
                }
              }));
      serve(
          stream("abandonedStream"),
          Handler.emitter(
              (in, ctx, emitter) -> {
                started.incrementAndGet();
                try {
                  emitter.emit("first");
                  blockUntilCancelled(ctx);
                } finally {
                  released.incrementAndGet();
                }
              }));

      // A burst, so that requests queue up on the serving side while their aborts arrive.
      List<CompletableFuture<ResponseEnvelope<JsonNode>>> sent = new ArrayList<>();
      List<StreamRecorder> streams = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        sent.add(calls.call(id("abandoned"), null, timeout(Duration.ofMinutes(5))));
        StreamRecorder recorder = recorder(1);
        calls.subscribe(id("abandonedStream"), null, CallOptions.defaults()).subscribe(recorder);
        streams.add(recorder);
      }
      sent.forEach(call -> call.cancel(true));
      streams.forEach(StreamRecorder::cancel);

      eventually("every call ended on both sides", () -> nothingPending());
      eventually("every handler that started was released", () -> released.get() == started.get());
    }

    @Test
    public void anAbortThatOvertakesItsRequestStillCancelsTheCall() throws Exception {
      AtomicInteger ran = new AtomicInteger();
      serve(query("counted"), Handler.blocking((in, ctx) -> ran.incrementAndGet()));
      RawInbox inbox = rawInbox(peers.calling());
      String requestId = OperationContext.newRequestId();
      long malformedBefore = server.stats().malformed();

      await(
          peers
              .calling()
              .publish(
                  ProtocolTopics.CONTROL,
                  CallEvents.encode(new CallEvent.Aborted(requestId, Optional.of("gave up")))));
      // The control topic is handled in order: once this marker is counted, the abort was seen.
      await(peers.calling().publish(ProtocolTopics.CONTROL, utf8("marker")));
      eventually("the abort was handled", () -> server.stats().malformed() > malformedBefore);
      await(
          peers
              .calling()
              .publish(
                  ProtocolTopics.request(id("counted")),
                  CallEvents.encode(
                      new CallEvent.Requested(
                          requestId,
                          id("counted"),
                          JSON.nullNode(),
                          Optional.empty(),
                          Optional.empty(),
                          OptionalLong.of(WAIT.toMillis()),
                          Optional.of(inbox.topic),
                          OptionalLong.empty()))));
      // Requests for one operation are handled in order too: after this call, the raw one was.
      await(calls.call(id("counted"), null, timeout(WAIT)));

      assertThat(ran).as("only the second call ran").hasValue(1);
      assertThat(inbox.isEmpty()).as("the aborted call was not answered").isTrue();
    }

    @Test
    public void nestedRemoteCallsAreAbortedWithTheirParent() throws Exception {
      PendingRequestMap serverSide = closeAfterTest(PendingRequestMap.create(peers.serving()));
      awaitPropagation();
      CountDownLatch innerStarted = new CountDownLatch(1);
      CountDownLatch innerCancelled = new CountDownLatch(1);
      CountDownLatch outerStarted = new CountDownLatch(1);
      serve(query("inner"), blockingUntilCancelled(innerStarted, innerCancelled));
      serve(
          query("outer"),
          Handler.blocking(
              (in, ctx) -> {
                serverSide.call(id("inner"), null, CallOptions.of(ctx));
                awaitLatch(innerStarted, "the inner call started");
                outerStarted.countDown();
                return blockUntilCancelled(ctx);
              }));

      CompletableFuture<ResponseEnvelope<JsonNode>> call =
          calls.call(id("outer"), null, timeout(WAIT.multipliedBy(3)));
      awaitLatch(outerStarted, "the outer call started");
      call.cancel(true);

      awaitLatch(innerCancelled, "the inner call, made over the protocol, was aborted", PROMPTLY);
      eventually("nothing pending", () -> nothingPending() && serverSide.stats().pending() == 0);
    }

    @Test
    public void cancellingAStreamReleasesTheHandler() throws Exception {
      CountDownLatch released = new CountDownLatch(1);
      serve(
          stream("endless"),
          Handler.emitter(
              (in, ctx, emitter) -> {
                try {
                  for (long i = 0; ; i++) {
                    emitter.emit(i);
                  }
                } finally {
                  released.countDown();
                }
              }));
      StreamRecorder recorder = recorder(2);
      calls.subscribe(id("endless"), null, CallOptions.defaults()).subscribe(recorder);
      assertThat(recorder.next().data().asLong()).isZero();
      assertThat(recorder.next().data().asLong()).isEqualTo(1);

      recorder.cancel();

      awaitLatch(released, "the handler's finally block ran", PROMPTLY);
      eventually("nothing pending", () -> nothingPending());
      assertThat(recorder.isTerminated()).as("no signal after cancel").isFalse();
      assertThat(recorder.violations()).isEmpty();
    }

    @Test
    public void closingTheServerFailsItsRunningCallsWithUnavailable() throws Exception {
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch cancelled = new CountDownLatch(1);
      serve(query("slow"), blockingUntilCancelled(started, cancelled));
      CountDownLatch streamReleased = new CountDownLatch(1);
      serve(
          stream("waiting"),
          Handler.emitter(
              (in, ctx, emitter) -> {
                try {
                  emitter.emit("first");
                  emitter.emit("second"); // waits for demand that never comes
                } finally {
                  streamReleased.countDown();
                }
              }));
      CompletableFuture<ResponseEnvelope<JsonNode>> call =
          calls.call(id("slow"), null, timeout(WAIT.multipliedBy(3)));
      StreamRecorder recorder = recorder(1);
      calls.subscribe(id("waiting"), null, CallOptions.defaults()).subscribe(recorder);
      awaitLatch(started, "the handler started");
      assertThat(recorder.next().data().asString()).isEqualTo("first");

      server.close();

      CallError error = awaitFailure(call, PROMPTLY);
      assertThat(error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
      assertThat(error.retryable()).isTrue();
      assertThat(recorder.awaitError().code()).isEqualTo(ErrorCode.UNAVAILABLE);
      awaitLatch(cancelled, "the running handler was cancelled", PROMPTLY);
      awaitLatch(streamReleased, "the running stream was released", PROMPTLY);
      eventually("nothing pending", () -> nothingPending());
    }

    @Test
    public void aHandlerThatCancelsItselfFailsTheCallerWithCancelled() throws Exception {
      serve(
          query("quitter"),
          Handler.blocking(
              (in, ctx) -> {
                throw CallError.of(ErrorCode.CANCELLED, "The handler gave up");
              }));

      CallError error = awaitFailure(calls.call(id("quitter"), null, timeout(WAIT)));

      assertThat(error.code()).isEqualTo(ErrorCode.CANCELLED);
      assertThat(error.getMessage()).isEqualTo("The handler gave up");
    }
  }
}
