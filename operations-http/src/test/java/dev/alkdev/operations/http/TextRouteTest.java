package dev.alkdev.operations.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.Identity;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Extra text routes ({@code /metrics}): made at each request, guarded like the rest. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TextRouteTest extends GatewayTestSupport {
  static final String PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8";

  @Test
  void aRouteAnswersWithFreshTextOnGetOnly() throws Exception {
    Fixtures fixtures = new Fixtures();
    AtomicInteger scrapes = new AtomicInteger();
    try (HttpGateway gateway =
        HttpGateway.builder(fixtures.registry)
            .route("/metrics", PROMETHEUS, () -> "scrapes " + scrapes.incrementAndGet() + "\n")
            .route(
                "/broken",
                "text/plain",
                () -> {
                  throw new IllegalStateException("boom");
                })
            .start()) {
      HttpResponse<String> first = get(gateway, "/metrics");
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(first.headers().firstValue("content-type")).contains(PROMETHEUS);
      assertThat(first.body()).isEqualTo("scrapes 1\n");
      assertThat(get(gateway, "/metrics").body()).isEqualTo("scrapes 2\n");
      assertThat(post(gateway, "/metrics", "{}").statusCode()).isEqualTo(405);
      HttpResponse<String> broken = get(gateway, "/broken");
      assertThat(broken.statusCode()).isEqualTo(500);
      assertThat(broken.body()).doesNotContain("boom");
      // The Host guard holds for it as for everything else (no DNS rebinding).
      assertThat(raw(gateway, "GET /metrics HTTP/1.1\r\nHost: evil.example\r\n"))
          .startsWith("HTTP/1.1 403");
      assertThat(raw(gateway, "GET /metrics HTTP/1.1\r\nHost: localhost\r\n"))
          .startsWith("HTTP/1.1 200");
      HttpResponse<String> crossSite =
          send(request(gateway, "/metrics").header("Origin", "https://evil.example").build());
      assertThat(crossSite.statusCode()).isEqualTo(403);
    } finally {
      fixtures.registry.close();
    }
  }

  private static String raw(HttpGateway gateway, String head) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", gateway.port())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write((head + "Connection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void withAnAuthenticatorARouteNeedsAValidToken() throws Exception {
    Fixtures fixtures = new Fixtures();
    try (HttpGateway gateway =
        HttpGateway.builder(fixtures.registry)
            .authenticator(
                token -> token.equals("good") ? Optional.of(Identity.of("ops")) : Optional.empty())
            .route("/metrics", PROMETHEUS, () -> "up 1\n")
            .start()) {
      assertThat(get(gateway, "/metrics").statusCode()).isEqualTo(401);
      assertThat(
              send(request(gateway, "/metrics").header("Authorization", "Bearer bad").build())
                  .statusCode())
          .isEqualTo(401);
      HttpResponse<String> ok =
          send(request(gateway, "/metrics").header("Authorization", "Bearer good").build());
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.body()).isEqualTo("up 1\n");
    } finally {
      fixtures.registry.close();
    }
  }

  @Test
  void routesTheGatewayServesItselfAreRefused() {
    Fixtures fixtures = new Fixtures();
    try {
      for (String path : new String[] {"/", "/ops", "/ops/x", "/healthz", "metrics", "/m?x=1"}) {
        assertThatThrownBy(
                () -> HttpGateway.builder(fixtures.registry).route(path, "text/plain", () -> ""))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(path);
      }
      assertThatThrownBy(
              () ->
                  HttpGateway.builder(fixtures.registry)
                      .route("/m", "text/plain", () -> "")
                      .route("/m", "text/plain", () -> ""))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("twice");
    } finally {
      fixtures.registry.close();
    }
  }
}
