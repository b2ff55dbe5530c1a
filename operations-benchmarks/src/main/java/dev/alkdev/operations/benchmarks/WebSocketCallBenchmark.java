package dev.alkdev.operations.benchmarks;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.transport.websocket.SpokeOptions;
import dev.alkdev.operations.transport.websocket.SpokePermissions;
import dev.alkdev.operations.transport.websocket.WebSocketHub;
import dev.alkdev.operations.transport.websocket.WebSocketSpoke;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 17's benchmark: a unary call from a spoke to an operation served by the hub ({@code
 * PendingRequestMap -> spoke -> hub -> ServingNode}), and from a spoke through the hub to an
 * operation another spoke serves, against a raw Jetty WebSocket round trip of the same bytes (the
 * call's request and response events) to an echo endpoint that answers on Jetty's thread. Target:
 * spoke to hub at most 1.5x raw.
 *
 * <p>The warm-up runs for 30 s because the call's side has traffic of its own that the raw echo has
 * not: the hub's discovery heartbeat (every 2 s) and the hub's and spokes' pings and pongs (every
 * 10 s). Each kind of frame the receive loop meets for the first time sends the compiled loop back
 * to the interpreter (an uncommon trap: the compiler had never seen that branch taken), and the
 * loop is recompiled with it; with a 5 s warm-up the first pings came during measurement, and the
 * compiler threads took half of the 2 cores in the first measured iterations (async-profiler;
 * docs/history/benchmarks.md, WebSocket hub). After three ping rounds the code is stable; in a
 * long-running hub it is within seconds.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 15, time = 2)
