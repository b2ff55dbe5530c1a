package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.serving.OperationServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * A {@code tools/call}'s {@code params._meta.traceparent}/{@code tracestate} become the served
 * call's metadata, so a trace continues from the MCP client; malformed values are dropped and the
 * call still runs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class McpTraceContextTest {
  private static final String TRACEPARENT =
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  private OperationRegistry registry;
  private OperationServer pipeline;
  private McpServer server;
  private McpStdioEndpoint stdio;
  private OutputStream toServer;
  private final LinkedBlockingQueue<String> fromServer = new LinkedBlockingQueue<>();

  @BeforeEach
  void start() throws Exception {
    registry = OperationRegistry.create();
    // Answers with the metadata its call carries.
    registry.register(
        OperationSpec.builder("trace", "meta").type(OperationType.QUERY).build(),
        Handler.blocking((input, context) -> context.metadata().asMap()));
    pipeline = OperationServer.create(registry);
    server = McpServer.builder(pipeline).build();
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
    send(
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}");
    assertThat(next().at("/result/protocolVersion").asString()).isEqualTo("2025-11-25");
    send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  }

  @AfterEach
  void stop() {
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

  /** The metadata the handler saw for a tools/call with {@code meta} as its _meta. */
  private JsonNode metadataSeen(int id, String meta) throws Exception {
    send(
        "{\"jsonrpc\":\"2.0\",\"id\":"
            + id
            + ",\"method\":\"tools/call\",\"params\":{\"name\":\"trace.meta\",\"_meta\":"
            + meta
            + "}}");
    JsonNode answer = next();
    assertThat(answer.get("id").asInt()).isEqualTo(id);
    assertThat(answer.at("/result/isError").asBoolean(false)).as(answer.toString()).isFalse();
    return answer.at("/result/structuredContent");
  }

  @Test
  void theClientsTraceContextReachesTheCall() throws Exception {
    JsonNode seen =
        metadataSeen(
            1,
            "{\"progressToken\":7,\"traceparent\":\""
                + TRACEPARENT
                + "\",\"tracestate\":\"vendor=abc,other=1\"}");
    assertThat(seen.get("traceparent").asString()).isEqualTo(TRACEPARENT);
    assertThat(seen.get("tracestate").asString()).isEqualTo("vendor=abc,other=1");

    // Upper case and surrounding blanks are normalised, as the HTTP gateway does with its header.
    JsonNode normalised =
        metadataSeen(2, "{\"traceparent\":\" " + TRACEPARENT.toUpperCase() + " \"}");
    assertThat(normalised.get("traceparent").asString()).isEqualTo(TRACEPARENT);
    assertThat(normalised.has("tracestate")).isFalse();
  }

  @Test
  void aMalformedTraceContextIsDroppedAndTheCallRuns() throws Exception {
    // Not W3C: wrong length, version ff, all-zero trace id, not a string.
    for (String traceparent :
        new String[] {
          "\"00-zz-11-01\"",
          "\"ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\"",
          "\"00-00000000000000000000000000000000-b7ad6b7169203331-01\"",
          "42",
          "\"" + "0".repeat(5000) + "\""
        }) {
      JsonNode seen =
          metadataSeen(3, "{\"traceparent\":" + traceparent + ",\"tracestate\":\"vendor=abc\"}");
      assertThat(seen.isEmpty()).as(traceparent).isTrue();
    }
    // A tracestate too long or with a control character is dropped; the traceparent stays.
    JsonNode longState =
        metadataSeen(
            4,
            "{\"traceparent\":\""
                + TRACEPARENT
                + "\",\"tracestate\":\"v="
                + "x".repeat(600)
                + "\"}");
    assertThat(longState.get("traceparent").asString()).isEqualTo(TRACEPARENT);
    assertThat(longState.has("tracestate")).isFalse();
    JsonNode controlState =
        metadataSeen(5, "{\"traceparent\":\"" + TRACEPARENT + "\",\"tracestate\":\"v=1\\u0007\"}");
    assertThat(controlState.has("tracestate")).isFalse();
    // No _meta, or a _meta that is not an object: no metadata.
    assertThat(metadataSeen(6, "\"text\"").isEmpty()).isTrue();
  }
}
