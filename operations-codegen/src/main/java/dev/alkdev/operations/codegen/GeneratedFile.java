package dev.alkdev.operations.codegen;

import java.util.Objects;

/**
 * One generated Java source file.
 *
 * @param qualifiedName the type it declares, {@code com.example.pets.Pet}
 * @param relativePath where it goes under a source folder, {@code com/example/pets/Pet.java}
 *     ({@code /} as separator on every platform)
 * @param content the source text
 */
public record GeneratedFile(String qualifiedName, String relativePath, String content) {
  public GeneratedFile {
    Objects.requireNonNull(qualifiedName, "qualifiedName");
    Objects.requireNonNull(relativePath, "relativePath");
    Objects.requireNonNull(content, "content");
  }
}
