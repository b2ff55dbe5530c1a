package dev.alkdev.operations.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.alkdev.operations.OperationDefinition;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.internal.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

class OperationScannerTest {

  /**
   * A file system in memory: files by absolute path ("/ops/a.json"); directories are implied by the
   * files below them. Paths listed in {@code unreadable} fail as a real file system would.
   */
  static class MemoryFS implements ScannerFS {
    final Map<String, String> files = new TreeMap<>();
    final List<String> unreadable = new ArrayList<>();
    final List<String> reads = new ArrayList<>();
    boolean knowsSizes;

    MemoryFS file(String path, String text) {
      files.put(path, text);
      return this;
    }

    MemoryFS unreadable(String path) {
      unreadable.add(path);
      return this;
    }

    @Override
    public List<Entry> readdir(String path) throws IOException {
      if (unreadable.contains(path)) {
        throw new AccessDeniedException(path);
      }
      String prefix = path.endsWith("/") ? path : path + "/";
      Map<String, Entry> entries = new TreeMap<>();
      for (String file : files.keySet()) {
        if (file.startsWith(prefix)) {
          String rest = file.substring(prefix.length());
          int slash = rest.indexOf('/');
          String name = slash < 0 ? rest : rest.substring(0, slash);
          entries.put(name, new Entry(name, slash < 0, slash >= 0));
        }
      }
      if (entries.isEmpty() && !files.containsKey(path)) {
        throw new java.nio.file.NoSuchFileException(path);
      }
      return new ArrayList<>(entries.values());
    }

    @Override
    public String readFile(String path) throws IOException {
      reads.add(path);
      if (unreadable.contains(path)) {
        throw new AccessDeniedException(path);
      }
      String text = files.get(path);
      if (text == null) {
        throw new java.nio.file.NoSuchFileException(path);
      }
      return text;
    }

    @Override
    public OptionalLong size(String path) {
      String text = files.get(path);
      return knowsSizes && text != null
          ? OptionalLong.of(text.getBytes(StandardCharsets.UTF_8).length)
          : OptionalLong.empty();
    }

    @Override
    public String cwd() {
      return "/";
    }
  }

  static String spec(String namespace, String name) {
    return "{\"namespace\":\"" + namespace + "\",\"name\":\"" + name + "\"}";
  }

  static List<String> ids(ScanResult<OperationSpec> result) {
    return result.found().stream().map(OperationSpec::id).collect(Collectors.toList());
  }

  static Map<String, String> problems(ScanResult<?> result) {
    Map<String, String> bySource = new TreeMap<>();
    for (ScanProblem problem : result.problems()) {
      bySource.merge(problem.source(), problem.reason(), (a, b) -> a + " | " + b);
    }
    return bySource;
  }

  @Nested
  class SpecFiles {
    @Test
    void readsJsonAndYamlFilesInNestedDirectoriesInNameOrder() {
      MemoryFS fs =
          new MemoryFS()
              .file("/ops/b.json", spec("b", "json"))
              .file(
                  "/ops/a.yaml",
                  """
                  namespace: a
                  name: yaml
                  type: MUTATION
                  description: From YAML
                  inputSchema:
                    type: object
                    properties:
                      n: {type: integer}
                    required: [n]
                  accessControl:
                    requiredScopes: [write]
                  """)
              .file(
                  "/ops/sub/list.yml",
                  """
                  - {namespace: c, name: one}
                  - namespace: c
                    name: two
                    type: subscription
                  """)
              .file("/ops/sub/deeper/d.JSON", "[" + spec("d", "x") + "," + spec("d", "y") + "]")
              .file("/ops/README.md", "# not a spec")
              .file("/ops/notes.txt", "{}")
              .file("/ops/b.json.bak", "garbage")
              .file("/ops/.hidden.json", "garbage")
              .file("/ops/.git/config.json", "garbage");

      ScanResult<OperationSpec> result = OperationScanner.scanOperations("/ops", fs);

      assertThat(result.problems()).isEmpty();
      assertThat(ids(result)).containsExactly("a.yaml", "b.json", "d.x", "d.y", "c.one", "c.two");
      OperationSpec yaml = result.found().get(0);
      assertThat(yaml.type()).isEqualTo(OperationType.MUTATION);
      assertThat(yaml.description()).isEqualTo("From YAML");
      assertThat(yaml.accessControl().requiredScopes()).containsExactly("write");
      assertThat(yaml.inputSchema().isValid(Json.mapper().readTree("{\"n\":1}"))).isTrue();
      assertThat(yaml.inputSchema().isValid(Json.mapper().readTree("{}"))).isFalse();
      assertThat(result.found().get(5).type()).isEqualTo(OperationType.SUBSCRIPTION);
      assertThat(fs.reads).noneMatch(path -> path.contains(".md") || path.contains("hidden"));
    }

