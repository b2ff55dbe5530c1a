package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.serving.OperationServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/** MCP over a pair of streams, as a host runs it: newline-delimited JSON-RPC, one session. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class McpStdioTest {
  private OperationRegistry registry;
  private OperationServer pipeline;
  private McpServer server;
  private McpStdioEndpoint stdio;
  private OutputStream toServer;
  private final LinkedBlockingQueue<String> fromServer = new LinkedBlockingQueue<>();

  @BeforeEach
  void start() throws Exception {
    Fixtures.slowRelease = new CountDownLatch(1);
    registry = Fixtures.general();
    pipeline = OperationServer.create(registry);
    server = McpServer.builder(pipeline).maxRequestBytes(4096).build();
    PipedInputStream serverIn = new PipedInputStream(1 << 16);
    toServer = new PipedOutputStream(serverIn);
    PipedOutputStream serverOut = new PipedOutputStream();
    PipedInputStream clientIn = new PipedInputStream(serverOut, 1 << 16);
    stdio = server.serveStdio(serverIn, serverOut);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(new InputStreamReader(clientIn, StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                  fromServer.add(line);
                }
              } catch (java.io.IOException e) {
                // The server closed its end.
              }
            });
    reader.setDaemon(true);
    reader.start();
  }

  @AfterEach
  void stop() {
    Fixtures.slowRelease.countDown();
    stdio.close();
    server.close();
    pipeline.close();
    registry.close();
  }

  private void send(String line) throws Exception {
    toServer.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    toServer.flush();
  }

  private JsonNode next() throws InterruptedException {
    String line = fromServer.poll(10, TimeUnit.SECONDS);
    assertThat(line).as("an answer within 10 s").isNotNull();
    return Fixtures.json(line);
  }

  @Test
  void aSessionOverStdio() throws Exception {
    send(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}");
    assertThat(next().at("/result/protocolVersion").asString()).isEqualTo("2025-11-25");
    send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    send(
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"math.add\",\"arguments\":{\"a\":2,\"b\":3}}}");
    assertThat(next().at("/result/structuredContent/sum").asDouble()).isEqualTo(5.0);

    // Bad lines get errors and the session goes on.
    send("this is not json");
    assertThat(next().at("/error/code").asInt()).isEqualTo(-32700);
    send(
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{\"pad\":\""
            + "x".repeat(5000)
            + "\"}}");
    assertThat(next().at("/error/message").asString()).contains("too large");
    send("");
    send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}");
    JsonNode pong = next();
    assertThat(pong.get("id").asInt()).isEqualTo(4);
    assertThat(pong.get("result").isObject()).isTrue();
  }

  @Test
  void legacyRequestsWaitForInitializeWhileModernOnesNeedNone() throws Exception {
    send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    JsonNode refused = next();
    assertThat(refused.at("/error/code").asInt()).isEqualTo(-32600);
    assertThat(refused.at("/error/message").asString()).contains("initialize");

    String meta =
        "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{}}";
    send(
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"math.add\","
            + "\"arguments\":{\"a\":2,\"b\":3},"
            + meta
            + "}}");
    JsonNode result = next();
    assertThat(result.at("/result/structuredContent/sum").asDouble()).isEqualTo(5.0);
    assertThat(result.at("/result/resultType").asString()).isEqualTo("complete");

    send(
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"server/discover\",\"params\":{"
            + meta.replace("2026-07-28", "1999-01-01")
            + "}}");
    JsonNode unsupported = next();
    assertThat(unsupported.get("id").asInt()).isEqualTo(3);
    assertThat(unsupported.at("/error/code").asInt()).isEqualTo(-32022);
    assertThat(unsupported.at("/error/data/supported").toString()).contains("2026-07-28");
  }

  @Test
  void cancelAndProgressOverStdio() throws Exception {
    send(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}");
    next();
    int cancelled = Fixtures.slowCancelled.get();
    int started = Fixtures.slowStarted.get();
    send(
        "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"tools/call\",\"params\":{\"name\":\"slow.wait\"}}");
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (Fixtures.slowStarted.get() == started && System.nanoTime() < end) {
      Thread.sleep(10);
    }
    send(
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"s\"}}");
    end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (Fixtures.slowCancelled.get() == cancelled && System.nanoTime() < end) {
      Thread.sleep(10);
    }
    assertThat(Fixtures.slowCancelled.get()).isEqualTo(cancelled + 1);

    send(
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"feed.numbers\","
            + "\"arguments\":{\"count\":2},\"_meta\":{\"progressToken\":9}}}");
    // No answer to the cancelled call: the next lines are the progress and the result.
    JsonNode first = next();
    assertThat(first.get("method").asString()).isEqualTo("notifications/progress");
    assertThat(first.at("/params/progressToken").asInt()).isEqualTo(9);
    assertThat(next().get("method").asString()).isEqualTo("notifications/progress");
    JsonNode result = next();
    assertThat(result.get("id").asInt()).isEqualTo(5);
    assertThat(result.at("/result/structuredContent/items").size()).isEqualTo(2);
  }

  @Test
  void theEndOfInputEndsTheSession() throws Exception {
    send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
    next();
    toServer.close();
    assertThat(stdio.awaitClosed(Duration.ofSeconds(10))).isTrue();
  }
}
