package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.http.HttpGateway;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler.Abstract;
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
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Issue 19's unary benchmark: one call through the HTTP gateway (Host and Origin checks, body read
 * and parsed, the serving pipeline, validation, the handler, the envelope written as JSON) against
 * a bare Jetty handler, on a Jetty server configured the same way in this JVM, that reads the same
 * body and answers the same envelope bytes. Same JDK client, blocking {@code send}. Target: p50 at
 * most 1.3x the bare handler. Sample mode for p50/p99.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class HttpGatewayBenchmark {
  private static final String BODY = "{\"message\":\"ping\"}";

  private OperationRegistry registry;
  private HttpGateway gateway;
  private Server bare;
  private HttpClient http;
  private HttpRequest gatewayPost;
  private HttpRequest gatewayGet;
  private HttpRequest barePost;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("bench", "echo")
            .inputSchema(
                "{\"type\":\"object\",\"required\":[\"message\"],"
                    + "\"properties\":{\"message\":{\"type\":\"string\"}}}")
            .outputSchema(
                "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}}}")
            .build(),
        Handler.blocking(
            (input, ctx) ->
                JsonNodeFactory.instance
                    .objectNode()
                    .put("message", input.get("message").asString())));
    gateway = HttpGateway.builder(registry).console(false).start();
    http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    gatewayPost = post(gateway.uri().resolve("/ops/bench.echo"));
    gatewayGet =
        HttpRequest.newBuilder(gateway.uri().resolve("/ops/bench.echo?message=ping"))
            .timeout(Duration.ofSeconds(10))
            .build();
    String envelope = http.send(gatewayPost, HttpResponse.BodyHandlers.ofString()).body();
    if (!envelope.contains("\"ping\"")) {
      throw new IllegalStateException("the gateway answered " + envelope);
    }
    byte[] answer = envelope.getBytes(StandardCharsets.UTF_8);

    QueuedThreadPool threads = new QueuedThreadPool(200, 8);
    threads.setDaemon(true);
    bare = new Server(threads);
    ServerConnector connector = new ServerConnector(bare);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    bare.addConnector(connector);
    bare.setHandler(
        new Abstract() {
          @Override
          public boolean handle(Request request, Response response, Callback callback) {
            Content.Source.asByteArrayAsync(request, 1 << 20)
                .whenComplete(
                    (bytes, failure) -> {
                      response.setStatus(200);
                      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                      response.write(true, ByteBuffer.wrap(answer), callback);
                    });
            return true;
          }
        });
    bare.start();
    barePost = post(URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/ops/bench.echo"));
    if (!baselineBareJettyHandler().equals(envelope)) {
      throw new IllegalStateException("the bare handler answered differently");
    }
  }

  private static HttpRequest post(URI uri) {
    return HttpRequest.newBuilder(uri)
        .timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(BODY))
        .build();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    gateway.close();
    bare.stop();
    registry.close();
  }

  @Benchmark
  public String baselineBareJettyHandler() throws Exception {
    return http.send(barePost, HttpResponse.BodyHandlers.ofString()).body();
  }

  @Benchmark
  public String gatewayPost() throws Exception {
    return http.send(gatewayPost, HttpResponse.BodyHandlers.ofString()).body();
  }

  @Benchmark
  public String gatewayGet() throws Exception {
    return http.send(gatewayGet, HttpResponse.BodyHandlers.ofString()).body();
  }
}
