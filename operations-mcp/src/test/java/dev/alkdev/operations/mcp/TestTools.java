package dev.alkdev.operations.mcp;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The tools every test server offers, for the HTTP server in the test JVM and the stdio main. */
final class TestTools {
  static final String NUMBER_IN =
      "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}},"
          + "\"required\":[\"a\",\"b\"]}";
  static final String SUM_OUT =
      "{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"number\"}},\"required\":[\"sum\"]}";
  static final String TEXT_IN =
      "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}";

  static final AtomicInteger slowFinished = new AtomicInteger();
  static volatile CountDownLatch slowRelease = new CountDownLatch(1);

  private TestTools() {}

  static McpSchema.Tool tool(String name, String description, String in, String out) {
    McpSchema.Tool.Builder builder =
        McpSchema.Tool.builder()
            .name(name)
            .description(description)
            .inputSchema(McpJsonDefaults.getMapper(), in);
    if (out != null) {
      builder.outputSchema(McpJsonDefaults.getMapper(), out);
    }
    return builder.build();
  }

  static List<McpServerFeatures.SyncToolSpecification> all() {
    return List.of(
        spec(
            McpSchema.Tool.builder()
                .name("echo")
                .description("Echoes text")
                .inputSchema(McpJsonDefaults.getMapper(), TEXT_IN)
                .annotations(new McpSchema.ToolAnnotations("Echo", true, false, true, false, null))
                .build(),
            (ex, req) ->
                McpSchema.CallToolResult.builder()
                    .addTextContent("echo: " + req.arguments().get("text"))
                    .build()),
        spec(
            tool("add", "Adds two numbers", NUMBER_IN, SUM_OUT),
            (ex, req) -> {
              double sum =
                  ((Number) req.arguments().get("a")).doubleValue()
                      + ((Number) req.arguments().get("b")).doubleValue();
              return McpSchema.CallToolResult.builder()
                  .structuredContent(Map.of("sum", sum))
                  .addTextContent("{\"sum\":" + sum + "}")
                  .meta(Map.of("trace", "t-1"))
                  .build();
            }),
        spec(
            tool("add-as-text", "Adds, answers JSON text only", NUMBER_IN, SUM_OUT),
            (ex, req) -> {
              double sum =
                  ((Number) req.arguments().get("a")).doubleValue()
                      + ((Number) req.arguments().get("b")).doubleValue();
              return McpSchema.CallToolResult.builder()
                  .addTextContent("{\"sum\":" + sum + "}")
                  .build();
            }),
        spec(
            tool("fail", "Always an error result", TEXT_IN, null),
            (ex, req) ->
                McpSchema.CallToolResult.builder()
                    .addTextContent("it failed")
                    .isError(true)
                    .build()),
        spec(
            tool("throws", "Handler throws", TEXT_IN, null),
            (ex, req) -> {
              throw new IllegalStateException("boom");
            }),
        spec(
            tool("media", "Returns every block type", TEXT_IN, null),
            (ex, req) ->
                McpSchema.CallToolResult.builder()
                    .addContent(new McpSchema.ImageContent(null, "aW1n", "image/png"))
                    .addContent(new McpSchema.AudioContent(null, "YXVk", "audio/wav"))
                    .addContent(
                        new McpSchema.EmbeddedResource(
                            null,
                            new McpSchema.TextResourceContents(
                                "file:///a.txt", "text/plain", "hello")))
                    .addContent(
                        new McpSchema.EmbeddedResource(
                            null,
                            new McpSchema.BlobResourceContents(
                                "file:///b.bin", "application/octet-stream", "AAEC")))
                    .addContent(
                        new McpSchema.ResourceLink(
                            "c", null, "file:///c.txt", "a link", "text/plain", null, null, null))
                    .build()),
        spec(
            tool("slow", "Waits until released or 10 s", TEXT_IN, null),
            (ex, req) -> {
              try {
                slowRelease.await(10, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              slowFinished.incrementAndGet();
              return McpSchema.CallToolResult.builder().addTextContent("done").build();
            }),
        spec(
            tool("progress", "Reports progress three times", TEXT_IN, null),
            (ex, req) -> {
              Object token = req.meta() == null ? null : req.meta().get("progressToken");
              for (int i = 1; i <= 3 && token != null; i++) {
                ex.progressNotification(
                    new McpSchema.ProgressNotification(token, (double) i, 3.0, "step " + i, null));
              }
              // The W3C trace context the client put in _meta, echoed for the tracing test.
              Object traceparent = req.meta() == null ? null : req.meta().get("traceparent");
              return McpSchema.CallToolResult.builder()
                  .addTextContent(traceparent == null ? "progressed" : "progressed " + traceparent)
                  .build();
            }),
        spec(
            tool("files/read.v2", "A name core does not allow as is", TEXT_IN, null),
            (ex, req) -> McpSchema.CallToolResult.builder().addTextContent("read").build()));
  }

  static McpServerFeatures.SyncToolSpecification spec(
      McpSchema.Tool tool,
      java.util.function.BiFunction<
              io.modelcontextprotocol.server.McpSyncServerExchange,
              McpSchema.CallToolRequest,
              McpSchema.CallToolResult>
          handler) {
    return McpServerFeatures.SyncToolSpecification.builder()
        .tool(tool)
        .callHandler(handler)
        .build();
  }

  static McpSchema.ServerCapabilities capabilities() {
    return McpSchema.ServerCapabilities.builder().tools(true).build();
  }

  static void addExtra(McpSyncServer server, String description) {
    server.addTool(
        spec(
            tool("extra", description, TEXT_IN, null),
            (ex, req) -> McpSchema.CallToolResult.builder().addTextContent("extra").build()));
  }
}