    @Test
    void aByteOrderMarkIsNotPartOfTheDocument() {
      MemoryFS fs = new MemoryFS().file("/ops/bom.json", "\uFEFF" + spec("a", "bom"));
      assertThat(ids(OperationScanner.scanOperations("/ops", fs))).containsExactly("a.bom");
    }

    @Test
    void aSpecRoundTripsThroughJsonAndYamlFiles() {
      OperationSpec spec =
          OperationSpec.builder("rt", "spec")
              .version("3.1.0")
              .type(OperationType.MUTATION)
              .description("Round trip: \"quoted\", multi\nline")
              .inputSchema(
                  "{\"type\":\"object\",\"properties\":{\"when\":{\"type\":\"string\","
                      + "\"format\":\"date-time\"}},\"additionalProperties\":false}")
              .outputSchema("{\"type\":\"array\",\"items\":{\"type\":\"number\"}}")
              .requiredScopes("rt:write")
              .build();
      JsonNode original = spec.toJson();
      MemoryFS fs =
          new MemoryFS()
              .file("/ops/spec.json", original.toPrettyString())
              .file(
                  "/ops/yaml/spec.yaml",
                  YAMLMapper.builder()
                      .build()
                      .writeValueAsString(original)
                      .replace("rt.spec", "rt.yaml")
                      .replace("name: \"spec\"", "name: \"yaml\""));
      ScanResult<OperationSpec> result = OperationScanner.scanOperations("/ops", fs);
      assertThat(result.problems()).isEmpty();
      assertThat(ids(result)).containsExactly("rt.spec", "rt.yaml");
      assertThat(result.found().get(0).toJson()).isEqualTo(original);
      JsonNode yaml = result.found().get(1).toJson();
      assertThat(
              ((tools.jackson.databind.node.ObjectNode) yaml.deepCopy())
                  .put("id", "rt.spec")
                  .put("name", "spec"))
          .isEqualTo(original);
    }

    @Test
    void theFoundSpecsRegisterWithHandlersAddedLater() throws Exception {
      MemoryFS fs = new MemoryFS().file("/ops/echo.json", spec("demo", "echo"));
      try (OperationRegistry registry = OperationRegistry.create()) {
        OperationScanner.scanOperations("/ops", fs).found().forEach(registry::registerSpec);
        registry.registerHandler("demo.echo", (in, ctx) -> in);
        assertThat(
                registry
                    .execute("demo.echo", Map.of("x", 1))
                    .get(5, TimeUnit.SECONDS)
                    .data()
                    .toString())
            .isEqualTo("{\"x\":1}");
      }
    }
  }

