package dev.alkdev.operations.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The README's first project is the one the build compiles ({@code
 * operations-examples/first-project}, a module of the reactor with no parent): its pom is shown as
 * it is, so what a newcomer copies is what compiled.
 */
class FirstProjectDocTest {
  private static final Path REPO = Path.of(System.getProperty("ops.repo.dir", "..")).normalize();

  @Test
  void theReadmeShowsTheFirstProjectsPomAsItIs() throws Exception {
    String readme = Files.readString(REPO.resolve("README.md"));
    String pom = Files.readString(REPO.resolve("operations-examples/first-project/pom.xml"));
    assertThat(readme).contains("```xml\n" + pom + "```");
    assertThat(pom).doesNotContain("<parent>").contains("<release>17</release>");
  }
}
