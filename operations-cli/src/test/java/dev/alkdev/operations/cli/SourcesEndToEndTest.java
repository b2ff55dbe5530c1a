package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ops} against real peers: an OpenAPI document served by a loopback HTTP server (JSON calls,
 * an error status, an SSE subscription) and an MCP server built with the MCP SDK, started over
 * stdio.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SourcesEndToEndTest {

  private static final String DOC =
      """
      openapi: 3.1.0
      info: {title: e2e, version: '1'}
      servers: [{url: 'BASE'}]
      paths:
        /greet/{name}:
          get:
            operationId: greet
            summary: Greets someone
            parameters:
              - {name: name, in: path, required: true, schema: {type: string}}
            responses:
              '200':
                description: ok
                content:
                  application/json:
                    schema:
                      type: object
                      properties: {greeting: {type: string}}
        /broken:
          get:
            operationId: broken
            responses: {'200': {description: never}}
        /ticks:
          get:
            operationId: ticks
            summary: Ticks as server-sent events
            responses:
              '200': {description: events, content: {text/event-stream: {}}}
      """;

  private HttpServer server;
  private final List<String> paths = new CopyOnWriteArrayList<>();
  @TempDir Path dir;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          paths.add(exchange.getRequestURI().getRawPath());
          String path = exchange.getRequestURI().getPath();
          if (path.startsWith("/greet/")) {
            String name = path.substring("/greet/".length()).replace("\"", "");
            send(exchange, 200, "application/json", "{\"greeting\":\"hello " + name + "\"}");
          } else if (path.equals("/ticks")) {
            send(
                exchange,
                200,
                "text/event-stream",
                "id: 1\ndata: {\"tick\":1}\n\nid: 2\ndata: {\"tick\":2}\n\nid: 3\ndata: {\"tick\":3}\n\n");
          } else {
            send(exchange, 500, "text/plain", "the service broke");
          }
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private static void send(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private String document() throws IOException {
    Path file = dir.resolve("api.yaml");
    String base = "http://127.0.0.1:" + server.getAddress().getPort();
    Files.writeString(file, DOC.replace("BASE", base));
    return file.toString();
  }

  @Test
  void anOpenApiDocumentIsListedAndCalled() throws IOException {
    String doc = document();
    CliRun list = CliRun.run("list", "--openapi", "api=" + doc);
    assertThat(list.code()).as(list.err()).isZero();
    assertThat(list.out()).contains("api.greet").contains("QUERY").contains("Greets someone");
    assertThat(list.out()).contains("api.ticks").contains("SUBSCRIPTION");

    CliRun call =
        CliRun.run("call", "api.greet", "--openapi", "api=" + doc, "--input", "{\"name\":\"a/b\"}");
    assertThat(call.code()).as(call.err()).isZero();
    assertThat(call.out()).contains("\"greeting\"").contains("hello a/b");
    // the path parameter stays one segment
    assertThat(paths).contains("/greet/a%2Fb");

    CliRun envelope =
        CliRun.run(
            "call",
            "api.greet",
            "--openapi",
            "api=" + doc,
            "--envelope",
            "--input",
            "{\"name\":\"x\"}");
    assertThat(envelope.out())
        .contains("\"source\"")
        .contains("\"http\"")
        .contains("\"statusCode\"");
  }

  @Test
  void anErrorStatusExitsWithTheExecutionErrorCode() throws IOException {
    CliRun call =
        CliRun.run("call", "api.broken", "--openapi", "api=" + document(), "--input", "{}");
    assertThat(call.code()).isEqualTo(ExitCodes.EXECUTION_ERROR);
    assertThat(call.err()).contains("500");
  }

  @Test
  void aServerSentEventsOperationIsStreamed() throws IOException {
    CliRun run =
        CliRun.run(
            "subscribe",
            "api.ticks",
            "--openapi",
            "api=" + document(),
            "--input",
            "{}",
            "--limit",
            "2");
    assertThat(run.code()).as(run.err()).isZero();
    List<String> lines = run.out().lines().filter(l -> !l.isBlank()).toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).contains("\"tick\"").contains("1");
    assertThat(lines.get(1)).contains("2");
  }

  @Test
  void theBaseUrlFlagRedirectsCalls() throws IOException {
    Path file = dir.resolve("elsewhere.yaml");
    Files.writeString(file, DOC.replace("BASE", "http://127.0.0.1:1"));
    String base = "http://127.0.0.1:" + server.getAddress().getPort();
    CliRun call =
        CliRun.run(
            "call",
            "api.greet",
            "--openapi",
            "api=" + file,
            "--base-url",
            "api=" + base,
            "--input",
            "{\"name\":\"z\"}");
    assertThat(call.code()).as(call.err()).isZero();
    assertThat(call.out()).contains("hello z");
  }

  @Test
  void aToolErrorResultExitsWithItsOwnCodeAndPrintsItsText() {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String command =
        "bad="
            + java
            + " -cp "
            + System.getProperty("java.class.path")
            + " dev.alkdev.operations.mcp.FakeStdioServer iserror";
    CliRun call = CliRun.run("call", "bad.t", "--mcp-stdio", command);
    assertThat(call.code()).as(call.err()).isEqualTo(ExitCodes.TOOL_ERROR);
    assertThat(call.err()).contains("bad.t reported an error: it broke");
    assertThat(call.out()).contains("it broke");
  }

  @Test
  void anMcpServerOverStdioIsListedAndCalled() {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String command =
        "srv="
            + java
            + " -cp "
            + System.getProperty("java.class.path")
            + " dev.alkdev.operations.mcp.McpTestServerMain";
    CliRun list = CliRun.run("list", "--mcp-stdio", command);
    assertThat(list.code()).as(list.err()).isZero();
    assertThat(list.out()).contains("srv.echo");

    CliRun call =
        CliRun.run("call", "srv.echo", "--mcp-stdio", command, "--input", "{\"text\":\"hi\"}");
    assertThat(call.code()).as(call.err()).isZero();
    // A tool that answers with text blocks only: its text, not the blocks as JSON.
    assertThat(call.out().strip()).isEqualTo("echo: hi");
    CliRun asJson =
        CliRun.run(
            "call", "srv.echo", "--mcp-stdio", command, "--input", "{\"text\":\"hi\"}", "--json");
    assertThat(asJson.out()).contains("\"type\":\"text\"").contains("echo: hi");

    // A tool's notifications/progress, as they come, on stderr (not with --json).
    CliRun progress =
        CliRun.run("call", "srv.progress", "--mcp-stdio", command, "--input", "{\"text\":\"x\"}");
    assertThat(progress.code()).as(progress.err()).isZero();
    // The server sends three before its result; the first, at least, is read before the result.
    assertThat(progress.err()).contains("progress 1/3: step 1");

    CliRun sum =
        CliRun.run("call", "srv.add", "--mcp-stdio", command, "--input", "{\"a\":2,\"b\":3}");
    assertThat(sum.code()).as(sum.err()).isZero();
    assertThat(sum.out()).contains("\"sum\"").contains("5");

    CliRun invalid = CliRun.run("call", "srv.add", "--mcp-stdio", command, "--input", "{\"a\":2}");
    assertThat(invalid.code()).isEqualTo(ExitCodes.INVALID_INPUT);
    assertThat(invalid.err()).contains("required property 'b'");
  }

  @Test
  void sourcesThatCannotLoadSayWhich() {
    CliRun openApi = CliRun.run("list", "--openapi", "pets=" + dir.resolve("missing.yaml"));
    assertThat(openApi.code()).isEqualTo(ExitCodes.SOURCE_FAILED);
    assertThat(openApi.err()).contains("pets");
    CliRun mcp = CliRun.run("list", "--mcp-url", "remote=http://127.0.0.1:1/mcp");
    assertThat(mcp.code()).isEqualTo(ExitCodes.SOURCE_FAILED);
    assertThat(mcp.err()).contains("remote");
    CliRun stdio = CliRun.run("list", "--mcp-stdio", "files=/nonexistent/ops-test-server");
    assertThat(stdio.code()).isEqualTo(ExitCodes.SOURCE_FAILED);
    assertThat(stdio.err()).contains("files");
  }

  @Test
  void secretsComeFromTheEnvironment() throws IOException {
    Path config = dir.resolve("ops.yaml");
    Files.writeString(
        config,
        "openapi:\n  api:\n    location: "
            + document()
            + "\n    auth: {bearer: {tokenEnv: E2E_TOKEN}}\n");
    CliRun missing = CliRun.run("list", "--config", config.toString());
    assertThat(missing.code()).isEqualTo(ExitCodes.SOURCE_FAILED);
    assertThat(missing.err()).contains("E2E_TOKEN");
    CliRun call =
        CliRun.run(
            Map.of("E2E_TOKEN", "t0ken"),
            "",
            "call",
            "api.greet",
            "--config",
            config.toString(),
            "--input",
            "{\"name\":\"s\"}");
    assertThat(call.code()).as(call.err()).isZero();
    assertThat(call.out()).doesNotContain("t0ken");
  }
}