  @Nested
  class InvalidEntries {
    /** Every kind of bad entry at once: each is reported and skipped, the good ones stay. */
    @Test
    void eachBadEntryIsReportedWithItsFileAndReasonAndTheScanGoesOn() {
      MemoryFS fs =
          new MemoryFS()
              .file("/ops/00-good.json", spec("good", "first"))
              .file("/ops/bad-json.json", "{\"namespace\": \"a\",\n \"name\": }")
              .file("/ops/bad-yaml.yaml", "namespace: a\nname: [unclosed\n")
              .file("/ops/missing-name.json", "{\"namespace\":\"a\"}")
              .file("/ops/bad-type.yaml", "namespace: a\nname: b\ntype: READ\n")
              .file(
                  "/ops/bad-schema.json",
                  "{\"namespace\":\"a\",\"name\":\"s\",\"inputSchema\":{\"$ref\":\"#/$defs/x\"}}")
              .file("/ops/dup.json", spec("good", "first"))
              .file(
                  "/ops/list.json",
                  "[" + spec("good", "second") + ", 42, " + spec("good", "second") + "]")
              .file("/ops/empty.json", "")
              .file("/ops/blank.yaml", "  \n# only a comment\n")
              .file("/ops/null.json", "null")
              .file("/ops/two-docs.yaml", "namespace: a\nname: b\n---\nnamespace: a\nname: c\n")
              .file("/ops/trailing.json", spec("a", "b") + " " + spec("a", "c"))
              .file("/ops/sub/zz-good.yml", "namespace: good\nname: third\n")
              .file("/ops/locked/x.json", spec("x", "x"))
              .file("/ops/secret.json", spec("y", "y"))
              .unreadable("/ops/locked")
              .unreadable("/ops/secret.json");

      ScanResult<OperationSpec> result = OperationScanner.scanOperations("/ops", fs);

      assertThat(ids(result)).containsExactly("good.first", "good.second", "good.third");
      Map<String, String> problems = problems(result);
      assertThat(problems)
          .containsOnlyKeys(
              "/ops/bad-json.json",
              "/ops/bad-yaml.yaml",
              "/ops/missing-name.json",
              "/ops/bad-type.yaml",
              "/ops/bad-schema.json",
              "/ops/dup.json",
              "/ops/list.json#1",
              "/ops/list.json#2",
              "/ops/empty.json",
              "/ops/blank.yaml",
              "/ops/null.json",
              "/ops/two-docs.yaml",
              "/ops/trailing.json",
              "/ops/locked",
              "/ops/secret.json");
      assertThat(problems.get("/ops/bad-json.json"))
          .startsWith("not valid JSON: Unexpected character ('}'")
          .endsWith("at line 2, column 10");
      assertThat(problems.get("/ops/bad-yaml.yaml"))
          .isEqualTo(
              "not valid YAML: while parsing a flow sequence; expected ',' or ']', but got"
                  + " <stream end> at line 2, column 16");
      assertThat(problems.get("/ops/missing-name.json"))
          .isEqualTo("not a valid spec: \"name\" is missing");
      assertThat(problems.get("/ops/bad-type.yaml"))
          .isEqualTo(
              "not a valid spec: \"type\" must be QUERY, MUTATION or SUBSCRIPTION, was \"READ\"");
      assertThat(problems.get("/ops/bad-schema.json"))
          .startsWith("not a valid spec: \"inputSchema\": Invalid schema");
      assertThat(problems.get("/ops/dup.json"))
          .isEqualTo("duplicate operation id good.first (first found in /ops/00-good.json)");
      assertThat(problems.get("/ops/list.json#1"))
          .isEqualTo("not a valid spec: a spec must be a JSON object, was number");
      assertThat(problems.get("/ops/list.json#2"))
          .isEqualTo("duplicate operation id good.second (first found in /ops/list.json#0)");
      assertThat(problems.get("/ops/empty.json")).isEqualTo("the file is empty");
      assertThat(problems.get("/ops/blank.yaml")).isEqualTo("the file is empty");
      assertThat(problems.get("/ops/null.json"))
          .isEqualTo("not a valid spec: a spec must be a JSON object, was null");
      assertThat(problems.get("/ops/two-docs.yaml"))
          .isEqualTo(
              "the file holds more than one YAML document at line 4, column 1; put several"
                  + " specs in one list instead");
      assertThat(problems.get("/ops/trailing.json"))
          .startsWith("the file holds more than one JSON document at line 1");
      assertThat(problems.get("/ops/locked"))
          .isEqualTo("cannot list the directory: permission denied");
      assertThat(problems.get("/ops/secret.json"))
          .isEqualTo("cannot read the file: permission denied");
      assertThat(result.problems()).allSatisfy(p -> assertThat(p.toString()).startsWith("/ops"));
    }

