package dev.alkdev.operations.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.alkdev.operations.cli.config.ConfigException;
import dev.alkdev.operations.cli.config.OpsConfig;
import dev.alkdev.operations.source.SourceEntry;
import java.util.List;
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
    assertThat(config.sources())
        .extracting(SourceEntry::kind, SourceEntry::name, entry -> entry.settings().toString())
        .containsExactly(
            tuple(
                "openapi",
                "pets",
                "{\"location\":\"./pets.yaml\",\"baseUrl\":\"http://localhost:8080\"}"),
            tuple(
                "mcp",
                "files",
                "{\"command\":\"npx\",\"args\":[\"-y\",\"@scope/server fs\",\"/tmp/my dir\"]}"),
            tuple(
                "mcp",
                "remote",
                // An HTTP server gets OAuth, used only if it answers 401.
                "{\"url\":\"http://localhost:3000/mcp\",\"auth\":{\"oauth\":{}}}"));
  }

  @Test
  void flagsOverrideAndPatchTheFile() {
    OpsConfig file =
        OpsConfig.parse(
            "openapi: {pets: ./pets.yaml, gh: ./gh.json}\nmcpServers: {srv: {command: x}}\n",
            "ops.yaml");
    OpsConfig config =
        OneOffFlags.apply(
            file,
            List.of("gh=./other.json"),
            List.of("pets=http://localhost:1"),
            List.of(),
            List.of("srv=http://localhost:2/mcp"));
    assertThat(config.source("pets").orElseThrow().settings().get("baseUrl").asString())
        .isEqualTo("http://localhost:1");
    assertThat(config.source("gh").orElseThrow().settings().get("location").asString())
        .isEqualTo("./other.json");
    assertThat(config.source("srv").orElseThrow().settings().toString())
        .isEqualTo("{\"url\":\"http://localhost:2/mcp\",\"auth\":{\"oauth\":{}}}");
    assertThatThrownBy(
            () -> OneOffFlags.apply(file, List.of(), List.of("srv=http://x"), List.of(), List.of()))
        .hasMessageContaining("no OpenAPI document named srv");
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
