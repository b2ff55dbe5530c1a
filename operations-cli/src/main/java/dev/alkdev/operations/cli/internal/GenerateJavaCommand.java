package dev.alkdev.operations.cli.internal;

import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.cli.ExitCodes;
import dev.alkdev.operations.codegen.GeneratedSources;
import dev.alkdev.operations.codegen.JavaGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * {@code ops generate java}: records and one interface per namespace, from the loaded operations
 * and spec files, for typed clients and typed implementations (docs/typed-clients.md).
 */
@Command(
    name = "java",
    mixinStandardHelpOptions = true,
    description = {
      "Writes Java sources from the operations' specs: a record (or enum) per object schema and an",
      "interface per namespace, for TypedClient.create(...) and registry.implement(...).",
      "The built-in demo is left out unless --namespace demo names it."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  ops --openapi pets=pets.yaml generate java --out src/main/java --package com.example.pets",
      "  ops --mcp-stdio 'files=npx -y @modelcontextprotocol/server-filesystem .' \\",
      "      generate java --out gen --package com.example.files",
      "  ops list --json > specs.json; ops --no-demo generate java --specs specs.json --out gen"
          + " --package p"
    })
final class GenerateJavaCommand implements Callable<Integer> {
  private static final String DEMO = "demo";

  @ParentCommand GenerateCommand parent;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      required = true,
      description = "The source root to write into (package folders are made under it).")
  Path out;

  @Option(
      names = "--package",
      paramLabel = "PKG",
      required = true,
      description = "The Java package of everything written.")
  String packageName;

  @Option(
      names = "--namespace",
      paramLabel = "NS",
      description = "Only these namespaces. Repeatable. Default: every one but the demo.")
  List<String> namespaces = new ArrayList<>();

  @Option(
      names = "--specs",
      paramLabel = "FILE",
      description =
          "Also read specs from FILE: a JSON array of specs, as `ops list --json` prints. Repeatable.")
  List<Path> specFiles = new ArrayList<>();

  @Option(
      names = "--async",
      description = "Methods return CompletableFuture<R> instead of blocking for R.")
  boolean async;

  @Override
  public Integer call() {
    JavaGenerator generator;
    try {
      generator = JavaGenerator.builder(packageName).async(async).build();
    } catch (IllegalArgumentException e) {
      throw new Failure(ExitCodes.USAGE, "--package " + packageName + ": " + e.getMessage());
    }
    Map<String, OperationSpec> specs = new LinkedHashMap<>();
    for (Path file : specFiles) {
      for (OperationSpec spec : readSpecs(file)) {
        specs.put(spec.id(), spec);
      }
    }
    try (Session session = parent.root.session()) {
      for (OperationSpec spec : session.registry().list()) {
        specs.putIfAbsent(spec.id(), spec);
      }
    }
    List<OperationSpec> chosen = new ArrayList<>();
    for (OperationSpec spec : specs.values()) {
      boolean wanted =
          namespaces.isEmpty()
              ? !spec.namespace().equals(DEMO)
              : namespaces.contains(spec.namespace());
      if (wanted) {
        chosen.add(spec);
      }
    }
    if (chosen.isEmpty()) {
      throw new Failure(
          ExitCodes.USAGE,
          "no operations to generate from",
          namespaces.isEmpty()
              ? "load a source (--openapi, --mcp-stdio, --mcp-url, --nats, ...) or give --specs"
              : "no loaded operation is in namespace " + String.join(", ", namespaces));
    }
    GeneratedSources sources = generator.generate(chosen);
    try {
      sources.writeTo(out);
    } catch (UncheckedIOException e) {
      throw new Failure(ExitCodes.SOFTWARE, "could not write to " + out + ": " + e.getMessage());
    }
    Output output = parent.root.output();
    PrintWriter err = output.err();
    for (String note : sources.notes()) {
      err.println(output.dim("note: " + note));
    }
    err.flush();
    long interfaces = chosen.stream().map(OperationSpec::namespace).distinct().count();
    PrintWriter printed = output.out();
    printed.println(
        "wrote "
            + sources.files().size()
            + " files ("
            + chosen.size()
            + " operations, "
            + interfaces
            + (interfaces == 1 ? " interface" : " interfaces")
            + ") under "
            + out.resolve(packageName.replace('.', '/'))
            + (sources.notes().isEmpty()
                ? ""
                : "; " + sources.notes().size() + " notes on inexact mappings above"));
    printed.flush();
    return ExitCodes.OK;
  }

  private static List<OperationSpec> readSpecs(Path file) {
    JsonNode json;
    try {
      json = JsonInput.MAPPER.readTree(Files.readString(file));
    } catch (IOException e) {
      throw new Failure(ExitCodes.USAGE, "--specs " + file + ": cannot read it: " + e.getMessage());
    } catch (JacksonException e) {
      throw new Failure(
          ExitCodes.USAGE, "--specs " + file + ": not JSON: " + e.getOriginalMessage());
    }
    if (!json.isArray()) {
      throw new Failure(
          ExitCodes.USAGE,
          "--specs "
              + file
              + ": expected a JSON array of specs (ops list --json), found "
              + json.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
    }
    List<OperationSpec> specs = new ArrayList<>();
    int index = 0;
    for (JsonNode spec : json) {
      try {
        specs.add(OperationSpec.fromJson(spec));
      } catch (IllegalArgumentException e) {
        throw new Failure(
            ExitCodes.USAGE, "--specs " + file + ": spec [" + index + "]: " + e.getMessage());
      }
      index++;
    }
    return specs;
  }
}