    @Test
    void anOversizedFileIsSkippedUnreadWhenItsSizeIsKnown() {
      String big =
          "{\"namespace\":\"a\",\"name\":\"big\",\"description\":\""
              + "x".repeat(OperationScanner.MAX_FILE_SIZE)
              + "\"}";
      MemoryFS fs =
          new MemoryFS().file("/ops/big.json", big).file("/ops/small.json", spec("a", "small"));
      ScanResult<OperationSpec> unknownSize = OperationScanner.scanOperations("/ops", fs);
      assertThat(ids(unknownSize)).containsExactly("a.small");
      assertThat(problems(unknownSize).get("/ops/big.json"))
          .isEqualTo(
              "the file is too large ("
                  + big.length()
                  + " characters; the limit is 2097152); not read");

      fs.knowsSizes = true;
      fs.reads.clear();
      ScanResult<OperationSpec> knownSize = OperationScanner.scanOperations("/ops", fs);
      assertThat(problems(knownSize).get("/ops/big.json"))
          .isEqualTo(
              "the file is too large (" + big.length() + " bytes; the limit is 2097152); not read");
      assertThat(fs.reads).containsExactly("/ops/small.json");
    }

    @Test
    void aYamlAliasBombIsRefusedQuickly() {
      // "Billion laughs": nine levels of nine aliases each, 9^9 strings if expanded.
      StringBuilder bomb = new StringBuilder("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
      for (char level = 'b'; level <= 'j'; level++) {
        char previous = (char) (level - 1);
        bomb.append(level).append(": &").append(level).append(" [");
        for (int i = 0; i < 9; i++) {
          bomb.append(i == 0 ? "" : ",").append('*').append(previous);
        }
        bomb.append("]\n");
      }
      MemoryFS fs =
          new MemoryFS()
              .file("/ops/bomb.yaml", bomb.toString())
              .file("/ops/ok.yaml", "namespace: a\nname: ok\n");
      ScanResult<OperationSpec> result =
          assertTimeoutPreemptively(
              Duration.ofSeconds(5), () -> OperationScanner.scanOperations("/ops", fs));
      assertThat(ids(result)).containsExactly("a.ok");
      assertThat(problems(result).get("/ops/bomb.yaml"))
          .isEqualTo(
              "YAML aliases are not supported (found *a at line 2, column 8): write the value"
                  + " out, or use $ref inside schemas");
    }

    @Test
    void aPlainAliasIsRefusedRatherThanReadAsItsName() {
      // Jackson alone would read outputSchema as the string "s", silently.
      MemoryFS fs =
          new MemoryFS()
              .file(
                  "/ops/alias.yaml",
                  "namespace: a\nname: b\ninputSchema: &s {type: string}\noutputSchema: *s\n");
      ScanResult<OperationSpec> result = OperationScanner.scanOperations("/ops", fs);
      assertThat(result.found()).isEmpty();
      assertThat(problems(result).get("/ops/alias.yaml")).startsWith("YAML aliases are not");
    }

    @Test
    void deeplyNestedDocumentsAreRefusedNotOverflowed() {
      String deepJson = "[".repeat(5_000) + "]".repeat(5_000);
      String deepYaml = "[".repeat(5_000) + "]".repeat(5_000);
      MemoryFS fs =
          new MemoryFS().file("/ops/deep.json", deepJson).file("/ops/deep.yaml", deepYaml);
      ScanResult<OperationSpec> result = OperationScanner.scanOperations("/ops", fs);
      assertThat(result.found()).isEmpty();
      assertThat(problems(result).get("/ops/deep.json"))
          .isEqualTo(
              "not valid JSON: Document nesting depth (501) exceeds the maximum allowed (500)");
      assertThat(problems(result).get("/ops/deep.yaml"))
          .isEqualTo(
              "not valid YAML: Document nesting depth (501) exceeds the maximum allowed (500)");
    }

    @Test
    void aMissingDirectoryIsOneProblem() {
      ScanResult<OperationSpec> result =
          OperationScanner.scanOperations("/nowhere", new MemoryFS());
      assertThat(result.found()).isEmpty();
      assertThat(result.problems())
          .containsExactly(
              new ScanProblem("/nowhere", "cannot list the directory: it does not exist"));
    }

    @Test
    void aFileSystemThatFailsBadlyIsReportedNotThrown() {
      ScannerFS broken =
          new MemoryFS() {
            @Override
            public List<Entry> readdir(String path) {
              return List.of(new Entry("x.json", true, false), new Entry("d", false, true));
            }

            @Override
            public String readFile(String path) {
              return null; // a bug in the file system
            }
          };
      ScanResult<OperationSpec> result =
          assertTimeoutPreemptively(
              Duration.ofSeconds(10), () -> OperationScanner.scanOperations("/r", broken));
      assertThat(result.found()).isEmpty();
      assertThat(result.problems()).isNotEmpty();
      assertThat(result.problems().get(0).source())
          .isEqualTo("/r/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d" + "/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d");
      assertThat(result.problems().get(0).reason())
          .isEqualTo("deeper than 32 directory levels; not read");
      assertThat(result.problems())
          .anySatisfy(p -> assertThat(p.reason()).startsWith("cannot read the file: "));
    }

    @Test
    void aDirectoryCycleWithFanOutStopsAtTheDirectoryLimit() {
      // A file system that follows links: every directory holds itself twice, 2^32 paths in all.
      ScannerFS loops =
          new MemoryFS() {
            @Override
            public List<Entry> readdir(String path) {
              return List.of(new Entry("left", false, true), new Entry("right", false, true));
            }
          };
      ScanResult<OperationSpec> result =
          assertTimeoutPreemptively(
              Duration.ofSeconds(20), () -> OperationScanner.scanOperations("/loop", loops));
      assertThat(result.problems())
          .anySatisfy(
              p ->
                  assertThat(p.reason())
                      .isEqualTo(
                          "the scan visited 10000 directories; it stopped here (a directory"
                              + " cycle?)"));
      assertThat(result.problems().size()).isLessThan(OperationScanner.MAX_DIRECTORIES);
    }

    @Test
    void argumentsAreRequired() {
      assertThatThrownBy(() -> OperationScanner.scanOperations(null, new MemoryFS()))
          .isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> OperationScanner.scanOperations("/", null))
          .isInstanceOf(NullPointerException.class);
    }
  }

