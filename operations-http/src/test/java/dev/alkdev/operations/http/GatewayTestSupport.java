package dev.alkdev.operations.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A JDK client and the small helpers the end-to-end tests share. */
class GatewayTestSupport {
  static final JsonMapper JSON = JsonMapper.builder().build();
  static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  static HttpRequest.Builder request(HttpGateway gateway, String path) {
    return HttpRequest.newBuilder(gateway.uri().resolve(path)).timeout(Duration.ofSeconds(10));
  }

  static HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
    return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> get(HttpGateway gateway, String path)
      throws IOException, InterruptedException {
    return send(request(gateway, path).GET().build());
  }

  static HttpResponse<String> post(HttpGateway gateway, String path, String json)
      throws IOException, InterruptedException {
    return send(
        request(gateway, path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build());
  }

  static JsonNode json(HttpResponse<String> response) {
    return JSON.readTree(response.body());
  }

  static URI uri(HttpGateway gateway, String path) {
    return gateway.uri().resolve(path);
  }
}
