package dev.alkdev.operations.scan;

import dev.alkdev.operations.OperationDefinition;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.internal.Json;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.dataformat.yaml.YAMLFactory;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLParser;

/**
 * The seeds' {@code scanOperations}: finds operation specs in spec files below a directory, and
 * operations offered by {@link OperationProvider}s. An entry that cannot be read is reported with
 * its source and reason (and logged as a warning) and skipped; it never aborts the scan.
 *
 * <pre>{@code
 * ScanResult<OperationSpec> scan = OperationScanner.scanOperations("ops", ScannerFS.local());
 * scan.found().forEach(registry::registerSpec);
 * scan.problems().forEach(problem -> System.err.println(problem));
 * }</pre>
 */
public final class OperationScanner {
  private static final Logger LOG = LoggerFactory.getLogger(OperationScanner.class);

  /**
   * Largest spec file read, in bytes (in characters where the file system cannot tell a file's size
   * before reading it); a larger one is reported and skipped.
   */
  public static final int MAX_FILE_SIZE = 2 * 1024 * 1024;

  /** Deepest directory level visited below the scanned directory. */
  public static final int MAX_DEPTH = 32;

  /**
   * Most directories one scan visits. A file system that follows links can present a cycle as an
   * endless tree; this bounds the walk whatever its shape.
   */
  public static final int MAX_DIRECTORIES = 10_000;

  /** Deepest JSON or YAML nesting read from a spec file. */
  public static final int MAX_NESTING_DEPTH = 500;

