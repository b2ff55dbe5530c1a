package dev.alkdev.operations.codegen;

import static dev.alkdev.operations.codegen.Specs.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.OperationSpec;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The public API: package names, duplicate specs, writing files. */
class JavaGeneratorTest {

  @Test
  void packageNamesAreChecked() {
    for (String bad :
        List.of(
            "",
            "com..example",
            "com.example.",
            ".com",
            "com.1x",
            "com.class",
            "com.ex-ample",
            "com.ex ample",
            "com.é",
            "com.ex$ample",
            "com._")) {
      assertThatThrownBy(() -> JavaGenerator.builder(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Invalid package name '" + bad + "': ")
          .hasMessageEndingWith(
              "; expected dot-separated Java identifiers, such as com.example.pets");
    }
    assertThatThrownBy(() -> JavaGenerator.builder("com.class"))
        .hasMessageContaining("'class' is a Java keyword");
    assertThatThrownBy(() -> JavaGenerator.builder(null)).isInstanceOf(NullPointerException.class);
    for (String good : List.of("pets", "com.example.pets", "a.b_c.D1", "org.var.record", "_x.y")) {
      assertThat(JavaGenerator.builder(good).build()).isNotNull();
    }
  }

  @Test
  void theSameSpecTwiceCountsOnceAndTwoDifferentSpecsWithOneIdAreRefused() {
    OperationSpec a = spec("ns", "op", null, "{\"type\": \"string\"}");
    OperationSpec b = spec("ns", "op", null, "{\"type\": \"integer\"}");
    JavaGenerator generator = JavaGenerator.builder("p").build();
    assertThat(generator.generate(List.of(a, a))).isEqualTo(generator.generate(List.of(a)));
    assertThatThrownBy(() -> generator.generate(List.of(a, b)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Two different specs have the id ns.op");
  }

  @Test
  void noSpecsNoFiles() {
    GeneratedSources sources = JavaGenerator.builder("p").build().generate(List.of());
    assertThat(sources.files()).isEmpty();
    assertThat(sources.notes()).isEmpty();
  }

  @Test
  void filesHaveTheirQualifiedNameAndPath() {
    GeneratedSources sources =
        JavaGenerator.builder("com.example.pets")
            .build()
            .generate(List.of(spec("pets", "get", "{\"properties\": {\"a\": {}}}", null)));
    assertThat(sources.files())
        .extracting(GeneratedFile::qualifiedName, GeneratedFile::relativePath)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "com.example.pets.GetInput", "com/example/pets/GetInput.java"),
            org.assertj.core.groups.Tuple.tuple(
                "com.example.pets.Pets", "com/example/pets/Pets.java"));
    assertThatThrownBy(() -> sources.files().add(sources.files().get(0)))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void writeToCreatesPackageFoldersAndOverwrites(@TempDir Path dir) throws Exception {
    GeneratedSources sources =
        JavaGenerator.builder("com.example.pets").build().generate(PetstoreTest.petstore());
    Path pets = dir.resolve("com/example/pets/Pets.java");
    Files.createDirectories(pets.getParent());
    Files.writeString(pets, "old content that is longer than nothing at all ".repeat(100));
    sources.writeTo(dir);
    for (GeneratedFile file : sources.files()) {
      assertThat(Files.readString(dir.resolve(file.relativePath()), StandardCharsets.UTF_8))
          .isEqualTo(file.content());
    }
    try (var listing = Files.list(pets.getParent())) {
      assertThat(listing.count()).isEqualTo(sources.files().size());
    }
  }

  @Test
  void writeToFailsUnchecked(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("not-a-directory");
    Files.writeString(file, "x");
    GeneratedSources sources =
        JavaGenerator.builder("p").build().generate(List.of(spec("ns", "op", null, null)));
    assertThatThrownBy(() -> sources.writeTo(file))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("Cannot write");
  }
}
