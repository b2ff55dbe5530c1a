package dev.alkdev.operations.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

class SourceEntryTest {
  private static final JsonMapper JSON = JsonMapper.shared();

  @Test
  void settingsAreCopiedInAndOut() {
    ObjectNode settings = JSON.createObjectNode().put("location", "a.yaml");
    SourceEntry entry = SourceEntry.of("openapi", "pets", settings);
    settings.put("location", "changed");
    ((ObjectNode) entry.settings()).put("location", "changed too");
    assertThat(entry.settings().get("location").asString()).isEqualTo("a.yaml");
    assertThat(entry.loadTimeout()).isEqualTo(SourceEntry.DEFAULT_LOAD_TIMEOUT);
    assertThat(entry.baseDirectory()).isEqualTo(Path.of("").toAbsolutePath());
    assertThat(entry.withBaseDirectory(Path.of("docs")).baseDirectory().isAbsolute()).isTrue();
  }

  @Test
  void variablesAreReadFromTheEnvironmentAndNeverPrinted() {
    SourceEntry entry =
        SourceEntry.of("openapi", "pets", JSON.createObjectNode())
            .withEnvironment(Map.of("PETS_TOKEN", "s3cret"));
    assertThat(entry.variable("PETS_TOKEN")).isEqualTo("s3cret");
    assertThat(entry.toString()).doesNotContain("s3cret");
    assertThatThrownBy(() -> entry.variable("NOPE"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "environment variable NOPE is not set; source pets reads a secret from it (export"
                + " NOPE=...)");
  }

  @Test
  void wrongEntriesAreRefused() {
    assertThatThrownBy(() -> SourceEntry.of("openapi", "pets", JSON.createArrayNode()))
        .hasMessageContaining("settings of source pets must be a JSON object");
    assertThatThrownBy(() -> SourceEntry.of(" ", "pets", JSON.createObjectNode()))
        .hasMessageContaining("kind is blank");
    assertThatThrownBy(
            () ->
                SourceEntry.of("openapi", "pets", JSON.createObjectNode())
                    .withLoadTimeout(Duration.ZERO))
        .hasMessageContaining("loadTimeout must be positive");
  }
}
