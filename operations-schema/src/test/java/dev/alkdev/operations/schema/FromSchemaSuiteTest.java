package dev.alkdev.operations.schema;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.alkdev.operations.schema.internal.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * FromSchema on the JSON-Schema-Test-Suite (read from the shared data folder): every schema there
 * is valid, so importing one must change nothing. Every imported schema must give the suite's
 * expected answer for every value of the suite, and nothing may be degraded or logged.
 */
class FromSchemaSuiteTest {
  private static final Path SUITE =
      Path.of(
          System.getProperty("ops.shared.dir", "../../shared"), "data", "json-schema-test-suite");

  static Stream<Arguments> files() throws IOException {
    List<Arguments> files = new ArrayList<>();
    for (String draft : List.of("draft2020-12", "draft7")) {
      try (Stream<Path> paths = Files.list(SUITE.resolve("tests").resolve(draft))) {
        paths
            .filter(p -> p.toString().endsWith(".json"))
            .sorted()
            .forEach(p -> files.add(Arguments.of(draft, p.getFileName().toString())));
      }
    }
    assertThat(files).hasSizeGreaterThan(80);
    return files.stream();
  }

  @ParameterizedTest(name = "{0}/{1}")
  @MethodSource("files")
  void importedSuiteSchemasBehaveAsWritten(String draft, String file) throws IOException {
    SchemaOptions options =
        SchemaOptions.builder()
            .defaultDialect(
                draft.equals("draft7") ? SchemaDialect.DRAFT_07 : SchemaDialect.DRAFT_2020_12)
            .mapPrefix("http://localhost:1234/", SUITE.resolve("remotes").toUri().toString())
            .build();
    Logger logger = (Logger) LoggerFactory.getLogger(FromSchema.class);
    ListAppender<ILoggingEvent> warnings = new ListAppender<>();
    warnings.start();
    logger.addAppender(warnings);
    List<String> failures = new ArrayList<>();
    int compared = 0;
    try {
      JsonNode groups = Json.mapper().readTree(SUITE.resolve("tests").resolve(draft).resolve(file));
      for (JsonNode group : groups.values()) {
        String name = group.get("description").asString();
        Schema direct;
        try {
          direct = Schema.fromJson(group.get("schema"), options);
        } catch (SchemaException e) {
          continue; // the engine itself refuses it (remote loading): nothing to compare
        }
        warnings.list.clear();
        Schema imported =
            FromSchema.convert(group.get("schema"), FromSchema.Dialect.JSON_SCHEMA, options);
        compared++;
        for (ILoggingEvent event : warnings.list) {
          if (event.getLevel() == Level.WARN) {
            failures.add(name + ": " + event.getFormattedMessage());
          }
        }
        for (JsonNode test : group.get("tests").values()) {
          boolean expected = test.get("valid").asBoolean();
          if (direct.isValid(test.get("data")) != expected) {
            failures.add(name + " / " + test.get("description").asString() + ": engine differs");
          }
          if (imported.isValid(test.get("data")) != expected) {
            failures.add(
                name
                    + " / "
                    + test.get("description").asString()
                    + ": expected "
                    + (expected ? "valid" : "invalid")
                    + " as the suite says");
          }
        }
      }
    } finally {
      logger.detachAppender(warnings);
    }
    assertThat(failures).isEmpty();
    assertThat(compared).as("groups compared").isPositive();
  }
}