  private static final ObjectMapper JSON = Json.boundedMapper(MAX_NESTING_DEPTH, MAX_FILE_SIZE);
  private static final ObjectMapper YAML =
      YAMLMapper.builder(
              YAMLFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder()
                          .maxNestingDepth(MAX_NESTING_DEPTH)
                          .maxDocumentLength(MAX_FILE_SIZE)
                          .build())
                  .build())
          .build();

  private OperationScanner() {}

  /**
   * Reads every {@code .json}, {@code .yaml} and {@code .yml} file below {@code directory}
   * (recursively, in name order; names starting with a dot are skipped, as hidden). A file holds
   * one spec object or an array of them, in the form of {@link OperationSpec#toJson()}. Handlers
   * are registered separately ({@link dev.alkdev.operations.OperationRegistry#registerHandler}).
   *
   * <p>Every file or entry that is not a valid spec is reported with its path ({@code path#index}
   * for an entry of an array) and skipped: unreadable directories and files, files over {@link
   * #MAX_FILE_SIZE}, malformed JSON or YAML, YAML aliases (refused, so an alias bomb cannot blow
   * up), invalid specs, and ids already found in an earlier file.
   */
  public static ScanResult<OperationSpec> scanOperations(String directory, ScannerFS fs) {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(fs, "fs");
    FileScan scan = new FileScan(fs);
    scan.walk(directory, 0);
    return scan.result();
  }

  /** The state of one walk over spec files. */
  private static final class FileScan {
    private final ScannerFS fs;
    private final List<OperationSpec> specs = new ArrayList<>();
    private final List<ScanProblem> problems = new ArrayList<>();
    private final Map<String, String> firstSource = new HashMap<>();
    private int directories;
    private boolean stopped;

    FileScan(ScannerFS fs) {
      this.fs = fs;
    }

    ScanResult<OperationSpec> result() {
      return new ScanResult<>(specs, problems);
    }

    void problem(String source, String reason) {
      ScanProblem problem = new ScanProblem(source, reason);
      LOG.warn("Skipped {}", problem);
      problems.add(problem);
    }

    void walk(String directory, int depth) {
      if (stopped) {
        return;
      }
      if (depth > MAX_DEPTH) {
        problem(directory, "deeper than " + MAX_DEPTH + " directory levels; not read");
        return;
      }
      if (++directories > MAX_DIRECTORIES) {
        stopped = true;
        problem(
            directory,
            "the scan visited "
                + MAX_DIRECTORIES
                + " directories; it stopped here (a directory cycle?)");
        return;
      }
      List<ScannerFS.Entry> entries;
      try {
        entries = new ArrayList<>(fs.readdir(directory));
      } catch (IOException | RuntimeException e) {
        problem(directory, "cannot list the directory: " + describe(e));
        return;
      }
      entries.sort(Comparator.comparing(ScannerFS.Entry::name));
      for (ScannerFS.Entry entry : entries) {
        String name = entry.name();
        if (name.isEmpty() || name.startsWith(".") || name.contains("/")) {
          continue; // hidden, or not a name at all ("", ".", ".."): never part of a spec tree
        }
        String path;
        try {
          path = fs.resolve(directory, name);
        } catch (RuntimeException e) {
          problem(directory + "/" + name, "cannot make a path of it: " + describe(e));
          continue;
        }
        if (entry.isDirectory()) {
          walk(path, depth + 1);
        } else if (entry.isFile() && isSpecFile(name)) {
          readFile(path);
        }
      }
    }

    private void readFile(String path) {
      boolean yaml = !path.toLowerCase(Locale.ROOT).endsWith(".json");
      try {
        OptionalLong size = fs.size(path);
        if (size.isPresent() && size.getAsLong() > MAX_FILE_SIZE) {
          problem(path, tooLarge(size.getAsLong() + " bytes"));
          return;
        }
        String text = Objects.requireNonNull(fs.readFile(path), "the file system returned no text");
        if (text.length() > MAX_FILE_SIZE) {
          problem(path, tooLarge(text.length() + " characters"));
          return;
        }
        if (text.startsWith("\uFEFF")) {
          text = text.substring(1); // a byte order mark is not part of the document
        }
        JsonNode document = yaml ? readYaml(text) : readJson(text);
        if (document.isArray()) {
          for (int i = 0; i < document.size(); i++) {
            addSpec(path + "#" + i, document.get(i));
          }
        } else {
          addSpec(path, document);
        }
      } catch (NotASpecFile e) {
        problem(path, e.getMessage());
      } catch (JacksonException e) {
        problem(path, "not valid " + (yaml ? "YAML: " : "JSON: ") + describe(e));
      } catch (IOException | RuntimeException e) {
        problem(path, "cannot read the file: " + describe(e));
      }
    }

    private void addSpec(String source, JsonNode json) {
      OperationSpec spec;
      try {
        spec = OperationSpec.fromJson(json);
      } catch (RuntimeException e) {
        problem(source, "not a valid spec: " + e.getMessage());
        return;
      }
      String first = firstSource.putIfAbsent(spec.id(), source);
      if (first != null) {
        problem(source, "duplicate operation id " + spec.id() + " (first found in " + first + ")");
        return;
      }
      specs.add(spec);
    }
  }

  private static boolean isSpecFile(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return lower.endsWith(".json") || lower.endsWith(".yaml") || lower.endsWith(".yml");
  }

  private static String tooLarge(String size) {
    return "the file is too large (" + size + "; the limit is " + MAX_FILE_SIZE + "); not read";
  }

  /** A file that parsed but cannot hold specs; the message says why. */
  private static final class NotASpecFile extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotASpecFile(String message) {
      super(message, null, false, false);
    }
  }

  private static JsonNode readJson(String text) {
    checkDocument(JSON, text, "JSON");
    return JSON.readTree(text);
  }

  /**
   * Reads YAML after a first pass over its tokens. Jackson reads an alias ({@code *name}) as the
   * plain string {@code "name"}, which would silently corrupt a spec, and an expanding reader would
   * let a "billion laughs" file explode in memory; aliases are refused instead.
   */
  private static JsonNode readYaml(String text) {
    checkDocument(YAML, text, "YAML");
    return YAML.readTree(text);
  }

  /**
   * One pass over the tokens: the text must hold exactly one document, and (for YAML) no alias. A
   * clear reason beats what the tree reader says about trailing tokens.
   */
  private static void checkDocument(ObjectMapper mapper, String text, String format) {
    try (JsonParser parser = mapper.createParser(text)) {
      int depth = 0;
      int documents = 0;
      JsonToken token;
      while ((token = parser.nextToken()) != null) {
        if (parser instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
          throw new NotASpecFile(
              "YAML aliases are not supported (found *"
                  + parser.getString()
                  + at(parser.currentTokenLocation())
                  + "): write the value out, or use $ref inside schemas");
        }
        if (depth == 0 && ++documents == 2) {
          throw new NotASpecFile(
              "the file holds more than one "
                  + format
                  + " document"
                  + at(parser.currentTokenLocation())
                  + "; put several specs in one list instead");
        }
        if (token.isStructStart()) {
          depth++;
        } else if (token.isStructEnd()) {
          depth--;
        }
      }
      if (documents == 0) {
        throw new NotASpecFile("the file is empty");
      }
    }
  }

  private static String at(TokenStreamLocation location) {
    if (location == null || location.getLineNr() <= 0) {
      return "";
    }
    return " at line " + location.getLineNr() + ", column " + location.getColumnNr();
  }

  /** A parse error for a person: its sentences, without source excerpts and carets. */
  private static String describe(JacksonException e) {
    String message = e.getOriginalMessage() == null ? e.toString() : e.getOriginalMessage();
    String sentences =
        Arrays.stream(message.split("\\R"))
            .filter(line -> !line.isBlank() && !Character.isWhitespace(line.charAt(0)))
            // Jackson's pointers to its own internals mean nothing to the reader of a spec file.
            .map(line -> line.replaceAll(" \\(start marker at \\[.*", ""))
            .map(line -> line.replaceAll(", from `[^`]*`", ""))
            .collect(Collectors.joining("; "));
    return sentences + at(e.getLocation());
  }

  /** An I/O failure for a person: what went wrong, not the exception's class. */
  private static String describe(Exception e) {
    if (e instanceof NoSuchFileException) {
      return "it does not exist";
    }
    if (e instanceof NotDirectoryException) {
      return "not a directory";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof CharacterCodingException) {
      return "not UTF-8 text";
    }
    if (e instanceof FileSystemException fse && fse.getReason() != null) {
      return fse.getReason();
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  // ---------------------------------------------------------------- providers

  /**
   * Collects the operations of every {@link OperationProvider} that {@code loader} finds, sorted by
   * id. A provider that cannot be loaded or instantiated, whose {@code operations()} throws, or
   * that offers an id already offered (by itself or an earlier provider), is reported and skipped;
   * the rest are kept.
   */
  public static ScanResult<OperationDefinition> scanProviders(ClassLoader loader) {
    Objects.requireNonNull(loader, "loader");
    return collect(ServiceLoader.load(OperationProvider.class, loader).iterator());
  }

  /**
   * {@link #scanProviders(ClassLoader)} for the providers visible to this module: those its module
   * layer declares with {@code provides}, and those on the class path.
   */
  public static ScanResult<OperationDefinition> scanProviders() {
    return collect(ServiceLoader.load(OperationProvider.class).iterator());
  }

  /** Most loading failures reported before the scan gives up on a loader that keeps failing. */
  private static final int MAX_PROVIDER_FAILURES = 1_000;

  private static ScanResult<OperationDefinition> collect(Iterator<OperationProvider> providers) {
    List<OperationDefinition> found = new ArrayList<>();
    List<ScanProblem> problems = new ArrayList<>();
    Map<String, String> firstSource = new HashMap<>();
    int failures = 0;
    while (true) {
      OperationProvider provider;
      try {
        if (!providers.hasNext()) {
          break;
        }
        provider = providers.next();
      } catch (ServiceConfigurationError | LinkageError e) {
        problems.add(report("ServiceLoader", "provider not loaded: " + e.getMessage()));
        // ServiceLoader moves past a broken entry; a loader that keeps failing is cut off.
        if (++failures == MAX_PROVIDER_FAILURES) {
          problems.add(report("ServiceLoader", "too many failures; the scan stopped"));
          break;
        }
        continue;
      }
      String source = provider.getClass().getName();
      List<OperationDefinition> operations;
      try {
        operations = provider.operations();
        if (operations == null) {
          problems.add(report(source, "operations() returned null"));
          continue;
        }
        operations = new ArrayList<>(operations); // a snapshot of whatever list it gave
      } catch (RuntimeException | LinkageError e) {
        problems.add(report(source, "operations() failed: " + e));
        continue;
      }
      for (int i = 0; i < operations.size(); i++) {
        OperationDefinition definition = operations.get(i);
        if (definition == null) {
          problems.add(report(source, "operations() returned null at index " + i));
          continue;
        }
        String first = firstSource.putIfAbsent(definition.id(), source);
        if (first != null) {
          problems.add(
              report(
                  source,
                  "duplicate operation id "
                      + definition.id()
                      + " (first offered by "
                      + first
                      + ")"));
        } else {
          found.add(definition);
        }
      }
    }
    found.sort(Comparator.comparing(OperationDefinition::id));
    return new ScanResult<>(found, problems);
  }

  private static ScanProblem report(String source, String reason) {
    ScanProblem problem = new ScanProblem(source, reason);
    LOG.warn("Skipped {}", problem);
    return problem;
  }
}
