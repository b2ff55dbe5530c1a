package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.mcp.McpClientConfig;
import dev.alkdev.operations.mcp.McpClientWrapper;
import dev.alkdev.operations.mcp.McpClients;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.JsonNode;

/**
 * Issue 6's benchmark: one MCP tool call to an SDK server on Jetty (in this JVM, loopback,
 * streamable HTTP) through our operation (registry, handler, envelope), against the SDK client's
 * own {@code callTool} and a raw JDK {@code HttpClient} POST of the same JSON-RPC {@code
 * tools/call} (blocking {@code send}, the cheapest way to use that client). Target: the operation
 * at most 1.3x the raw POST, p50 under 1 ms. Sample mode for p50/p99.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class McpCallBenchmark {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private Server jetty;
  private McpSyncServer server;
  private McpClientWrapper wrapper;
  private OperationRegistry registry;
  private McpAsyncClient sdkClient;
  private HttpClient http;
  private HttpRequest rawCall;
  private McpSchema.CallToolRequest sdkRequest;
  private Map<String, Object> input;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    HttpServletStreamableServerTransportProvider provider =
        HttpServletStreamableServerTransportProvider.builder()
            .jsonMapper(McpJsonDefaults.getMapper())
            .mcpEndpoint("/mcp")
            .build();
    server =
        McpServer.sync(provider)
            .serverInfo("bench", "1.0.0")
            .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
            .tools(
                McpServerFeatures.SyncToolSpecification.builder()
                    .tool(
                        McpSchema.Tool.builder()
                            .name("echo")
                            .description("Echoes")
                            .inputSchema(
                                McpJsonDefaults.getMapper(),
                                "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}")
                            .build())
                    .callHandler(
                        (exchange, request) ->
                            McpSchema.CallToolResult.builder()
                                .addTextContent(String.valueOf(request.arguments().get("text")))
                                .build())
                    .build())
            .build();
    jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.addServlet(new ServletHolder(provider), "/*");
    jetty.setHandler(context);
    jetty.start();
    String base = "http://127.0.0.1:" + connector.getLocalPort();

    input = Map.of("text", "ping");
    wrapper =
        McpClients.createMcpClient("bench", McpClientConfig.streamableHttp(base + "/mcp").build());
    registry = OperationRegistry.create();
    wrapper.registerInto(registry);

    sdkClient =
        McpClient.async(HttpClientStreamableHttpTransport.builder(base).endpoint("/mcp").build())
            .requestTimeout(TIMEOUT)
            .build();
    sdkClient.initialize().block(TIMEOUT);
    sdkRequest = new McpSchema.CallToolRequest("echo", input);

    http = HttpClient.newHttpClient();
    String session = rawInitialize(base + "/mcp");
    rawCall =
        post(base + "/mcp", session)
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
                        + "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"ping\"}}}"))
            .build();
    if (!baselineRawHttpPost().contains("ping")
        || !operation().data().toString().contains("ping")) {
      throw new IllegalStateException("echo failed");
    }
  }

  private String rawInitialize(String url) throws Exception {
    HttpResponse<String> init =
        http.send(
            post(url, null)
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                            + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                            + "\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    String session = init.headers().firstValue("mcp-session-id").orElseThrow();
    http.send(
        post(url, session)
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"))
            .build(),
        HttpResponse.BodyHandlers.discarding());
    return session;
  }

  private static HttpRequest.Builder post(String url, String session) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(TIMEOUT)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-06-18");
    return session == null ? builder : builder.header("Mcp-Session-Id", session);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    wrapper.close();
    registry.close();
    sdkClient.closeGracefully().block(TIMEOUT);
    server.close();
    jetty.stop();
  }

  /** The floor: one HTTP POST of the JSON-RPC call, the answer read as text. */
  @Benchmark
  public String baselineRawHttpPost() throws Exception {
    return http.send(rawCall, HttpResponse.BodyHandlers.ofString()).body();
  }

  /** The SDK client's own callTool, which our handler wraps. */
  @Benchmark
  public McpSchema.CallToolResult baselineSdkCallTool() {
    return sdkClient.callTool(sdkRequest).block(TIMEOUT);
  }

  /** The tool as an operation: registry execute, input check, handler, envelope. */
  @Benchmark
  public ResponseEnvelope<JsonNode> operation() throws Exception {
    return registry.execute("bench.echo", input).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }
}
