package dev.alkdev.operations.codegen;

import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaError;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Specs and schemas for the tests. */
final class Specs {
  static final JsonMapper JSON = JsonMapper.builder().build();
  static final String PACKAGE = "com.example.gen";

  private Specs() {}

  /** A query {@code ns.name} whose input and output are compiled schemas (null: unknown). */
  static OperationSpec spec(String ns, String name, String input, String output) {
    return spec(ns, name, OperationType.QUERY, input, output);
  }

  static OperationSpec spec(
      String ns, String name, OperationType type, String input, String output) {
    OperationSpec.Builder b = OperationSpec.builder(ns, name).type(type);
    if (input != null) {
      b.inputSchema(input);
    }
    if (output != null) {
      b.outputSchema(output);
    }
    return b.build();
  }

  /**
   * A query whose schemas are taken as they are, not compiled: for schemas the validator refuses
   * (refs to nowhere, nesting past its limit), which the generator must take all the same.
   */
  static OperationSpec rawSpec(String ns, String name, JsonNode input, JsonNode output) {
    OperationSpec.Builder b = OperationSpec.builder(ns, name);
    if (input != null) {
      b.inputSchema(new RawSchema(input));
    }
    if (output != null) {
      b.outputSchema(new RawSchema(output));
    }
    return b.build();
  }

  static OperationSpec rawSpec(String ns, String name, String input, String output) {
    return rawSpec(
        ns, name, input == null ? null : json(input), output == null ? null : json(output));
  }

  static JsonNode json(String text) {
    return JSON.readTree(text);
  }

  static GeneratedSources generate(OperationSpec... specs) {
    return JavaGenerator.builder(PACKAGE).build().generate(List.of(specs));
  }

  /** The content of the file of the type {@code simpleName}. */
  static String source(GeneratedSources sources, String simpleName) {
    return sources.files().stream()
        .filter(f -> f.qualifiedName().equals(PACKAGE + "." + simpleName))
        .findFirst()
        .orElseThrow(
            () ->
                new AssertionError(
                    "no type "
                        + simpleName
                        + " among "
                        + sources.files().stream().map(GeneratedFile::qualifiedName).toList()))
        .content();
  }

  /** The simple names of the generated types. */
  static List<String> typeNames(GeneratedSources sources) {
    return sources.files().stream()
        .map(f -> f.qualifiedName().substring(PACKAGE.length() + 1))
        .toList();
  }

  /** A schema as given: no compilation, no checks. */
  record RawSchema(JsonNode json) implements Schema {
    @Override
    public boolean isUnknown() {
      return false;
    }

    @Override
    public List<SchemaError> validate(JsonNode value) {
      return List.of();
    }

    @Override
    public JsonNode cast(JsonNode value) {
      return value;
    }
  }
}
