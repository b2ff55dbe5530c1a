package dev.alkdev.operations.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.fail;

import dev.alkdev.operations.schema.internal.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.opentest4j.TestAbortedException;
import tools.jackson.databind.JsonNode;

/**
 * The official JSON-Schema-Test-Suite (read from {@code ops.shared.dir}, never copied), one dynamic
 * test per case, named by file, group and case.
 *
 * <p>Remote references to {@code http://localhost:1234/} are served by a real loopback HTTP server
 * from the suite's {@code remotes/} folder, reached only through {@link
 * SchemaOptions.Builder#mapPrefix}. Required cases must all pass; a case that does not is listed by
 * name in {@link #KNOWN_REQUIRED_FAILURES} with its reason (and in docs/schema-conformance.md).
 * Optional cases run too; the gaps are listed by name in {@link #KNOWN_OPTIONAL_GAPS} and reported
 * as skipped, and a listed case that starts passing fails so the list cannot go stale.
 */
class JsonSchemaTestSuiteTest {
  private static final Path SUITE = sharedDir().resolve("data/json-schema-test-suite");

  /**
   * Required cases that fail, keyed by {@link #caseId} (file relative to its draft folder), with
   * the reason. Empty: every required case of both drafts passes.
   */
  private static final Map<String, String> KNOWN_REQUIRED_FAILURES = Map.of();

  /**
   * Optional cases that fail, in both drafts unless the file exists in one only. All are in
   * networknt's {@code format} checks (format assertion is itself optional in 2020-12).
   */
  private static final Map<String, String> KNOWN_OPTIONAL_GAPS =
      gaps(
          new Gap(
              "optional/format/duration.json",
              "validation of duration strings",
              "networknt's duration check lets a duration skip a unit between two others",
              "hours and seconds cannot appear without minutes",
              "years and days cannot appear without months"),
          new Gap(
              "optional/format/hostname.json",
              "validation of A-label (punycode) host names",
              "networknt does not decode Punycode A-labels to apply the IDNA2008 rules",
              "Arabic-Indic digits mixed with Extended Arabic-Indic digits",
              "Begins with a Nonspacing Mark",
              "Begins with a Spacing Combining Mark",
              "Begins with an Enclosing Mark",
              "Exceptions that are DISALLOWED, left-to-right chars",
              "Exceptions that are DISALLOWED, right-to-left chars",
              "Greek KERAIA not followed by Greek",
              "Greek KERAIA not followed by anything",
              "Hebrew GERESH not preceded by Hebrew",
              "Hebrew GERESH not preceded by anything",
              "Hebrew GERSHAYIM not preceded by Hebrew",
              "Hebrew GERSHAYIM not preceded by anything",
              "KATAKANA MIDDLE DOT with no Hiragana, Katakana, or Han",
              "KATAKANA MIDDLE DOT with no other characters",
              "MIDDLE DOT with no following 'l'",
              "MIDDLE DOT with no preceding 'l'",
              "MIDDLE DOT with nothing following",
              "MIDDLE DOT with nothing preceding",
              "ZERO WIDTH JOINER not preceded by Virama",
              "ZERO WIDTH JOINER not preceded by anything",
              "contains \"--\" in the 3rd and 4th position",
              "contains illegal char U+302E Hangul single dot tone mark",
              "invalid Punycode"),
          new Gap(
              "optional/format/hostname.json",
              "validation of host names",
              "networknt does not check the 253-character limit of a whole host name",
              "exceeds maximum overall length (256)"),
          new Gap(
              "optional/format/idn-email.json",
              "validation of an internationalized e-mail addresses",
              "networknt refuses C1 controls that RFC 6531 allows in the local part",
              "a C1 control in the local part is valid"),
          new Gap(
              "optional/format/idn-hostname.json",
              "validation of internationalized host names",
              "networknt checks neither the RFC 5893 Bidi rule nor the whole name's length",
              "Bidi domain name with a digit-first label is invalid",
              "a name longer than 253 characters is invalid",
              "label starting with a digit before a right-to-left letter is invalid",
              "right-to-left label mixing both digit types is invalid"),
          new Gap(
              "optional/format/idn-hostname.json",
              "validation of separators in internationalized host names",
              "networknt accepts a trailing label separator",
              "trailing dot",
              "trailing fullwidth full stop",
              "trailing halfwidth ideographic full stop",
              "trailing ideographic full stop"),
          new Gap(
              "optional/format/iri.json",
              "validation of IRIs",
              "networknt's IRI grammar differs on IPv6 and IPvFuture hosts",
              "an IPv6 host whose embedded IPv4 has a leading zero is invalid",
              "an IPvFuture host with an uppercase version letter is valid"),
          new Gap(
              "optional/format/uri-reference.json",
              "validation of URI References",
              "networknt's URI-reference check is laxer than RFC 3986 on authorities",
              "a leading zero in the IPv4 part of an IPv6 literal",
              "a non-numeric port in a network-path reference",
              "more than one at-sign in the authority"),
          new Gap(
              "optional/format/uri-template.json",
              "format: uri-template",
              "networknt's URI-template check accepts spaces in literals",
              "a space in a literal is invalid"),
          new Gap(
              "optional/format/uri.json",
              "validation of URIs",
              "networknt's URI check is laxer than RFC 3986 on authorities",
              "leading zero in an embedded IPv4 address is invalid",
              "non-numeric port is invalid"));

