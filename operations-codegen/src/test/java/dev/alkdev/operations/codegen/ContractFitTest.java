package dev.alkdev.operations.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.typed.TypedClient;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The generated interfaces fit the operations they were generated from, by the typed clients' own
 * check ({@link TypedClient.Builder#check()}): the generator and the proxies agree on the shape.
 */
class ContractFitTest {

  /** Every mismatch the typed-client check finds between the generated interfaces and specs. */
  static List<String> mismatches(List<OperationSpec> specs, boolean async) {
    GeneratedSources sources =
        JavaGenerator.builder(Specs.PACKAGE).async(async).build().generate(specs);
    Compiled compiled = Compiled.compile(sources);
    List<String> problems = new ArrayList<>();
    try (OperationRegistry registry = OperationRegistry.create()) {
      for (GeneratedFile file : sources.files()) {
        Class<?> type = compiled.load(file.qualifiedName());
        if (type.isInterface()) {
          problems.addAll(TypedClient.builder(type, registry).specs(specs).check());
        }
      }
    }
    return problems;
  }

  @Test
  void openApiAndMcpShapedSpecs() {
    List<OperationSpec> specs = new ArrayList<>(PetstoreTest.petstore());
    specs.addAll(PetstoreTest.mcpTools());
    assertThat(mismatches(specs, false)).isEmpty();
    assertThat(mismatches(specs, true)).isEmpty();
  }

  @Test
  void everyConstructOfTheMappingAsInputAndAsOutput() {
    String schema =
        """
        {"type": "object", "required": ["id", "kind", "n32", "flag", "maybe"],
         "properties": {
           "id": {"type": "integer"}, "n32": {"type": "integer", "format": "int32"},
           "ratio": {"type": "number"}, "flag": {"type": "boolean"},
           "maybe": {"type": ["string", "null"]}, "when": {"type": "string", "format": "date-time"},
           "kind": {"type": "string", "enum": ["a", "b c", "1st"]},
           "level": {"type": "integer", "enum": [1, 2]},
           "tags": {"type": "array", "items": {"type": "string"}},
           "labels": {"type": "object", "additionalProperties": {"type": "integer"}},
           "anything": {}, "tuple": {"type": "array", "prefixItems": [{"type": "string"}]},
           "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
           "text": {"anyOf": [{"type": "string", "format": "date"}, {"type": "string"}]},
           "node": {"$ref": "#/$defs/Node"}, "self": {"$ref": "#"},
           "constant": {"const": "x"}, "pet-name": {"type": "string"}, "class": {"type": "string"}},
         "$defs": {"Node": {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}""";
    List<OperationSpec> specs =
        List.of(
            Specs.spec("shape", "query", schema, schema),
            Specs.spec(
                "shape",
                "stream",
                dev.alkdev.operations.OperationType.SUBSCRIPTION,
                schema,
                schema),
            Specs.spec(
                "shape", "scalar", "{\"type\": \"integer\"}", "{\"type\": [\"number\", \"null\"]}"),
            Specs.spec("shape", "nothing", "{\"type\": \"object\"}", null));
    assertThat(mismatches(specs, false)).isEmpty();
    assertThat(mismatches(specs, true)).isEmpty();
  }
}
