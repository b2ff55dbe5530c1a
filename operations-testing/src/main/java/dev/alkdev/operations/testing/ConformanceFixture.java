package dev.alkdev.operations.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationHandler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.Registration;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.protocol.CallEvent;
import dev.alkdev.operations.protocol.CallEvents;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.CallOptions;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.protocol.ProtocolTopics;
import dev.alkdev.operations.pubsub.PubSub;
import dev.alkdev.operations.pubsub.SubscribeOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the call protocol's conformance suite ({@link TransportConformanceTest}) stands on: the
 * hooks a transport's test implements, the peers and the registry each test gets fresh, and the
 * helpers its tests share. Every wait is bounded ({@link #WAIT}).
 */
public abstract class ConformanceFixture {
  /** The longest any one wait of the suite takes before the test fails. */
  protected static final Duration WAIT = Duration.ofSeconds(10);

  /**
   * What "at once" means: failures that must not wait for a deadline (NO_RESPONDERS, a dropped
   * connection, an aborted call) arrive within this, while the calls' deadlines are far later.
   */
  protected static final Duration PROMPTLY = Duration.ofSeconds(3);

  /** The namespace of every operation the suite registers. */
  protected static final String NS = "conformance";

  static final JsonMapper JSON = JsonMapper.builder().build();

  Peers peers;
  OperationRegistry registry;
  CallHandler server;
  PendingRequestMap calls;
  final List<AutoCloseable> extras = Collections.synchronizedList(new ArrayList<>());

  ConformanceFixture() {}

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

  static CallOptions timeout(Duration timeout) {
    return CallOptions.defaults().withTimeout(timeout);
  }

  StreamRecorder recorder(long initialRequest) {
    return new StreamRecorder(initialRequest, WAIT);
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
  static void pause() throws InterruptedException {
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

  static Handler blockingUntilCancelled(CountDownLatch started, CountDownLatch cancelled) {
    OperationHandler handler =
        (in, ctx) -> {
          ctx.cancellation().onCancel(cancelled::countDown);
          started.countDown();
          return blockUntilCancelled(ctx);
        };
    return Handler.blocking(handler);
  }

  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static String respondedJson(String requestId, String data) {
    return CallEvents.toJson(
            new CallEvent.Responded(
                requestId,
                Envelopes.localEnvelope(
                    (JsonNode) JSON.getNodeFactory().stringNode(data), id("fake"))))
        .toString();
  }

  /** A topic of our own on {@code pubsub}, recording every event published to it. */
  RawInbox rawInbox(PubSub pubsub) throws Exception {
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
  FakeServer fakeServer(String name) throws Exception {
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

  static final class RawInbox {
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

  final class FakeServer {
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
