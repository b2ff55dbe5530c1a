package dev.alkdev.operations.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The streamable HTTP transport against a hand-written server that misbehaves on purpose: answers
 * too big to take, HTTP errors and redirects, a tool that never answers, and the clean-up on close.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class McpHttpTransportTest {
  static final ObjectMapper JSON = JsonMapper.builder().build();
  static final int OVER_LIMIT = 16 * 1024 * 1024 + 1024;
  static final String[] TOOLS = {
    "hugeJson", "hugeEvent", "status500", "redirect", "hang", "eventThenJunk", "primed"
  };

  static final int PAGE_SIZE = 3;
  static final AtomicInteger listRequests = new AtomicInteger();

  static Server jetty;
  static String url;
  static final AtomicInteger deletes = new AtomicInteger();
  static final CountDownLatch hangAborted = new CountDownLatch(1);
  static final ScheduledExecutorService pinger = Executors.newSingleThreadScheduledExecutor();

  static McpClientWrapper client;
  static OperationRegistry registry;

  @BeforeAll
  static void start() throws Exception {
    jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    jetty.setHandler(new Hostile());
    jetty.start();
    url = "http://127.0.0.1:" + connector.getLocalPort() + "/mcp";
    client =
        McpClients.createMcpClient(
            "hostile",
            McpClientConfig.streamableHttp(url)
                .initializeTimeout(Duration.ofSeconds(5))
                .requestTimeout(Duration.ofSeconds(10))
                .build());
    registry = OperationRegistry.create();
    client.registerInto(registry);
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    registry.close();
    pinger.shutdownNow();
    jetty.stop();
  }

  static CallError callFails(String tool) {
    return callFails(tool, OperationContext.builder().build());
  }

  static CallError callFails(String tool, OperationContext context) {
    ExecutionException failed =
        assertThrows(
            ExecutionException.class,
            () -> registry.execute("hostile." + tool, Map.of(), context).get(20, TimeUnit.SECONDS));
    assertThat(failed.getCause()).isInstanceOf(CallError.class);
    return (CallError) failed.getCause();
  }

  @Test
  void toolsAreListedPageByPage() {
    // 7 tools in pages of 3: three tools/list requests, every tool once.
    assertThat(client.operations())
        .extracting(op -> op.spec().name())
        .containsExactlyInAnyOrder(TOOLS);
    assertThat(listRequests.get()).isGreaterThanOrEqualTo(3);
  }

  @Test
  void anEmptyEventBeforeTheAnswerIsSkipped() throws Exception {
    JsonNode data = registry.execute("hostile.primed", Map.of()).get(20, TimeUnit.SECONDS).data();
    assertThat(data.toString()).contains("\"text\":\"ok\"");
  }

  @Test
  void aJsonAnswerOverTheLimitFailsTheCallClearly() {
    CallError error = callFails("hugeJson");
    assertThat(error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
    assertThat(error.getMessage()).contains("over 16777216 bytes");
  }

  @Test
  void anEventOverTheLimitFailsTheCallClearly() {
    CallError error = callFails("hugeEvent");
    assertThat(error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
    assertThat(error.getMessage()).contains("hostile").contains("16777216");
  }

  @Test
  void anHttpErrorNamesItsStatusAndText() {
    CallError error = callFails("status500");
    assertThat(error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
    assertThat(error.getMessage()).contains("answered HTTP 500: tool store on fire");
  }

  @Test
  void aRedirectIsNotFollowed() {
    CallError error = callFails("redirect");
    assertThat(error.getMessage()).contains("answered HTTP 307");
  }

  @Test
  void aStreamThatEndsWithoutAnAnswerFailsTheCallAtOnce() {
    // One event that is not JSON-RPC (dropped), then the end of the stream: the call must not
    // wait for its 30-second deadline.
    long start = System.nanoTime();
    CallError error =
        callFails(
            "eventThenJunk", OperationContext.builder().timeout(Duration.ofSeconds(30)).build());
    assertThat(error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
    assertThat(error.getMessage()).contains("without answering");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
  }

  @Test
  void aDeadlineEndsTheOpenStream() throws Exception {
    CallError error =
        callFails("hang", OperationContext.builder().timeout(Duration.ofMillis(300)).build());
    assertThat(error.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
    // The server keeps writing keep-alive comments; once the client has closed the stream a
    // write fails.
    assertThat(hangAborted.await(10, TimeUnit.SECONDS)).as("client closed the stream").isTrue();
  }

  @Test
  void closingDeletesTheSessionAndStopsTheTransportThreads() throws Exception {
    McpClientWrapper other =
        McpClients.createMcpClient("hostile2", McpClientConfig.streamableHttp(url).build());
    assertThat(threads("ops-mcp-http-hostile2")).isPositive();
    int before = deletes.get();
    other.close();
    assertThat(deletes.get()).isEqualTo(before + 1);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (threads("ops-mcp-http-hostile2") > 0 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(threads("ops-mcp-http-hostile2")).isZero();
  }

  private static long threads(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith(prefix))
        .count();
  }

  /** Speaks just enough MCP to initialize and list, then misbehaves per tool. */
  private static final class Hostile extends Handler.Abstract {
    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      switch (request.getMethod()) {
        case "GET" -> {
          response.setStatus(405);
          callback.succeeded();
          return true;
        }
        case "DELETE" -> {
          deletes.incrementAndGet();
          response.setStatus(200);
          callback.succeeded();
          return true;
        }
        default -> {}
      }
      JsonNode message = JSON.readTree(Content.Source.asString(request, StandardCharsets.UTF_8));
      response.getHeaders().put("Mcp-Session-Id", "hostile-session");
      if (!message.has("id")) {
        response.setStatus(202);
        callback.succeeded();
        return true;
      }
      String method = message.path("method").asString();
      ObjectNode answer = JSON.createObjectNode().put("jsonrpc", "2.0");
      answer.set("id", message.get("id"));
      ObjectNode result = answer.putObject("result");
      switch (method) {
        case "initialize" -> {
          result.put("protocolVersion", "2025-06-18");
          result.putObject("capabilities").putObject("tools");
          result.putObject("serverInfo").put("name", "hostile").put("version", "1");
        }
        case "tools/list" -> {
          // Pages of PAGE_SIZE tools; the cursor is the index of the page's first tool.
          listRequests.incrementAndGet();
          JsonNode cursor = message.path("params").path("cursor");
          int from = cursor.isString() ? Integer.parseInt(cursor.asString()) : 0;
          int to = Math.min(from + PAGE_SIZE, TOOLS.length);
          result.putArray("tools");
          for (String name : Arrays.copyOfRange(TOOLS, from, to)) {
            ObjectNode tool = result.withArray("tools").addObject().put("name", name);
            tool.putObject("inputSchema").put("type", "object");
          }
          if (to < TOOLS.length) {
            result.put("nextCursor", Integer.toString(to));
          }
        }
        case "tools/call" -> {
          return callTool(
              message.path("params").path("name").asString(), answer, response, callback);
        }
        default -> {}
      }
      json(response, callback, JSON.writeValueAsString(answer));
      return true;
    }

    private static boolean callTool(
        String tool, ObjectNode answer, Response response, Callback callback) {
      switch (tool) {
        case "primed" -> {
          // An empty event first (servers send one to prime resumption), then the answer.
          answer
              .withObject("result")
              .withArray("content")
              .addObject()
              .put("type", "text")
              .put("text", "ok");
          response.getHeaders().put("Content-Type", "text/event-stream");
          Content.Sink.write(
              response,
              true,
              "id: prime-1\ndata:\n\nevent: message\ndata: " + answer + "\n\n",
              callback);
        }
        case "hugeJson" -> {
          char[] padding = new char[OVER_LIMIT];
          Arrays.fill(padding, 'x');
          json(response, callback, "{\"padding\":\"" + new String(padding) + "\"}");
        }
        case "hugeEvent" -> {
          byte[] event = new byte[OVER_LIMIT];
          Arrays.fill(event, (byte) 'x');
          System.arraycopy("data: ".getBytes(StandardCharsets.US_ASCII), 0, event, 0, 6);
          response.getHeaders().put("Content-Type", "text/event-stream");
          response.write(true, ByteBuffer.wrap(event), callback);
        }
        case "status500" -> {
          response.setStatus(500);
          Content.Sink.write(response, true, "tool store on fire", callback);
        }
        case "redirect" -> {
          response.setStatus(307);
          response.getHeaders().put("Location", "http://127.0.0.1:1/elsewhere");
          callback.succeeded();
        }
        case "eventThenJunk" -> {
          response.getHeaders().put("Content-Type", "text/event-stream");
          Content.Sink.write(response, true, "data: not json\n\n", callback);
        }
        case "hang" -> {
          response.getHeaders().put("Content-Type", "text/event-stream");
          ping(response, callback);
        }
        default -> callback.failed(new IllegalArgumentException(tool));
      }
      return true;
    }

    private static void ping(Response response, Callback callback) {
      response.write(
          false,
          ByteBuffer.wrap(": waiting\n\n".getBytes(StandardCharsets.US_ASCII)),
          Callback.from(
              () -> pinger.schedule(() -> ping(response, callback), 50, TimeUnit.MILLISECONDS),
              failure -> {
                hangAborted.countDown();
                callback.failed(failure);
              }));
    }

    private static void json(Response response, Callback callback, String body) {
      response.getHeaders().put("Content-Type", "application/json");
      Content.Sink.write(response, true, body, callback);
    }
  }
}
