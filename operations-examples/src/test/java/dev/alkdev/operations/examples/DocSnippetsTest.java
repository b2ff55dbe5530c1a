package dev.alkdev.operations.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Keeps the docs' examples compiled: every Java block in a Markdown file that follows a marker
 * {@code <!-- snippet: File#name -->} must equal the region between {@code // snippet: name} and
 * {@code // end-snippet} in the source file {@code File.java} of some module.
 */
class DocSnippetsTest {
  private static final Pattern MARKER =
      Pattern.compile(
          "<!-- snippet: ([A-Za-z0-9_]+)#([A-Za-z0-9_-]+) -->\\s*```java\\n(.*?)```",
          Pattern.DOTALL);

  private static final Path REPO = Path.of(System.getProperty("ops.repo.dir", "..")).normalize();

  @TestFactory
  Stream<DynamicTest> everySnippetMatchesItsSource() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    for (Path doc : markdownFiles()) {
      String text = Files.readString(doc);
      Matcher m = MARKER.matcher(text);
      while (m.find()) {
        String file = m.group(1);
        String name = m.group(2);
        String shown = m.group(3);
        tests.add(
            DynamicTest.dynamicTest(
                REPO.relativize(doc) + " " + file + "#" + name,
                // Trailing blank lines aside: the formatter keeps one before a member's end
                // marker.
                () ->
                    assertThat(dedent(shown).stripTrailing())
                        .isEqualTo(region(file, name).stripTrailing())));
      }
    }
    return tests.stream();
  }

  @Test
  void theReadmeShowsSnippets() throws IOException {
    assertThat(MARKER.matcher(Files.readString(REPO.resolve("README.md"))).find()).isTrue();
  }

  private static List<Path> markdownFiles() throws IOException {
    try (Stream<Path> paths = Files.walk(REPO, 3)) {
      return paths
          .filter(p -> p.toString().endsWith(".md"))
          .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/."))
          .sorted()
          .toList();
    }
  }

  private static String region(String file, String name) {
    Path source = findSource(file + ".java");
    List<String> lines;
    try {
      lines = Files.readAllLines(source);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    StringBuilder region = new StringBuilder();
    boolean inside = false;
    for (String line : lines) {
      String trimmed = line.trim();
      if (trimmed.equals("// snippet: " + name)) {
        inside = true;
      } else if (inside && trimmed.equals("// end-snippet")) {
        return dedent(region.toString());
      } else if (inside) {
        region.append(line).append('\n');
      }
    }
    throw new AssertionError("no region '" + name + "' in " + source);
  }

  private static Path findSource(String fileName) {
    try (Stream<Path> paths = Files.walk(REPO)) {
      return paths
          .filter(p -> p.getFileName().toString().equals(fileName))
          .filter(p -> p.toString().contains("/src/"))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no source file " + fileName));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Removes the indentation the lines share, so a snippet reads flush left in the docs. */
  static String dedent(String text) {
    List<String> lines = text.lines().toList();
    int indent =
        lines.stream()
            .filter(l -> !l.isBlank())
            .mapToInt(l -> l.length() - l.stripLeading().length())
            .min()
            .orElse(0);
    StringBuilder out = new StringBuilder();
    for (String line : lines) {
      out.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
    }
    return out.toString();
  }
}
