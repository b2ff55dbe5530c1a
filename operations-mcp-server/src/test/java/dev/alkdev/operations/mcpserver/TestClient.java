package dev.alkdev.operations.mcpserver;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** A minimal streamable HTTP client on the JDK's HttpClient: one session, raw JSON-RPC. */
final class TestClient {
  static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  final URI uri;
  final Map<String, String> headers;
  String session;
  private final AtomicInteger ids = new AtomicInteger();

  TestClient(URI uri, Map<String, String> headers) {
    this.uri = uri;
    this.headers = headers;
  }

  static TestClient open(McpHttpEndpoint endpoint) throws Exception {
    return open(endpoint.uri(), Map.of());
  }

  static TestClient open(URI uri, Map<String, String> headers) throws Exception {
    TestClient client = new TestClient(uri, headers);
    HttpResponse<String> response =
        client.post(
            "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    if (response.statusCode() != 200) {
      throw new IllegalStateException(
          "initialize: " + response.statusCode() + " " + response.body());
    }
    client.session = response.headers().firstValue("mcp-session-id").orElseThrow();
    client.notify("notifications/initialized", null);
    return client;
  }

  HttpResponse<String> post(String json) throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(json));
    headers.forEach(request::header);
    if (session != null) {
      request.header("Mcp-Session-Id", session);
      request.header("MCP-Protocol-Version", "2025-06-18");
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Sends a request and returns its response message (the last SSE event when streamed). */
  JsonNode request(String method, JsonNode params) throws IOException, InterruptedException {
    HttpResponse<String> response = post(message(method, params, ids.incrementAndGet()));
    if (response.statusCode() != 200) {
      throw new IllegalStateException(
          method + ": HTTP " + response.statusCode() + " " + response.body());
    }
    return lastMessage(response);
  }

  JsonNode call(String tool, String arguments) throws IOException, InterruptedException {
    ObjectNode params = Fixtures.JSON.createObjectNode();
    params.put("name", tool);
    params.set("arguments", Fixtures.json(arguments));
    return request("tools/call", params);
  }

  void notify(String method, JsonNode params) throws IOException, InterruptedException {
    ObjectNode message = Fixtures.JSON.createObjectNode();
    message.put("jsonrpc", "2.0");
    message.put("method", method);
    if (params != null) {
      message.set("params", params);
    }
    HttpResponse<String> response = post(message.toString());
    if (response.statusCode() != 202) {
      throw new IllegalStateException(method + ": HTTP " + response.statusCode());
    }
  }

  static String message(String method, JsonNode params, Object id) {
    ObjectNode message = Fixtures.JSON.createObjectNode();
    message.put("jsonrpc", "2.0");
    if (id instanceof Number n) {
      message.put("id", n.longValue());
    } else {
      message.put("id", String.valueOf(id));
    }
    message.put("method", method);
    if (params != null) {
      message.set("params", params);
    }
    return message.toString();
  }

  static JsonNode lastMessage(HttpResponse<String> response) {
    String type = response.headers().firstValue("content-type").orElse("");
    if (type.startsWith("text/event-stream")) {
      String last = null;
      for (String line : response.body().split("\n")) {
        if (line.startsWith("data: ")) {
          last = line.substring(6);
        }
      }
      return Fixtures.json(last);
    }
    return Fixtures.json(response.body());
  }
}
