package dev.alkdev.operations.codegen;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Generated sources compiled in memory against the test class path, with a class loader over the
 * result: the proof that generated code compiles, and the way to run JSON through it.
 */
final class Compiled {
  private final Map<String, byte[]> classes;
  private final List<Diagnostic<? extends JavaFileObject>> diagnostics;
  private final ClassLoader loader;

  private Compiled(
      Map<String, byte[]> classes, List<Diagnostic<? extends JavaFileObject>> diagnostics) {
    this.classes = classes;
    this.diagnostics = diagnostics;
    this.loader =
        new ClassLoader(Compiled.class.getClassLoader()) {
          @Override
          protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] bytes = classes.get(name);
            if (bytes == null) {
              throw new ClassNotFoundException(name);
            }
            return defineClass(name, bytes, 0, bytes.length);
          }
        };
  }

  /** Compiles the sources (with {@code -proc:none}, as Java 17, all lint warnings on). */
  static Compiled compile(GeneratedSources sources) {
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> collector = new DiagnosticCollector<>();
    Map<String, byte[]> classes = new HashMap<>();
    StandardJavaFileManager standard =
        compiler.getStandardFileManager(collector, Locale.ROOT, null);
    ForwardingJavaFileManager<StandardJavaFileManager> manager =
        new ForwardingJavaFileManager<>(standard) {
          @Override
          public JavaFileObject getJavaFileForOutput(
              Location location, String className, JavaFileObject.Kind kind, FileObject sibling) {
            return new SimpleJavaFileObject(URI.create("mem:///" + className + ".class"), kind) {
              @Override
              public OutputStream openOutputStream() {
                return new ByteArrayOutputStream() {
                  @Override
                  public void close() {
                    classes.put(className, toByteArray());
                  }
                };
              }
            };
          }
        };
    List<JavaFileObject> units = new ArrayList<>();
    for (GeneratedFile file : sources.files()) {
      units.add(
          new SimpleJavaFileObject(
              URI.create("mem:///" + file.relativePath()), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
              return file.content();
            }
          });
    }
    List<String> options =
        List.of(
            "-proc:none",
            "--release",
            "17",
            "-Xlint:all",
            "-classpath",
            System.getProperty("java.class.path"));
    Boolean ok = compiler.getTask(null, manager, collector, options, null, units).call();
    Compiled compiled = new Compiled(classes, collector.getDiagnostics());
    if (!ok || !compiled.errors().isEmpty()) {
      throw new AssertionError(
          "Generated sources do not compile:\n"
              + String.join("\n", compiled.errors())
              + "\n\n"
              + sources.files().stream()
                  .map(f -> "=== " + f.relativePath() + "\n" + f.content())
                  .limit(20)
                  .reduce("", String::concat));
    }
    return compiled;
  }

  /** Every diagnostic of kind ERROR, as text. */
  List<String> errors() {
    return messages(Diagnostic.Kind.ERROR);
  }

  /** Every diagnostic of kind WARNING or MANDATORY_WARNING, as text. */
  List<String> warnings() {
    List<String> out = new ArrayList<>(messages(Diagnostic.Kind.WARNING));
    out.addAll(messages(Diagnostic.Kind.MANDATORY_WARNING));
    return out;
  }

  private List<String> messages(Diagnostic.Kind kind) {
    List<String> out = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics) {
      if (d.getKind() == kind) {
        out.add(
            (d.getSource() == null ? "" : d.getSource().getName() + ":" + d.getLineNumber() + ": ")
                + d.getMessage(Locale.ROOT));
      }
    }
    return out;
  }

  ClassLoader loader() {
    return loader;
  }

  /** A compiled class by its binary name. */
  Class<?> load(String binaryName) {
    try {
      return Class.forName(binaryName, true, loader);
    } catch (ClassNotFoundException e) {
      throw new AssertionError("not compiled: " + binaryName + "; compiled: " + classes.keySet());
    }
  }
}
