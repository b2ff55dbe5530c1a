package dev.alkdev.operations.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.cli.config.ConfigException;
import dev.alkdev.operations.cli.config.McpServerConfig;
import dev.alkdev.operations.cli.config.OpenApiSourceConfig;
import dev.alkdev.operations.cli.config.OpsConfig;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OneOffFlagsTest {

  @Test
  void flagsBecomeConfigEntries() {
    OpsConfig config =
        OneOffFlags.apply(
            OpsConfig.empty(),
            List.of("pets=./pets.yaml"),
            List.of("pets=http://localhost:8080"),
            List.of("files=npx -y '@scope/server fs' \"/tmp/my dir\""),
            List.of("remote=http://localhost:3000/mcp"));
    assertThat(config.openApi())
        .containsExactly(
            new OpenApiSourceConfig(
                "pets", "./pets.yaml", Optional.of("http://localhost:8080"), Optional.empty()));
    assertThat(config.mcpServers())
        .containsExactly(
            new McpServerConfig.Stdio(
                "files",
                "npx",
                List.of("-y", "@scope/server fs", "/tmp/my dir"),
                Map.of(),
                Optional.empty()),
            new McpServerConfig.Http(
                "remote", "http://localhost:3000/mcp", Map.of(), Optional.empty()));
  }

  @Test
  void flagsOverrideAndPatchTheFile() {
    OpsConfig file = OpsConfig.parse("openapi: {pets: ./pets.yaml, gh: ./gh.json}\n", "ops.yaml");
    OpsConfig config =
        OneOffFlags.apply(
            file,
            List.of("gh=./other.json"),
            List.of("pets=http://localhost:1"),
            List.of(),
            List.of());
    assertThat(config.openApi().get(0).baseUrl()).contains("http://localhost:1");
    assertThat(config.openApi().get(1).location()).isEqualTo("./other.json");
  }

  @Test
  void badFlagsSayTheExpectedForm() {
    assertThatThrownBy(
            () ->
                OneOffFlags.apply(
                    OpsConfig.empty(), List.of("pets"), List.of(), List.of(), List.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("expected NAME=LOCATION");
    assertThatThrownBy(
            () ->
                OneOffFlags.apply(
                    OpsConfig.empty(), List.of(), List.of(), List.of("x='unclosed"), List.of()))
        .hasMessageContaining("unclosed");
    assertThatThrownBy(
            () ->
                OneOffFlags.apply(
                    OpsConfig.empty(), List.of("9x=a"), List.of(), List.of(), List.of()))
        .hasMessageContaining("cannot be a namespace");
  }

  @Test
  void wordsSplitLikeAShell() {
    assertThat(OneOffFlags.words("  a  'b c' \"d \\\"e\\\"\" f\\ g ''"))
        .containsExactly("a", "b c", "d \"e\"", "f g", "");
  }
}
