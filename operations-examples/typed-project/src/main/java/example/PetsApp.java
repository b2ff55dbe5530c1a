package example;

import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.openapi.FromOpenApi;
import dev.alkdev.operations.openapi.HttpServiceConfig;
import dev.alkdev.operations.typed.TypedClient;
import example.pets.CreatePetInput;
import example.pets.GetPetInput;
import example.pets.ListPetsInput;
import example.pets.NewPet;
import example.pets.Pet;
import example.pets.Pets;
import example.pets.Status;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Calls the Pets API through the interface operations-maven-plugin generated from its OpenAPI
 * document (src/main/resources/openapi/pets.yaml): records in, records out.
 */
public final class PetsApp {
  private PetsApp() {}

  /** Adds a pet, lists the available ones and reads one back, from the API at {@code baseUrl}. */
  public static List<Pet> run(String baseUrl) {
    String document = resource("/openapi/pets.yaml");
    List<Pet> seen = new ArrayList<>();
    // snippet: typed-openapi
    try (OperationRegistry registry = OperationRegistry.create()) {
      HttpServiceConfig api = HttpServiceConfig.builder("pets").baseUrl(baseUrl).build();
      FromOpenApi.fromString(document, api).registerAll(registry);
      Pets pets = TypedClient.create(Pets.class, registry); // example.pets.Pets, generated

      Pet kit = pets.createPet(new CreatePetInput(new NewPet("kit", null, Status.PENDING)));
      List<Pet> available = pets.listPets(new ListPetsInput(10, Status.AVAILABLE));
      Pet again = pets.getPet(new GetPetInput(kit.id()));
      // end-snippet
      seen.add(kit);
      seen.addAll(available);
      seen.add(again);
    }
    return seen;
  }

  private static String resource(String name) {
    try (InputStream in = PetsApp.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static void main(String[] args) {
    run(args.length > 0 ? args[0] : "http://127.0.0.1:8080").forEach(System.out::println);
  }
}
