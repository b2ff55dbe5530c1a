package dev.alkdev.operations.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.ErrorCode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class McpClientLoaderTest {

  @Test
  void loadsInParallelAndReportsFailures() throws Exception {
    try (HttpTestServer server = new HttpTestServer()) {
      Map<String, McpClientConfig> servers = new LinkedHashMap<>();
      servers.put("one", McpClientConfig.streamableHttp(server.url()).build());
      servers.put("two", McpClientConfig.streamableHttp(server.url()).build());
      servers.put(
          "broken",
          McpClientConfig.stdio("sleep")
              .args("30")
              .initializeTimeout(Duration.ofSeconds(1))
              .build());
      try (McpClientLoader loader = McpClientLoader.load(servers)) {
        assertThat(loader.clients())
            .extracting(McpClientWrapper::name)
            .containsExactly("one", "two");
        assertThat(loader.get("one")).isPresent();
        assertThat(loader.get("broken")).isEmpty();
        assertThat(loader.failures().get("broken").code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
        assertThat(loader.operations())
            .extracting(op -> op.spec().id())
            .contains("one.echo", "two.echo");
        loader.closeAll();
        assertThat(loader.get("one").get().isOpen()).isFalse();
      }
    }
  }

  @Test
  void parsesHostConfig() {
    String json =
        """
        {"mcpServers": {
          "files": {"command": "npx", "args": ["-y", "server", "${HOME_DIR}"],
                    "env": {"TOKEN": "${SECRET}", "LITERAL": "$${KEEP}"}, "cwd": "/tmp"},
          "remote": {"type": "http", "url": "https://example.test/mcp",
                     "headers": {"Authorization": "Bearer ${SECRET}"}}
        }}
        """;
    Map<String, McpClientConfig> servers =
        McpServersJson.parse(json, Map.of("HOME_DIR", "/home/a", "SECRET", "s3")::get);
    McpClientConfig.Stdio files = (McpClientConfig.Stdio) servers.get("files");
    assertThat(files.command()).isEqualTo("npx");
    assertThat(files.args()).containsExactly("-y", "server", "/home/a");
    assertThat(files.env()).containsEntry("TOKEN", "s3").containsEntry("LITERAL", "${KEEP}");
    assertThat(files.cwd()).contains("/tmp");
    McpClientConfig.StreamableHttp remote = (McpClientConfig.StreamableHttp) servers.get("remote");
    assertThat(remote.url().toString()).isEqualTo("https://example.test/mcp");
    assertThat(remote.headers()).containsEntry("Authorization", "Bearer s3");
  }

  @Test
  void unsetVariableAndBadEntriesAreErrors() {
    assertThatThrownBy(
            () ->
                McpServersJson.parse(
                    "{\"mcpServers\":{\"a\":{\"command\":\"x\",\"env\":{\"K\":\"${NOPE}\"}}}}",
                    k -> null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("NOPE");
    assertThatThrownBy(() -> McpServersJson.parse("{\"mcpServers\":{\"a\":{}}}", k -> null))
        .hasMessageContaining("command");
    assertThatThrownBy(
            () ->
                McpServersJson.parse(
                    "{\"mcpServers\":{\"a\":{\"type\":\"sse\",\"url\":\"http://x\"}}}", k -> null))
        .hasMessageContaining("SSE");
    assertThatThrownBy(() -> McpServersJson.parse("not json", k -> null))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
