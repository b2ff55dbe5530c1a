package dev.alkdev.operations.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Reads benchmark inputs shipped in this module's resources. */
final class Resources {
  private Resources() {}

  static byte[] bytes(String name) {
    try (InputStream in = Resources.class.getResourceAsStream("/bench/" + name)) {
      if (in == null) {
        throw new IllegalStateException("missing benchmark resource /bench/" + name);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
