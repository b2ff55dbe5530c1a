package dev.alkdev.operations.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.Handler;
import dev.alkdev.operations.Identity;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.serving.OperationServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real browser (Debian's {@code chromium}, driven by {@code playwright-core} from {@code
 * clients/node}) against a hub: a page of the allowed origin authenticates with the token as a
 * subprotocol and calls a Java operation; a page of another origin, and a page without the token,
 * are refused at the handshake. Skipped when chromium or playwright-core is missing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BrowserSpokeTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @Test
  void aBrowserPageOfAnAllowedOriginCallsAndOthersAreRefused() throws Exception {
    Path client = Path.of("").toAbsolutePath().getParent().resolve("clients/node");
    Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/chromium")), "no chromium");
    Assumptions.assumeTrue(
        Files.isDirectory(client.resolve("node_modules/playwright-core")),
        "no playwright-core in clients/node (npm install there)");
    int pagePort = freePort();
    int otherPort = freePort();
    try (OperationRegistry registry = OperationRegistry.create();
        OperationServer server = OperationServer.create(registry)) {
      registry.register(
          OperationSpec.builder("java", "greet").build(),
          Handler.blocking(
              (in, ctx) ->
                  "hello, " + in.get("name").asString() + " (" + ctx.identity().subject() + ")"));
      try (WebSocketHub hub =
          WebSocketHub.builder()
              .authenticator(
                  Authenticator.bearerTokens(
                      Map.of("browser-token", Identity.of("web", "ops:call:*"))))
              .permissions(SpokePermissions.byScopes())
              .allowedOrigins("http://127.0.0.1:" + pagePort)
              .serve(server)
              .start()) {
        ProcessBuilder builder =
            new ProcessBuilder("node", "test/browser.js")
                .directory(client.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().put("HUB_URL", hub.uri().toString());
        builder.environment().put("OPS_WS_TOKEN", "browser-token");
        builder.environment().put("PAGE_PORT", String.valueOf(pagePort));
        builder.environment().put("OTHER_PORT", String.valueOf(otherPort));
        Process process = builder.start();
        List<String> lines;
        try {
          assertThat(process.waitFor(90, TimeUnit.SECONDS)).as("the browser script ended").isTrue();
          lines =
              new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                  .lines()
                  .toList();
        } finally {
          process.descendants().forEach(ProcessHandle::destroyForcibly);
          process.destroyForcibly();
        }
        assertThat(lines).as(String.join("\n", lines)).hasSize(3);
        JsonNode allowed = JSON.readTree(lines.get(0)).get("result");
        assertThat(allowed.get("outcome").asString()).isEqualTo("answered");
        assertThat(allowed.get("protocol").asString()).isEqualTo(WebSocketHub.SUBPROTOCOL);
        assertThat(allowed.get("event").get("output").get("data").asString())
            .isEqualTo("hello, browser (web)");
        JsonNode foreign = JSON.readTree(lines.get(1)).get("result");
        assertThat(foreign.get("outcome").asString()).isIn("refused", "closed");
        JsonNode noToken = JSON.readTree(lines.get(2)).get("result");
        assertThat(noToken.get("outcome").asString()).isIn("refused", "closed");
        assertThat(hub.stats().refusedUpgrades()).isEqualTo(2);
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