@Measurement(iterations = 10, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class WebSocketCallBenchmark {
  // What a call puts on the wire (request ids and timestamps vary; the sizes do not).
  private static final byte[] REQUEST_BYTES =
      ("{\"v\":1,\"type\":\"call.requested\",\"requestId\":\"5e0c7a9f3b2d4e6f8a1b2c3d4e5f6a7b\","
              + "\"replyTo\":\"ops.inbox.d41d8cd98f00b204e9800998ecf8427e\","
              + "\"operationId\":\"bench.echo\","
              + "\"identity\":{\"subject\":\"anonymous\",\"scopes\":[]},\"deadlineMs\":30000,"
              + "\"input\":{\"message\":\"ping\",\"n\":42}}")
          .getBytes(UTF_8);
  private static final byte[] RESPONSE_BYTES =
      ("{\"v\":1,\"type\":\"call.responded\",\"requestId\":\"5e0c7a9f3b2d4e6f8a1b2c3d4e5f6a7b\","
              + "\"output\":{\"data\":{\"message\":\"ping\",\"n\":42},\"meta\":{\"source\":"
              + "\"local\",\"operationId\":\"bench.echo\",\"timestamp\":1795336491002}}}")
          .getBytes(UTF_8);

  /**
   * The raw echo's connection outlives every fork. JMH runs each benchmark in a fork of its own,
   * but the trial set-up opens everything, so in the call's fork the raw connection sits idle; with
   * Jetty's default idle timeout (30 s) it was closed in the middle of the call's run, and the
   * close loaded classes that invalidated the compiled code of Jetty's whole receive and send path
   * (dozens of methods made not entrant at once, then compiled again on the 2 cores the benchmark
   * uses): measured as a slow fork.
   */
  private static final Duration RAW_IDLE_TIMEOUT = Duration.ofHours(1);

  private OperationRegistry hubRegistry;
  private OperationServer hubServer;
  private WebSocketHub hub;
  private WebSocketSpoke caller;
  private PendingRequestMap calls;
  private WebSocketSpoke servingSpoke;
  private OperationRegistry spokeRegistry;
  private CallHandler spokeHandler;
  private JsonNode input;

  private Server echoServer;
  private WebSocketClient rawClient;
  private RawCaller rawCaller;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    input = JsonMapper.builder().build().readTree("{\"message\": \"ping\", \"n\": 42}");
    OperationSpec.Builder echo =
        OperationSpec.builder("bench", "echo")
            .inputSchema("{\"type\": \"object\", \"required\": [\"message\"]}");
    hubRegistry = OperationRegistry.create();
    hubRegistry.register(
        echo.build(), Handler.async((in, ctx) -> CompletableFuture.completedFuture(in)));
    hubServer = OperationServer.create(hubRegistry);
    hub = WebSocketHub.builder().permissions(SpokePermissions.allowAll()).serve(hubServer).start();

    caller = WebSocketSpoke.connect(SpokeOptions.builder(hub.uri()).build());
    calls = PendingRequestMap.create(caller);
    servingSpoke = WebSocketSpoke.connect(SpokeOptions.builder(hub.uri()).build());
    spokeRegistry = OperationRegistry.create();
    spokeRegistry.register(
        OperationSpec.builder("bench", "spokeEcho")
            .inputSchema("{\"type\": \"object\", \"required\": [\"message\"]}")
            .build(),
        Handler.async((in, ctx) -> CompletableFuture.completedFuture(in)));
    spokeHandler = CallHandler.serve(spokeRegistry, servingSpoke);
    caller.flush(Duration.ofSeconds(5));
    servingSpoke.flush(Duration.ofSeconds(5));

    echoServer = new Server();
    ServerConnector connector = new ServerConnector(echoServer);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    echoServer.addConnector(connector);
    echoServer.setHandler(
        WebSocketUpgradeHandler.from(
            echoServer, container -> container.addMapping("/echo", (rq, rs, cb) -> new RawEcho())));
    echoServer.start();
    rawClient = new WebSocketClient();
    rawClient.start();
    rawCaller = new RawCaller();
    rawClient
        .connect(rawCaller, URI.create("ws://127.0.0.1:" + connector.getLocalPort() + "/echo"))
        .get(5, TimeUnit.SECONDS);

    if (!roundTrip().data().equals(input) || !spokeToSpoke().data().equals(input)) {
      throw new IllegalStateException("echo failed");
    }
    baselineRawEcho();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    if (calls.stats().pending() != 0) {
      throw new IllegalStateException("calls left pending: " + calls.stats());
    }
    calls.close();
    spokeHandler.close();
    spokeRegistry.close();
    servingSpoke.close();
    caller.close();
    hub.close();
    hubServer.close();
    hubRegistry.close();
    rawClient.stop();
    echoServer.stop();
  }

  /** Baseline: a raw Jetty WebSocket round trip of the same bytes to an echo endpoint. */
  @Benchmark
  @BenchmarkMode({Mode.SampleTime})
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public Object baselineRawEcho() throws Exception {
    return rawCaller.roundTrip(REQUEST_BYTES).get(5, TimeUnit.SECONDS);
  }

  /** A spoke calls an operation the hub serves. */
  @Benchmark
  @BenchmarkMode({Mode.SampleTime})
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public ResponseEnvelope<JsonNode> roundTrip() {
    return calls.call("bench.echo", input).join();
  }

  /** A spoke calls an operation another spoke serves, through the hub. */
  @Benchmark
  @BenchmarkMode({Mode.SampleTime})
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public ResponseEnvelope<JsonNode> spokeToSpoke() {
    return calls.call("bench.spokeEcho", input).join();
  }

  /** The echo endpoint: answers every frame with the response's bytes, on Jetty's thread. */
  public static final class RawEcho implements Session.Listener.AutoDemanding {
    private Session session;

    @Override
    public void onWebSocketOpen(Session session) {
      this.session = session;
      session.setIdleTimeout(RAW_IDLE_TIMEOUT);
    }

    @Override
    public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
      session.sendBinary(ByteBuffer.wrap(RESPONSE_BYTES), Callback.NOOP);
      callback.succeed();
    }
  }

  /** The raw caller: one round trip at a time. */
  public static final class RawCaller implements Session.Listener.AutoDemanding {
    private volatile Session session;
    private volatile CompletableFuture<Integer> pending;

    CompletableFuture<Integer> roundTrip(byte[] request) {
      CompletableFuture<Integer> answer = new CompletableFuture<>();
      pending = answer;
      session.sendBinary(ByteBuffer.wrap(request), Callback.NOOP);
      return answer;
    }

    @Override
    public void onWebSocketOpen(Session session) {
      this.session = session;
      session.setIdleTimeout(RAW_IDLE_TIMEOUT);
    }

    @Override
    public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
      byte[] copy = new byte[payload.remaining()];
      payload.get(copy); // what a real client does with an answer: take it off the buffer
      pending.complete(copy.length);
      callback.succeed();
    }
  }
}
