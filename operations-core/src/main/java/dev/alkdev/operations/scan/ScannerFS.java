package dev.alkdev.operations.scan;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * The file system the scanner reads, injected so that scans can run over anything (a jar, a virtual
 * file system, a test fixture): the seeds' {@code ScannerFS}, plus {@code readFile} because Java
 * reads spec files instead of importing modules. Paths are whatever the implementation understands;
 * the scanner only joins them with {@link #resolve}.
 */
public interface ScannerFS {
  /** The entries of a directory, in any order. */
  List<Entry> readdir(String path) throws IOException;

  /** A file's text (UTF-8). */
  String readFile(String path) throws IOException;

  /**
   * A file's size in bytes, if the file system can tell without reading it; the scanner then skips
   * an oversized file unread. Empty by default, and the scanner checks the text it read instead.
   */
  default OptionalLong size(String path) throws IOException {
    return OptionalLong.empty();
  }

  /** The directory relative paths start from (the seeds' {@code cwd()}). */
  String cwd();

  /** Joins a directory and an entry name into a path this file system understands. */
  default String resolve(String directory, String name) {
    return directory.endsWith("/") ? directory + name : directory + "/" + name;
  }

  /**
   * A directory entry. An entry that is neither a file nor a directory (a socket, a link the file
   * system does not follow) is skipped.
   *
   * @param name the entry's name (not its path)
   */
  record Entry(String name, boolean isFile, boolean isDirectory) {
    public Entry {
      Objects.requireNonNull(name, "name");
    }
  }

  /**
   * The local file system, through {@link java.nio.file.Files}. Relative paths start from the
   * process's working directory. Symbolic links to files are read; symbolic links to directories
   * are not followed (as in {@link Files#walk}), so a link cycle cannot make a scan loop.
   */
  static ScannerFS local() {
    return new ScannerFS() {
      @Override
      public List<Entry> readdir(String path) throws IOException {
        List<Entry> entries = new ArrayList<>();
        try (Stream<Path> children = Files.list(Path.of(path))) {
          children.forEach(
              child ->
                  entries.add(
                      new Entry(
                          child.getFileName().toString(),
                          Files.isRegularFile(child),
                          Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS))));
        } catch (java.io.UncheckedIOException e) {
          throw e.getCause(); // Files.list reports a failure mid-listing this way
        }
        return entries;
      }

      @Override
      public String readFile(String path) throws IOException {
        return Files.readString(Path.of(path), StandardCharsets.UTF_8);
      }

      @Override
      public OptionalLong size(String path) throws IOException {
        return OptionalLong.of(Files.size(Path.of(path)));
      }

      @Override
      public String cwd() {
        return Path.of("").toAbsolutePath().toString();
      }

      @Override
      public String resolve(String directory, String name) {
        return Path.of(directory).resolve(name).toString();
      }

      @Override
      public String toString() {
        return "ScannerFS.local()";
      }
    };
  }
}
