package dev.alkdev.operations.scan;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The file system the scanner reads, injected so that scans can run over anything (a jar, a virtual
 * file system, a test fixture): the seeds' {@code ScannerFS}, plus {@code readFile} because Java
 * reads spec files instead of importing modules.
 */
public interface ScannerFS {
  /** The entries of a directory. */
  List<Entry> readdir(String path) throws IOException;

  /** A file's text (UTF-8). */
  String readFile(String path) throws IOException;

  /** The directory relative paths start from. */
  String cwd();

  /** Joins a directory and an entry name into a path this file system understands. */
  default String resolve(String directory, String name) {
    return directory.endsWith("/") ? directory + name : directory + "/" + name;
  }

  /**
   * A directory entry.
   *
   * @param name the entry's name (not its path)
   */
  record Entry(String name, boolean isFile, boolean isDirectory) {}

  /**
   * The local file system. Symbolic links to directories are not followed, so a link cycle cannot
   * make a scan loop.
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
        }
        return entries;
      }

      @Override
      public String readFile(String path) throws IOException {
        return Files.readString(Path.of(path), StandardCharsets.UTF_8);
      }

      @Override
      public String cwd() {
        return Path.of("").toAbsolutePath().toString();
      }
    };
  }
}
