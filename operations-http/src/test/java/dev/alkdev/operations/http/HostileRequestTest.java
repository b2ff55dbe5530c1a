package dev.alkdev.operations.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.serving.OperationServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Requests meant to hurt: oversized, malformed, wrongly typed, deeply nested, path tricks, foreign
 * hosts and origins. Each gets a clear JSON error, and the gateway keeps serving.
 */
class HostileRequestTest extends GatewayTestSupport {
  static Fixtures fixtures;
  static OperationServer server;
  static HttpGateway gateway;

  @BeforeAll
  static void start() {
    fixtures = new Fixtures();
    server = OperationServer.create(fixtures.registry);
    gateway =
        HttpGateway.builder(server)
            .maxRequestBytes(4096)
            .corsOrigins("https://app.example")
            .allowedOrigins("https://proxy.example")
            .start();
  }

  @AfterAll
  static void stop() {
    gateway.close();
    server.close();
    fixtures.registry.close();
  }

  @Test
  void anOversizedBodyIs413WhetherItsLengthIsDeclaredOrNot() throws Exception {
    String big = "{\"message\":\"" + "x".repeat(10_000) + "\"}";
    HttpResponse<String> declared = post(gateway, "/ops/demo.echo", big);
    assertThat(declared.statusCode()).isEqualTo(413);
    JsonNode error = json(declared).get("error");
    assertThat(error.get("code").asString()).isEqualTo("RESOURCE_EXHAUSTED");
    assertThat(error.get("message").asString()).contains("4096");

    // Chunked: no Content-Length, the cap applies while reading.
    Flow.Publisher<ByteBuffer> chunks = HttpRequest.BodyPublishers.ofString(big);
    HttpResponse<String> chunked =
        send(
            request(gateway, "/ops/demo.echo")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.fromPublisher(chunks))
                .build());
    assertThat(chunked.statusCode()).isEqualTo(413);
    assertStillServing();
  }

  @Test
  void aRefusedChunkedBodyStillGetsItsAnswerEveryTime() throws Exception {
    // The client is still sending when the 413 is written: the gateway reads the rest before it
    // closes, or the close resets the connection and the client can lose the answer.
    String big = "{\"message\":\"" + "x".repeat(300_000) + "\"}";
    for (int i = 0; i < 40; i++) {
      byte[] bytes = big.getBytes(StandardCharsets.UTF_8);
      HttpResponse<String> chunked =
          send(
              request(gateway, "/ops/demo.echo")
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofInputStream(
                          () -> new java.io.ByteArrayInputStream(bytes)))
                  .build());
      assertThat(chunked.statusCode()).as("attempt %d", i).isEqualTo(413);
    }
    assertStillServing();
  }

  @Test
  void anEndlessRefusedBodyGetsItsAnswerAndThenItsConnectionClosed() throws Exception {
    try (Socket socket = new Socket("127.0.0.1", gateway.port())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /ops/demo.echo HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      byte[] chunk = ("2000\r\n" + "x".repeat(0x2000) + "\r\n").getBytes(StandardCharsets.UTF_8);
      java.util.concurrent.atomic.AtomicLong sent = new java.util.concurrent.atomic.AtomicLong();
      Thread writer =
          new Thread(
              () -> {
                try {
                  while (sent.get() < 1L << 30) {
                    out.write(chunk);
                    sent.addAndGet(chunk.length);
                  }
                } catch (IOException expected) {
                  // the gateway closed the connection
                }
              },
              "endless-body");
      writer.setDaemon(true);
      writer.start();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      try {
        for (int n; (n = in.read(buffer)) >= 0; ) {
          answer.write(buffer, 0, n);
        }
      } catch (java.net.SocketException reset) {
        // after the answer, an endless body ends in a reset
      }
      writer.join(10_000);
      assertThat(answer.toString(StandardCharsets.ISO_8859_1))
          .startsWith("HTTP/1.1 413")
          .contains("Connection: close");
      // Read and dropped up to 1 MiB past the 4 KiB cap, then closed: not the whole 64 MiB.
      assertThat(writer.isAlive()).isFalse();
      assertThat(sent.get()).isLessThan(16L << 20);
    }
    assertStillServing();
  }

  @Test
  void malformedJsonIs400() throws Exception {
    for (String body : List.of("{\"message\": ", "{'message': 'x'}", "[1,2,,]", "{\"a\":1}}")) {
      HttpResponse<String> response = post(gateway, "/ops/demo.echo", body);
      assertThat(response.statusCode()).as(body).isEqualTo(400);
      assertThat(json(response).at("/error/message").asString()).contains("not valid JSON");
    }
    HttpResponse<String> query = get(gateway, "/ops/demo.echo?input=%7Bnope");
    assertThat(query.statusCode()).isEqualTo(400);
  }

  @Test
  void deepNestingIsRefusedBeforeValidation() throws Exception {
    String deep = "[".repeat(1000) + "]".repeat(1000);
    HttpResponse<String> response =
        post(gateway, "/ops/demo.echo", "{\"message\":\"x\",\"extra\":" + deep + "}");
    // 2 KB: under the size cap, over the depth limit.
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(json(response).at("/error/message").asString()).contains("not valid JSON");
  }

  @Test
  void aWrongContentTypeIs415() throws Exception {
    for (String type :
        List.of(
            "text/plain",
            "application/x-www-form-urlencoded",
            "application/json; charset=latin1")) {
      HttpResponse<String> response =
          send(
              request(gateway, "/ops/demo.echo")
                  .header("Content-Type", type)
                  .POST(HttpRequest.BodyPublishers.ofString("{\"message\":\"x\"}"))
                  .build());
      assertThat(response.statusCode()).as(type).isEqualTo(415);
      assertThat(json(response).at("/error/code").asString()).isEqualTo("INVALID_INPUT");
    }
  }

  @Test
  void pathTricksNeverReachAnotherOperation() throws Exception {
    for (String path :
        List.of(
            "/ops/..%2Fadmin.stats",
            "/ops/demo.echo%2F..%2Fadmin.stats",
            "/ops/demo.echo/../../admin.stats",
            "/ops/demo.echo%00",
            "/ops/demo.echo;x=1",
            "/ops/%2e%2e/%2e%2e/etc/passwd",
            "/ops/" + "a".repeat(5000),
            "/ops//demo.echo")) {
      String raw = raw("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
      int status = Integer.parseInt(raw.substring(9, 12));
      assertThat(status).as(path).isIn(400, 404, 414, 431);
      assertThat(raw).as(path).contains("\"error\"").doesNotContain("\"data\"");
    }
    assertStillServing();
  }

  @Test
  void aForeignHostIsRefused() throws Exception {
    // DNS rebinding: a page on evil.example resolves its name to 127.0.0.1 and calls us.
    String raw =
        raw(
            "GET /ops/demo.echo?message=x HTTP/1.1\r\nHost: evil.example:"
                + gateway.port()
                + "\r\nConnection: close\r\n\r\n");
    assertThat(raw).startsWith("HTTP/1.1 403");
    assertThat(raw).contains("ACCESS_DENIED");
    // A name that only starts like a loopback address is a name, not a loopback literal.
    for (String name :
        java.util.List.of("127.evil.example", "127.0.0.1.evil.example", "127.0.0.999")) {
      String rebound =
          raw(
              "GET /ops/demo.echo?message=x HTTP/1.1\r\nHost: "
                  + name
                  + ":"
                  + gateway.port()
                  + "\r\nConnection: close\r\n\r\n");
      assertThat(rebound).as(name).startsWith("HTTP/1.1 403");
    }
    String literal =
        raw(
            "GET /ops/demo.echo?message=x HTTP/1.1\r\nHost: 127.0.0.2:"
                + gateway.port()
                + "\r\nConnection: close\r\n\r\n");
    assertThat(literal).startsWith("HTTP/1.1 200");
    String localhost =
        raw(
            "GET /ops/demo.echo?message=x HTTP/1.1\r\nHost: localhost:"
                + gateway.port()
                + "\r\nConnection: close\r\n\r\n");
    assertThat(localhost).startsWith("HTTP/1.1 200");
  }

  @Test
  void aForeignOriginIsRefusedAndAllowedOnesPass() throws Exception {
    HttpResponse<String> evil = originPost("https://evil.example");
    assertThat(evil.statusCode()).isEqualTo(403);
    assertThat(json(evil).at("/error/message").asString()).contains("evil.example");
    assertThat(evil.headers().firstValue("access-control-allow-origin")).isEmpty();

    assertThat(originPost("null").statusCode()).isEqualTo(403);
    assertThat(originPost("http://127.0.0.1:" + gateway.port()).statusCode()).isEqualTo(200);
    HttpResponse<String> proxy = originPost("https://proxy.example");
    assertThat(proxy.statusCode()).isEqualTo(200);
    assertThat(proxy.headers().firstValue("access-control-allow-origin")).isEmpty();

    HttpResponse<String> cors = originPost("https://app.example");
    assertThat(cors.statusCode()).isEqualTo(200);
    assertThat(cors.headers().firstValue("access-control-allow-origin"))
        .hasValue("https://app.example");
  }

  /**
   * A refusal sent before the body was read must not leave the client a pooled connection that the
   * gateway then closes: the JDK client sends a POST's body after its headers, so the unread body
   * makes Jetty drop the connection once the answer is out. Without "Connection: close" on the
   * answer, the next POST on that connection fails with no response (a POST is not retried).
   */
  @Test
  void aRefusalBeforeTheBodyIsReadClosesTheConnectionItCannotReuse() throws Exception {
    // The body has not arrived when the refusal is written: the answer says the connection ends.
    String early =
        raw(
            "POST /ops/demo.echo HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://evil.example\r\n"
                + "Content-Type: application/json\r\nContent-Length: 15\r\n\r\n");
    assertThat(early).startsWith("HTTP/1.1 403").containsIgnoringCase("Connection: close");
    // A body that came with the headers is discarded and the connection stays usable.
    String whole =
        raw(
            "POST /ops/demo.echo HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://evil.example\r\n"
                + "Content-Type: application/json\r\nContent-Length: 15\r\n\r\n"
                + "{\"message\":\"x\"}"
                + "GET /ops/demo.echo?message=y HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Connection: close\r\n\r\n");
    assertThat(whole).startsWith("HTTP/1.1 403").contains("HTTP/1.1 200").contains("\"y\"");
    // The JDK client, which sends the body after the headers, never meets a connection closed
    // under it.
    for (int i = 0; i < 200; i++) {
      HttpResponse<String> refused = originPost("https://evil.example");
      assertThat(refused.statusCode()).as("refused, round %d", i).isEqualTo(403);
      assertThat(originPost("https://app.example").statusCode())
          .as("allowed, round %d", i)
          .isEqualTo(200);
    }
  }

  @Test
  void aCrossSiteGetWithoutOriginIsRefusedByFetchMetadata() throws Exception {
    // What a browser sends for <img src> or a link from another site: no Origin, only the site.
    for (String site : List.of("cross-site", "same-site")) {
      for (String path : List.of("/ops/demo.echo?message=x", "/ops/demo.ticks?count=1", "/ops")) {
        HttpResponse<String> refused =
            send(request(gateway, path).header("Sec-Fetch-Site", site).build());
        assertThat(refused.statusCode()).as(site + " " + path).isEqualTo(403);
        assertThat(json(refused).at("/error/message").asString()).contains("another site");
      }
    }
    // The gateway's own pages, and a URL the user typed, pass.
    for (String site : List.of("same-origin", "none")) {
      HttpResponse<String> passed =
          send(request(gateway, "/ops/demo.echo?message=x").header("Sec-Fetch-Site", site).build());
      assertThat(passed.statusCode()).as(site).isEqualTo(200);
    }
    // A configured CORS origin calls across sites with its Origin.
    HttpResponse<String> cors =
        send(
            request(gateway, "/ops/demo.echo?message=x")
                .header("Sec-Fetch-Site", "cross-site")
                .header("Origin", "https://app.example")
                .build());
    assertThat(cors.statusCode()).isEqualTo(200);
  }

  @Test
  void corsPreflightIsAnsweredOnlyForConfiguredOrigins() throws Exception {
    String ok =
        raw(
            "OPTIONS /ops/demo.echo HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://app.example\r\n"
                + "Access-Control-Request-Method: POST\r\nConnection: close\r\n\r\n");
    assertThat(ok).startsWith("HTTP/1.1 204");
    assertThat(ok).containsIgnoringCase("Access-Control-Allow-Methods: GET, POST");
    String refused =
        raw(
            "OPTIONS /ops/demo.echo HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://evil.example\r\n"
                + "Access-Control-Request-Method: POST\r\nConnection: close\r\n\r\n");
    assertThat(refused).startsWith("HTTP/1.1 403");
    assertThat(refused).doesNotContainIgnoringCase("Access-Control-Allow-Origin");
  }

  @Test
  void badQueryStringsAndRepeatedFieldsAre400() throws Exception {
    assertThat(get(gateway, "/ops/demo.echo?message=a&message=b").statusCode()).isEqualTo(400);
    assertThat(get(gateway, "/ops/demo.echo?input=%7B%7D&message=b").statusCode()).isEqualTo(400);
    String raw =
        raw(
            "GET /ops/demo.echo?message=%zz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    assertThat(raw).startsWith("HTTP/1.1 400");
    assertThat(raw).contains("\"error\"");
  }

  @Test
  void oversizedHeadersAndLastEventIdsAreRefused() throws Exception {
    String raw =
        raw(
            "GET /ops/demo.echo?message=x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "
                + "x".repeat(20_000)
                + "\r\nConnection: close\r\n\r\n");
    assertThat(raw).startsWith("HTTP/1.1 431");
    HttpResponse<String> lastEventId =
        send(
            request(gateway, "/ops/demo.ticks?count=1")
                .header("Last-Event-ID", "x".repeat(2000))
                .build());
    assertThat(lastEventId.statusCode()).isEqualTo(400);
    assertStillServing();
  }

  private static HttpResponse<String> originPost(String origin) throws Exception {
    return send(
        request(gateway, "/ops/demo.echo")
            .header("Content-Type", "application/json")
            .header("Origin", origin)
            .POST(HttpRequest.BodyPublishers.ofString("{\"message\":\"x\"}"))
            .build());
  }

  private static void assertStillServing() throws Exception {
    assertThat(get(gateway, "/ops/demo.echo?message=ok").statusCode()).isEqualTo(200);
  }

  /** A request written byte for byte (no client to tidy the path or the Host header). */
  private static String raw(String request) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", gateway.port())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      in.transferTo(all);
      return all.toString(StandardCharsets.UTF_8);
    }
  }
}
