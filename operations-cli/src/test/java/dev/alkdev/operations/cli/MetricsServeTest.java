package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ops serve --http 0 --ws 0}: {@code /metrics} in Prometheus' text format counts the calls
 * served (over HTTP and through the hub) and the hub's traffic.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MetricsServeTest {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\\{[^}]*\\})?) ([-+0-9.eE]+|NaN|[+-]Inf)$");

  @Test
  void servedCallsAndTheHubsTrafficAreScraped() throws Exception {
    CliRun.Background serving =
        CliRun.Background.start("serve", "--http", "0", "--ws", "0", "--drain-timeout", "2s");
    try {
      serving.awaitErr("ready;");
      String out = serving.out().toString();
      Matcher http =
          Pattern.compile("serving on http\\S*\\s+(http://127\\.0\\.0\\.1:\\d+/)").matcher(out);
      Matcher ws = Pattern.compile("(ws://127\\.0\\.0\\.1:\\d+/ws)").matcher(out);
      assertThat(http.find()).as(out).isTrue();
      assertThat(ws.find()).as(out).isTrue();
      assertThat(out).contains("metrics /metrics");
      URI base = URI.create(http.group(1));

      HttpResponse<String> echo = get(base.resolve("ops/demo.echo?message=hello"));
      assertThat(echo.statusCode()).isEqualTo(200);
      CliRun call =
          CliRun.run(
              "--no-demo",
              "--ws",
              ws.group(1),
              "call",
              "demo.echo",
              "--input",
              "{\"message\":\"through the hub\"}",
              "--json");
      assertThat(call.code()).as(call.err()).isZero();

      HttpResponse<String> scrape = get(base.resolve("metrics"));
      assertThat(scrape.statusCode()).isEqualTo(200);
      assertThat(scrape.headers().firstValue("content-type"))
          .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain; version=0.0.4"));
      Map<String, Double> samples = parse(scrape.body());
      // One call over HTTP, one through the hub: both served by this pipeline.
      assertThat(
              samples.get(
                  "operations_calls_seconds_count{operation=\"demo.echo\",origin=\"served\",outcome=\"OK\"}"))
          .as(scrape.body())
          .isEqualTo(2.0);
      // The hub carried the spoke's request and the answer (and the node's announcements).
      assertThat(
              samples.get(
                  "operations_transport_messages_total{direction=\"published\",transport=\"ws\"}"))
          .as(scrape.body())
          .isGreaterThanOrEqualTo(2.0);
      assertThat(
              samples.get(
                  "operations_transport_messages_total{direction=\"received\",transport=\"ws\"}"))
          .isGreaterThanOrEqualTo(2.0);
      assertThat(
              samples.get(
                  "operations_transport_bytes_total{direction=\"published\",transport=\"ws\"}"))
          .isPositive();
      assertThat(samples.get("operations_transport_reconnects_total{transport=\"ws\"}")).isZero();
      assertThat(samples.get("operations_serving_capacity{lane=\"unary\",server=\"ops\"}"))
          .isPositive();
      assertThat(samples.get("operations_serving_capacity{lane=\"stream\",server=\"ops\"}"))
          .isPositive();
      assertThat(samples.get("operations_serving_saturated{server=\"ops\"}")).isZero();
      assertThat(samples.get("operations_serving_refused_total{scope=\"caller\",server=\"ops\"}"))
          .isZero();
    } finally {
      serving.stop().close();
      assertThat(serving.exit().get(20, TimeUnit.SECONDS)).isZero();
    }
  }

  private static HttpResponse<String> get(URI uri) throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Prometheus text exposition: "name{labels} value" per sample; comments start with #. */
  private static Map<String, Double> parse(String scrape) {
    Map<String, Double> samples = new HashMap<>();
    for (String line : scrape.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      assertThat(m.matches()).as("a sample line: %s", line).isTrue();
      samples.put(m.group(1), Double.parseDouble(m.group(2)));
    }
    return samples;
  }
}
