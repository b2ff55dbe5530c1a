package dev.alkdev.operations.cli.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OpsConfigTest {

  static final String YAML =
      """
      openapi:
        github:
          location: https://example.com/github.json
          baseUrl: https://api.github.com
          auth: {bearer: {tokenEnv: GITHUB_TOKEN}}
        pets:
          location: ./pets.yaml
          auth: {apiKey: {name: api_key, in: query, valueEnv: PETS_KEY}}
        plain: ./plain.yaml
        intranet:
          location: http://intranet/openapi.json
          auth:
            basic: {usernameEnv: SVC_USER, passwordEnv: SVC_PASSWORD}
      mcpServers:
        files:
          command: npx
          args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
          env: {LOG_LEVEL: info, GITHUB_TOKEN: "${GITHUB_TOKEN}"}
          autoApprove: []
        remote:
          url: https://example.com/mcp
          headers: {Authorization: "Bearer ${REMOTE_TOKEN}", X-Team: blue}
        old:
          command: nothing
          disabled: true
      """;

  @Test
  void readsYaml() {
    OpsConfig config = OpsConfig.parse(YAML, "ops.yaml");
    assertThat(config.openApi()).hasSize(4);
    OpenApiSourceConfig github = config.openApi().get(0);
    assertThat(github.namespace()).isEqualTo("github");
    assertThat(github.location()).isEqualTo("https://example.com/github.json");
    assertThat(github.baseUrl()).contains("https://api.github.com");
    assertThat(github.auth()).contains(new AuthConfig.Bearer("GITHUB_TOKEN"));
    assertThat(config.openApi().get(1).auth())
        .contains(new AuthConfig.ApiKey("api_key", AuthConfig.KeyLocation.QUERY, "PETS_KEY"));
    assertThat(config.openApi().get(2))
        .isEqualTo(
            new OpenApiSourceConfig("plain", "./plain.yaml", Optional.empty(), Optional.empty()));
    assertThat(config.openApi().get(3).auth())
        .contains(new AuthConfig.Basic("SVC_USER", "SVC_PASSWORD"));

    assertThat(config.mcpServers()).hasSize(2); // "old" is disabled
    McpServerConfig.Stdio files = (McpServerConfig.Stdio) config.mcpServers().get(0);
    assertThat(files.name()).isEqualTo("files");
    assertThat(files.command()).isEqualTo("npx");
    assertThat(files.args())
        .containsExactly("-y", "@modelcontextprotocol/server-filesystem", "/tmp");
    assertThat(files.env()).containsEntry("LOG_LEVEL", "info");
    McpServerConfig.Http remote = (McpServerConfig.Http) config.mcpServers().get(1);
    assertThat(remote.url()).isEqualTo("https://example.com/mcp");
    assertThat(remote.headers()).containsEntry("X-Team", "blue");
  }

  @Test
  void readsJsonFiles(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("ops.json");
    Files.writeString(
        file,
        """
        {"openapi": [{"namespace": "pets", "location": "pets.json",
                      "auth": {"bearer": {"tokenEnv": "PETS_TOKEN"}}}],
         "mcpServers": {"everything": {"command": "npx",
                                       "args": ["-y", "@modelcontextprotocol/server-everything"]}}}
        """);
    OpsConfig config = OpsConfig.read(file);
    assertThat(config.openApi().get(0).namespace()).isEqualTo("pets");
    assertThat(config.mcpServers().get(0).name()).isEqualTo("everything");

    Files.writeString(file, "{\"openapi\": {\"x\": }");
    assertThatThrownBy(() -> OpsConfig.read(file))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("not valid JSON at line 1, column");
  }

  @Test
  void emptyFileIsAnEmptyConfig() {
    assertThat(OpsConfig.parse("", "ops.yaml")).isEqualTo(OpsConfig.empty());
  }

  @Test
  void secretsComeFromTheEnvironment() {
    OpsConfig config = OpsConfig.parse(YAML, "ops.yaml");
    AuthConfig.Credentials bearer =
        config.openApi().get(0).auth().orElseThrow().resolve(Map.of("GITHUB_TOKEN", "t0k"));
    assertThat(bearer.headers()).containsEntry("Authorization", "Bearer t0k");
    assertThat(bearer.toString()).doesNotContain("t0k");
    AuthConfig.Credentials key =
        config.openApi().get(1).auth().orElseThrow().resolve(Map.of("PETS_KEY", "k"));
    assertThat(key.queryParameters()).containsEntry("api_key", "k");
    AuthConfig.Credentials basic =
        config
            .openApi()
            .get(3)
            .auth()
            .orElseThrow()
            .resolve(Map.of("SVC_USER", "u", "SVC_PASSWORD", "p"));
    assertThat(basic.headers()).containsEntry("Authorization", "Basic dTpw");

    assertThatThrownBy(() -> config.openApi().get(0).auth().orElseThrow().resolve(Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("GITHUB_TOKEN is not set");

    McpServerConfig.Http remote = (McpServerConfig.Http) config.mcpServers().get(1);
    assertThat(McpServerConfig.expand(remote.headers(), Map.of("REMOTE_TOKEN", "r")))
        .containsEntry("Authorization", "Bearer r");
    assertThatThrownBy(() -> McpServerConfig.expand(remote.headers(), Map.of()))
        .hasMessageContaining("REMOTE_TOKEN is not set");
  }

  @Test
  void literalSecretsAreRefused() {
    for (String yaml :
        List.of(
            "openapi: {gh: {location: x, auth: {bearer: {token: ghp_secret}}}}",
            "openapi: {gh: {location: x, auth: {apiKey: {name: k, value: ghp_secret}}}}",
            "openapi: {gh: {location: x, auth: {basic: {usernameEnv: U, password: ghp_secret}}}}",
            "mcpServers: {gh: {command: x, env: {GITHUB_TOKEN: ghp_secret}}}",
            "mcpServers: {gh: {url: 'http://x', headers: {Authorization: 'Bearer ghp_secret'}}}")) {
      assertThatThrownBy(() -> OpsConfig.parse(yaml, "ops.yaml"))
          .as(yaml)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("literal secret")
          .hasMessageNotContaining("ghp_secret");
    }
    assertThatThrownBy(
            () ->
                OpsConfig.parse(
                    "openapi: {gh: {location: x, auth: {bearer: {tokenEnv: 'ghp secret'}}}}",
                    "ops.yaml"))
        .hasMessageContaining("must be the NAME of an environment variable");
  }

  @Test
  void mistakesAreNamed() {
    assertThatThrownBy(() -> OpsConfig.parse("openapis: {}", "ops.yaml"))
        .hasMessageContaining("unknown key openapis");
    assertThatThrownBy(() -> OpsConfig.parse("openapi: {gh: {location: x, baseurl: y}}", "f.yaml"))
        .hasMessageContaining("unknown key openapi.gh.baseurl");
    assertThatThrownBy(() -> OpsConfig.parse("openapi: {gh: {baseUrl: y}}", "f.yaml"))
        .hasMessageContaining("openapi.gh.location is required");
    assertThatThrownBy(() -> OpsConfig.parse("mcpServers: {a: {args: [x]}}", "f.yaml"))
        .hasMessageContaining("either a command (stdio) or a url");
    assertThatThrownBy(
            () -> OpsConfig.parse("openapi: {a: x}\nmcpServers: {a: {command: y}}", "f.yaml"))
        .hasMessageContaining("the name a is used twice");
    assertThatThrownBy(() -> OpsConfig.parse("openapi: {'a.b': x}", "f.yaml"))
        .hasMessageContaining("cannot be a namespace");
    assertThatThrownBy(() -> OpsConfig.parse("openapi: [x", "f.yaml"))
        .hasMessageContaining("not valid YAML");
  }
}
