package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.transport.nats.NatsServer;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two {@code ops serve --mcp-http --nats --mcp-tasks all} nodes on a real nats-server: a task
 * created at one is read at the other (the node that runs it answers over NATS), and once that node
 * is stopped its tasks are gone, which the other says as for any unknown task.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class McpTasksMeshTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String META =
      "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
          + "\"io.modelcontextprotocol/clientCapabilities\":"
          + "{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}}";

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static JsonNode post(int port, String method, String name, String params)
      throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
            .timeout(Duration.ofSeconds(15))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method)
            .header("Mcp-Name", name)
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\""
                        + method
                        + "\",\"params\":{"
                        + params
                        + ","
                        + META
                        + "}}"))
            .build();
    return JSON.readTree(HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body());
  }

  private static JsonNode get(int port, String taskId) throws Exception {
    return post(port, "tasks/get", taskId, "\"taskId\":\"" + taskId + "\"");
  }

  @Test
  void aTaskIsReadAtAnyNodeOfTheMesh() throws Exception {
    try (NatsServer nats = NatsServer.start()) {
      int portA = freePort();
      int portB = freePort();
      CliRun.Background a =
          CliRun.Background.start(
              "serve",
              "--mcp-http",
              Integer.toString(portA),
              "--nats",
              nats.url(),
              "--node-id",
              "mesh-a",
              "--mcp-tasks",
              "all");
      CliRun.Background b =
          CliRun.Background.start(
              "serve",
              "--mcp-http",
              Integer.toString(portB),
              "--nats",
              nats.url(),
              "--node-id",
              "mesh-b",
              "--mcp-tasks",
              "all");
      try {
        a.awaitErr("ready;");
        b.awaitErr("ready;");
        JsonNode created =
            post(
                portA,
                "tools/call",
                "demo.clock",
                "\"name\":\"demo.clock\",\"arguments\":{\"ticks\":5,\"intervalMs\":100}");
        assertThat(created.at("/result/resultType").asString())
            .as(created.toString())
            .isEqualTo("task");
        String taskId = created.at("/result/taskId").asString();

        JsonNode atB = get(portB, taskId);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (atB.at("/result/status").asString().equals("working") && System.nanoTime() < until) {
          Thread.sleep(50);
          atB = get(portB, taskId);
        }
        assertThat(atB.at("/result/status").asString()).as(atB.toString()).isEqualTo("completed");
        assertThat(atB.at("/result/result/structuredContent/items").size()).isEqualTo(5);

        // The node that ran it stops: its tasks went with it.
        a.stop().close();
        assertThat(a.exit().get(30, TimeUnit.SECONDS)).isZero();
        assertThat(get(portB, taskId).at("/error/code").asInt()).isEqualTo(-32602);
      } finally {
        a.stop().close();
        b.stop().close();
        b.exit().get(30, TimeUnit.SECONDS);
      }
    }
  }
}
