package dev.alkdev.operations.codegen;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.TypeName;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.codegen.SourceWriter.InterfaceDecl;
import dev.alkdev.operations.codegen.SourceWriter.MethodDecl;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * One run of the generator: everything it decides, in an order fixed by the specs' ids, so that the
 * same specs in any order give the same files.
 */
final class Generation {
  private Generation() {}

  static GeneratedSources run(String packageName, boolean async, List<OperationSpec> given) {
    List<OperationSpec> specs = sortedUnique(given);
    TypeNames names = new TypeNames(packageName);
    Notes notes = new Notes();

    // Method names first: the names of inline types start from them.
    Map<String, List<OperationSpec>> byNamespace = new TreeMap<>();
    for (OperationSpec spec : specs) {
      byNamespace.computeIfAbsent(spec.namespace(), k -> new ArrayList<>()).add(spec);
    }
    Map<String, String> methodNames = new HashMap<>();
    for (List<OperationSpec> operations : byNamespace.values()) {
      Set<String> taken = Names.taken();
      for (OperationSpec spec : operations) {
        methodNames.put(spec.id(), Names.unique(Names.member(spec.name(), "operation"), taken, ""));
      }
    }

    List<SchemaDoc> docs = new ArrayList<>();
    Map<String, SchemaDoc> inputs = new HashMap<>();
    Map<String, SchemaDoc> outputs = new HashMap<>();
    for (OperationSpec spec : specs) {
      String pascal = Names.type(methodNames.get(spec.id()));
      if (!spec.inputSchema().isUnknown()) {
        SchemaDoc doc =
            new SchemaDoc(spec.id(), "input", 0, spec.inputSchema().json(), pascal + "Input");
        docs.add(doc);
        inputs.put(spec.id(), doc);
      }
      if (!spec.outputSchema().isUnknown()) {
        String suffix = spec.type() == OperationType.SUBSCRIPTION ? "Item" : "Output";
        SchemaDoc doc =
            new SchemaDoc(spec.id(), "output", 1, spec.outputSchema().json(), pascal + suffix);
        docs.add(doc);
        outputs.put(spec.id(), doc);
      }
    }

    Shapes shapes = new Shapes();
    DefCatalog catalog = DefCatalog.build(docs, shapes, names);
    SchemaMapper mapper = new SchemaMapper(shapes, catalog, names, notes);
    Map<String, MethodDecl> methods = new LinkedHashMap<>();
    for (OperationSpec spec : specs) {
      Optional<Mapped> input = Optional.ofNullable(inputs.get(spec.id())).map(mapper::mapRoot);
      Mapped output =
          Optional.ofNullable(outputs.get(spec.id())).map(mapper::mapRoot).orElse(Mapped.json());
      methods.put(spec.id(), method(spec, methodNames.get(spec.id()), input, output, async, notes));
    }

    List<GeneratedFile> files = new ArrayList<>();
    for (TypeDecl decl : mapper.declarations()) {
      files.add(SourceWriter.write(decl));
    }
    // Interfaces are named last: a record keeps its name, the interface takes "Operations".
    for (Map.Entry<String, List<OperationSpec>> e : byNamespace.entrySet()) {
      ClassName name = names.allocateInterface(e.getKey());
      List<MethodDecl> declared = new ArrayList<>();
      for (OperationSpec spec : e.getValue()) {
        declared.add(methods.get(spec.id()));
      }
      files.add(SourceWriter.write(new InterfaceDecl(name, e.getKey(), declared)));
    }
    files.sort(Comparator.comparing(GeneratedFile::qualifiedName));
    return new GeneratedSources(files, notes.sorted());
  }

  /** The specs by id; the same spec given twice counts once, two different ones are an error. */
  private static List<OperationSpec> sortedUnique(List<OperationSpec> given) {
    Map<String, OperationSpec> byId = new TreeMap<>();
    for (OperationSpec spec : given) {
      OperationSpec other = byId.putIfAbsent(spec.id(), spec);
      if (other != null && !other.equals(spec)) {
        throw new IllegalArgumentException(
            "Two different specs have the id "
                + spec.id()
                + ": a namespace's interface cannot hold both; give one another name");
      }
    }
    return List.copyOf(byId.values());
  }

  private static MethodDecl method(
      OperationSpec spec,
      String name,
      Optional<Mapped> input,
      Mapped output,
      boolean async,
      Notes notes) {
    List<String> doc = new ArrayList<>();
    doc.add(
        spec.description().isBlank()
            ? "Calls operation {@code " + spec.id() + "}."
            : Text.doc(spec.description()));
    String description = spec.description();
    if (description.length() > Text.MAX_CONSTANT_CHARS) {
      description = description.substring(0, Text.MAX_CONSTANT_CHARS);
      String text =
          "description longer than " + Text.MAX_CONSTANT_CHARS + " characters, cut in @Operation";
      notes.add(spec.id(), "description", text);
      doc.add("Not exact: " + Text.doc(text) + ".");
    }
    String version = spec.version();
    if (version.length() > Text.MAX_CONSTANT_CHARS) {
      version = version.substring(0, Text.MAX_CONSTANT_CHARS);
      notes.add(
          spec.id(),
          "version",
          "version longer than " + Text.MAX_CONSTANT_CHARS + " characters, cut");
    }
    Optional<TypeName> parameter = Optional.empty();
    if (input.isPresent() && !input.get().emptyObject()) {
      Mapped in = input.get();
      parameter = Optional.of(in.nullable() ? in.boxed() : in.type());
      for (String line : in.docs()) {
        doc.add("Input: " + line);
      }
    }
    for (String line : output.docs()) {
      doc.add((spec.type() == OperationType.SUBSCRIPTION ? "Items: " : "Output: ") + line);
    }
    return new MethodDecl(
        name,
        spec.name(),
        spec.type(),
        description,
        version,
        parameter,
        SourceWriter.returnType(spec.type(), async, output),
        String.join("\n<p>", doc));
  }
}
