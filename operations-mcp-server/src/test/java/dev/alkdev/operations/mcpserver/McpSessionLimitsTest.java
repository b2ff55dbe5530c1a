package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.serving.ConnectionLimits;
import dev.alkdev.operations.serving.OperationServer;
import dev.alkdev.operations.testing.SlowClients;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One client cannot lock others out of the session table (issue 31, finding 3), and the endpoint's
 * connections cannot be held open by trickling (finding 4).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class McpSessionLimitsTest {
  static final String INIT =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}";
  static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";
  static final String ADD =
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"math.add\",\"arguments\":{\"a\":1,\"b\":2}}}";

  final OperationRegistry registry = Fixtures.general();
  final OperationServer pipeline = OperationServer.create(registry);
  final List<Socket> streams = new ArrayList<>();
  McpServer server;
  McpHttpEndpoint http;

  void start(McpServer.Builder builder) {
    server = builder.build();
    http = server.startHttp(0);
  }

  @AfterEach
  void stop() throws Exception {
    for (Socket stream : streams) {
      stream.close();
    }
    http.close();
    server.close();
    pipeline.close();
    registry.close();
  }

  String initialize(String from) throws Exception {
    RawHttp.Response response = RawHttp.postFrom(http.port(), from, Map.of(), INIT);
    assertThat(response.status()).as(response.body()).isEqualTo(200);
    return response.header("mcp-session-id");
  }

  RawHttp.Response request(String from, String session, String json) throws Exception {
    return RawHttp.postFrom(
        http.port(),
        from,
        Map.of("Mcp-Session-Id", session, "MCP-Protocol-Version", "2025-11-25"),
        json);
  }

  /** Opens the session's GET stream and keeps it open: the session is in use. */
  void openStream(String session) throws Exception {
    Socket socket = new Socket("127.0.0.1", http.port());
    streams.add(socket);
    OutputStream out = socket.getOutputStream();
    out.write(
        ("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:"
                + http.port()
                + "\r\nAccept: text/event-stream\r\nMcp-Session-Id: "
                + session
                + "\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    socket.setSoTimeout(10_000);
    InputStream in = socket.getInputStream();
    byte[] head = new byte[12];
    assertThat(in.readNBytes(head, 0, 12)).isEqualTo(12);
    assertThat(new String(head, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
  }

  @Test
  void aFloodFromOneClientLeavesRoomForAnother() throws Exception {
    start(McpServer.builder(pipeline).sessions(50, Duration.ofMinutes(30)));
    for (int i = 0; i < 500; i++) {
      initialize("127.0.0.1");
      assertThat(http.sessionCount()).isLessThanOrEqualTo(50);
    }
    // The table is full of the flood's never-used sessions: a newcomer evicts one of them.
    String newcomer = initialize("127.0.0.2");
    assertThat(
            request("127.0.0.2", newcomer, ADD)
                .message()
                .at("/result/structuredContent/sum")
                .asDouble())
        .isEqualTo(3.0);
    assertThat(http.sessionStats().refused()).isZero();
    assertThat(http.sessionStats().evicted()).isGreaterThanOrEqualTo(451);
  }

  @Test
  void aClientAtItsCapEvictsItsOwnIdlestSessionNeverOneInUse() throws Exception {
    start(McpServer.builder(pipeline).sessionsPerClient(3));
    String streaming = initialize("127.0.0.1");
    openStream(streaming);
    String used = initialize("127.0.0.1");
    assertThat(request("127.0.0.1", used, LIST).status()).isEqualTo(200);
    String unused = initialize("127.0.0.1");
    String other = initialize("127.0.0.2"); // another client's is not touched

    String fourth = initialize("127.0.0.1");
    // The never-used one went first.
    assertThat(request("127.0.0.1", unused, LIST).status()).isEqualTo(404);
    assertThat(request("127.0.0.1", used, LIST).status()).isEqualTo(200);
    assertThat(request("127.0.0.1", fourth, LIST).status()).isEqualTo(200);

    // Now the idlest not in use: `used` (listed before `fourth`); the streaming one stays.
    initialize("127.0.0.1");
    assertThat(request("127.0.0.1", used, LIST).status()).isEqualTo(404);
    assertThat(request("127.0.0.2", other, LIST).status()).isEqualTo(200);
    assertThat(http.sessionStats().evicted()).isEqualTo(2);
  }

  @Test
  void aClientWhoseSessionsAreAllInUseIsRefusedWith429() throws Exception {
    start(McpServer.builder(pipeline).sessionsPerClient(2));
    openStream(initialize("127.0.0.1"));
    openStream(initialize("127.0.0.1"));
    RawHttp.Response refused = RawHttp.postFrom(http.port(), "127.0.0.1", Map.of(), INIT);
    assertThat(refused.status()).isEqualTo(429);
    assertThat(refused.header("retry-after")).isEqualTo("1");
    assertThat(refused.json().at("/error/message").asString()).contains("its most sessions (2)");
    assertThat(http.sessionStats().refused()).isEqualTo(1);
    // Another client is not refused.
    initialize("127.0.0.2");
  }

  @Test
  void aSessionNeverUsedExpiresSoonWhileAUsedOneStays() throws Exception {
    start(McpServer.builder(pipeline).unusedSessionTimeout(Duration.ofMillis(300)));
    String unused = initialize("127.0.0.1");
    String used = initialize("127.0.0.1");
    assertThat(request("127.0.0.1", used, LIST).status()).isEqualTo(200);
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (http.sessionCount() > 1 && System.nanoTime() < end) {
      Thread.sleep(50);
    }
    assertThat(http.sessionCount()).isEqualTo(1);
    assertThat(request("127.0.0.1", unused, LIST).status()).isEqualTo(404);
    assertThat(request("127.0.0.1", used, LIST).status()).isEqualTo(200);
    assertThat(http.sessionStats().expired()).isEqualTo(1);
  }

  @Test
  void readinessReportsThePipelinesSaturation() throws Exception {
    OperationServer full =
        OperationServer.builder(registry).maxConcurrentCalls(1).maxCallsPerIdentity(1).build();
    start(McpServer.builder(full));
    RawHttp.Response health = RawHttp.send(http.port(), "GET", Map.of(), null, "/healthz");
    assertThat(health.status()).isEqualTo(200);
    RawHttp.Response ready = RawHttp.send(http.port(), "GET", Map.of(), null, "/readyz");
    assertThat(ready.status()).isEqualTo(200);
    assertThat(ready.json().get("status").asString()).isEqualTo("ready");
    full.close(); // a closed pipeline drains: not ready, still alive
    ready = RawHttp.send(http.port(), "GET", Map.of(), null, "/readyz");
    assertThat(ready.status()).isEqualTo(503);
    assertThat(ready.json().get("status").asString()).isEqualTo("draining");
    assertThat(ready.header("retry-after")).isEqualTo("1");
  }

  @Test
  void trickledHeadsAndBodiesAreCut() throws Exception {
    start(
        McpServer.builder(pipeline)
            .connectionLimits(
                ConnectionLimits.defaults()
                    .withRequestHeadTimeout(Duration.ofMillis(500))
                    .withMinRequestRate(100, Duration.ofMillis(500))));
    assertThat(
            SlowClients.trickleHead(
                http.port(), "/mcp", Duration.ofMillis(100), Duration.ofSeconds(20)))
        .isTrue();
    assertThat(
            SlowClients.trickleBody(
                http.port(),
                "/mcp",
                "application/json",
                1000,
                Duration.ofMillis(100),
                Duration.ofSeconds(20)))
        .isTrue();
    assertThat(http.connectionStats().cutSlowHead()).isEqualTo(1);
    assertThat(http.connectionStats().cutSlowBody()).isEqualTo(1);
    initialize("127.0.0.1");
  }
}
