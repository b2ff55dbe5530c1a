package dev.alkdev.operations.codegen;

import static dev.alkdev.operations.codegen.MappingTest.flat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Specs shaped as the sources make them: an OpenAPI import (parameters and a {@code body} in one
 * input object, every referenced schema copied into each operation's {@code $defs}) and MCP tools
 * (draft-07 {@code definitions}, no output schema).
 */
class PetstoreTest {
  static List<OperationSpec> petstore() {
    return load("/petstore-specs.json");
  }

  static List<OperationSpec> mcpTools() {
    return load("/mcp-tools.json");
  }

  private static List<OperationSpec> load(String resource) {
    try (InputStream in = PetstoreTest.class.getResourceAsStream(resource)) {
      List<OperationSpec> specs = new ArrayList<>();
      for (JsonNode spec : Specs.JSON.readTree(in)) {
        specs.add(OperationSpec.fromJson(spec));
      }
      return specs;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String source(GeneratedSources sources, String simpleName) {
    return sources.files().stream()
        .filter(f -> f.qualifiedName().equals("com.example.pets." + simpleName))
        .findFirst()
        .orElseThrow()
        .content();
  }

  @Test
  void anOpenApiImportGivesOneTypePerSchemaAndOneInterfacePerNamespace() throws Exception {
    GeneratedSources sources =
        JavaGenerator.builder("com.example.pets").build().generate(petstore());
    Compiled compiled = Compiled.compile(sources);
    assertThat(sources.files())
        .extracting(GeneratedFile::qualifiedName)
        .containsExactly(
            "com.example.pets.Category",
            "com.example.pets.CreatePetsInput",
            "com.example.pets.DeletePetsByPetIdInput",
            "com.example.pets.ListPetsInput",
            "com.example.pets.NewPet",
            "com.example.pets.Pet",
            "com.example.pets.PetStatus",
            "com.example.pets.Pets",
            "com.example.pets.ShowPetByIdInput",
            "com.example.pets.Store",
            "com.example.pets.WatchPetsItem",
            "com.example.pets.WatchPetsItemEvent");
    assertThat(flat(source(sources, "Pet")))
        .contains(
            "public record Pet(long id, String name, String tag, Category category,"
                + " List<String> photoUrls, PetStatus status, String born)")
        .contains("@param born Format: <code>date-time</code>.");
    assertThat(flat(source(sources, "NewPet")))
        .contains(
            "public record NewPet(long id, String name, String tag, Category category,"
                + " List<String> photoUrls, PetStatus status, String born,"
                + " @JsonInclude(JsonInclude.Include.ALWAYS) String owner)");
    assertThat(source(sources, "Category"))
        .contains("public record Category(Long id, String name, List<Category> children)");
    assertThat(flat(source(sources, "ListPetsInput")))
        .contains(
            "public record ListPetsInput(Integer limit, List<String> tags,"
                + " @JsonProperty(\"X-Request-Id\") String xRequestId)");
    String pets = flat(source(sources, "Pets"));
    assertThat(pets)
        .contains("List<Pet> listPets(ListPetsInput input, OperationContext context);")
        .contains("Pet createPets(CreatePetsInput input, OperationContext context);")
        .contains("Pet showPetById(ShowPetByIdInput input, OperationContext context);")
        .contains(
            "JsonNode deletePetsByPetId(DeletePetsByPetIdInput input, OperationContext context);")
        .contains("Flow.Publisher<WatchPetsItem> watchPets(OperationContext context);");
    assertThat(flat(source(sources, "Store")))
        .contains("Map<String, Integer> getInventory(OperationContext context);");
    assertThat(sources.notes())
        .containsExactly("pets.delete_pets_by_petId output: only null is valid -> JsonNode");
    // Not even a warning with -Xlint:all.
    assertThat(compiled.warnings()).isEmpty();

    // A pet from the server reads and writes back; unknown fields are ignored, nulls left out.
    Class<?> pet = compiled.load("com.example.pets.Pet");
    String json =
        """
        {"id": 1, "name": "Rex", "tag": null, "category": {"id": 2, "name": "dogs", "children": []},
         "photoUrls": ["https://x/1.png"], "status": "sold", "born": "2020-02-30T25:00:00Z",
         "addedByServer": true}""";
    Object value = Specs.JSON.readValue(json, pet);
    assertThat(Specs.JSON.readTree(Specs.JSON.writeValueAsString(value)))
        .isEqualTo(
            Specs.JSON.readTree(
                """
                {"id": 1, "name": "Rex", "category": {"id": 2, "name": "dogs", "children": []},
                 "photoUrls": ["https://x/1.png"], "status": "sold", "born": "2020-02-30T25:00:00Z"}"""));
  }

  @Test
  void mcpToolsWithDefinitionsAndNoOutputSchema() {
    GeneratedSources sources =
        JavaGenerator.builder("com.example.pets").build().generate(mcpTools());
    Compiled.compile(sources);
    assertThat(source(sources, "ReadFileInput"))
        .contains("public record ReadFileInput(String path, Range range)")
        .doesNotContain("JsonIgnoreProperties");
    assertThat(source(sources, "Range")).contains("public record Range(long start, Long end)");
    assertThat(flat(source(sources, "Files")))
        .contains("JsonNode readFile(ReadFileInput input, OperationContext context);")
        .contains("SearchOutput search(SearchInput input, OperationContext context);")
        .contains("JsonNode list(OperationContext context);");
    assertThat(source(sources, "SearchOutput"))
        .contains("public record SearchOutput(List<SearchOutputMatchesItem> matches)");
    assertThat(source(sources, "SearchOutputMatchesItem"))
        .contains("(String path, long line, String text)");
    assertThat(sources.notes()).isEmpty();
  }
}
