package dev.alkdev.operations.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Python packages for interop tests (the MCP Python SDK), installed once into a virtual environment
 * in a cache directory ({@code -Dops.python.dir}, default {@code ~/.cache/ops-python-packages}) at
 * exactly the versions asked for, with the machine's {@code python3}.
 */
public final class PythonPackages {
  private PythonPackages() {}

  /** The cache directory (the virtual environment is its {@code venv}). */
  public static Path dir() {
    String configured = System.getProperty("ops.python.dir");
    return configured != null
        ? Paths.get(configured)
        : Paths.get(System.getProperty("user.home"), ".cache", "ops-python-packages");
  }

  /** The environment's Python. */
  public static Path python() {
    return dir().resolve("venv/bin/python");
  }

  /**
   * Installs each {@code name==version} unless that version is there; empty when ready, else why
   * not (no python3 or venv, the package index unreachable), for the test to skip with.
   */
  public static synchronized Optional<String> ensure(String... requirements)
      throws InterruptedException {
    try {
      Files.createDirectories(dir());
      if (!Files.isExecutable(python())) {
        Optional<String> failed =
            run(List.of("python3", "-m", "venv", dir().resolve("venv").toString()), "venv");
        if (failed.isPresent()) {
          return failed;
        }
      }
      List<String> missing = new ArrayList<>();
      for (String requirement : requirements) {
        int at = requirement.indexOf("==");
        if (at <= 0) {
          throw new IllegalArgumentException(
              "Give a requirement as name==version, not " + requirement);
        }
        Process show =
            new ProcessBuilder(
                    python().toString(), "-m", "pip", "show", requirement.substring(0, at))
                .redirectErrorStream(true)
                .start();
        String shown = new String(show.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        show.waitFor(60, TimeUnit.SECONDS);
        if (!shown.contains("Version: " + requirement.substring(at + 2) + "\n")) {
          missing.add(requirement);
        }
      }
      if (missing.isEmpty()) {
        return Optional.empty();
      }
      List<String> install =
          new ArrayList<>(List.of(python().toString(), "-m", "pip", "install", "--quiet"));
      install.addAll(missing);
      return run(install, "pip install");
    } catch (IOException e) {
      return Optional.of("python3 could not run: " + e.getMessage());
    }
  }

  private static Optional<String> run(List<String> command, String what)
      throws IOException, InterruptedException {
    Path log = dir().resolve(what.replace(' ', '-') + ".log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      return Optional.of(what + " took over 5 minutes (package index unreachable?)");
    }
    if (process.exitValue() != 0) {
      String text = Files.readString(log, StandardCharsets.UTF_8);
      return Optional.of(
          what + " failed: " + (text.length() <= 600 ? text : text.substring(text.length() - 600)));
    }
    return Optional.empty();
  }
}
