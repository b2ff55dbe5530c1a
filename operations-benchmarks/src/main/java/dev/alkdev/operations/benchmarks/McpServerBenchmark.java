package dev.alkdev.operations.benchmarks;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.mcpserver.McpHttpEndpoint;
import dev.alkdev.operations.serving.OperationServer;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 18's benchmark: one {@code tools/call} of an echo tool through our MCP server (operations
 * over the serving pipeline, Jetty core handler) against the MCP Java SDK's own server
 * (HttpServletStreamableServerTransportProvider on Jetty's ee10 servlet container) serving the same
 * tool, both on Jetty 12.1.12 in this JVM, called by the same client: a JDK HttpClient POST of the
 * same JSON-RPC, each thread with its own session. Targets: p50 at most 0.8x the SDK server's;
 * throughput with 16 concurrent clients at least the SDK's.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class McpServerBenchmark {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final String INPUT_SCHEMA =
      "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}";

  private Server sdkJetty;
  private McpSyncServer sdkServer;
  private OperationRegistry registry;
  private OperationServer pipeline;
  private dev.alkdev.operations.mcpserver.McpServer ours;
  private McpHttpEndpoint ourHttp;
  String sdkUrl;
  String ourUrl;
  final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    HttpServletStreamableServerTransportProvider provider =
        HttpServletStreamableServerTransportProvider.builder()
            .jsonMapper(McpJsonDefaults.getMapper())
            .mcpEndpoint("/mcp")
            .build();
    sdkServer =
        McpServer.sync(provider)
            .serverInfo("bench", "1.0.0")
            .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
            .tools(
                McpServerFeatures.SyncToolSpecification.builder()
                    .tool(
                        McpSchema.Tool.builder()
                            .name("echo")
                            .description("Echoes")
                            .inputSchema(McpJsonDefaults.getMapper(), INPUT_SCHEMA)
                            .build())
                    .callHandler(
                        (exchange, request) ->
                            McpSchema.CallToolResult.builder()
                                .addTextContent(String.valueOf(request.arguments().get("text")))
                                .build())
                    .build())
            .build();
    sdkJetty = new Server();
    ServerConnector connector = new ServerConnector(sdkJetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    sdkJetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.addServlet(new ServletHolder(provider), "/*");
    sdkJetty.setHandler(context);
    sdkJetty.start();
    sdkUrl = "http://127.0.0.1:" + connector.getLocalPort() + "/mcp";

    registry = OperationRegistry.create();
    registry.register(
        OperationSpec.builder("bench", "echo")
            .type(OperationType.QUERY)
            .description("Echoes")
            .inputSchema(INPUT_SCHEMA)
            .build(),
        Handler.blocking((input, ctx) -> input.path("text").asString()));
    pipeline = OperationServer.create(registry);
    ours = dev.alkdev.operations.mcpserver.McpServer.builder(pipeline).build();
    ourHttp = ours.startHttp(0);
    ourUrl = ourHttp.uri().toString();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    ourHttp.close();
    ours.close();
    pipeline.close();
    registry.close();
    sdkServer.close();
    sdkJetty.stop();
  }

  /** One client: its own session on each server, and its own request ids. */
  @State(Scope.Thread)
  public static class Client {
    private static final AtomicLong IDS = new AtomicLong();
    HttpRequest sdkCall;
    HttpRequest ourCall;
    HttpRequest ourModernCall;

    @Setup(Level.Trial)
    public void setUp(McpServerBenchmark bench) throws Exception {
      long id = IDS.incrementAndGet();
      sdkCall = call(bench, bench.sdkUrl, "echo", id);
      ourCall = call(bench, bench.ourUrl, "bench.echo", id);
      ourModernCall = modernCall(bench.ourUrl, "bench.echo", id);
      if (!send(bench, sdkCall).contains("ping")
          || !send(bench, ourCall).contains("ping")
          || !send(bench, ourModernCall).contains("ping")) {
        throw new IllegalStateException("echo failed");
      }
    }

    private static HttpRequest call(McpServerBenchmark bench, String url, String tool, long id)
        throws Exception {
      HttpResponse<String> init =
          bench.http.send(
              post(url, null)
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                              + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                              + "\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      String session = init.headers().firstValue("mcp-session-id").orElseThrow();
      bench.http.send(
          post(url, session)
              .POST(
                  HttpRequest.BodyPublishers.ofString(
                      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"))
              .build(),
          HttpResponse.BodyHandlers.discarding());
      return post(url, session)
          .POST(
              HttpRequest.BodyPublishers.ofString(
                  "{\"jsonrpc\":\"2.0\",\"id\":"
                      + id
                      + ",\"method\":\"tools/call\",\"params\":{\"name\":\""
                      + tool
                      + "\",\"arguments\":{\"text\":\"ping\"}}}"))
          .build();
    }
  }

  /** MCP 2026-07-28: no session; the revision and capabilities in the request's metadata. */
  static HttpRequest modernCall(String url, String tool, long id) {
    return HttpRequest.newBuilder(URI.create(url))
        .timeout(TIMEOUT)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", tool)
        .POST(
            HttpRequest.BodyPublishers.ofString(
                "{\"jsonrpc\":\"2.0\",\"id\":"
                    + id
                    + ",\"method\":\"tools/call\",\"params\":{\"name\":\""
                    + tool
                    + "\",\"arguments\":{\"text\":\"ping\"},\"_meta\":{"
                    + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                    + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}"))
        .build();
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

  static String send(McpServerBenchmark bench, HttpRequest request) throws Exception {
    return bench.http.send(request, HttpResponse.BodyHandlers.ofString()).body();
  }

  /** The baseline: the SDK's server. */
  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  public String sdkServer(Client client) throws Exception {
    return send(this, client.sdkCall);
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  public String ourServer(Client client) throws Exception {
    return send(this, client.ourCall);
  }

  /**
   * The same call to our server in MCP 2026-07-28 (no session; the SDK's server does not speak that
   * revision, so ourServer, the 2025 session call, is its baseline).
   */
  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  public String ourServerModern(Client client) throws Exception {
    return send(this, client.ourModernCall);
  }

  /** 16 clients at once against the SDK's server: calls per second. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Threads(16)
  public String sdkServer16(Client client) throws Exception {
    return send(this, client.sdkCall);
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Threads(16)
  public String ourServer16(Client client) throws Exception {
    return send(this, client.ourCall);
  }
}
