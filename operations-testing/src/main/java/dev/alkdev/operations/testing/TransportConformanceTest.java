package dev.alkdev.operations.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.Cancellation;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationHandler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.Registration;
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
import dev.alkdev.operations.pubsub.SubscribeOptions;
import dev.alkdev.operations.schema.SchemaError;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
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
public abstract class TransportConformanceTest {
  /** The longest any one wait of the suite takes before the test fails. */
  protected static final Duration WAIT = Duration.ofSeconds(10);

  /**
   * What "at once" means: failures that must not wait for a deadline (NO_RESPONDERS, a dropped
   * connection, an aborted call) arrive within this, while the calls' deadlines are far later.
   */
  protected static final Duration PROMPTLY = Duration.ofSeconds(3);

  /** The namespace of every operation the suite registers. */
  protected static final String NS = "conformance";

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private Peers peers;
  private OperationRegistry registry;
  private CallHandler server;
  private PendingRequestMap calls;
  private final List<AutoCloseable> extras = Collections.synchronizedList(new ArrayList<>());

  /** For subclasses: one per transport under test. */
  protected TransportConformanceTest() {}

  // ------------------------------------------------------------------ hooks

  /**
   * Connects the two sides of the transport under test: a fresh pair for every test. In-process,
   * both sides are one instance ({@link Peers#shared}); remote transports open two connections.
   */
  protected abstract Peers createPeers() throws Exception;

  /**
   * Waits until subscriptions made so far are live everywhere: the suite calls it after every
   * subscription that a publisher on the other side must reach (a served operation, an inbox, a raw
   * listener). In-process subscriptions are live at once, so the default does nothing; a remote
   * transport waits here (a round trip to its broker, say) instead of letting tests race.
   */
  protected void awaitPropagation() throws Exception {}

  /**
   * Cuts the calling side off its transport, as a network failure would. The default closes the
   * calling {@link PubSub}; a transport may instead sever its connection so that {@link
   * PubSub#onDisconnect} fires.
   */
  protected void dropCallingConnection(Peers peers) throws Exception {
    peers.calling().close();
  }

  /**
   * A calling-side {@link PubSub} whose calls the serving side attributes to {@code identity}. A
   * transport that trusts payload identities (in-process) returns the calling side and the suite
   * names the identity in {@link CallOptions}; a transport that authenticates its connections
   * overrides this to open a connection authenticated as {@code identity} (the suite closes it).
   * The default skips the identity tests on transports that do neither.
   */
  protected PubSub callingAs(Peers peers, Identity identity) throws Exception {
    Assumptions.assumeTrue(
        peers.serving().trustsPayloadIdentity(),
        "the transport authenticates its connections: override callingAs to open one per identity");
    return peers.calling();
  }

  // ------------------------------------------------------------------ fixture

  @BeforeEach
  public void startPeers() throws Exception {
    peers = Objects.requireNonNull(createPeers(), "createPeers() returned null");
    registry = OperationRegistry.create();
    server = CallHandler.serve(registry, peers.serving());
    calls = PendingRequestMap.create(peers.calling());
    awaitPropagation();
  }