  private static LoopbackServer remotes;

  @BeforeAll
  static void startRemotes() throws IOException {
    remotes = LoopbackServer.serving(SUITE.resolve("remotes"));
  }

  @AfterAll
  static void stopRemotes() {
    if (remotes != null) {
      remotes.close();
    }
  }

  @TestFactory
  Stream<DynamicNode> draft2020_12() throws IOException {
    return filesIn("draft2020-12", "", SchemaDialect.DRAFT_2020_12, false, KNOWN_REQUIRED_FAILURES);
  }

  @TestFactory
  Stream<DynamicNode> draft7() throws IOException {
    return filesIn("draft7", "", SchemaDialect.DRAFT_07, false, KNOWN_REQUIRED_FAILURES);
  }

  @TestFactory
  Stream<DynamicNode> draft2020_12_optional() throws IOException {
    return Stream.concat(
        filesIn(
            "draft2020-12", "optional/", SchemaDialect.DRAFT_2020_12, false, KNOWN_OPTIONAL_GAPS),
        // The suite's optional format cases are for implementations that assert format.
        filesIn(
            "draft2020-12",
            "optional/format/",
            SchemaDialect.DRAFT_2020_12,
            true,
            KNOWN_OPTIONAL_GAPS));
  }

  @TestFactory
  Stream<DynamicNode> draft7_optional() throws IOException {
    return Stream.concat(
        filesIn("draft7", "optional/", SchemaDialect.DRAFT_07, false, KNOWN_OPTIONAL_GAPS),
        filesIn("draft7", "optional/format/", SchemaDialect.DRAFT_07, false, KNOWN_OPTIONAL_GAPS));
  }

  /**
   * The remote cases pass only because of the mapping: without it the same reference is refused
   * before any request, and with it exactly the referenced document is fetched.
   */
  @Test
  void remotesAreReachedOnlyThroughTheMapping() throws IOException {
    String schema = "{\"$ref\": \"http://localhost:1234/draft2020-12/integer.json\"}";
    try (LoopbackServer server = LoopbackServer.serving(SUITE.resolve("remotes"))) {
      String direct = "{\"$ref\": \"" + server.baseUrl() + "draft2020-12/integer.json\"}";

      assertThatThrownBy(() -> Schema.fromJson(schema))
          .isInstanceOf(SchemaException.class)
          .hasMessageContaining(
              "refused to load 'http://localhost:1234/draft2020-12/integer.json'");
      assertThatThrownBy(() -> Schema.fromJson(direct))
          .isInstanceOf(SchemaException.class)
          .hasMessageContaining("refused to load");
      assertThat(server.requests()).isEmpty();

      Schema mapped =
          Schema.fromJson(
              schema,
              SchemaOptions.builder()
                  .mapPrefix("http://localhost:1234/", server.baseUrl())
                  .build());
      assertThat(mapped.isValid(Json.nodes().numberNode(1))).isTrue();
      assertThat(mapped.isValid(Json.nodes().stringNode("a"))).isFalse();
      assertThat(server.requests()).containsOnly("/draft2020-12/integer.json");
    }
  }

