package dev.alkdev.operations.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.OperationRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The example of operations-openapi/README.md and docs/openapi.md, run against loopback. */
@Timeout(30)
class ReadmeExampleTest {
  @Test
  void importRegisterAndCall() throws Exception {
    try (RecordingServer server = new RecordingServer();
        OperationRegistry registry = OperationRegistry.create()) {
      server.on("/v1/pets/7", ex -> RecordingServer.json(ex, 200, "{\"id\":7,\"name\":\"Rex\"}"));
      String token = "t0k3n";

      HttpServiceConfig config =
          HttpServiceConfig.builder("pets")
              .baseUrl(server.base() + "/v1")
              .auth(HttpAuth.bearer(token))
              .timeout(Duration.ofSeconds(10))
              .build();
      OpenApiImport result =
          FromOpenApi.fromFile(Path.of("src/test/resources/openapi/petstore-3.0.yaml"), config);
      result.warnings().forEach(System.err::println);
      result.registerAll(registry);
      var envelope =
          registry.execute("pets.showPetById", Map.of("petId", "7")).get(10, TimeUnit.SECONDS);

      assertThat(envelope.data().get("name").asString()).isEqualTo("Rex");
      assertThat(server.last().header("Authorization")).isEqualTo("Bearer t0k3n");
    }
  }
}
