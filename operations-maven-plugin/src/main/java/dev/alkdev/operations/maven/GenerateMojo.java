package dev.alkdev.operations.maven;

import dev.alkdev.operations.cli.Ops;
import dev.alkdev.operations.codegen.JavaGenerator;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.project.MavenProject;

/**
 * Writes Java records and one interface per namespace from operation specs, as {@code ops generate
 * java} does (it runs that command), and adds the folder to the compile source roots.
 *
 * <pre>{@code
 * <plugin>
 *   <groupId>dev.alkdev.operations</groupId>
 *   <artifactId>operations-maven-plugin</artifactId>
 *   <executions><execution><goals><goal>generate</goal></goals></execution></executions>
 *   <configuration>
 *     <packageName>com.example.pets</packageName>
 *     <openapi><pets>${project.basedir}/src/main/openapi/pets.yaml</pets></openapi>
 *   </configuration>
 * </plugin>
 * }</pre>
 *
 * <p>Builds are reproducible: the user's own ops configuration ({@code ~/.config/ops}, {@code
 * OPS_CONFIG}) is never read, only {@link #config} when set, and the built-in demo is left out
 * unless {@link #namespaces} names it. The package's folder under {@link #outputDirectory} is
 * emptied first, so an operation that is gone leaves no type behind.
 */
@Mojo(name = "generate", defaultPhase = LifecyclePhase.GENERATE_SOURCES, threadSafe = true)
public final class GenerateMojo extends AbstractMojo {
  /** The Java package of everything written. */
  @Parameter(required = true)
  String packageName;

  /** The source root written into, added to the project's compile source roots. */
  @Parameter(defaultValue = "${project.build.directory}/generated-sources/operations")
  File outputDirectory;

  /** OpenAPI documents (files or URLs), by the namespace their operations go in. */
  @Parameter Map<String, String> openapi;

  /** MCP servers started as processes ({@code COMMAND ARGS...}), by namespace. */
  @Parameter Map<String, String> mcpStdio;

  /** MCP servers over HTTP (URLs), by namespace. */
  @Parameter Map<String, String> mcpUrl;

  /** A NATS server whose nodes' operations are read (a remote catalogue). */
  @Parameter String nats;

  /** An ops configuration file (YAML or JSON: openapi, mcpServers). */
  @Parameter File config;

  /** JSON arrays of specs, as {@code ops list --json} prints them. */
  @Parameter List<File> specFiles;

  /** Only these namespaces; every one but the demo when empty. */
  @Parameter List<String> namespaces;

  /** Methods return {@code CompletableFuture<R>} instead of blocking for {@code R}. */
  @Parameter(defaultValue = "false")
  boolean async;

  /** Skips the goal. */
  @Parameter(property = "operations.generate.skip", defaultValue = "false")
  boolean skip;

  @Parameter(defaultValue = "${project}", readonly = true, required = true)
  MavenProject project;

  @Override
  public void execute() throws MojoExecutionException {
    if (skip) {
      getLog().info("operations:generate skipped");
      return;
    }
    if (packageName == null) {
      throw new MojoExecutionException("packageName is required (com.example.pets, say)");
    }
    try {
      // The generator's own check, before anything is deleted: the name becomes a folder path.
      JavaGenerator.builder(packageName);
    } catch (IllegalArgumentException e) {
      throw new MojoExecutionException(e.getMessage(), e);
    }
    Path out = outputDirectory.toPath();
    Path emptyConfig = null;
    try {
      clean(out.resolve(packageName.replace('.', File.separatorChar)));
      if (config == null) {
        emptyConfig = Files.createTempFile("operations-generate", ".json");
        Files.writeString(emptyConfig, "{}");
      }
      List<String> args =
          arguments(config != null ? config.toPath() : emptyConfig, out.toAbsolutePath());
      getLog().debug("ops " + String.join(" ", args));
      int exit = Ops.run(args.toArray(String[]::new));
      if (exit != 0) {
        throw new MojoExecutionException(
            "ops generate java failed with exit code " + exit + "; its message is above");
      }
    } catch (IOException e) {
      throw new MojoExecutionException("Could not prepare " + out + ": " + e.getMessage(), e);
    } finally {
      if (emptyConfig != null) {
        try {
          Files.deleteIfExists(emptyConfig);
        } catch (IOException e) {
          getLog().debug("Could not delete " + emptyConfig + ": " + e);
        }
      }
    }
    project.addCompileSourceRoot(out.toAbsolutePath().toString());
  }

  /** The command line of {@code ops generate java} for this configuration. */
  List<String> arguments(Path configFile, Path out) {
    List<String> args = new ArrayList<>();
    args.add("--config");
    args.add(configFile.toString());
    args.add("--no-color");
    if (namespaces == null || !namespaces.contains("demo")) {
      args.add("--no-demo");
    }
    sorted(openapi).forEach((name, location) -> add(args, "--openapi", name + "=" + location));
    sorted(mcpStdio).forEach((name, command) -> add(args, "--mcp-stdio", name + "=" + command));
    sorted(mcpUrl).forEach((name, url) -> add(args, "--mcp-url", name + "=" + url));
    if (nats != null && !nats.isBlank()) {
      add(args, "--nats", nats);
    }
    args.add("generate");
    args.add("java");
    add(args, "--out", out.toString());
    add(args, "--package", packageName);
    if (namespaces != null) {
      namespaces.forEach(namespace -> add(args, "--namespace", namespace));
    }
    if (specFiles != null) {
      specFiles.forEach(file -> add(args, "--specs", file.getAbsolutePath()));
    }
    if (async) {
      args.add("--async");
    }
    return args;
  }

  private static void add(List<String> args, String option, String value) {
    args.add(option);
    args.add(value);
  }

  private static Map<String, String> sorted(Map<String, String> map) {
    return map == null ? Map.of() : new TreeMap<>(map);
  }

  /** Empties the package folder: only the goal writes there. */
  private static void clean(Path packageDirectory) throws IOException {
    if (!Files.isDirectory(packageDirectory)) {
      return;
    }
    try (Stream<Path> files = Files.walk(packageDirectory)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    }
  }
}
