package dev.alkdev.operations.maven;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.OperationSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.project.MavenProject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The goal as Maven runs it, on a spec file: what it writes, what it empties first, what it adds to
 * the project, and the command line it gives {@code ops generate java}. The goal inside a real
 * build is operations-examples/typed-project.
 */
class GenerateMojoTest {
  @TempDir Path dir;

  private GenerateMojo mojo(String packageName) {
    GenerateMojo mojo = new GenerateMojo();
    mojo.packageName = packageName;
    mojo.outputDirectory = dir.resolve("generated").toFile();
    mojo.project = new MavenProject();
    return mojo;
  }

  @Test
  void writesTheTypesOfASpecFileReplacingWhatWasThere() throws Exception {
    Path specs = dir.resolve("specs.json");
    OperationSpec quote =
        OperationSpec.builder("shop", "quote")
            .description("Prices an order")
            .inputSchema(
                "{\"type\": \"object\", \"required\": [\"sku\"],"
                    + " \"properties\": {\"sku\": {\"type\": \"string\"}}}")
            .outputSchema(
                "{\"type\": \"object\", \"properties\": {\"cents\": {\"type\": \"integer\"}}}")
            .build();
    Files.writeString(specs, "[" + quote.toJson() + "]");
    Path stale = dir.resolve("generated/com/example/shop/Gone.java");
    Files.createDirectories(stale.getParent());
    Files.writeString(stale, "class Gone {}");
    GenerateMojo mojo = mojo("com.example.shop");
    mojo.specFiles = List.of(specs.toFile());
    mojo.execute();

    Path shop = dir.resolve("generated/com/example/shop");
    assertThat(shop.resolve("Shop.java")).content().contains("QuoteOutput quote(QuoteInput input");
    assertThat(shop.resolve("QuoteInput.java")).content().contains("record QuoteInput(String sku)");
    assertThat(stale).doesNotExist();
    assertThat(mojo.project.getCompileSourceRoots())
        .containsExactly(dir.resolve("generated").toAbsolutePath().toString());
  }

  @Test
  void aBadPackageNameIsRefusedBeforeAnythingIsDeleted() throws Exception {
    Path kept = dir.resolve("generated/keep.txt");
    Files.createDirectories(kept.getParent());
    Files.writeString(kept, "mine");
    assertThatThrownBy(() -> mojo("../..").execute())
        .isInstanceOf(MojoExecutionException.class)
        .hasMessageContaining("Invalid package name '../..'");
    assertThat(kept).exists();
  }

  @Test
  void aFailedGenerationFailsTheBuild() {
    GenerateMojo mojo = mojo("com.example.none");
    assertThatThrownBy(mojo::execute)
        .isInstanceOf(MojoExecutionException.class)
        .hasMessageContaining("ops generate java failed with exit code 2");
  }

  @Test
  void theCommandLineNeverReadsTheUsersOwnConfiguration() {
    GenerateMojo mojo = mojo("p");
    mojo.openapi = Map.of("pets", "pets.yaml", "billing", "https://example.com/billing.json");
    mojo.namespaces = List.of("pets");
    mojo.async = true;
    List<String> args = mojo.arguments(Path.of("empty.json"), Path.of("/out"));
    assertThat(args)
        .containsExactly(
            "--config",
            "empty.json",
            "--no-color",
            "--no-demo",
            "--openapi",
            "billing=https://example.com/billing.json",
            "--openapi",
            "pets=pets.yaml",
            "generate",
            "java",
            "--out",
            "/out",
            "--package",
            "p",
            "--namespace",
            "pets",
            "--async");
  }
}
