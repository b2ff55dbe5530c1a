package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.serving.OperationServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/** Secure defaults: Host, Origin, protocol version, sessions, the authenticator and scopes. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class McpSecurityTest {
  private static final String INIT =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}";

  private OperationRegistry registry;
  private OperationServer pipeline;
  private McpServer server;
  private McpHttpEndpoint http;

  @BeforeEach
  void start() {
    registry = Fixtures.general();
    pipeline = OperationServer.create(registry);
    server = McpServer.builder(pipeline).allowedOrigins("https://app.example").build();
    http = server.startHttp(0);
  }

  @AfterEach
  void stop() {
    http.close();
    server.close();
    pipeline.close();
    registry.close();
  }

  @Test
  void listensOnLoopbackByDefault() {
    assertThat(http.uri().getHost()).isEqualTo("127.0.0.1");
    assertThat(http.uri().getPath()).isEqualTo("/mcp");
  }

  @Test
  void aForeignHostIsRefused() throws Exception {
    RawHttp.Response evil = RawHttp.post(http.port(), Map.of("Host", "evil.example.com"), INIT);
    assertThat(evil.status()).isEqualTo(403);
    assertThat(evil.header("mcp-session-id")).isNull();
    RawHttp.Response rebound =
        RawHttp.post(http.port(), Map.of("Host", "evil.example.com:" + http.port()), INIT);
    assertThat(rebound.status()).isEqualTo(403);
    for (String ok : List.of("localhost:" + http.port(), "127.0.0.1", "[::1]:" + http.port())) {
      assertThat(RawHttp.post(http.port(), Map.of("Host", ok), INIT).status())
          .as(ok)
          .isEqualTo(200);
    }
    assertThat(http.sessionCount()).isEqualTo(3);
  }

  @Test
  void allowedHostsAreAcceptedBesidesLoopback() throws Exception {
    try (McpServer named = McpServer.builder(pipeline).allowedHosts("ops.example").build();
        McpHttpEndpoint endpoint = named.startHttp(0)) {
      assertThat(RawHttp.post(endpoint.port(), Map.of("Host", "ops.example:8080"), INIT).status())
          .isEqualTo(200);
      assertThat(
              RawHttp.post(endpoint.port(), Map.of("Origin", "https://ops.example"), INIT).status())
          .isEqualTo(200);
      assertThat(RawHttp.post(endpoint.port(), Map.of("Host", "other.example"), INIT).status())
          .isEqualTo(403);
    }
  }

  @Test
  void aForeignOriginIsRefused() throws Exception {
    for (String origin :
        List.of("http://evil.example.com", "null", "file://", "http://localhost.evil.com")) {
      assertThat(RawHttp.post(http.port(), Map.of("Origin", origin), INIT).status())
          .as(origin)
          .isEqualTo(403);
    }
    for (String origin :
        List.of(
            "http://localhost:3000", "http://127.0.0.1:" + http.port(), "https://app.example")) {
      assertThat(RawHttp.post(http.port(), Map.of("Origin", origin), INIT).status())
          .as(origin)
          .isEqualTo(200);
    }
  }

  @Test
  void anUnsupportedProtocolVersionIs400() throws Exception {
    TestClient client = TestClient.open(http);
    RawHttp.Response bad =
        RawHttp.post(
            http.port(),
            Map.of("Mcp-Session-Id", client.session, "MCP-Protocol-Version", "2024-01-01"),
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().at("/error/message").asString()).contains("2024-01-01");
    for (String version : List.of("2025-11-25", "2025-06-18", "2025-03-26")) {
      RawHttp.Response ok =
          RawHttp.post(
              http.port(),
              Map.of("Mcp-Session-Id", client.session, "MCP-Protocol-Version", version),
              "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
      assertThat(ok.status()).as(version).isEqualTo(200);
    }
  }

  @Test
  void sessionsAreRequiredAndEndWithDelete() throws Exception {
    String ping = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}";
    assertThat(RawHttp.post(http.port(), Map.of(), ping).status()).isEqualTo(400);
    assertThat(RawHttp.post(http.port(), Map.of("Mcp-Session-Id", "made-up"), ping).status())
        .isEqualTo(404);
    TestClient client = TestClient.open(http);
    assertThat(RawHttp.post(http.port(), Map.of("Mcp-Session-Id", client.session), INIT).status())
        .as("initialize inside a session")
        .isEqualTo(400);
    RawHttp.Response deleted =
        RawHttp.send(http.port(), "DELETE", Map.of("Mcp-Session-Id", client.session), null);
    assertThat(deleted.status()).isEqualTo(204);
    assertThat(RawHttp.post(http.port(), Map.of("Mcp-Session-Id", client.session), ping).status())
        .isEqualTo(404);
    assertThat(RawHttp.send(http.port(), "PUT", Map.of(), null).status()).isEqualTo(405);
  }

  @Test
  void withAnAuthenticatorScopesFilterTheListAndRefuseTheCall() throws Exception {
    McpAuthenticator tokens =
        token ->
            switch (token) {
              case "user-token" -> Optional.of(Identity.of("user"));
              case "admin-token" -> Optional.of(Identity.of("admin", "admin"));
              case "broken" -> throw new IllegalStateException("token store down");
              default -> Optional.empty();
            };
    McpResourceMetadata metadata =
        new McpResourceMetadata(
            URI.create("https://tools.example/mcp"),
            List.of(URI.create("https://auth.example")),
            List.of("admin"));
    try (McpServer secured = McpServer.builder(pipeline).authenticator(tokens, metadata).build();
        McpHttpEndpoint endpoint = secured.startHttp(0)) {
      RawHttp.Response anonymous = RawHttp.post(endpoint.port(), Map.of(), INIT);
      assertThat(anonymous.status()).isEqualTo(401);
      assertThat(anonymous.header("www-authenticate"))
          .startsWith("Bearer")
          .contains(
              "resource_metadata=\"https://tools.example/.well-known/oauth-protected-resource/mcp\"");
      RawHttp.Response wrong =
          RawHttp.post(endpoint.port(), Map.of("Authorization", "Bearer nope"), INIT);
      assertThat(wrong.status()).isEqualTo(401);
      assertThat(wrong.header("www-authenticate")).contains("error=\"invalid_token\"");
      assertThat(
              RawHttp.post(endpoint.port(), Map.of("Authorization", "Bearer broken"), INIT)
                  .status())
          .isEqualTo(401);

      HttpResponse<String> document =
          TestClient.HTTP.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "http://127.0.0.1:"
                              + endpoint.port()
                              + "/.well-known/oauth-protected-resource/mcp"))
                  .build(),
              HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      assertThat(document.statusCode()).isEqualTo(200);
      JsonNode meta = Fixtures.json(document.body());
      assertThat(meta.get("resource").asString()).isEqualTo("https://tools.example/mcp");
      assertThat(meta.at("/authorization_servers/0").asString()).isEqualTo("https://auth.example");

      TestClient user =
          TestClient.open(endpoint.uri(), Map.of("Authorization", "Bearer user-token"));
      assertThat(user.request("tools/list", Fixtures.json("{}")).at("/result/tools").toString())
          .doesNotContain("admin.reset")
          .contains("math.add");
      HttpResponse<String> refused =
          user.post(
              TestClient.message(
                  "tools/call", Fixtures.json("{\"name\":\"admin.reset\",\"arguments\":{}}"), 3));
      assertThat(refused.statusCode()).isEqualTo(403);
      assertThat(refused.headers().firstValue("www-authenticate").orElseThrow())
          .contains("error=\"insufficient_scope\"")
          // The scope the operation needs, for the client's step-up (RFC 6750, section 3).
          .contains("scope=\"admin\"");

      TestClient admin =
          TestClient.open(endpoint.uri(), Map.of("Authorization", "Bearer admin-token"));
      assertThat(admin.request("tools/list", Fixtures.json("{}")).at("/result/tools").toString())
          .contains("admin.reset");
      assertThat(admin.call("admin.reset", "{}").at("/result/structuredContent/reset").asBoolean())
          .isTrue();

      // A session belongs to the identity that opened it: the user cannot ride the admin's.
      TestClient hijack =
          new TestClient(endpoint.uri(), Map.of("Authorization", "Bearer user-token"));
      hijack.session = admin.session;
      assertThat(hijack.post("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}").statusCode())
          .isEqualTo(404);
    }
  }

  @Test
  void withoutAnAuthenticatorAScopedToolIsAJsonRpcError() throws Exception {
    TestClient client = TestClient.open(http);
    JsonNode refused = client.call("admin.reset", "{}");
    assertThat(refused.at("/error/code").asInt()).isEqualTo(-32001);
    assertThat(refused.at("/error/data/code").asString()).isEqualTo("UNAUTHENTICATED");
  }
}
