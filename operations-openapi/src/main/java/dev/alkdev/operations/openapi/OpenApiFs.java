package dev.alkdev.operations.openapi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The file system documents and their external {@code $ref}s are read from (the seeds' {@code
 * OpenAPIFS}); mirrors core's {@code ScannerFS}. Paths use {@code /} separators.
 */
public interface OpenApiFs {

  /** A file's bytes. */
  byte[] readFile(String path) throws IOException;

  /** A file's size, if known without reading it; an oversized file is then refused unread. */
  default OptionalLong size(String path) throws IOException {
    return OptionalLong.empty();
  }

  /** The local file system through {@link Files}. */
  static OpenApiFs local() {
    return new OpenApiFs() {
      @Override
      public byte[] readFile(String path) throws IOException {
        return Files.readAllBytes(Path.of(path));
      }

      @Override
      public OptionalLong size(String path) throws IOException {
        return OptionalLong.of(Files.size(Path.of(path)));
      }

      @Override
      public String toString() {
        return "OpenApiFs.local()";
      }
    };
  }
}
