package example.shop;

import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The Pets API that openapi/pets.yaml describes, served by the application's own web server. */
@RestController
public class PetsController {
  public record Pet(long id, String name) {}

  private static final List<Pet> PETS = List.of(new Pet(1, "Rex"), new Pet(2, "Tom"));

  @GetMapping("/pets")
  public List<Pet> pets(@RequestParam(defaultValue = "10") int limit) {
    return PETS.subList(0, Math.max(0, Math.min(limit, PETS.size())));
  }
}
