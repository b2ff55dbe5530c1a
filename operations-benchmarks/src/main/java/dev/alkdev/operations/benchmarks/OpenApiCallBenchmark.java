package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.openapi.FromOpenApi;
import dev.alkdev.operations.openapi.HttpServiceConfig;
import dev.alkdev.operations.openapi.OpenApiImport;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
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

/**
 * Issue 20's benchmark: one call of an operation imported with {@code FromOpenApi} from a small
 * document ({@code GET /items/{id}}, a JSON answer) against a Jetty core handler in this JVM that
 * answers fixed JSON over loopback, through the registry (input check, handler, envelope), against
 * raw requests of the same bytes: the JDK {@code HttpClient}'s {@code sendAsync} (what the adapter
 * used before decision D70) and Jetty's {@code HttpClient} (what it uses since). Each also with 16
 * calls in flight (one sample is the batch: throughput is 16 / its time). Sample mode for p50/p99.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class OpenApiCallBenchmark {
  static final int IN_FLIGHT = 16;
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final byte[] ANSWER =
      "{\"id\":7,\"name\":\"ping\",\"tags\":[\"a\",\"b\"]}".getBytes(StandardCharsets.UTF_8);
  private static final String DOCUMENT =
      """
      {"openapi":"3.0.3","info":{"title":"bench","version":"1"},
       "paths":{"/items/{id}":{"get":{"operationId":"getItem",
         "parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],
         "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{
           "type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}}}}}}}}}}}
      """;

  private Server jetty;
  private OpenApiImport imported;
  private OperationRegistry registry;
  private java.net.http.HttpClient jdk;
  private java.net.http.HttpRequest jdkRequest;
  private org.eclipse.jetty.client.HttpClient jettyClient;
  private String url;
  private Map<String, Object> input;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    QueuedThreadPool threads = new QueuedThreadPool();
    threads.setName("bench-server");
    jetty = new Server(threads);
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    jetty.setHandler(
        new Handler.Abstract.NonBlocking() {
          @Override
          public boolean handle(Request request, Response response, Callback callback) {
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, ANSWER.length);
            response.write(true, ByteBuffer.wrap(ANSWER), callback);
            return true;
          }
        });
    jetty.start();
    String base = "http://127.0.0.1:" + connector.getLocalPort();
    url = base + "/items/7";

    imported =
        FromOpenApi.fromString(
            DOCUMENT, HttpServiceConfig.builder("bench").baseUrl(base).timeout(TIMEOUT).build());
    registry = OperationRegistry.create();
    imported.registerAll(registry);
    input = Map.of("id", 7);

    jdk =
        java.net.http.HttpClient.newBuilder()
            .followRedirects(java.net.http.HttpClient.Redirect.NEVER)
            .connectTimeout(TIMEOUT)
            .build();
    jdkRequest = java.net.http.HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).build();
    jettyClient = new org.eclipse.jetty.client.HttpClient();
    jettyClient.setFollowRedirects(false);
    jettyClient.start();

    if (baselineRawJdk().length != ANSWER.length
        || baselineRawJetty().length != ANSWER.length
        || !operation().data().toString().contains("ping")) {
      throw new IllegalStateException("the bench service did not answer as expected");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    registry.close();
    jettyClient.stop();
    jetty.stop();
  }

  private CompletableFuture<byte[]> jdkAsync() {
    return jdk.sendAsync(jdkRequest, java.net.http.HttpResponse.BodyHandlers.ofByteArray())
        .thenApply(java.net.http.HttpResponse::body);
  }

  private CompletableFuture<byte[]> jettyAsync() {
    return new CompletableResponseListener(
            jettyClient.newRequest(url).timeout(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
        .send()
        .thenApply(ContentResponse::getContent);
  }

  private CompletableFuture<ResponseEnvelope<JsonNode>> operationAsync() {
    return registry.execute("bench.getItem", input);
  }

  /** The floor on the JDK client: {@code sendAsync} of the same GET, the body as bytes. */
  @Benchmark
  public byte[] baselineRawJdk() throws Exception {
    return jdkAsync().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The floor on Jetty's client: the same GET, the body as bytes. */
  @Benchmark
  public byte[] baselineRawJetty() throws Exception {
    return jettyAsync().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The imported operation: registry execute, input check, handler, response parsed, envelope. */
  @Benchmark
  public ResponseEnvelope<JsonNode> operation() throws Exception {
    return operationAsync().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Benchmark
  public Object baselineRawJdk16InFlight() throws Exception {
    return batch(this::jdkAsync);
  }

  @Benchmark
  public Object baselineRawJetty16InFlight() throws Exception {
    return batch(this::jettyAsync);
  }

  @Benchmark
  public Object operation16InFlight() throws Exception {
    return batch(this::operationAsync);
  }

  private static Object batch(java.util.function.Supplier<CompletableFuture<?>> call)
      throws Exception {
    CompletableFuture<?>[] calls = new CompletableFuture<?>[IN_FLIGHT];
    for (int i = 0; i < IN_FLIGHT; i++) {
      calls[i] = call.get();
    }
    CompletableFuture.allOf(calls).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    return calls[IN_FLIGHT - 1].join();
  }
}
