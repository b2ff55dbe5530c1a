package dev.alkdev.operations.benchmarks;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.discovery.RemoteCatalog;
import dev.alkdev.operations.discovery.ServingNode;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.protocol.CallHandler;
import dev.alkdev.operations.protocol.PendingRequestMap;
import dev.alkdev.operations.transport.redis.RedisOptions;
import dev.alkdev.operations.transport.redis.RedisPubSub;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 16's benchmark: a unary call {@code PendingRequestMap -> Redis -> CallHandler} against a
 * raw Lettuce PUBLISH/SUBSCRIBE request/reply of the same bytes (the call's request and response
 * events, as the protocol writes them) through the same {@code redis-server}, which the benchmark
 * starts on a free loopback port without persistence. The raw side is the least a request/reply
 * over Redis pub/sub can do: a PUBLISH to a channel the responder subscribes, whose listener
 * PUBLISHes the answer to the caller's channel straight from Lettuce's event loop; answers are
 * matched first-in first-out. Targets: p50 at most 1.2x raw, throughput with 64 in flight at least
 * 0.8x raw.
 *
 * <p>The warm-up runs for 30 s, as in {@link NatsCallBenchmark} and for the same reason: the call's
 * path is far more code than the raw one, and the compiler was not done with it after 5 s.
 *
 * <p>Two routes of the call: through the queue group ({@code PendingRequestMap} publishing to
 * {@code ops.req.bench.echo}, one script run per request) and routed by discovery ({@code
 * RemoteCatalog} publishing to the node's own {@code ops.node.<id>.req.bench.echo}, a plain PUBLISH
 * since D83, like the raw baseline), each served by its own pair of transports.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 15, time = 2)