  private static Stream<DynamicNode> filesIn(
      String draft,
      String folder,
      SchemaDialect dialect,
      boolean formatAssertions,
      Map<String, String> knownFailures)
      throws IOException {
    Path dir = SUITE.resolve("tests").resolve(draft).resolve(folder);
    SchemaOptions options =
        SchemaOptions.builder()
            .defaultDialect(dialect)
            .formatAssertions(formatAssertions)
            .mapPrefix("http://localhost:1234/", remotes.baseUrl())
            .build();
    List<Path> files;
    try (Stream<Path> listing = Files.list(dir)) {
      files = listing.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    assertThat(files).as("suite files in %s", dir).isNotEmpty();
    List<DynamicNode> nodes = new ArrayList<>();
    for (Path file : files) {
      String fileId = folder + file.getFileName();
      JsonNode groups = Json.mapper().readTree(file.toFile());
      List<DynamicNode> groupNodes = new ArrayList<>();
      for (JsonNode group : groups.values()) {
        groupNodes.add(group(draft, fileId, group, options, knownFailures));
      }
      nodes.add(
          DynamicContainer.dynamicContainer(
              draft + "/" + fileId, file.toUri(), groupNodes.stream()));
    }
    return nodes.stream();
  }

  private static DynamicNode group(
      String draft,
      String fileId,
      JsonNode group,
      SchemaOptions options,
      Map<String, String> knownFailures) {
    String groupName = group.get("description").asString();
    // One compilation per group, shared by its cases, as a caller would do.
    Schema[] compiled = new Schema[1];
    RuntimeException[] compileError = new RuntimeException[1];
    List<DynamicTest> tests = new ArrayList<>();
    for (JsonNode test : group.get("tests").values()) {
      String testName = test.get("description").asString();
      String id = caseId(fileId, groupName, testName);
      JsonNode data = test.get("data");
      boolean valid = test.get("valid").asBoolean();
      tests.add(
          // The full name, so flat reports (surefire's) still say which file and group.
          DynamicTest.dynamicTest(
              draft + "/" + id,
              () -> {
                if (compiled[0] == null && compileError[0] == null) {
                  try {
                    compiled[0] = Schema.fromJson(group.get("schema"), options);
                  } catch (RuntimeException e) {
                    compileError[0] = e;
                  }
                }
                String failure = check(compiled[0], compileError[0], data, valid);
                String known = knownFailures.get(id);
                if (known != null) {
                  if (failure == null) {
                    fail(
                        "listed as a known failure but passes now; remove it from the list: " + id);
                  }
                  throw new TestAbortedException("known gap: " + known + " (" + failure + ")");
                }
                if (failure != null) {
                  fail(draft + "/" + id + ": " + failure);
                }
              }));
    }
    return DynamicContainer.dynamicContainer(groupName, tests.stream());
  }

  /** What went wrong with one case, or null when it passed. */
  private static String check(
      Schema schema, RuntimeException compileError, JsonNode data, boolean valid) {
    if (compileError != null) {
      return "schema did not compile: " + compileError;
    }
    List<SchemaError> errors = schema.validate(data);
    if (errors.isEmpty() != valid) {
      return "expected " + (valid ? "valid" : "invalid") + " but validate() returned " + errors;
    }
    if (schema.isValid(data) != valid) {
      return "validate() and isValid() disagree: isValid() returned " + !valid;
    }
    return null;
  }

  /** A case's name: its file (relative to the draft's folder), group and description. */
  static String caseId(String fileId, String group, String test) {
    return fileId + " | " + group + " | " + test;
  }

  /** Known failing cases of one group, with the one reason they share. */
  private record Gap(String file, String group, String reason, String... tests) {}

  private static Map<String, String> gaps(Gap... gaps) {
    Map<String, String> map = new java.util.HashMap<>();
    for (Gap gap : gaps) {
      for (String test : gap.tests()) {
        map.put(caseId(gap.file(), gap.group(), test), gap.reason());
      }
    }
    return Map.copyOf(map);
  }

  static Path sharedDir() {
    String dir = System.getProperty("ops.shared.dir");
    if (dir == null || dir.isBlank()) {
      throw new IllegalStateException(
          "system property ops.shared.dir is not set (surefire sets it to the shared folder)");
    }
    return Path.of(dir);
  }
}
