package dev.alkdev.operations.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Keeps docs/architecture.md in step with the module descriptors: every Java module of the
 * repository (a {@code module-info.java} in some module's {@code src/main/java}) and every package
 * it exports to everyone must be named there in backticks. Qualified exports ({@code exports ... to
 * ...}) are internals and are not required.
 */
class ArchitectureDocTest {
  private static final Path REPO = Path.of(System.getProperty("ops.repo.dir", "..")).normalize();

  private static final Pattern MODULE = Pattern.compile("\\bmodule\\s+([\\w.]+)\\s*\\{");

  /** An export statement, up to its semicolon; group 2 is the rest (" to a, b" when qualified). */
  private static final Pattern EXPORTS = Pattern.compile("\\bexports\\s+([\\w.]+)([^;]*);");

  @TestFactory
  Stream<DynamicTest> everyModuleAndExportedPackageIsInTheArchitectureDoc() throws IOException {
    String doc = architectureDoc();
    List<DynamicTest> tests = new ArrayList<>();
    for (Path descriptor : descriptors()) {
      String source = withoutComments(Files.readString(descriptor));
      Matcher module = MODULE.matcher(source);
      assertThat(module.find()).as("a module declaration in %s", descriptor).isTrue();
      String name = module.group(1);
      String where = REPO.relativize(descriptor).toString();
      tests.add(
          DynamicTest.dynamicTest(
              "module " + name, () -> assertNamed(doc, name, "the module " + name, where)));
      Matcher exports = EXPORTS.matcher(source);
      while (exports.find()) {
        String pkg = exports.group(1);
        if (exports.group(2).isBlank()) {
          tests.add(
              DynamicTest.dynamicTest(
                  "package " + pkg,
                  () ->
                      assertNamed(
                          doc, pkg, "the package " + pkg + " (exported by " + name + ")", where)));
        }
      }
    }
    return tests.stream();
  }

  @Test
  void theRepositoryHasModuleDescriptors() throws IOException {
    assertThat(descriptors()).as("module-info.java files under " + REPO).isNotEmpty();
  }

  private static void assertNamed(String doc, String name, String what, String descriptor) {
    assertThat(doc.contains("`" + name + "`"))
        .withFailMessage(
            "docs/architecture.md does not mention %s in backticks (`%s`), declared in %s;"
                + " add it to docs/architecture.md",
            what, name, descriptor)
        .isTrue();
  }

  private static String architectureDoc() throws IOException {
    return Files.readString(REPO.resolve("docs/architecture.md"));
  }

  /**
   * Every {@code module-info.java} directly in a {@code src/main/java}, outside build output,
   * node_modules and hidden directories.
   */
  private static List<Path> descriptors() throws IOException {
    List<Path> found = new ArrayList<>();
    Files.walkFileTree(
        REPO,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
            String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
            boolean skip =
                !dir.equals(REPO)
                    && (name.equals("target")
                        || name.equals("node_modules")
                        || name.startsWith("."));
            return skip ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            if (file.getFileName().toString().equals("module-info.java")
                && file.getParent().endsWith(Path.of("src", "main", "java"))) {
              found.add(file);
            }
            return FileVisitResult.CONTINUE;
          }
        });
    found.sort(null);
    return found;
  }

  /** Drops block and line comments, so a commented-out export does not count. */
  static String withoutComments(String source) {
    return source.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\\n]*", " ");
  }
}