@Measurement(iterations = 10, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class RedisCallBenchmark {
  private static final byte[] RAW_REQUESTS = "bench.raw.req".getBytes(UTF_8);
  private static final byte[] RAW_REPLIES = "bench.raw.inbox".getBytes(UTF_8);

  // What the call below puts on the wire (request ids and timestamps vary; the sizes do not).
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

  private Process server;
  private RedisPubSub serving;
  private RedisPubSub calling;
  private OperationRegistry registry;
  private CallHandler handler;
  private PendingRequestMap calls;
  private JsonNode input;

  private RedisPubSub nodeSide;
  private RedisPubSub catalogSide;
  private OperationRegistry nodeRegistry;
  private ServingNode node;
  private RemoteCatalog catalog;

  private RedisClient rawClient;
  private StatefulRedisConnection<byte[], byte[]> rawResponderCommands;
  private StatefulRedisPubSubConnection<byte[], byte[]> rawResponderSubscriber;
  private StatefulRedisConnection<byte[], byte[]> rawCallerCommands;
  private StatefulRedisPubSubConnection<byte[], byte[]> rawCallerSubscriber;
  private final ConcurrentLinkedQueue<CompletableFuture<byte[]>> rawPending =
      new ConcurrentLinkedQueue<>();

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    int port = freePort();
    server = startServer(port);
    String url = "redis://127.0.0.1:" + port;
    input = JsonMapper.builder().build().readTree("{\"message\": \"ping\", \"n\": 42}");

    serving = RedisPubSub.connect(RedisOptions.builder(url).build());
    calling = RedisPubSub.connect(RedisOptions.builder(url).build());
    registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("bench", "echo")
            .inputSchema("{\"type\": \"object\", \"required\": [\"message\"]}")
            .build(),
        Handler.async((in, ctx) -> CompletableFuture.completedFuture(in)));
    handler = CallHandler.serve(registry, serving);
    calls = PendingRequestMap.create(calling);
    serving.flush(Duration.ofSeconds(5));
    calling.flush(Duration.ofSeconds(5));

    // Its own transports and registry: the node also joins the queue group of ops.req.*, which
    // would otherwise share the queue-group route's requests with the CallHandler above.
    nodeSide = RedisPubSub.connect(RedisOptions.builder(url).build());
    catalogSide = RedisPubSub.connect(RedisOptions.builder(url).build());
    nodeRegistry = OperationRegistry.create();
    nodeRegistry.register(
        OperationSpec.builder("bench", "echo")
            .inputSchema("{\"type\": \"object\", \"required\": [\"message\"]}")
            .build(),
        Handler.async((in, ctx) -> CompletableFuture.completedFuture(in)));
    node = ServingNode.start(nodeRegistry, nodeSide);
    catalog = RemoteCatalog.create(catalogSide);
    catalog.awaitSettled(Duration.ofMillis(250), Duration.ofSeconds(10));

    rawClient = RedisClient.create(RedisURI.create(url));
    rawResponderCommands = rawClient.connect(ByteArrayCodec.INSTANCE);
    rawResponderSubscriber = rawClient.connectPubSub(ByteArrayCodec.INSTANCE);
    rawResponderSubscriber.addListener(
        new RedisPubSubAdapter<>() {
          @Override
          public void message(byte[] channel, byte[] message) {
            rawResponderCommands.async().publish(RAW_REPLIES, RESPONSE_BYTES);
          }
        });
    rawResponderSubscriber.sync().subscribe(RAW_REQUESTS);
    rawCallerCommands = rawClient.connect(ByteArrayCodec.INSTANCE);
    rawCallerSubscriber = rawClient.connectPubSub(ByteArrayCodec.INSTANCE);
    rawCallerSubscriber.addListener(
        new RedisPubSubAdapter<>() {
          @Override
          public void message(byte[] channel, byte[] message) {
            CompletableFuture<byte[]> next = rawPending.poll();
            if (next != null) {
              next.complete(message);
            }
          }
        });
    rawCallerSubscriber.sync().subscribe(RAW_REPLIES);

    if (!calls.call("bench.echo", input).get(5, TimeUnit.SECONDS).data().equals(input)) {
      throw new IllegalStateException("echo failed");
    }
    if (!catalog.call("bench.echo", input).get(5, TimeUnit.SECONDS).data().equals(input)) {
      throw new IllegalStateException("echo through the catalog failed");
    }
    if (rawRequest().get(5, TimeUnit.SECONDS).length != RESPONSE_BYTES.length) {
      throw new IllegalStateException("raw request failed");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    try {
      if (calls.stats().pending() != 0) {
        throw new IllegalStateException("calls left pending: " + calls.stats());
      }
      calls.close();
      handler.close();
      registry.close();
      calling.close();
      serving.close();
      catalog.close();
      node.close();
      nodeRegistry.close();
      catalogSide.close();
      nodeSide.close();
      rawClient.shutdown(0, 2, TimeUnit.SECONDS); // closes its connections
    } finally {
      // Whatever failed above, the server this benchmark started does not outlive it.
      server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  private CompletableFuture<byte[]> rawRequest() {
    CompletableFuture<byte[]> answer = new CompletableFuture<>();
    rawPending.add(answer);
    rawCallerCommands.async().publish(RAW_REQUESTS, REQUEST_BYTES);
    return answer;
  }

  /** Baseline: PUBLISH a request, the responder PUBLISHes the answer, through the same server. */
  @Benchmark
  @BenchmarkMode({Mode.SampleTime})
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public Object baselineRawRequest() {
    return rawRequest().join();
  }

  @Benchmark
  @BenchmarkMode({Mode.SampleTime})
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public ResponseEnvelope<JsonNode> roundTrip() {
    return calls.call("bench.echo", input).join();
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @OperationsPerInvocation(64)
  public Object sixtyFourInFlight() {
    @SuppressWarnings("unchecked")
    CompletableFuture<ResponseEnvelope<JsonNode>>[] inFlight = new CompletableFuture[64];
    for (int i = 0; i < inFlight.length; i++) {
      inFlight[i] = calls.call("bench.echo", input);
    }
    return CompletableFuture.allOf(inFlight).join();
  }

  /** Routed by discovery to the node's own topic: two plain PUBLISHes per call, like raw. */
  @Benchmark
  @BenchmarkMode({Mode.SampleTime})
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public ResponseEnvelope<JsonNode> catalogRoundTrip() {
    return catalog.call("bench.echo", input).join();
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @OperationsPerInvocation(64)
  public Object catalogSixtyFourInFlight() {
    @SuppressWarnings("unchecked")
    CompletableFuture<ResponseEnvelope<JsonNode>>[] inFlight = new CompletableFuture[64];
    for (int i = 0; i < inFlight.length; i++) {
      inFlight[i] = catalog.call("bench.echo", input);
    }
    return CompletableFuture.allOf(inFlight).join();
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @OperationsPerInvocation(64)
  public Object baselineRawSixtyFourInFlight() {
    @SuppressWarnings("unchecked")
    CompletableFuture<byte[]>[] inFlight = new CompletableFuture[64];
    for (int i = 0; i < inFlight.length; i++) {
      inFlight[i] = rawRequest();
    }
    return CompletableFuture.allOf(inFlight).join();
  }

  // ------------------------------------------------------------------ the server

  long serverPid() {
    return server.pid();
  }

  /** {@code INFO commandstats}: calls and microseconds per command since the last reset. */
  String commandStats() {
    return rawCallerCommands.sync().info("commandstats");
  }

  private static Process startServer(int port) throws IOException, InterruptedException {
    Path binary =
        Files.isExecutable(Path.of("/usr/bin/redis-server"))
            ? Path.of("/usr/bin/redis-server")
            : Path.of("redis-server"); // on the PATH
    Process process =
        new ProcessBuilder(
                binary.toString(),
                "--port",
                String.valueOf(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() - end < 0) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        socket.setSoTimeout(1000);
        OutputStream out = socket.getOutputStream();
        out.write("PING\r\n".getBytes(UTF_8));
        out.flush();
        InputStream in = socket.getInputStream();
        if (new String(in.readNBytes(5), UTF_8).equals("+PONG")) {
          return process;
        }
      } catch (IOException notYet) {
        Thread.sleep(10);
      }
    }
    process.destroyForcibly();
    throw new IOException("redis-server did not start on port " + port);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
