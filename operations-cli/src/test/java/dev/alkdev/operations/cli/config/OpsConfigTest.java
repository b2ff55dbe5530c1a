package dev.alkdev.operations.cli.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.alkdev.operations.source.SourceEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
  void sectionsBecomeSourceEntries() {
    OpsConfig config = OpsConfig.parse(YAML, "ops.yaml");
    assertThat(config.sources())
        .extracting(SourceEntry::kind, SourceEntry::name)
        .containsExactly(
            tuple("openapi", "github"),
            tuple("openapi", "pets"),
            tuple("openapi", "plain"),
            tuple("openapi", "intranet"),
            tuple("mcp", "files"),
            tuple("mcp", "remote")); // "old" is disabled
    SourceEntry github = config.source("github").orElseThrow();
    assertThat(github.settings().get("location").asString())
        .isEqualTo("https://example.com/github.json");
    assertThat(github.settings().get("baseUrl").asString()).isEqualTo("https://api.github.com");
    assertThat(github.settings().at("/auth/bearer/tokenEnv").asString()).isEqualTo("GITHUB_TOKEN");
    // The shorthand is a location.
    assertThat(config.source("plain").orElseThrow().settings().toString())
        .isEqualTo("{\"location\":\"./plain.yaml\"}");
    // mcpServers entries go to the MCP adapter as the host wrote them, extra keys and all.
    SourceEntry files = config.source("files").orElseThrow();
    assertThat(files.settings().get("command").asString()).isEqualTo("npx");
    assertThat(files.settings().get("autoApprove").isArray()).isTrue();
    assertThat(files.settings().at("/env/GITHUB_TOKEN").asString()).isEqualTo("${GITHUB_TOKEN}");
    assertThat(config.source("remote").orElseThrow().settings().at("/headers/X-Team").asString())
        .isEqualTo("blue");
  }

  @Test
  void sourcesOfAnyKind() {
    OpsConfig config =
        OpsConfig.parse(
            """
            sources:
              remote: {kind: nats, url: "nats://127.0.0.1:4222", auth: {bearer: {tokenEnv: NATS_TOKEN}}}
              off: {kind: nats, disabled: true}
            """,
            "ops.yaml");
    SourceEntry remote = config.sources().get(0);
    assertThat(config.sources()).hasSize(1);
    assertThat(remote.kind()).isEqualTo("nats");
    assertThat(remote.settings().has("kind")).isFalse();
    assertThat(remote.settings().get("url").asString()).isEqualTo("nats://127.0.0.1:4222");
    assertThatThrownBy(() -> OpsConfig.parse("sources: {x: {url: y}}", "ops.yaml"))
        .hasMessageContaining("sources.x.kind is required");
    assertThatThrownBy(
            () -> OpsConfig.parse("sources: {x: {kind: nats, env: {NATS_PASSWORD: p4ss}}}", "f"))
        .hasMessageContaining("literal secret")
        .hasMessageNotContaining("p4ss");
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
    assertThat(config.sources())
        .extracting(SourceEntry::kind, SourceEntry::name)
        .containsExactly(tuple("openapi", "pets"), tuple("mcp", "everything"));
    assertThat(config.sources().get(0).settings().has("namespace")).isFalse();

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
  void literalSecretsAreRefused() {
    for (String yaml :
        List.of(
            "openapi: {gh: {location: x, auth: {bearer: {token: ghp_secret}}}}",
            "openapi: {gh: {location: x, auth: {apiKey: {name: k, value: ghp_secret}}}}",
            "openapi: {gh: {location: x, auth: {basic: {usernameEnv: U, password: ghp_secret}}}}",
            "sources: {gh: {kind: nats, env: {GITHUB_TOKEN: ghp_secret}}}",
            "sources: {gh: {kind: nats, env: {AWS_SECRET_ACCESS_KEY: ghp_secret}}}",
            "sources: {gh: {kind: x, headers: {Authorization: 'Bearer ghp_secret'}}}",
            "sources: {gh: {kind: x, headers: {X-Api-Key: ghp_secret}}}",
            "sources: {gh: {kind: x, env: {clientSecret: ghp_secret}}}")) {
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
  void settingsWhoseNamesOnlyContainASecretWordAreNotSecrets() {
    OpsConfig config =
        OpsConfig.parse(
            "sources: {a: {kind: x, env: {MAX_TOKENS: '4096', AUTHOR_NAME: Ann,"
                + " DISABLE_AUTH: 'true', SECRET_SCANNING: enabled, SORT_KEY: name}}}",
            "ops.yaml");
    assertThat(config.sources()).hasSize(1);
  }

  @Test
  void anMcpHostsFileLoadsAsItIsWithItsOwnKeysAndLiteralValues() {
    // As Claude Desktop writes it: keys of its own beside mcpServers, values written out.
    OpsConfig claude =
        OpsConfig.parse(
            """
            {"globalShortcut": "Ctrl+Space",
             "preferences": {"quickEntryShortcut": "off"},
             "mcpServers": {
               "github": {"command": "npx", "args": ["-y", "server-github"],
                          "env": {"GITHUB_TOKEN": "ghp_literal", "MAX_TOKENS": "4096"}},
               "remote": {"url": "http://localhost:3000/mcp",
                          "headers": {"Authorization": "Bearer literal"}}}}
            """,
            "claude_desktop_config.json");
    assertThat(claude.sources())
        .extracting(SourceEntry::kind, SourceEntry::name)
        .containsExactly(tuple("mcp", "github"), tuple("mcp", "remote"));
    // VS Code's .vscode/mcp.json: servers, and inputs beside them.
    OpsConfig vscode =
        OpsConfig.parse(
            "{\"inputs\": [], \"servers\": {\"fs\": {\"command\": \"npx\"}}}", "mcp.json");
    assertThat(vscode.sources()).extracting(SourceEntry::name).containsExactly("fs");
  }

  @Test
  void mistakesAreNamed() {
    assertThatThrownBy(() -> OpsConfig.parse("openapis: {}", "ops.yaml"))
        .hasMessageContaining("unknown key openapis");
    assertThatThrownBy(() -> OpsConfig.parse("openapi: {gh: {location: x, baseurl: y}}", "f.yaml"))
        .hasMessageContaining("unknown key openapi.gh.baseurl");
    assertThatThrownBy(() -> OpsConfig.parse("openapi: {gh: {baseUrl: y}}", "f.yaml"))
        .hasMessageContaining("openapi.gh.location is required");
    assertThatThrownBy(() -> OpsConfig.parse("mcpServers: {a: [x]}", "f.yaml"))
        .hasMessageContaining("mcpServers.a must be an object");
    assertThatThrownBy(
            () -> OpsConfig.parse("openapi: {a: x}\nmcpServers: {a: {command: y}}", "f.yaml"))
        .hasMessageContaining("the name a is used twice");
    assertThatThrownBy(() -> OpsConfig.parse("openapi: {'a.b': x}", "f.yaml"))
        .hasMessageContaining("cannot be a namespace");
    assertThatThrownBy(() -> OpsConfig.parse("openapi: [x", "f.yaml"))
        .hasMessageContaining("not valid YAML");
  }
}
