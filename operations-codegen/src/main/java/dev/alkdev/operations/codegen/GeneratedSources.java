package dev.alkdev.operations.codegen;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What {@link JavaGenerator#generate} wrote: the files, sorted by type name, and the notes, one
 * line per place where the mapping from JSON Schema to Java is not exact ({@code "pets.list_pets
 * output.items[].tag: oneOf of 2 different types -> JsonNode"}), sorted. The same place also has a
 * "Not exact" line in the Javadoc of the generated element.
 *
 * @param files the generated sources
 * @param notes where the mapping is not exact
 */
public record GeneratedSources(List<GeneratedFile> files, List<String> notes) {
  public GeneratedSources {
    files = List.copyOf(files);
    notes = List.copyOf(notes);
  }

  /**
   * Writes every file under {@code directory} (a source root: package folders are created),
   * replacing files that exist. The files are UTF-8; their content is ASCII.
   *
   * @throws UncheckedIOException if a folder or file cannot be written
   */
  public void writeTo(Path directory) {
    Objects.requireNonNull(directory, "directory");
    for (GeneratedFile file : files) {
      Path target = directory;
      for (String segment : file.relativePath().split("/")) {
        target = target.resolve(segment);
      }
      try {
        Files.createDirectories(target.getParent());
        Files.writeString(target, file.content(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot write " + target + ": " + e.getMessage(), e);
      }
    }
  }
}
