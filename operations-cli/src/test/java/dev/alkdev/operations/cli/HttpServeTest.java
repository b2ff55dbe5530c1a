package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code ops serve --http 0} in this JVM: the demo over HTTP, its document and its console. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpServeTest {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static CliRun.Background serving;
  private static URI base;

  @BeforeAll
  static void serve() throws Exception {
    serving = CliRun.Background.start("serve", "--http", "0", "--drain-timeout", "2s");
    serving.awaitErr("ready;");
    Matcher url =
        Pattern.compile("serving on http\\S*\\s+(http://127\\.0\\.0\\.1:\\d+/)")
            .matcher(serving.out().toString());
    assertThat(url.find()).as(serving.out().toString()).isTrue();
    base = URI.create(url.group(1));
  }

  @AfterAll
  static void stop() throws Exception {
    if (serving != null) {
      serving.stop().close();
      assertThat(serving.exit().get(20, TimeUnit.SECONDS)).isZero();
      assertThat(serving.err().toString()).contains("stopping (input ended)").contains("stopped");
    }
  }

  @Test
  void theDemoIsCalledOverHttp() throws Exception {
    HttpResponse<String> echo = get("ops/demo.echo?message=hello");
    assertThat(echo.statusCode()).isEqualTo(200);
    assertThat(echo.body()).contains("\"message\":\"hello\"").contains("\"meta\"");
  }

  @Test
  void theDocumentTheConsoleAndHealthAreServed() throws Exception {
    HttpResponse<String> document = get("openapi.json");
    assertThat(document.statusCode()).isEqualTo(200);
    assertThat(document.body()).contains("\"openapi\":\"3.1.0\"").contains("/ops/demo.clock");
    HttpResponse<String> console = get("");
    assertThat(console.statusCode()).isEqualTo(200);
    assertThat(console.headers().firstValue("content-type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
    assertThat(get("readyz").statusCode()).isEqualTo(200);
  }

  @Test
  void theServedDocumentImportsBackByItsUrlWithNoBaseUrl() {
    // The document's servers entry is "/", which the importer resolves against the document's URL.
    CliRun call =
        CliRun.run(
            "call",
            "back.demo_echo",
            "--openapi",
            "back=" + base + "openapi.json",
            "--input",
            "{\"message\":\"round trip\"}");
    assertThat(call.code()).as(call.err()).isZero();
    assertThat(call.out()).contains("round trip");
  }

  @Test
  void aSubscriptionStreamsOverHttp() throws Exception {
    HttpResponse<String> clock = get("ops/demo.clock?ticks=2&intervalMs=10");
    assertThat(clock.statusCode()).isEqualTo(200);
    assertThat(clock.body()).contains("id: 1").contains("id: 2").contains("event: call.completed");
  }

  @Test
  void aBadAddressIsAUsageError() {
    CliRun run = CliRun.run("serve", "--http", "not-a-port");
    assertThat(run.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("--http not-a-port");
  }

  @Test
  void aTakenPortSaysWhyOnEveryListener() throws Exception {
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      String port = Integer.toString(taken.getLocalPort());
      for (String flag : java.util.List.of("--http", "--mcp-http", "--ws")) {
        CliRun run = CliRun.run("serve", "--no-demo", flag, port);
        assertThat(run.code()).as(flag).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(run.err())
            .as(flag)
            .contains(flag + " " + port)
            .contains("could not listen on 127.0.0.1:" + port)
            .contains("Address already in use")
            .contains("pick a free port, or 0 for any");
      }
    }
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
