package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.serving.OperationServer;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Requests meant to hurt: each gets a clear refusal and costs the server nothing lasting. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class McpHostileTest {
  private static final AtomicInteger floodEmitted = new AtomicInteger();
  private static final AtomicInteger floodEnded = new AtomicInteger();

  private OperationRegistry registry;
  private OperationServer pipeline;
  private McpServer server;
  private McpHttpEndpoint http;

  @BeforeEach
  void start() {
    registry = Fixtures.general();
    registry.register(
        OperationSpec.builder("flood", "forever")
            .type(OperationType.SUBSCRIPTION)
            .description("16 KiB items until cancelled")
            .build(),
        Handler.emitter(
            (input, context, emitter) -> {
              String big = "x".repeat(16 * 1024);
              try {
                while (!emitter.isCancelled()) {
                  emitter.emit(Map.of("blob", big));
                  floodEmitted.incrementAndGet();
                }
              } finally {
                floodEnded.incrementAndGet();
              }
            }));
    pipeline = OperationServer.create(registry);
    server =
        McpServer.builder(pipeline)
            .maxRequestBytes(64 * 1024)
            .maxQueuedStreamBytes(256 * 1024)
            .subscriptionLimits(Integer.MAX_VALUE, Long.MAX_VALUE)
            .idleTimeout(Duration.ofSeconds(5))
            .build();
    http = server.startHttp(0);
  }

  @AfterEach
  void stop() {
    http.close();
    server.close();
    pipeline.close();
    registry.close();
  }

  @Test
  void malformedMessagesAreJsonRpcErrorsWith400() throws Exception {
    TestClient client = TestClient.open(http);
    Map<String, String> session = Map.of("Mcp-Session-Id", client.session);
    RawHttp.Response garbage = RawHttp.post(http.port(), session, "{not json");
    assertThat(garbage.status()).isEqualTo(400);
    assertThat(garbage.json().at("/error/code").asInt()).isEqualTo(-32700);
    RawHttp.Response batch =
        RawHttp.post(http.port(), session, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
    assertThat(batch.status()).isEqualTo(400);
    assertThat(batch.json().at("/error/message").asString()).contains("batches");
    for (String bad :
        new String[] {
          "{\"id\":1,\"method\":\"ping\"}",
          "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
          "{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"ping\"}",
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}",
          "{\"jsonrpc\":\"2.0\",\"id\":1}",
          "42",
          "null"
        }) {
      RawHttp.Response answer = RawHttp.post(http.port(), session, bad);
      assertThat(answer.status()).as(bad).isEqualTo(400);
      assertThat(answer.json().at("/error/code").asInt()).as(bad).isEqualTo(-32600);
    }
    RawHttp.Response deep =
        RawHttp.post(http.port(), session, "[".repeat(5_000) + "]".repeat(5_000));
    assertThat(deep.status()).isEqualTo(400);
    RawHttp.Response text =
        RawHttp.send(
            http.port(),
            "POST",
            Map.of("Content-Type", "text/plain", "Mcp-Session-Id", client.session),
            "{}".getBytes(StandardCharsets.UTF_8));
    assertThat(text.status()).isEqualTo(415);
    RawHttp.Response html =
        RawHttp.send(
            http.port(),
            "POST",
            Map.of("Content-Type", "application/json", "Accept", "text/html"),
            "{}".getBytes(StandardCharsets.UTF_8));
    assertThat(html.status()).isEqualTo(406);
    // The session still works.
    assertThat(client.request("ping", null).get("result").isObject()).isTrue();
  }

  /**
   * A refusal written before the body arrived (the JDK client sends a POST's body after its
   * headers) says "Connection: close": Jetty drops such a connection once the answer is out, and a
   * client not told so would send its next request into it and get no answer. A body that came
   * along is discarded and the connection serves the next request.
   */
  @Test
  void aRefusalBeforeTheBodyIsReadSaysTheConnectionEnds() throws Exception {
    String head =
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:"
            + http.port()
            + "\r\nOrigin: https://evil.example\r\nContent-Type: application/json\r\n"
            + "Accept: application/json, text/event-stream\r\nContent-Length: 4\r\n\r\n";
    String early = exchange(head);
    assertThat(early).startsWith("HTTP/1.1 403").containsIgnoringCase("Connection: close");
    String whole =
        exchange(
            head
                + "null"
                + "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:"
                + http.port()
                + "\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n");
    assertThat(whole).startsWith("HTTP/1.1 403").contains("HTTP/1.1 400");
    assertThat(whole).contains("Mcp-Session-Id header is required");
  }

  /** Writes {@code request} as it is and reads until the server closes the connection. */
  private String exchange(String request) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", http.port())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** A ping whose params carry {@code padding} characters, to exceed the body cap. */
  private static byte[] paddedPing(int padding) {
    return ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\""
            + "x".repeat(padding)
            + "\"}}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** POSTs the body chunked (from a stream, so no length is declared up front). */
  private HttpResponse<String> postChunked(byte[] body) throws Exception {
    return TestClient.HTTP.send(
        HttpRequest.newBuilder(http.uri())
            .header("Content-Type", "application/json")
            .POST(
                HttpRequest.BodyPublishers.ofInputStream(
                    () -> new java.io.ByteArrayInputStream(body)))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void anOversizedBodyIs413WhateverTheLengthHeaderSays() throws Exception {
    byte[] huge = paddedPing(100_000);
    RawHttp.Response declared =
        RawHttp.send(http.port(), "POST", Map.of("Content-Type", "application/json"), huge);
    assertThat(declared.status()).isEqualTo(413);
    // Chunked, so no length is declared up front: the reader stops at the limit.
    assertThat(postChunked(huge).statusCode()).isEqualTo(413);
  }

  @Test
  void aRefusedChunkedBodyStillGetsItsAnswerEveryTime() throws Exception {
    // The client is still sending when the 413 is written: the server reads the rest before it
    // closes, or the close resets the connection and the client can lose the answer.
    byte[] huge = paddedPing(300_000);
    for (int i = 0; i < 40; i++) {
      assertThat(postChunked(huge).statusCode()).as("attempt %d", i).isEqualTo(413);
    }
  }

  @Test
  void aClientThatNeverReadsItsStreamLosesItAndTheCallIsCancelled() throws Exception {
    TestClient client = TestClient.open(http);
    int ended = floodEnded.get();
    String body =
        TestClient.message(
            "tools/call",
            Fixtures.json("{\"name\":\"flood.forever\",\"_meta\":{\"progressToken\":1}}"),
            1);
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    try (Socket socket = new Socket("127.0.0.1", http.port())) {
      socket.setReceiveBufferSize(4096);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  + "Accept: application/json, text/event-stream\r\nMcp-Session-Id: "
                  + client.session
                  + "\r\nContent-Length: "
                  + bytes.length
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.write(bytes);
      out.flush();
      // Never read. The server's queue for this stream fills, the stream is failed and the
      // subscription cancelled; the handler ends.
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (floodEnded.get() == ended && System.nanoTime() < end) {
        Thread.sleep(50);
      }
      assertThat(floodEnded.get()).as("the flood's handler ended").isEqualTo(ended + 1);
    }
    // The session and the server carry on.
    assertThat(
            client
                .call("math.add", "{\"a\":1,\"b\":1}")
                .at("/result/structuredContent/sum")
                .asDouble())
        .isEqualTo(2.0);
  }

  @Test
  void tenThousandAbandonedSessionsFromOneClientStayWithinItsCapAndExpire() throws Exception {
    try (McpServer bounded =
            McpServer.builder(pipeline).sessions(2_000, Duration.ofMillis(500)).build();
        McpHttpEndpoint endpoint = bounded.startHttp(0)) {
      String init =
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}";
      HttpRequest request =
          HttpRequest.newBuilder(endpoint.uri())
              .header("Content-Type", "application/json")
              .header("Accept", "application/json, text/event-stream")
              .POST(HttpRequest.BodyPublishers.ofString(init))
              .build();
      for (int i = 0; i < 10_000; i++) {
        int status =
            TestClient.HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        // Each one past the client's cap evicts its own idlest, never-used session.
        assertThat(status).isEqualTo(200);
        assertThat(endpoint.sessionCount()).isLessThanOrEqualTo(100);
      }
      McpSessionStats stats = endpoint.sessionStats();
      assertThat(stats.evicted() + stats.expired() + stats.open()).isEqualTo(10_000);
      assertThat(stats.refused()).isZero();
      // Abandoned, they expire.
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (endpoint.sessionCount() > 0 && System.nanoTime() < end) {
        Thread.sleep(100);
      }
      assertThat(endpoint.sessionCount()).isZero();
      assertThat(TestClient.HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode())
          .isEqualTo(200);
    }
  }
}
