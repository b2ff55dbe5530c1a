package dev.alkdev.operations.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one reader of hosts' files, against files as Claude Desktop, VS Code and Cursor write them.
 */
class McpServersJsonTest {

  static String resource(String name) {
    try (InputStream in = McpServersJsonTest.class.getResourceAsStream("/hosts/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void claudeDesktopFileLoadsAsIs() {
    Map<String, McpClientConfig> servers =
        McpServersJson.parse(
            resource("claude_desktop_config.json"), Map.of("GITHUB_TOKEN", "ghp_1"));
    // globalShortcut and preferences are the host's own; sqlite is disabled.
    assertThat(servers).containsOnlyKeys("filesystem", "github", "memory");
    McpClientConfig.Stdio files = (McpClientConfig.Stdio) servers.get("filesystem");
    assertThat(files.command()).isEqualTo("npx");
    assertThat(files.args())
        .containsExactly(
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "/Users/ada/Desktop",
            "/Users/ada/Downloads");
    assertThat(files.cwd()).isEmpty();
    assertThat(((McpClientConfig.Stdio) servers.get("github")).env())
        .containsEntry("GITHUB_PERSONAL_ACCESS_TOKEN", "ghp_1");
    // A number where a string belongs in env is taken as its text.
    assertThat(((McpClientConfig.Stdio) servers.get("memory")).env())
        .containsEntry("MAX_TOKENS", "4096");
  }

  @Test
  void vsCodeFileReadsServersAndIgnoresInputs() {
    Map<String, McpClientConfig> servers =
        McpServersJson.parse(resource("vscode_mcp.json"), Map.of("GITHUB_TOKEN", "t"));
    assertThat(servers).containsOnlyKeys("github", "fetch", "playwright");
    McpClientConfig.StreamableHttp github = (McpClientConfig.StreamableHttp) servers.get("github");
    assertThat(github.url().toString()).isEqualTo("https://api.githubcopilot.com/mcp/");
    assertThat(github.headers()).containsEntry("Authorization", "Bearer t");
    assertThat(((McpClientConfig.Stdio) servers.get("fetch")).args())
        .containsExactly("mcp-server-fetch");
    assertThat(servers.get("playwright")).isInstanceOf(McpClientConfig.Stdio.class);
  }

  @Test
  void cursorFileExpandsVariablesAndKeepsEscapes() {
    Map<String, McpClientConfig> servers =
        McpServersJson.parse(
            resource("cursor_mcp.json"),
            Map.of("CONTEXT7_API_KEY", "c7", "HOME", "/home/ada", "TOOLS_TOKEN", "tt"));
    assertThat(servers).containsOnlyKeys("context7", "linear", "local-tools");
    assertThat(((McpClientConfig.StreamableHttp) servers.get("context7")).headers())
        .containsEntry("CONTEXT7_API_KEY", "c7");
    McpClientConfig.StreamableHttp linear = (McpClientConfig.StreamableHttp) servers.get("linear");
    assertThat(linear.requestTimeout()).isEqualTo(Duration.ofSeconds(30));
    McpClientConfig.Stdio tools = (McpClientConfig.Stdio) servers.get("local-tools");
    assertThat(tools.command()).isEqualTo("/home/ada/bin/tools-server");
    // ${LOG_LEVEL:-info} falls back to its default; $${NAME} is the literal ${NAME}.
    assertThat(tools.args()).containsExactly("--log-level", "info", "--template", "${NAME}");
    assertThat(tools.env()).containsEntry("API_TOKEN", "tt");
    assertThat(tools.cwd()).contains("/home/ada/work");
  }

  @Test
  void anSseServerIsAnErrorThatNamesItAndSaysWhy() {
    assertThatThrownBy(() -> McpServersJson.parse(resource("sse_server.json"), Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mcpServers.legacy.type")
        .hasMessageContaining("legacy HTTP+SSE transport")
        .hasMessageContaining("\"disabled\": true");
    // The same entry read on its own (as the ops command does) says the same.
    assertThatThrownBy(
            () ->
                McpServersJson.server(
                    "legacy",
                    JsonMapper.shared().readTree("{\"type\":\"sse\",\"url\":\"http://x/sse\"}"),
                    Map.of()))
        .hasMessageContaining("mcpServers.legacy.type")
        .hasMessageContaining("legacy HTTP+SSE transport");
  }

  @Test
  void oneEntryOnItsOwnAndDisabledEntries() {
    JsonMapper json = JsonMapper.shared();
    assertThat(
            McpServersJson.server(
                "a", json.readTree("{\"command\":\"x\",\"disabled\":true}"), Map.of()))
        .isEmpty();
    assertThat(
            McpServersJson.server(
                "a", json.readTree("{\"serverUrl\":\"http://localhost:1/mcp\"}"), Map.of()))
        .containsInstanceOf(McpClientConfig.StreamableHttp.class);
  }

  @Test
  void wrongEntriesNameTheServerAndTheField() {
    Map<String, String> messages =
        Map.ofEntries(
            Map.entry("{\"a\": 3}", "mcpServers.a must be an object, was a number"),
            Map.entry("{\"a\": {}}", "mcpServers.a needs either a command (stdio) or a url (HTTP)"),
            Map.entry(
                "{\"a\": {\"command\": \"x\", \"url\": \"http://h\"}}",
                "mcpServers.a has both a command and a url"),
            Map.entry(
                "{\"a\": {\"command\": \"x\", \"args\": [\"ok\", 2]}}",
                "mcpServers.a.args[1] must be a string, was a number"),
            Map.entry(
                "{\"a\": {\"command\": \"x\", \"args\": \"-y\"}}",
                "mcpServers.a.args must be an array of strings, was a string"),
            Map.entry(
                "{\"a\": {\"command\": [\"x\"]}}",
                "mcpServers.a.command must be a string, was an array"),
            Map.entry(
                "{\"a\": {\"command\": \"x\", \"env\": {\"K\": {}}}}",
                "mcpServers.a.env.K must be a string, was an object"),
            Map.entry(
                "{\"a\": {\"url\": \"http://h\", \"headers\": [\"x\"]}}",
                "mcpServers.a.headers must be an object of names to strings, was an array"),
            Map.entry(
                "{\"a\": {\"command\": \"x\", \"disabled\": \"yes\"}}",
                "mcpServers.a.disabled must be true or false, was a string"),
            Map.entry(
                "{\"a\": {\"type\": \"websocket\", \"url\": \"ws://h\"}}",
                "mcpServers.a.type must be stdio, http"),
            Map.entry(
                "{\"a\": {\"type\": \"http\", \"command\": \"x\"}}", "has type http but no url"),
            Map.entry("{\"a\": {\"url\": \"ftp://h/mcp\"}}", "mcpServers.a.url: url must be http"),
            Map.entry(
                "{\"a\": {\"command\": \"x\", \"timeout\": \"30s\"}}",
                "mcpServers.a.timeout must be a positive number of milliseconds, was a string"),
            Map.entry(
                "{\"a\": {\"command\": \"x\", \"env\": {\"K\": \"${NOPE}\"}}}",
                "mcpServers.a.env.K uses ${NOPE}, which is not set"),
            Map.entry(
                "{\"a\": {\"command\": \"x\", \"env\": {\"K\": \"${input:key}\"}}}",
                "mcpServers.a.env.K uses ${input:key}, a VS Code prompt"));
    messages.forEach(
        (servers, message) ->
            assertThatThrownBy(
                    () -> McpServersJson.parse("{\"mcpServers\": " + servers + "}", Map.of()))
                .as(servers)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message));
    assertThatThrownBy(() -> McpServersJson.parse("not json", Map.of()))
        .hasMessageContaining("not valid JSON");
    assertThatThrownBy(() -> McpServersJson.parse("{\"preferences\": {}}", Map.of()))
        .hasMessageContaining("\"mcpServers\"")
        .hasMessageContaining("\"servers\"");
  }
}
