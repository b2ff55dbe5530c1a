package dev.alkdev.operations.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationSpec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Same specs, same bytes: in any order, on any thread, any number of times. */
class DeterminismTest {

  @Test
  void theSameSpecsInAnyOrderGiveByteIdenticalSources() {
    List<OperationSpec> specs = PetstoreTest.petstore();
    specs.addAll(PetstoreTest.mcpTools());
    JavaGenerator generator = JavaGenerator.builder("com.example.pets").build();
    GeneratedSources first = generator.generate(specs);
    Random random = new Random(42);
    for (int i = 0; i < 20; i++) {
      List<OperationSpec> shuffled = new ArrayList<>(specs);
      Collections.shuffle(shuffled, random);
      GeneratedSources again = generator.generate(shuffled);
      assertThat(again).isEqualTo(first);
    }
    // A new generator, and a copy of every spec: still the same.
    List<OperationSpec> copies = new ArrayList<>();
    for (OperationSpec spec : specs) {
      copies.add(OperationSpec.fromJson(spec.toJson()));
    }
    Collections.reverse(copies);
    assertThat(JavaGenerator.builder("com.example.pets").build().generate(copies)).isEqualTo(first);
    assertThat(first.notes()).isSorted();
    assertThat(first.files()).extracting(GeneratedFile::qualifiedName).isSorted();
  }

  @Test
  void oneGeneratorIsSafeToShareBetweenThreads() throws Exception {
    List<OperationSpec> specs = PetstoreTest.petstore();
    JavaGenerator generator = JavaGenerator.builder("com.example.pets").async(true).build();
    GeneratedSources expected = generator.generate(specs);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<GeneratedSources>> results = new ArrayList<>();
      for (int i = 0; i < 32; i++) {
        List<OperationSpec> shuffled = new ArrayList<>(specs);
        Collections.shuffle(shuffled, new Random(i));
        results.add(pool.submit(() -> generator.generate(shuffled)));
      }
      for (Future<GeneratedSources> result : results) {
        assertThat(result.get()).isEqualTo(expected);
      }
    } finally {
      pool.shutdown();
    }
  }

  @Test
  void outputHasNoDatesNorPaths() {
    GeneratedSources sources =
        JavaGenerator.builder("com.example.pets").build().generate(PetstoreTest.petstore());
    for (GeneratedFile file : sources.files()) {
      assertThat(file.content())
          .doesNotContain(System.getProperty("user.dir"))
          .doesNotContain(System.getProperty("user.home"))
          .doesNotContainPattern("20\\d\\d-\\d\\d-\\d\\d")
          .doesNotContain("@Generated");
    }
  }
}
