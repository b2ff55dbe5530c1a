package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code ops serve --mcp-http} and {@code ops serve --mcp-stdio}, in this JVM. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class McpServeTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @Test
  void filtersThatLeaveNoToolsAreSaidLoudly() throws Exception {
    CliRun.Background serving =
        CliRun.Background.start("serve", "--mcp-http", "0", "--mcp-include", "demo.echo.*");
    try {
      serving.awaitErr("ready;");
      assertThat(serving.out().toString()).contains("0 tools");
      assertThat(serving.err().toString())
          .contains("warning: mcp-http offers no tools: no operation id matches --mcp-include")
          .contains("demo.echo.*")
          .contains("such as demo.")
          .contains("`ops list` shows the ids");
    } finally {
      serving.stop().close();
    }
    assertThat(serving.exit().get(30, TimeUnit.SECONDS)).isZero();
  }

  @Test
  void serveMcpHttpOffersTheDemoAsTools() throws Exception {
    CliRun.Background serving = CliRun.Background.start("serve", "--mcp-http", "0");
    try {
      serving.awaitErr("ready;");
      Matcher url =
          Pattern.compile("http://127\\.0\\.0\\.1:\\d+/mcp").matcher(serving.out().toString());
      assertThat(url.find()).as(serving.out().toString()).isTrue();
      assertThat(serving.out().toString()).contains("serving on mcp-http").contains("3 tools");
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      HttpResponse<String> init =
          http.send(
              post(
                  url.group(),
                  null,
                  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}"),
              HttpResponse.BodyHandlers.ofString());
      assertThat(init.statusCode()).isEqualTo(200);
      String session = init.headers().firstValue("mcp-session-id").orElseThrow();
      JsonNode tools =
          JSON.readTree(
              http.send(
                      post(
                          url.group(),
                          session,
                          "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"),
                      HttpResponse.BodyHandlers.ofString())
                  .body());
      assertThat(tools.at("/result/tools").toString()).contains("demo.echo").contains("demo.clock");
      JsonNode echo =
          JSON.readTree(
              http.send(
                      post(
                          url.group(),
                          session,
                          "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"demo.echo\",\"arguments\":{\"message\":\"hi\"}}}"),
                      HttpResponse.BodyHandlers.ofString())
                  .body());
      assertThat(echo.toString()).contains("hi");
    } finally {
      serving.stop().close();
    }
    assertThat(serving.exit().get(30, TimeUnit.SECONDS)).isZero();
  }

  @Test
  void serveMcpStdioSpeaksOnlyProtocolOnStdout() throws Exception {
    CliRun.Background serving =
        CliRun.Background.start("serve", "--mcp-stdio", "--mcp-exclude", "demo.clock");
    serving.awaitErr("ready;");
    serving
        .stop()
        .write(
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}\n"
                    + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                    + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n")
                .getBytes(StandardCharsets.UTF_8));
    serving.stop().flush();
    serving.awaitOut("\"id\":2");
    serving.stop().close();
    assertThat(serving.exit().get(30, TimeUnit.SECONDS)).isZero();
    String out = serving.out().toString();
    for (String line : out.split("\n")) {
      assertThat(JSON.readTree(line).get("jsonrpc").asString()).as(line).isEqualTo("2.0");
    }
    assertThat(out).contains("demo.echo").doesNotContain("demo.clock");
    assertThat(serving.err().toString()).contains("serving on mcp-stdio").contains("stdin ended");
  }

  @Test
  void serveMcpStdioSpeaks2026AndModelSafeNames() throws Exception {
    CliRun.Background serving =
        CliRun.Background.start("serve", "--mcp-stdio", "--mcp-tool-names", "model-safe");
    serving.awaitErr("ready;");
    String meta =
        "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{}}";
    serving
        .stop()
        .write(
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{"
                    + meta
                    + "}}\n"
                    + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
                    + "\"name\":\"demo_echo\",\"arguments\":{\"message\":\"hi\"},"
                    + meta
                    + "}}\n")
                .getBytes(StandardCharsets.UTF_8));
    serving.stop().flush();
    serving.awaitOut("\"id\":2");
    serving.stop().close();
    assertThat(serving.exit().get(30, TimeUnit.SECONDS)).isZero();
    String out = serving.out().toString();
    assertThat(out).contains("\"name\":\"demo_echo\"").doesNotContain("\"name\":\"demo.echo\"");
    assertThat(out).contains("\"resultType\":\"complete\"").contains("hi");
  }

  @Test
  void serveMcpTasksRunsCallsAsTasks() throws Exception {
    CliRun.Background serving =
        CliRun.Background.start("serve", "--mcp-stdio", "--mcp-tasks", "all");
    serving.awaitErr("ready;");
    String meta =
        "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":"
            + "{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}}";
    serving
        .stop()
        .write(
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                    + "\"name\":\"demo.echo\",\"arguments\":{\"message\":\"later\"},"
                    + meta
                    + "}}\n")
                .getBytes(StandardCharsets.UTF_8));
    serving.stop().flush();
    serving.awaitOut("\"id\":1");
    JsonNode created = JSON.readTree(serving.out().toString().strip().split("\n")[0]).get("result");
    assertThat(created.get("resultType").asString()).isEqualTo("task");
    String taskId = created.get("taskId").asString();
    Thread.sleep(300); // demo.echo answers at once; the task has its result by now
    serving
        .stop()
        .write(
            ("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks/get\",\"params\":{"
                    + "\"taskId\":\""
                    + taskId
                    + "\","
                    + meta
                    + "}}\n")
                .getBytes(StandardCharsets.UTF_8));
    serving.stop().flush();
    serving.awaitOut("\"id\":2");
    serving.stop().close();
    assertThat(serving.exit().get(30, TimeUnit.SECONDS)).isZero();
    String got = serving.out().toString().strip().split("\n")[1];
    assertThat(got).contains("\"status\":\"completed\"").contains("later");
  }

  @Test
  void badMcpFlagsAreUsageErrors() {
    CliRun bare = CliRun.run("list", "--mcp-stdio");
    assertThat(bare.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(bare.err()).contains("--mcp-stdio needs NAME=");
    CliRun port = CliRun.run("serve", "--mcp-http", "eighty");
    assertThat(port.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(port.err()).contains("expected PORT or HOST:PORT");
    CliRun names = CliRun.run("serve", "--mcp-stdio", "--mcp-tool-names", "short");
    assertThat(names.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(names.err()).contains("expected standard or model-safe");
    CliRun tasks = CliRun.run("serve", "--mcp-stdio", "--mcp-tasks", "some");
    assertThat(tasks.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(tasks.err()).contains("expected none, subscriptions or all");
  }

  private static HttpRequest post(String url, String session, String body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      request.header("Mcp-Session-Id", session);
    }
    return request.build();
  }
}
