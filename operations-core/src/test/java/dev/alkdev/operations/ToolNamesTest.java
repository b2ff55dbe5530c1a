package dev.alkdev.operations;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ToolNamesTest {

  @Test
  void modelSafeNamesKeepLettersDigitsUnderscoresAndHyphens() {
    assertThat(ToolNames.modelSafe("github.repos.get")).isEqualTo("github_repos_get");
    assertThat(ToolNames.modelSafe("a-b_C9")).isEqualTo("a-b_C9");
  }

  @Test
  void aLongNameKeepsItsHeadAndAChecksumOfTheWhole() {
    String wanted = "ns." + "x".repeat(100);
    String name = ToolNames.fit(wanted);
    assertThat(name).hasSize(ToolNames.MAX_LENGTH).startsWith("ns.xxx").matches(".*_[0-9a-f]{8}");
    assertThat(ToolNames.fit(wanted)).isEqualTo(name); // the same every time
    assertThat(ToolNames.fit(wanted + "y")).isNotEqualTo(name).hasSize(ToolNames.MAX_LENGTH);
    assertThat(ToolNames.fit("short.name")).isEqualTo("short.name");
  }

  @Test
  void aDistinctNameDependsOnTheIdAndFits() {
    String one = ToolNames.distinct("a_b_c", "a_b.c");
    assertThat(one).matches("a_b_c_[0-9a-f]{8}").isNotEqualTo(ToolNames.distinct("a_b_c", "a.b_c"));
    assertThat(ToolNames.distinct("y".repeat(80), "ns.y")).hasSize(ToolNames.MAX_LENGTH);
  }
}
