package dev.alkdev.operations.openapi.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.source.OperationSource;
import dev.alkdev.operations.source.SourceEntry;
import dev.alkdev.operations.source.SourceFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class OpenApiSourceFactoryTest {
  private static final JsonMapper JSON = JsonMapper.shared();
  private final SourceFactory factory = new OpenApiSourceFactory();

  private static JsonNode json(String text) {
    return JSON.readTree(text);
  }

  @Test
  void foundByServiceLoaderAndSaysNotMineToOtherKinds() {
    assertThat(ServiceLoader.load(SourceFactory.class).stream())
        .anyMatch(provider -> provider.type() == OpenApiSourceFactory.class);
    assertThat(factory.create(SourceEntry.of("mcp", "files", json("{\"location\":\"x\"}"))))
        .isEmpty();
  }

  @Test
  void aRelativeLocationStartsAtTheBaseDirectory() throws Exception {
    Path resources =
        Path.of(getClass().getResource("/openapi/petstore-3.0.yaml").toURI()).getParent();
    SourceEntry entry =
        SourceEntry.of(
                "openapi",
                "pets",
                json(
                    "{\"location\": \"petstore-3.0.yaml\", \"baseUrl\": \"http://127.0.0.1:1/v1\","
                        + " \"auth\": {\"apiKey\": {\"name\": \"key\", \"in\": \"query\","
                        + " \"valueEnv\": \"PETS_KEY\"}}}"))
            .withBaseDirectory(resources)
            .withEnvironment(Map.of("PETS_KEY", "k"));
    try (OperationRegistry registry = OperationRegistry.create();
        OperationSource source = factory.create(entry).orElseThrow()) {
      assertThat(source.kind()).isEqualTo("OpenAPI");
      source.load(registry).get(30, TimeUnit.SECONDS);
      assertThat(registry.list("pets")).extracting(OperationSpec::id).contains("pets.listPets");
    }
  }

  @Test
  void aSourceHasItsOwnHttpClientAndClosesItWithItself() throws Exception {
    Path resources =
        Path.of(getClass().getResource("/openapi/petstore-3.0.yaml").toURI()).getParent();
    SourceEntry entry =
        SourceEntry.of(
                "openapi",
                "closing",
                json(
                    "{\"location\": \"petstore-3.0.yaml\", \"baseUrl\": \"http://127.0.0.1:1/v1\"}"))
            .withBaseDirectory(resources);
    try (OperationRegistry registry = OperationRegistry.create()) {
      OperationSource source = factory.create(entry).orElseThrow();
      source.load(registry).get(30, TimeUnit.SECONDS);
      // Nothing listens on port 1: the call reaches the client and fails there.
      assertThat(callError(registry).getMessage()).contains("HTTP request failed");
      assertThat(clientThreads()).isNotEmpty();

      source.close();
      CallError afterClose = callError(registry);
      assertThat(afterClose.code()).isEqualTo(ErrorCode.UNAVAILABLE);
      assertThat(afterClose.getMessage()).contains("the OpenAPI source is closed");
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!clientThreads().isEmpty() && System.nanoTime() < until) {
        Thread.sleep(20);
      }
      assertThat(clientThreads()).isEmpty();
    }
  }

  private static CallError callError(OperationRegistry registry) throws Exception {
    try {
      registry.execute("closing.listPets", Map.of()).get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(CallError.class);
      return (CallError) e.getCause();
    }
    throw new AssertionError("the call succeeded");
  }

  private static List<String> clientThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(name -> name.startsWith("ops-openapi-http-closing"))
        .toList();
  }

  @Test
  void wrongSettingsAndMissingSecretsAreRefusedWhenTheSourceIsMade() {
    assertThatThrownBy(() -> factory.create(SourceEntry.of("openapi", "p", json("{}"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("location is required (a string)");
    assertThatThrownBy(
            () ->
                factory.create(
                    SourceEntry.of("openapi", "p", json("{\"location\":\"x\",\"baseurl\":\"y\"}"))))
        .hasMessageContaining("unknown setting baseurl");
    assertThatThrownBy(
            () ->
                factory.create(
                    SourceEntry.of(
                        "openapi",
                        "p",
                        json(
                            "{\"location\":\"x\",\"auth\":{\"bearer\":{\"tokenEnv\":\"P_TOKEN\"}}}"))))
        .hasMessageContaining("environment variable P_TOKEN is not set; source p");
    assertThatThrownBy(
            () ->
                factory.create(
                    SourceEntry.of(
                        "openapi", "p", json("{\"location\":\"x\",\"auth\":{\"oauth\":{}}}"))))
        .hasMessageContaining("unknown auth oauth");
  }
}