  @Nested
  class LocalFileSystem {
    @TempDir Path root;

    void write(String relative, String text) throws IOException {
      Path path = root.resolve(relative);
      Files.createDirectories(path.getParent());
      Files.writeString(path, text);
    }

    String at(String relative) {
      return root.resolve(relative).toString();
    }

    @Test
    void scansNestedDirectoriesAndReportsWithRealPaths() throws IOException {
      write("a.json", spec("local", "a"));
      write("nested/b.yaml", "namespace: local\nname: b\n");
      write("nested/deeper/c.yml", "- namespace: local\n  name: c\n- {namespace: local}\n");
      write("nested/ignored.txt", "not read");
      write("broken.json", "{");

      ScanResult<OperationSpec> result =
          OperationScanner.scanOperations(root.toString(), ScannerFS.local());

      assertThat(ids(result)).containsExactly("local.a", "local.b", "local.c");
      assertThat(problems(result))
          .containsOnlyKeys(at("broken.json"), at("nested/deeper/c.yml") + "#1");
      assertThat(problems(result).get(at("nested/deeper/c.yml") + "#1"))
          .isEqualTo("not a valid spec: \"name\" is missing");
    }

    @Test
    void aSymlinkCycleDoesNotLoop() throws IOException {
      write("specs/a.json", spec("cycle", "a"));
      Files.createSymbolicLink(root.resolve("specs/loop"), root.resolve("specs"));
      Files.createSymbolicLink(root.resolve("specs/self"), root);
      Files.createSymbolicLink(root.resolve("specs/linked.json"), root.resolve("specs/a.json"));

      ScanResult<OperationSpec> result =
          assertTimeoutPreemptively(
              Duration.ofSeconds(10),
              () -> OperationScanner.scanOperations(root.toString(), ScannerFS.local()));

      // Links to directories are not followed; a link to a file is read (and repeats an id).
      assertThat(ids(result)).containsExactly("cycle.a");
      assertThat(result.problems())
          .containsExactly(
              new ScanProblem(
                  at("specs/linked.json"),
                  "duplicate operation id cycle.a (first found in " + at("specs/a.json") + ")"));
    }

