package dev.alkdev.operations.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.sse.SseEvent;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Capacity, draining, closing under running calls, and clients that leave; Jetty's client too. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GatewayLifecycleTest extends GatewayTestSupport {

  @Test
  void jettysClientCallsLikeAnyOther() throws Exception {
    Fixtures fixtures = new Fixtures();
    HttpClient jetty = new HttpClient();
    jetty.start();
    try (HttpGateway gateway = HttpGateway.builder(fixtures.registry).start()) {
      ContentResponse response =
          jetty
              .POST(gateway.uri().resolve("/ops/demo.echo"))
              .body(new StringRequestContent("application/json", "{\"message\":\"jetty\"}"))
              .timeout(10, TimeUnit.SECONDS)
              .send();
      assertThat(response.getStatus()).isEqualTo(200);
      assertThat(JSON.readTree(response.getContentAsString()).get("data").asString())
          .isEqualTo("jetty");
      ContentResponse stream =
          jetty
              .newRequest(gateway.uri().resolve("/ops/demo.ticks?count=2"))
              .timeout(10, TimeUnit.SECONDS)
              .send();
      assertThat(GatewayTest.parse(stream.getContentAsString()))
          .extracting(SseEvent::type)
          .containsExactly("message", "message", "call.completed");
    } finally {
      jetty.stop();
      fixtures.registry.close();
    }
  }

  @Test
  void beyondTheServersCapacityCallsAre429() throws Exception {
    Fixtures fixtures = new Fixtures();
    try (OperationServer server =
            OperationServer.builder(fixtures.registry).maxConcurrentCalls(1).build();
        HttpGateway gateway = HttpGateway.builder(server).start()) {
      CompletableFuture<HttpResponse<String>> slow =
          CLIENT.sendAsync(
              request(gateway, "/ops/demo.slow").header(HttpGateway.TIMEOUT_HEADER, "3000").build(),
              HttpResponse.BodyHandlers.ofString());
      waitUntil(() -> server.stats().running() == 1);
      HttpResponse<String> refused = get(gateway, "/ops/demo.echo?message=x");
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(json(refused).at("/error/code").asString()).isEqualTo("RESOURCE_EXHAUSTED");
      assertThat(json(refused).at("/error/retryable").asBoolean()).isTrue();
      assertThat(slow.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(504);
    } finally {
      fixtures.registry.close();
    }
  }

  @Test
  void drainingTurnsReadinessOffAndRefusesNewCallsWhileRunningOnesFinish() throws Exception {
    Fixtures fixtures = new Fixtures();
    OperationServer server = OperationServer.create(fixtures.registry);
    HttpGateway gateway = HttpGateway.builder(server).start();
    try {
      CompletableFuture<HttpResponse<String>> running =
          CLIENT.sendAsync(
              request(gateway, "/ops/demo.ticks?count=3&intervalMs=300").build(),
              HttpResponse.BodyHandlers.ofString());
      waitUntil(() -> server.stats().running() == 1);
      CompletableFuture<Boolean> drained =
          CompletableFuture.supplyAsync(() -> server.drain(Duration.ofSeconds(10)));
      waitUntil(server::isClosed);
      HttpResponse<String> ready = get(gateway, "/readyz");
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(get(gateway, "/healthz").statusCode()).isEqualTo(200);
      HttpResponse<String> refused = get(gateway, "/ops/demo.echo?message=x");
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.headers().firstValue("retry-after")).hasValue("1");
      // The running stream finishes whole.
      List<SseEvent> events = GatewayTest.parse(running.get(10, TimeUnit.SECONDS).body());
      assertThat(events).extracting(SseEvent::type).endsWith("call.completed").hasSize(4);
      assertThat(drained.get(10, TimeUnit.SECONDS)).isTrue();
    } finally {
      gateway.close();
      server.close();
      fixtures.registry.close();
    }
  }

  @Test
  void closingEndsRunningStreamsWithUnavailable() throws Exception {
    Fixtures fixtures = new Fixtures();
    OperationServer server = OperationServer.create(fixtures.registry);
    try (HttpGateway gateway = HttpGateway.builder(server).start()) {
      CompletableFuture<HttpResponse<String>> running =
          CLIENT.sendAsync(
              request(gateway, "/ops/demo.ticks?intervalMs=50").build(),
              HttpResponse.BodyHandlers.ofString());
      waitUntil(() -> server.stats().running() == 1);
      Thread.sleep(200);
      server.close();
      List<SseEvent> events = GatewayTest.parse(running.get(10, TimeUnit.SECONDS).body());
      SseEvent last = events.get(events.size() - 1);
      assertThat(last.type()).isEqualTo("call.error");
      assertThat(JSON.readTree(last.data()).at("/error/code").asString()).isEqualTo("UNAVAILABLE");
      assertThat(fixtures.ticksCancelled.await(5, TimeUnit.SECONDS)).isTrue();
    } finally {
      fixtures.registry.close();
    }
  }

  @Test
  void aUnaryClientThatGivesUpCancelsTheHandler() throws Exception {
    Fixtures fixtures = new Fixtures();
    try (HttpGateway gateway =
        HttpGateway.builder(fixtures.registry)
            .idleTimeout(Duration.ofMillis(500))
            .keepAliveInterval(Duration.ofMillis(100))
            .start()) {
      // The client sends its request and leaves (closes its socket) while the call runs.
      try (java.net.Socket socket = new java.net.Socket("127.0.0.1", gateway.port())) {
        socket
            .getOutputStream()
            .write(
                "GET /ops/demo.slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        Thread.sleep(200);
      }
      assertThat(fixtures.slowCancelled.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(get(gateway, "/ops/demo.echo?message=still").statusCode()).isEqualTo(200);
    } finally {
      fixtures.registry.close();
    }
  }

  @Test
  void streamsToClientsThatNeverReadHoldNoThreadAndAreCut() throws Exception {
    Fixtures fixtures = new Fixtures();
    List<java.net.Socket> stalled = new java.util.ArrayList<>();
    try (HttpGateway gateway =
        HttpGateway.builder(fixtures.registry)
            .maxThreads(8)
            .idleTimeout(Duration.ofSeconds(4))
            .keepAliveInterval(Duration.ofMillis(100))
            .start()) {
      // More endless streams than the server has threads, to clients that never read: a write
      // that waited for its client on a pool thread would leave none to answer anyone else. (Fewer
      // than the registry's 16 handler threads on Java 17: each endless handler holds one.)
      for (int i = 0; i < 12; i++) {
        java.net.Socket socket = new java.net.Socket();
        socket.setReceiveBufferSize(4096);
        socket.connect(new java.net.InetSocketAddress("127.0.0.1", gateway.port()));
        socket
            .getOutputStream()
            .write(
                "GET /ops/demo.big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        stalled.add(socket);
      }
      Thread.sleep(500);
      long start = System.nanoTime();
      assertThat(get(gateway, "/ops/demo.echo?message=still").statusCode()).isEqualTo(200);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
      // After the idle timeout without a byte taken, the streams are cut and their handlers
      // cancelled: the server closes the connection (the client reads what was sent, then EOF).
      // (A stream cut before its handler's thread started never runs it.)
      waitUntil(
          () ->
              gateway.server().stats().streams() == 0
                  && fixtures.bigEnded.get() == fixtures.bigStarted.get(),
          Duration.ofSeconds(20));
      java.net.Socket first = stalled.get(0);
      first.setSoTimeout(15_000);
      java.io.InputStream in = first.getInputStream();
      byte[] buffer = new byte[65536];
      long read = 0;
      int n;
      while ((n = in.read(buffer)) >= 0) {
        read += n;
        // What was in flight when the stream was cut, not a stream that goes on.
        assertThat(read).isLessThan(64L << 20);
      }
    } finally {
      for (java.net.Socket socket : stalled) {
        socket.close();
      }
      fixtures.registry.close();
    }
  }

  @Test
  void aTakenPortIsAClearError() {
    Fixtures fixtures = new Fixtures();
    try (HttpGateway first = HttpGateway.builder(fixtures.registry).start()) {
      assertThatThrownBy(() -> HttpGateway.builder(fixtures.registry).port(first.port()).start())
          .isInstanceOfSatisfying(
              CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE))
          .hasMessageContaining(Integer.toString(first.port()));
    } finally {
      fixtures.registry.close();
    }
  }

  private static void waitUntil(java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    waitUntil(condition, Duration.ofSeconds(10));
  }

  private static void waitUntil(java.util.function.BooleanSupplier condition, Duration limit)
      throws InterruptedException {
    long until = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition not reached in " + limit).isLessThan(until);
      Thread.sleep(10);
    }
  }
}
