package dev.alkdev.operations.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles generated sources in this JVM with the JDK's compiler, against a class path (this
 * test's, or the ops jar alone), and loads what it made.
 */
final class Javac {
  private Javac() {}

  /** The compiler's errors (empty when it compiled) for every .java file under {@code sources}. */
  static List<String> compile(Path sources, Path classes, String classPath) {
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager files =
            compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8);
        Stream<Path> walk = Files.walk(sources)) {
      Files.createDirectories(classes);
      List<Path> java = walk.filter(p -> p.toString().endsWith(".java")).sorted().toList();
      if (java.isEmpty()) {
        return List.of("no .java files under " + sources);
      }
      List<String> options =
          List.of(
              "-d",
              classes.toString(),
              "-classpath",
              classPath,
              "-proc:none",
              "--release",
              "17",
              "-Xlint:none",
              "-nowarn",
              "-encoding",
              "UTF-8");
      compiler
          .getTask(null, files, diagnostics, options, null, files.getJavaFileObjectsFromPaths(java))
          .call();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> errors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        errors.add(
            (d.getSource() == null ? "" : d.getSource().getName() + ":" + d.getLineNumber() + ": ")
                + d.getMessage(Locale.ROOT));
      }
    }
    return errors;
  }

  /** {@link #compile} against this test's own class path. */
  static List<String> compile(Path sources, Path classes) {
    return compile(sources, classes, System.getProperty("java.class.path"));
  }

  /** A loader of the compiled classes, over this test's. */
  static URLClassLoader loader(Path classes) {
    try {
      return new URLClassLoader(new URL[] {classes.toUri().toURL()}, Javac.class.getClassLoader());
    } catch (MalformedURLException e) {
      throw new IllegalStateException(e);
    }
  }
}