    @Test
    void anOversizedFileIsNotRead() throws IOException {
      Path big = root.resolve("big.json");
      Files.write(big, new byte[OperationScanner.MAX_FILE_SIZE + 1]);
      ScanResult<OperationSpec> result =
          OperationScanner.scanOperations(root.toString(), ScannerFS.local());
      assertThat(result.problems())
          .containsExactly(
              new ScanProblem(
                  big.toString(),
                  "the file is too large (2097153 bytes; the limit is 2097152); not read"));
    }

    @Test
    void textThatIsNotUtf8IsReported() throws IOException {
      Files.write(root.resolve("latin1.json"), new byte[] {'{', '"', (byte) 0xE9, '"', '}'});
      ScanResult<OperationSpec> result =
          OperationScanner.scanOperations(root.toString(), ScannerFS.local());
      assertThat(result.problems())
          .containsExactly(
              new ScanProblem(at("latin1.json"), "cannot read the file: not UTF-8 text"));
    }

    @Test
    void aMissingDirectoryOrAFileInsteadOfADirectoryIsReported() throws IOException {
      write("file.json", spec("a", "b"));
      assertThat(OperationScanner.scanOperations(at("missing"), ScannerFS.local()).problems())
          .containsExactly(
              new ScanProblem(at("missing"), "cannot list the directory: it does not exist"));
      assertThat(OperationScanner.scanOperations(at("file.json"), ScannerFS.local()).problems())
          .containsExactly(
              new ScanProblem(at("file.json"), "cannot list the directory: not a directory"));
    }

    @Test
    void anUnreadableDirectoryIsReported() throws IOException {
      write("open/a.json", spec("open", "a"));
      write("locked/b.json", spec("locked", "b"));
      Path locked = root.resolve("locked");
      Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("---------"));
      try {
        // Root reads everything: nothing to test then.
        assumeThat(Files.isReadable(locked)).as("running as a user permissions bind").isFalse();
        ScanResult<OperationSpec> result =
            OperationScanner.scanOperations(root.toString(), ScannerFS.local());
        assertThat(ids(result)).containsExactly("open.a");
        assertThat(result.problems())
            .containsExactly(
                new ScanProblem(locked.toString(), "cannot list the directory: permission denied"));
      } finally {
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwx------"));
      }
    }
  }

  @Nested
  class Providers {
    @Test
    void keepsTheGoodProvidersOperationsAndReportsTheRest() {
      ScanResult<OperationDefinition> result =
          OperationScanner.scanProviders(getClass().getClassLoader());

      assertThat(result.found())
          .extracting(OperationDefinition::id)
          .containsExactly("provided.first", "provided.second", "repeating.own", "sloppy.kept");
      Map<String, String> problems = problems(result);
      String prefix = TestProviders.class.getName() + "$";
      assertThat(problems.get(prefix + "Throwing"))
          .isEqualTo(
              "operations() failed: java.lang.IllegalStateException: the provider's backend is"
                  + " down");
      assertThat(problems.get(prefix + "Repeating"))
          .isEqualTo("duplicate operation id provided.first (first offered by " + prefix + "Good)");
      assertThat(problems.get(prefix + "Sloppy"))
          .isEqualTo(
              "operations() returned null at index 1 | duplicate operation id sloppy.kept (first"
                  + " offered by "
                  + prefix
                  + "Sloppy)");
      assertThat(problems.get("ServiceLoader"))
          .contains("provider not loaded: ")
          .contains("Provider " + prefix + "Missing not found")
          .contains(prefix + "NoPublicConstructor");
      assertThat(result.problems()).hasSize(6);
    }

    @Test
    void theKeptOperationsRunFromTheirProvider() throws Exception {
      try (OperationRegistry registry = OperationRegistry.create()) {
        registry.registerAll(OperationScanner.scanProviders().found());
        assertThat(
                registry.execute("provided.first", null).get(5, TimeUnit.SECONDS).data().asString())
            .isEqualTo("first");
        assertThat(
                registry.execute("repeating.own", null).get(5, TimeUnit.SECONDS).data().asString())
            .isEqualTo("own");
      }
    }
  }
}
