package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.http.HttpGateway;
import dev.alkdev.operations.sse.SseEvent;
import dev.alkdev.operations.sse.SseWriter;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 19's stream benchmark, in items per second: a SUBSCRIPTION of {@value #ITEMS} items served
 * by the HTTP gateway as Server-Sent Events (pipeline, demand window, envelope JSON per item, the
 * writer task) against a bare Jetty handler that writes the same {@value #ITEMS} event texts with
 * {@link SseWriter} straight to the response. Same JDK client reading the whole stream. Target: the
 * gateway at least 0.7x the bare writer.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class HttpStreamBenchmark {
  static final int ITEMS = 2000;

  private OperationRegistry registry;
  private HttpGateway gateway;
  private Server bare;
  private HttpClient http;
  private HttpRequest gatewayStream;
  private HttpRequest bareStream;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    registry = OperationRegistry.create();
    ObjectNode item = JsonNodeFactory.instance.objectNode().put("n", 1).put("text", "tick");
    registry.register(
        OperationSpec.builder("bench", "items")
            .type(OperationType.SUBSCRIPTION)
            .outputSchema(
                "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"},"
                    + "\"text\":{\"type\":\"string\"}}}")
            .build(),
        Handler.publisher((input, ctx) -> range(ITEMS, item)));
    gateway = HttpGateway.builder(registry).console(false).start();
    http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    gatewayStream =
        HttpRequest.newBuilder(gateway.uri().resolve("/ops/bench.items"))
            .timeout(Duration.ofSeconds(30))
            .build();
    String sample = http.send(gatewayStream, HttpResponse.BodyHandlers.ofString()).body();
    int at = sample.indexOf("data: ") + 6;
    String data = sample.substring(at, sample.indexOf('\n', at));
    if (!data.contains("\"tick\"")) {
      throw new IllegalStateException("the gateway streamed " + sample.substring(0, 200));
    }

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
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
            response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
            try (SseWriter sse = SseWriter.to(Content.Sink.asOutputStream(response))) {
              for (int i = 1; i <= ITEMS; i++) {
                sse.write(SseEvent.message(data).withId(Integer.toString(i)));
              }
              sse.write(SseEvent.message("{}").withType("call.completed"));
            }
            callback.succeeded();
            return true;
          }
        });
    bare.start();
    bareStream =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/"))
            .timeout(Duration.ofSeconds(30))
            .build();
    if (baselineBareSseWriter() != gatewayStream()) {
      throw new IllegalStateException("the streams differ in length");
    }
  }

  /** A publisher of {@code count} copies of {@code item}, on demand, on the requesting thread. */
  private static Flow.Publisher<Object> range(int count, Object item) {
    return subscriber -> {
      AtomicLong demand = new AtomicLong();
      AtomicLong sent = new AtomicLong();
      AtomicBoolean done = new AtomicBoolean();
      AtomicBoolean emitting = new AtomicBoolean();
      subscriber.onSubscribe(
          new Flow.Subscription() {
            @Override
            public void request(long n) {
              demand.getAndAdd(n);
              if (!emitting.compareAndSet(false, true)) {
                return;
              }
              try {
                while (!done.get() && demand.get() > 0 && sent.get() < count) {
                  demand.decrementAndGet();
                  sent.incrementAndGet();
                  subscriber.onNext(item);
                }
                if (!done.get() && sent.get() == count && done.compareAndSet(false, true)) {
                  subscriber.onComplete();
                }
              } finally {
                emitting.set(false);
              }
              if (!done.get() && demand.get() > 0 && sent.get() < count) {
                request(0);
              }
            }

            @Override
            public void cancel() {
              done.set(true);
            }
          });
    };
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    gateway.close();
    bare.stop();
    registry.close();
  }

  @Benchmark
  @OperationsPerInvocation(ITEMS)
  public long baselineBareSseWriter() throws Exception {
    return read(bareStream);
  }

  @Benchmark
  @OperationsPerInvocation(ITEMS)
  public long gatewayStream() throws Exception {
    return read(gatewayStream);
  }

  private long read(HttpRequest request) throws Exception {
    try (InputStream in = http.send(request, HttpResponse.BodyHandlers.ofInputStream()).body()) {
      byte[] buffer = new byte[16384];
      long lines = 0;
      int n;
      while ((n = in.read(buffer)) >= 0) {
        for (int i = 0; i < n; i++) {
          if (buffer[i] == '\n') {
            lines++;
          }
        }
      }
      return lines;
    }
  }
}
