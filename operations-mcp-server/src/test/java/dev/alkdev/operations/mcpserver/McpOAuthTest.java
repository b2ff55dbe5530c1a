package dev.alkdev.operations.mcpserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.mcp.McpAuthorizationPrompt;
import dev.alkdev.operations.mcp.McpClientConfig;
import dev.alkdev.operations.mcp.McpClientOptions;
import dev.alkdev.operations.mcp.McpClientWrapper;
import dev.alkdev.operations.mcp.McpClients;
import dev.alkdev.operations.mcp.McpOAuth;
import dev.alkdev.operations.mcp.McpOAuthTokens;
import dev.alkdev.operations.mcp.McpTokenStore;
import dev.alkdev.operations.serving.OperationServer;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Our MCP client's OAuth against our MCP server with an authenticator and a real (test)
 * authorization server: discovery, dynamic registration, PKCE, resource indicators and the {@code
 * iss} check end to end, then what the conformance suite's servers cannot show: tokens kept in a
 * file and used by the next client without asking the user, a refresh when the access token stops
 * working, the client credentials grant, and a refused authorization.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class McpOAuthTest {
  @TempDir Path dir;

  private TestAuthorizationServer authorizationServer;
  private OperationRegistry served;
  private OperationServer pipeline;
  private McpServer server;
  private McpHttpEndpoint http;

  @BeforeEach
  void start() throws Exception {
    authorizationServer = new TestAuthorizationServer();
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    URI resource = URI.create("http://127.0.0.1:" + port + "/mcp");
    served = Fixtures.general();
    pipeline = OperationServer.create(served);
    server =
        McpServer.builder(pipeline)
            .authenticator(
                token ->
                    authorizationServer
                        .validate(token)
                        .map(scopes -> Identity.of("user", scopes.toArray(String[]::new))),
                new McpResourceMetadata(
                    resource, List.of(authorizationServer.issuer()), List.of("tools")))
            .build();
    http = server.startHttp(port);
  }

  @AfterEach
  void stop() {
    http.close();
    server.close();
    pipeline.close();
    served.close();
    authorizationServer.close();
  }

  private McpClientWrapper connect(McpOAuth oauth, McpClientConfig.Era era) {
    return McpClients.createMcpClient(
        "secured",
        McpClientConfig.streamableHttp(http.uri().toString())
            .era(era)
            .oauth(oauth)
            .initializeTimeout(Duration.ofSeconds(15))
            .requestTimeout(Duration.ofSeconds(15))
            .build(),
        McpClientOptions.defaults());
  }

  private McpOAuth headless(McpTokenStore store) {
    return McpOAuth.builder()
        .prompt(McpAuthorizationPrompt.headless())
        .tokenStore(store)
        .authorizationTimeout(Duration.ofSeconds(10))
        .build();
  }

  private static Object add(McpClientWrapper client) throws Exception {
    try (OperationRegistry back = OperationRegistry.create()) {
      client.registerInto(back);
      return back.execute("secured.math.add", Map.of("a", 2, "b", 3)).get(15, TimeUnit.SECONDS);
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = McpClientConfig.Era.class,
      names = {"LEGACY", "MODERN"})
  void authorizesOnceThenReusesAndRefreshesTheKeptTokens(McpClientConfig.Era era) throws Exception {
    Path file = dir.resolve("tokens.json");
    try (McpClientWrapper client = connect(headless(McpTokenStore.file(file)), era)) {
      assertThat(add(client).toString()).contains("5");
    }
    assertThat(authorizationServer.registrations).hasValue(1);
    assertThat(authorizationServer.authorizations).hasValue(1);
    assertThat(authorizationServer.codeGrants).hasValue(1);
    assertThat(Files.getPosixFilePermissions(file))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    McpOAuthTokens kept = McpTokenStore.file(file).load(http.uri()).orElseThrow();
    assertThat(kept.issuer()).isEqualTo(authorizationServer.issuer().toString());
    assertThat(kept.scope()).contains("tools");
    assertThat(kept.refreshToken()).isPresent();
    assertThat(kept.toString()).doesNotContain(kept.accessToken());

    // A new client (a new process, say) finds the tokens and asks nobody.
    try (McpClientWrapper client = connect(headless(McpTokenStore.file(file)), era)) {
      assertThat(add(client).toString()).contains("5");
      assertThat(authorizationServer.authorizations).hasValue(1);

      // The access token stops working: the next request is refreshed, not re-authorized.
      authorizationServer.expireAccessTokens();
      assertThat(add(client).toString()).contains("5");
    }
    assertThat(authorizationServer.refreshGrants).hasValue(1);
    assertThat(authorizationServer.authorizations).hasValue(1);
    assertThat(authorizationServer.registrations).hasValue(1);
    assertThat(McpTokenStore.file(file).load(http.uri()).orElseThrow().accessToken())
        .isNotEqualTo(kept.accessToken());
  }

  @Test
  void theUserHasTheAuthorizationTimeoutOnTopOfTheInitializeTimeout() throws Exception {
    // A user who takes longer than the initialize timeout to authorize still gets connected.
    McpOAuth slowUser =
        McpOAuth.builder()
            .prompt(
                (url, redirect) ->
                    CompletableFuture.runAsync(
                            () -> {}, CompletableFuture.delayedExecutor(2, TimeUnit.SECONDS))
                        .thenCompose(
                            ignored -> McpAuthorizationPrompt.headless().authorize(url, redirect)))
            .authorizationTimeout(Duration.ofSeconds(20))
            .build();
    try (McpClientWrapper client =
        McpClients.createMcpClient(
            "secured",
            McpClientConfig.streamableHttp(http.uri().toString())
                .oauth(slowUser)
                .initializeTimeout(Duration.ofSeconds(1))
                .requestTimeout(Duration.ofSeconds(15))
                .build(),
            McpClientOptions.defaults())) {
      assertThat(add(client).toString()).contains("5");
    }
  }

  @Test
  void aBrowserSentBackReachesTheLoopbackListener() throws Exception {
    // What a browser does: follows the authorization server's redirect to the client's loopback
    // listener, which takes the response and shows a page; the prompt itself sees nothing.
    // The page arrives after the listener has the code: the token exchange, and so the call,
    // may finish before the browser has read the page, so the page is waited for, not peeked at.
    java.util.concurrent.CompletableFuture<String> page =
        new java.util.concurrent.CompletableFuture<>();
    McpOAuth browser =
        McpOAuth.builder()
            .prompt(
                (url, redirect) ->
                    java.net.http.HttpClient.newBuilder()
                        .followRedirects(java.net.http.HttpClient.Redirect.ALWAYS)
                        .build()
                        .sendAsync(
                            java.net.http.HttpRequest.newBuilder(url).build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString())
                        .thenApply(
                            response -> {
                              page.complete(response.body());
                              return java.util.Optional.<URI>empty();
                            }))
            .authorizationTimeout(Duration.ofSeconds(10))
            .build();
    try (McpClientWrapper client = connect(browser, McpClientConfig.Era.AUTO)) {
      assertThat(add(client).toString()).contains("5");
    }
    assertThat(page.get(10, java.util.concurrent.TimeUnit.SECONDS))
        .contains("You can close this window");
    assertThat(authorizationServer.codeGrants).hasValue(1);
  }

  @Test
  void theClientCredentialsGrantNeedsNoUser() throws Exception {
    authorizationServer.addClient("service", "service-secret");
    McpOAuth oauth =
        McpOAuth.clientCredentials("service", "service-secret")
            .prompt(
                (url, redirect) -> {
                  throw new AssertionError("no user is asked in the client credentials grant");
                })
            .build();
    try (McpClientWrapper client = connect(oauth, McpClientConfig.Era.AUTO)) {
      assertThat(add(client).toString()).contains("5");
    }
    assertThat(authorizationServer.clientCredentialGrants).hasValue(1);
    assertThat(authorizationServer.authorizations).hasValue(0);
  }

  @Test
  void aRefusedAuthorizationFailsTheConnectionAsUnauthenticated() {
    authorizationServer.refuseAuthorizations = true;
    assertThatThrownBy(
            () -> connect(headless(McpTokenStore.inMemory()), McpClientConfig.Era.AUTO).close())
        .satisfies(
            e -> {
              CallError error = CallError.from(e, ErrorCode.EXECUTION_ERROR, "connect");
              assertThat(error.code()).isEqualTo(ErrorCode.UNAUTHENTICATED);
              assertThat(error.getMessage()).contains("access_denied");
            });
  }

  @Test
  void withoutOAuthA401IsUnauthenticatedAndSaysWhatToDo() {
    assertThatThrownBy(
            () ->
                McpClients.createMcpClient(
                        "secured",
                        McpClientConfig.streamableHttp(http.uri().toString())
                            .initializeTimeout(Duration.ofSeconds(10))
                            .build(),
                        McpClientOptions.defaults())
                    .close())
        .satisfies(
            e -> {
              CallError error = CallError.from(e, ErrorCode.EXECUTION_ERROR, "connect");
              assertThat(error.code()).isEqualTo(ErrorCode.UNAUTHENTICATED);
              assertThat(error.getMessage()).contains("401").contains("configure OAuth");
            });
  }

  @Test
  void aTokenFileOthersCanReadIsRefused() throws Exception {
    Path file = dir.resolve("open.json");
    Files.writeString(file, "{}");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    assertThatThrownBy(() -> McpTokenStore.file(file).load(http.uri()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("chmod 600");
  }
}
