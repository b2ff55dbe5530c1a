package dev.alkdev.operations.scan;

import dev.alkdev.operations.OperationDefinition;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.internal.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.dataformat.yaml.YAMLFactory;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The seeds' {@code scanOperations}: finds operation specs in spec files below a directory, and
 * operations offered by {@link OperationProvider}s. An entry that cannot be read is reported with
 * its source and reason and skipped; it never aborts the scan.
 */
public final class OperationScanner {
  /** Largest spec file read; a larger one is reported and skipped. */
  public static final int MAX_FILE_CHARS = 4 * 1024 * 1024;

  /** Deepest directory level visited below the scanned directory. */
  public static final int MAX_DEPTH = 32;

  private static final ObjectMapper JSON = Json.boundedMapper(500, MAX_FILE_CHARS);
  private static final ObjectMapper YAML =
      YAMLMapper.builder(
              YAMLFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder()
                          .maxNestingDepth(500)
                          .maxDocumentLength(MAX_FILE_CHARS)
                          .build())
                  .build())
          .build();

  private OperationScanner() {}

  /**
   * Reads every {@code .json}, {@code .yaml} and {@code .yml} file below {@code directory}
   * (recursively, in name order). A file holds one spec object or an array of them, in the form of
   * {@link OperationSpec#toJson()}. Handlers are registered separately.
   */
  public static ScanResult<OperationSpec> scanOperations(String directory, ScannerFS fs) {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(fs, "fs");
    List<OperationSpec> specs = new ArrayList<>();
    List<ScanProblem> problems = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    walk(fs, directory, 0, specs, problems, ids);
    return new ScanResult<>(specs, problems);
  }

  private static void walk(
      ScannerFS fs,
      String directory,
      int depth,
      List<OperationSpec> specs,
      List<ScanProblem> problems,
      Set<String> ids) {
    if (depth > MAX_DEPTH) {
      problems.add(new ScanProblem(directory, "deeper than " + MAX_DEPTH + " levels; not read"));
      return;
    }
    List<ScannerFS.Entry> entries;
    try {
      entries = new ArrayList<>(fs.readdir(directory));
    } catch (IOException | RuntimeException e) {
      problems.add(new ScanProblem(directory, "cannot list the directory: " + e.getMessage()));
      return;
    }
    entries.sort(Comparator.comparing(ScannerFS.Entry::name));
    for (ScannerFS.Entry entry : entries) {
      String path = fs.resolve(directory, entry.name());
      if (entry.isDirectory()) {
        walk(fs, path, depth + 1, specs, problems, ids);
      } else if (entry.isFile() && isSpecFile(entry.name())) {
        readFile(fs, path, specs, problems, ids);
      }
    }
  }

  private static boolean isSpecFile(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return lower.endsWith(".json") || lower.endsWith(".yaml") || lower.endsWith(".yml");
  }

  private static void readFile(
      ScannerFS fs,
      String path,
      List<OperationSpec> specs,
      List<ScanProblem> problems,
      Set<String> ids) {
    JsonNode document;
    try {
      String text = fs.readFile(path);
      if (text.length() > MAX_FILE_CHARS) {
        problems.add(
            new ScanProblem(path, "larger than " + MAX_FILE_CHARS + " characters; not read"));
        return;
      }
      boolean yaml = !path.toLowerCase(Locale.ROOT).endsWith(".json");
      document = (yaml ? YAML : JSON).readTree(text);
    } catch (IOException e) {
      problems.add(new ScanProblem(path, "cannot read the file: " + e.getMessage()));
      return;
    } catch (JacksonException e) {
      problems.add(new ScanProblem(path, "not valid JSON or YAML: " + e.getOriginalMessage()));
      return;
    }
    if (document == null || document.isMissingNode() || document.isNull()) {
      problems.add(new ScanProblem(path, "the file is empty"));
    } else if (document.isArray()) {
      for (int i = 0; i < document.size(); i++) {
        addSpec(path + "#" + i, document.get(i), specs, problems, ids);
      }
    } else {
      addSpec(path, document, specs, problems, ids);
    }
  }

  private static void addSpec(
      String source,
      JsonNode json,
      List<OperationSpec> specs,
      List<ScanProblem> problems,
      Set<String> ids) {
    OperationSpec spec;
    try {
      spec = OperationSpec.fromJson(json);
    } catch (IllegalArgumentException e) {
      problems.add(new ScanProblem(source, "not a valid spec: " + e.getMessage()));
      return;
    }
    if (!ids.add(spec.id())) {
      problems.add(new ScanProblem(source, "duplicate operation id " + spec.id() + "; skipped"));
      return;
    }
    specs.add(spec);
  }

  /**
   * Collects the operations of every {@link OperationProvider} that {@code loader} finds. A
   * provider that cannot be loaded, that throws, or that repeats an id is reported and skipped.
   */
  public static ScanResult<OperationDefinition> scanProviders(ClassLoader loader) {
    Objects.requireNonNull(loader, "loader");
    return collect(ServiceLoader.load(OperationProvider.class, loader).iterator());
  }

  /** {@link #scanProviders(ClassLoader)} for the providers of the module layer (and classpath). */
  public static ScanResult<OperationDefinition> scanProviders() {
    return collect(ServiceLoader.load(OperationProvider.class).iterator());
  }

  private static ScanResult<OperationDefinition> collect(Iterator<OperationProvider> providers) {
    List<OperationDefinition> found = new ArrayList<>();
    List<ScanProblem> problems = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    while (true) {
      OperationProvider provider;
      try {
        if (!providers.hasNext()) {
          break;
        }
        provider = providers.next();
      } catch (ServiceConfigurationError e) {
        problems.add(new ScanProblem("ServiceLoader", "provider not loaded: " + e.getMessage()));
        continue;
      }
      String source = provider.getClass().getName();
      List<OperationDefinition> operations;
      try {
        operations = List.copyOf(provider.operations());
      } catch (RuntimeException e) {
        problems.add(new ScanProblem(source, "operations() failed: " + e));
        continue;
      }
      for (OperationDefinition definition : operations) {
        if (!ids.add(definition.id())) {
          problems.add(
              new ScanProblem(source, "duplicate operation id " + definition.id() + "; skipped"));
        } else {
          found.add(definition);
        }
      }
    }
    found.sort(Comparator.comparing(OperationDefinition::id));
    return new ScanResult<>(found, problems);
  }
}