  @AfterEach
  public void stopPeers() throws Exception {
    List<AutoCloseable> toClose = new ArrayList<>();
    synchronized (extras) {
      toClose.addAll(extras);
      extras.clear();
    }
    Collections.reverse(toClose);
    toClose.add(calls);
    toClose.add(server);
    toClose.add(registry);
    toClose.add(peers);
    Exception first = null;
    for (AutoCloseable resource : toClose) {
      try {
        if (resource != null) {
          resource.close();
        }
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** The two sides of this test's transport. */
  protected final Peers peers() {
    return peers;
  }

  /** The registry the serving side serves. */
  protected final OperationRegistry registry() {
    return registry;
  }

  /** The serving side's protocol handler. */
  protected final CallHandler server() {
    return server;
  }

  /** The calling side's map. */
  protected final PendingRequestMap calls() {
    return calls;
  }

  /** Closes {@code resource} when the test ends (before the fixture itself). */
  protected final <T extends AutoCloseable> T closeAfterTest(T resource) {
    extras.add(resource);
    return resource;
  }

  /** Registers an operation and waits until the serving side's subscription is live. */
  protected final void serve(OperationSpec spec, Handler handler) throws Exception {
    registry.register(spec, handler);
    awaitPropagation();
  }

  protected static OperationSpec query(String name) {
    return OperationSpec.builder(NS, name).build();
  }

  protected static OperationSpec stream(String name) {
    return OperationSpec.builder(NS, name).type(OperationType.SUBSCRIPTION).build();
  }

  protected static String id(String name) {
    return NS + "." + name;
  }

  private static CallOptions timeout(Duration timeout) {
    return CallOptions.defaults().withTimeout(timeout);
  }

  private StreamRecorder recorder(long initialRequest) {
    return new StreamRecorder(initialRequest, WAIT);
  }

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

  // ------------------------------------------------------------------ helpers

  /** Whether neither side has a call under way. */
  protected final boolean nothingPending() {
    return calls.stats().pending() == 0 && server.stats().pending() == 0;
  }

  protected final void assertNothingPending() {
    eventually("nothing pending on either side", this::nothingPending);
  }

  /** Waits for a future's value; fails the test if it fails or takes longer than {@link #WAIT}. */
  protected static <T> T await(CompletableFuture<T> future) {
    return Waits.value(future, WAIT);
  }

  /** Waits for a future to fail with a {@link CallError}, and returns it. */
  protected static CallError awaitFailure(CompletableFuture<?> future) {
    return awaitFailure(future, WAIT);
  }

  protected static CallError awaitFailure(CompletableFuture<?> future, Duration within) {
    return Waits.failure(future, within);
  }

  protected static void awaitLatch(CountDownLatch latch, String what) {
    awaitLatch(latch, what, WAIT);
  }

  protected static void awaitLatch(CountDownLatch latch, String what, Duration within) {
    Waits.latch(latch, what, within);
  }

  /** Polls {@code condition} until it holds, failing after {@link #WAIT}. */
  protected static void eventually(String what, BooleanSupplier condition) {
    Waits.eventually(what, WAIT, condition);
  }

  /**
   * Gives a misbehaving peer time to show it: not a way to wait for something (latches do that),
   * but the window in which a producer that ignored demand would have run ahead.
   */
  private static void pause() throws InterruptedException {
    Thread.sleep(25);
  }

  /** Blocks a handler until its call is cancelled (interrupted, or its signal fires). */
  protected static Object blockUntilCancelled(OperationContext ctx) throws InterruptedException {
    CountDownLatch cancelled = new CountDownLatch(1);
    Registration registration = ctx.cancellation().onCancel(cancelled::countDown);
    try {
      if (!cancelled.await(WAIT.toMillis() * 3, TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException("the call was never cancelled");
      }
      throw ctx.cancellation().reason().orElseThrow();
    } finally {
      registration.remove();
    }
  }

  private static Handler blockingUntilCancelled(CountDownLatch started, CountDownLatch cancelled) {
    OperationHandler handler =
        (in, ctx) -> {
          ctx.cancellation().onCancel(cancelled::countDown);
          started.countDown();
          return blockUntilCancelled(ctx);
        };
    return Handler.blocking(handler);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String respondedJson(String requestId, String data) {
    return CallEvents.toJson(
            new CallEvent.Responded(
                requestId,
                Envelopes.localEnvelope(
                    (JsonNode) JSON.getNodeFactory().stringNode(data), id("fake"))))
        .toString();
  }

  /** A topic of our own on {@code pubsub}, recording every event published to it. */
  private RawInbox rawInbox(PubSub pubsub) throws Exception {
    RawInbox inbox = new RawInbox(ProtocolTopics.INBOX_PREFIX + OperationContext.newRequestId());
    closeAfterTest(
        pubsub.subscribe(inbox.topic, SubscribeOptions.defaults(), m -> inbox.add(m.payload())));
    awaitPropagation();
    return inbox;
  }

  /**
   * A stand-in server for {@code name} on the serving side that answers nothing by itself: the test
   * reads each request and writes the replies, well-formed or not.
   */
  private FakeServer fakeServer(String name) throws Exception {
    FakeServer fake = new FakeServer();
    closeAfterTest(
        peers
            .serving()
            .subscribe(
                ProtocolTopics.request(id(name)),
                SubscribeOptions.queueGroup(ProtocolTopics.SERVER_GROUP),
                m -> fake.requests.add(m.payload())));
    awaitPropagation();
    return fake;
  }

  private static final class RawInbox {
    final String topic;
    final BlockingQueue<byte[]> messages = new LinkedBlockingQueue<>();

    RawInbox(String topic) {
      this.topic = topic;
    }

    void add(byte[] payload) {
      messages.add(payload);
    }

    CallEvent next() throws InterruptedException {
      byte[] payload = messages.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      if (payload == null) {
        return fail("nothing arrived on " + topic + " within " + WAIT);
      }
      return CallEvents.decode(payload, Integer.MAX_VALUE);
    }

    boolean isEmpty() {
      return messages.isEmpty();
    }
  }

  private final class FakeServer {
    final BlockingQueue<byte[]> requests = new LinkedBlockingQueue<>();

    CallEvent.Requested next() throws InterruptedException {
      byte[] payload = requests.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      if (payload == null) {
        return fail("no request reached the fake server within " + WAIT);
      }
      CallEvent event = CallEvents.decode(payload, Integer.MAX_VALUE);
      assertThat(event).isInstanceOf(CallEvent.Requested.class);
      return (CallEvent.Requested) event;
    }

    void reply(CallEvent.Requested request, String json) {
      await(peers.serving().publish(request.replyTo().orElseThrow(), utf8(json)));
    }
  }

  /**
   * The two sides of a transport: where operations are served and where calls are made. One
   * instance for both in-process; two connections (to one broker, say) for remote transports.
   */
  public static final class Peers implements AutoCloseable {
    private final PubSub serving;
    private final PubSub calling;
    private final AutoCloseable onClose;

    private Peers(PubSub serving, PubSub calling, AutoCloseable onClose) {
      this.serving = Objects.requireNonNull(serving, "serving");
      this.calling = Objects.requireNonNull(calling, "calling");
      this.onClose = Objects.requireNonNull(onClose, "onClose");
    }

    /** One transport instance serving and calling (in-process). Closing closes it. */
    public static Peers shared(PubSub pubsub) {
      return new Peers(pubsub, pubsub, pubsub::close);
    }

    /** Two connections; closing closes the calling side, then the serving side. */
    public static Peers of(PubSub serving, PubSub calling) {
      return new Peers(
          serving,
          calling,
          () -> {
            try {
              calling.close();
            } finally {
              serving.close();
            }
          });
    }

    /**
     * Two connections and what else the transport needs stopped at the end of a test (a broker
     * process, say); {@code onClose} runs after both connections are closed.
     */
    public static Peers of(PubSub serving, PubSub calling, AutoCloseable onClose) {
      Objects.requireNonNull(onClose, "onClose");
      return new Peers(
          serving,
          calling,
          () -> {
            try {
              try {
                calling.close();
              } finally {
                serving.close();
              }
            } finally {
              onClose.close();
            }
          });
    }

    /** Where the suite's {@link CallHandler} serves operations. */
    public PubSub serving() {
      return serving;
    }

    /** Where the suite's {@link PendingRequestMap} makes calls. */
    public PubSub calling() {
      return calling;
    }

    /** Closes both sides and whatever else was given; a checked failure comes back unchecked. */
    @Override
    public void close() {
      try {
        onClose.close();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("closing the transport failed", e);
      }
    }
  }
}
