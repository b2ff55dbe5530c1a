package dev.alkdev.operations.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.Handler;
import dev.alkdev.operations.OperationDefinition;
import dev.alkdev.operations.OperationRegistry;
import dev.alkdev.operations.OperationType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class OpenApiImportTest {
  static final JsonMapper JSON = JsonMapper.builder().build();
  static final Path PETSTORE_30 = Path.of("src/test/resources/openapi/petstore-3.0.yaml");
  static final Path PETSTORE_31 = Path.of("src/test/resources/openapi/petstore-3.1.json");

  static HttpServiceConfig config() {
    return HttpServiceConfig.builder("pets").build();
  }

  static Map<String, OperationDefinition> byName(OpenApiImport result) {
    return result.operations().stream()
        .collect(Collectors.toMap(d -> d.spec().name(), Function.identity()));
  }

  static JsonNode json(String text) {
    return JSON.readTree(text);
  }

  @Test
  void petstore30YamlImportsEveryOperation() {
    OpenApiImport result = FromOpenApi.fromFile(PETSTORE_30, config());
    assertThat(result.operations())
        .extracting(d -> d.spec().name())
        .containsExactly(
            "listPets",
            "createPet",
            "showPetById",
            "delete_pets_by_petId",
            "get_pets_by_petId_photo",
            "listCategories",
            "petEvents");
    assertThat(result.warnings()).isEmpty();
    Map<String, OperationDefinition> ops = byName(result);
    assertThat(ops.get("listPets").spec().type()).isEqualTo(OperationType.QUERY);
    assertThat(ops.get("listPets").spec().description()).isEqualTo("List all pets");
    assertThat(ops.get("showPetById").spec().description()).isEqualTo("Info for a specific pet");
    assertThat(ops.get("createPet").spec().type()).isEqualTo(OperationType.MUTATION);
    // HTTP's idempotent methods make idempotent operations (retried on another node), POST not.
    assertThat(ops.get("listPets").spec().idempotent()).isTrue();
    assertThat(ops.get("delete_pets_by_petId").spec().idempotent()).isTrue();
    assertThat(ops.get("createPet").spec().idempotent()).isFalse();
    assertThat(ops.get("petEvents").spec().type()).isEqualTo(OperationType.SUBSCRIPTION);
    assertThat(ops.get("petEvents").handler().kind()).isEqualTo(Handler.Kind.PUBLISHER);
    assertThat(ops.get("listPets").handler().kind()).isEqualTo(Handler.Kind.ASYNC);
    assertThat(ops.get("get_pets_by_petId_photo").spec().outputSchema().isUnknown()).isTrue();
  }

  @Test
  void inputSchemaHasParametersAndBody() {
    Map<String, OperationDefinition> ops = byName(FromOpenApi.fromFile(PETSTORE_30, config()));
    var list = ops.get("listPets").spec().inputSchema();
    assertThat(list.isValid(json("{\"limit\":5,\"tags\":[\"a\"]}"))).isTrue();
    // 3.0 boolean exclusiveMaximum normalised: 100 itself is refused
    assertThat(list.isValid(json("{\"limit\":100}"))).isFalse();
    assertThat(list.isValid(json("{\"limit\":\"x\"}"))).isFalse();
    var show = ops.get("showPetById").spec().inputSchema();
    assertThat(show.isValid(json("{}"))).isFalse(); // path params always required
    assertThat(show.isValid(json("{\"petId\":\"7\"}"))).isTrue();
    var create = ops.get("createPet").spec().inputSchema();
    assertThat(create.isValid(json("{}"))).isFalse(); // requestBody.required
    assertThat(create.isValid(json("{\"body\":{\"id\":1,\"name\":\"Rex\",\"tag\":null}}")))
        .isTrue();
    assertThat(create.isValid(json("{\"body\":{\"id\":1}}"))).isFalse();
  }

  @Test
  void recursiveSchemasCompileThroughDefs() {
    Map<String, OperationDefinition> ops = byName(FromOpenApi.fromFile(PETSTORE_30, config()));
    var tree = ops.get("listCategories").spec().outputSchema();
    assertThat(tree.isUnknown()).isFalse();
    assertThat(
            tree.isValid(json("{\"name\":\"a\",\"children\":[{\"name\":\"b\",\"children\":[]}]}")))
        .isTrue();
    assertThat(tree.isValid(json("{\"children\":[{\"name\":5}]}"))).isFalse();
    var pets = ops.get("listPets").spec().outputSchema();
    assertThat(pets.isValid(json("[{\"id\":1,\"name\":\"a\",\"category\":{\"name\":\"c\"}}]")))
        .isTrue();
    assertThat(pets.isValid(json("[{\"id\":1}]"))).isFalse();
  }

  @Test
  void petstore31JsonWithExternalRefEscapesAndItemSchema() {
    OpenApiImport result = FromOpenApi.fromFile(PETSTORE_31, config());
    Map<String, OperationDefinition> ops = byName(result);
    var create = ops.get("createPet").spec();
    assertThat(create.inputSchema().isValid(json("{\"body\":{\"name\":\"x\",\"tag\":\"t\"}}")))
        .isTrue();
    assertThat(create.inputSchema().isValid(json("{\"body\":{\"name\":\"\"}}"))).isFalse();
    assertThat(
            create
                .inputSchema()
                .isValid(json("{\"body\":{\"name\":\"x\",\"tag\":\"" + "t".repeat(21) + "\"}}")))
        .isFalse();
    // +json output, recursive parent
    assertThat(
            create
                .outputSchema()
                .isValid(json("{\"id\":1,\"name\":\"a\",\"parent\":{\"id\":2,\"name\":\"b\"}}")))
        .isTrue();
    // ~1 / ~0 escaped schema name
    var tree = ops.get("get_trees_by_a_b").spec().outputSchema();
    assertThat(tree.isValid(json("{\"kids\":[{\"kids\":[]}]}"))).isTrue();
    assertThat(tree.isValid(json("{\"kids\":[{\"kids\":5}]}"))).isFalse();
    // 3.2 itemSchema becomes the subscription's item schema
    var events = ops.get("petEvents").spec();
    assertThat(events.type()).isEqualTo(OperationType.SUBSCRIPTION);
    assertThat(events.outputSchema().isValid(json("{\"id\":1,\"name\":\"a\"}"))).isTrue();
    assertThat(events.outputSchema().isValid(json("{\"id\":1}"))).isFalse();
    // 3.1 type arrays
    assertThat(ops.get("listPets").spec().inputSchema().isValid(json("{\"limit\":null}"))).isTrue();
  }

  @Test
  void registersIntoARegistry() {
    try (OperationRegistry registry = OperationRegistry.create()) {
      FromOpenApi.fromFile(PETSTORE_30, config()).registerAll(registry);
      assertThat(registry.list("pets")).hasSize(7);
      assertThat(registry.getSpec("pets.listPets")).isPresent();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void idRuleAndCollisionsAreDeterministic() {
    String doc =
        """
        openapi: 3.0.0
        info: {title: t, version: '1'}
        servers: [{url: 'http://localhost'}]
        paths:
          /users/{id}:
            get: {responses: {'200': {description: ok}}}
            post: {operationId: 'same op!', responses: {'200': {description: ok}}}
          /:
            get: {responses: {'200': {description: ok}}}
          /users/{id}/x:
            put: {operationId: 'same op!', responses: {'200': {description: ok}}}
            patch: {operationId: same_op, responses: {'200': {description: ok}}}
        """;
    OpenApiImport result = FromOpenApi.fromString(doc, config());
    assertThat(result.operations())
        .extracting(d -> d.spec().name())
        .containsExactly("get_users_by_id", "same_op", "get_root", "same_op_2", "same_op_3");
    assertThat(result.warnings()).hasSize(2).allMatch(w -> w.contains("same_op"));
  }

  @Test
  void serverVariablesAreFilledAndChecked() {
    String doc =
        """
        {"openapi":"3.1.0","info":{"title":"t","version":"1"},
         "servers":[{"url":"https://{env}.example.com/{v}","variables":{
            "env":{"default":"api","enum":["api","staging"]},"v":{"default":"v2"}}}],
         "paths":{}}
        """;
    assertThat(FromOpenApi.fromString(doc, config()).operations()).isEmpty();
    assertThatThrownBy(
            () ->
                FromOpenApi.fromString(
                    doc, HttpServiceConfig.builder("x").serverVariable("env", "evil").build()))
        .isInstanceOf(CallError.class)
        .hasMessageContaining("evil");
  }

  @Test
  void aDocumentWithNoUsableServerListsAndOnlyItsCallsSayWhatIsMissing() throws Exception {
    String doc =
        """
        {"openapi":"3.1.0","info":{"title":"t","version":"1"},
         "paths":{"/a":{"get":{"operationId":"getA","responses":{"200":{"description":"ok"}}}}}}
        """;
    OpenApiImport imported = FromOpenApi.fromString(doc, HttpServiceConfig.builder("x").build());
    assertThat(imported.operations()).extracting(d -> d.spec().name()).containsExactly("getA");
    assertThat(imported.warnings()).anyMatch(w -> w.contains("no servers entry"));
    try (OperationRegistry registry = OperationRegistry.create()) {
      registry.registerAll(imported.operations());
      assertThatThrownBy(() -> registry.execute("x.getA", Map.of()).get(5, TimeUnit.SECONDS))
          .hasCauseInstanceOf(CallError.class)
          .satisfies(
              e -> {
                CallError error = (CallError) e.getCause();
                assertThat(error.code()).isEqualTo(ErrorCode.UNAVAILABLE);
                assertThat(error.retryable()).isFalse();
                assertThat(error.getMessage()).contains("no base URL").contains("--base-url");
              });
    }
  }

  @Test
  void longNamesAreCutWithAStableHashSoTheyDoNotCollide() {
    String prefix = "a".repeat(130);
    String doc =
        """
        {"openapi":"3.1.0","info":{"title":"t","version":"1"},"servers":[{"url":"http://x"}],
         "paths":{"/a":{"get":{"operationId":"%s_one","responses":{"200":{"description":"ok"}}},
                        "put":{"operationId":"%s_two","responses":{"200":{"description":"ok"}}}}}}
        """
            .formatted(prefix, prefix);
    OpenApiImport first = FromOpenApi.fromString(doc, config());
    assertThat(first.operations())
        .extracting(d -> d.spec().name())
        .allMatch(name -> name.length() == 120)
        .doesNotHaveDuplicates();
    assertThat(first.warnings()).noneMatch(w -> w.contains("more than once"));
    assertThat(FromOpenApi.fromString(doc, config()).operations())
        .extracting(d -> d.spec().name())
        .isEqualTo(first.operations().stream().map(d -> d.spec().name()).toList());
  }

  @Test
  void junkAndNonOpenApiAreRefused() {
    assertThatThrownBy(() -> FromOpenApi.fromString("{not json", config()))
        .isInstanceOf(CallError.class)
        .hasMessageContaining("neither valid JSON nor YAML");
    assertThatThrownBy(() -> FromOpenApi.fromString("- a\n- b\n", config()))
        .isInstanceOf(CallError.class);
    assertThatThrownBy(() -> FromOpenApi.fromString("", config())).isInstanceOf(CallError.class);
    assertThatThrownBy(() -> FromOpenApi.fromString("{\"openapi\":\"4.0\"}", config()))
        .isInstanceOf(CallError.class)
        .hasMessageContaining("4.0");
  }

  @Test
  void hugeDocumentIsRefused() {
    String huge = "{\"openapi\":\"3.1.0\",\"x\":\"" + "a".repeat(2_000_000) + "\"}";
    assertThatThrownBy(
            () ->
                FromOpenApi.fromString(
                    huge, config(), OpenApiOptions.defaults().withMaxDocumentBytes(1_000_000)))
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED));
    // a file is refused by its size, unread
    OpenApiFs sized =
        new OpenApiFs() {
          @Override
          public byte[] readFile(String path) {
            throw new AssertionError("must not be read");
          }

          @Override
          public OptionalLong size(String path) {
            return OptionalLong.of(Long.MAX_VALUE);
          }
        };
    assertThatThrownBy(
            () ->
                FromOpenApi.fromFile("big.json", config(), OpenApiOptions.defaults().withFs(sized)))
        .isInstanceOf(CallError.class)
        .hasMessageContaining("over the cap")
        .hasMessageContaining(
            "OpenApiOptions.maxDocumentBytes; raise it with withMaxDocumentBytes");
    // The default cap takes the largest public descriptions (Microsoft Graph beta, about 47 MB).
    assertThat(OpenApiOptions.DEFAULT_MAX_DOCUMENT_BYTES).isGreaterThan(47L * 1000 * 1000);
  }

  private static String docWithSchemaRef(String ref) {
    return """
        {"openapi":"3.1.0","info":{"title":"t","version":"1"},"servers":[{"url":"http://h"}],
         "paths":{"/a":{"get":{"responses":{"200":{"description":"x",
            "content":{"application/json":{"schema":{"$ref":"%s"}}}}}}}},
         "components":{"schemas":{
            "A":{"$ref":"#/components/schemas/B"},"B":{"$ref":"#/components/schemas/A"},
            "Self":{"$ref":"#/components/schemas/Self"}},
          "parameters":{"P":{"$ref":"#/components/parameters/Q"},"Q":{"$ref":"#/components/parameters/P"}}}}
        """
        .formatted(ref);
  }

  @Test
  void operationsShareComponentsAndShowThemSelfContained() {
    // D69: components are copied once per document and compiled once for every operation; what
    // each operation shows (describe, tools/list) still carries what it reaches in its own $defs.
    String doc =
        """
        {"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"http://h"}],
         "paths":{
          "/pets":{"post":{"operationId":"addPet","requestBody":{"required":true,
              "content":{"application/json":{"schema":{"$ref":"#/components/schemas/Pet"}}}},
            "responses":{"200":{"description":"x",
              "content":{"application/json":{"schema":{"$ref":"#/components/schemas/Pet"}}}}}}},
          "/owners":{"get":{"operationId":"owners","responses":{"200":{"description":"x",
              "content":{"application/json":{"schema":{"type":"array",
                "items":{"$ref":"#/components/schemas/Owner"}}}}}}}}},
         "components":{"schemas":{
           "Pet":{"type":"object","required":["name"],"properties":{
             "name":{"type":"string"},"owner":{"$ref":"#/components/schemas/Owner"}}},
           "Owner":{"type":"object","nullable":true,"properties":{"id":{"type":"integer"}}},
           "Unused":{"type":"string"}}}}
        """;
    Map<String, OperationDefinition> ops =
        FromOpenApi.fromString(doc, config()).operations().stream()
            .collect(Collectors.toMap(o -> o.spec().name(), Function.identity()));
    var addPet = ops.get("addPet").spec();
    var owners = ops.get("owners").spec();

    JsonNode input = addPet.inputSchema().json();
    assertThat(input.at("/properties/body/$ref").stringValue()).isEqualTo("#/$defs/Pet");
    assertThat(input.get("$defs").propertyNames()).containsExactlyInAnyOrder("Pet", "Owner");
    JsonNode ownersOutput = owners.outputSchema().json();
    assertThat(ownersOutput.get("$defs").propertyNames()).containsExactly("Owner");

    assertThat(addPet.inputSchema().isValid(JSON.readTree("{\"body\":{\"name\":\"Rex\"}}")))
        .isTrue();
    assertThat(addPet.inputSchema().isValid(JSON.readTree("{\"body\":{\"owner\":null}}")))
        .isFalse();
    assertThat(
            addPet
                .outputSchema()
                .isValid(JSON.readTree("{\"name\":\"Rex\",\"owner\":{\"id\":\"x\"}}")))
        .isFalse();
    assertThat(owners.outputSchema().isValid(JSON.readTree("[{\"id\":1},null]"))).isTrue();
  }

  @Test
  void refCyclesAndMissingPointers() {
    // schema ref cycles terminate (copied once into $defs)
    assertThat(
            FromOpenApi.fromString(docWithSchemaRef("#/components/schemas/A"), config())
                .operations())
        .hasSize(1);
    assertThat(
            FromOpenApi.fromString(docWithSchemaRef("#/components/schemas/Self"), config())
                .operations())
        .hasSize(1);
    assertThatThrownBy(
            () -> FromOpenApi.fromString(docWithSchemaRef("#/components/schemas/Nope"), config()))
        .isInstanceOf(CallError.class)
        .hasMessageContaining("#/components/schemas/Nope");
    // a parameter ref cycle is an error, not a hang
    String paramCycle =
        docWithSchemaRef("#/components/schemas/A")
            .replace(
                "\"get\":{", "\"get\":{\"parameters\":[{\"$ref\":\"#/components/parameters/P\"}],");
    assertThatThrownBy(() -> FromOpenApi.fromString(paramCycle, config()))
        .isInstanceOf(CallError.class)
        .hasMessageContaining("cycle");
  }

  @Test
  void externalRefsAreConfined(@TempDir Path dir) throws IOException {
    Path docs = Files.createDirectories(dir.resolve("docs"));
    Files.writeString(dir.resolve("secret.json"), "{\"S\":{\"type\":\"string\"}}");
    Files.writeString(docs.resolve("beside.json"), "{\"S\":{\"type\":\"integer\"}}");
    Path ok = docs.resolve("ok.json");
    Files.writeString(ok, docWithSchemaRef("beside.json#/S"));
    var op = FromOpenApi.fromFile(ok, config()).operations().get(0);
    assertThat(op.spec().outputSchema().isValid(json("5"))).isTrue();
    assertThat(op.spec().outputSchema().isValid(json("\"x\""))).isFalse();

    Path escape = docs.resolve("escape.json");
    Files.writeString(escape, docWithSchemaRef("../secret.json#/S"));
    assertThatThrownBy(() -> FromOpenApi.fromFile(escape, config()))
        .isInstanceOf(CallError.class)
        .hasMessageContaining("../secret.json#/S")
        .hasMessageContaining("leaves the document's folder");

    Path absolute = docs.resolve("abs.json");
    Files.writeString(absolute, docWithSchemaRef(dir.resolve("secret.json").toString() + "#/S"));
    assertThatThrownBy(() -> FromOpenApi.fromFile(absolute, config()))
        .isInstanceOf(CallError.class)
        .hasMessageContaining("refused");

    Path url = docs.resolve("url.json");
    Files.writeString(url, docWithSchemaRef("http://127.0.0.1:9/x.json#/S"));
    assertThatThrownBy(() -> FromOpenApi.fromFile(url, config()))
        .isInstanceOf(CallError.class)
        .hasMessageContaining("allow-list");

    Path fileScheme = docs.resolve("file.json");
    Files.writeString(fileScheme, docWithSchemaRef("file:///etc/passwd#/S"));
    assertThatThrownBy(() -> FromOpenApi.fromFile(fileScheme, config()))
        .isInstanceOf(CallError.class)
        .hasMessageContaining("refused");

    // a string document has no folder
    assertThatThrownBy(() -> FromOpenApi.fromString(docWithSchemaRef("beside.json#/S"), config()))
        .isInstanceOf(CallError.class)
        .hasMessageContaining("refused");
  }

  @Test
  void allowListedUrlRefsAndUrlDocuments() throws Exception {
    try (RecordingServer server = new RecordingServer()) {
      server.on(
          "/schemas.json", ex -> RecordingServer.json(ex, 200, "{\"S\":{\"type\":\"boolean\"}}"));
      server.on(
          "/api/openapi.json",
          ex ->
              RecordingServer.json(
                  ex, 200, docWithSchemaRef("../schemas.json#/S").replace("http://h", "/v1")));
      var options =
          OpenApiOptions.defaults().withAllowedRefUrls(java.util.List.of(server.base() + "/"));
      var result =
          FromOpenApi.fromUrl(
              java.net.URI.create(server.base() + "/api/openapi.json"), config(), options);
      assertThat(result.operations().get(0).spec().outputSchema().isValid(json("true"))).isTrue();
      // the relative server URL "/v1" resolves against the document's URL
      server.on("/v1/a", ex -> RecordingServer.json(ex, 200, "true"));
      var handler =
          (dev.alkdev.operations.AsyncOperationHandler)
              result.operations().get(0).handler().function();
      handler
          .handle(json("{}"), dev.alkdev.operations.OperationContext.create())
          .toCompletableFuture()
          .get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(server.last().rawPath()).isEqualTo("/v1/a");
      // not allowed: nothing fetched
      int before = server.requests.size();
      assertThatThrownBy(
              () ->
                  FromOpenApi.fromUrl(
                      java.net.URI.create(server.base() + "/api/openapi.json"),
                      config(),
                      OpenApiOptions.defaults()))
          .isInstanceOf(CallError.class)
          .hasMessageContaining("allow-list");
      assertThat(server.requests.size()).isEqualTo(before + 1); // only the document itself
    }
  }

  @Test
  void aDocumentWithNoServersLoadedFromAUrlCallsTheHostThatServedIt() throws Exception {
    // OpenAPI: no servers means one server at "/", which resolves against the document's URL.
    try (RecordingServer server = new RecordingServer()) {
      server.on(
          "/docs/openapi.json",
          ex ->
              RecordingServer.json(
                  ex,
                  200,
                  """
                  {"openapi":"3.1.0","info":{"title":"t","version":"1"},
                   "paths":{"/a":{"get":{"operationId":"getA",
                     "responses":{"200":{"description":"ok"}}}}}}
                  """));
      server.on("/a", ex -> RecordingServer.json(ex, 200, "true"));
      OpenApiImport imported =
          FromOpenApi.fromUrl(
              java.net.URI.create(server.base() + "/docs/openapi.json"),
              config(),
              OpenApiOptions.defaults());
      assertThat(imported.warnings()).noneMatch(w -> w.contains("no base URL"));
      try (OperationRegistry registry = OperationRegistry.create()) {
        registry.registerAll(imported.operations());
        registry.execute("pets.getA", Map.of()).get(10, TimeUnit.SECONDS);
      }
      assertThat(server.last().rawPath()).isEqualTo("/a");
    }
  }

  @Test
  @org.junit.jupiter.api.Timeout(20)
  void yamlAliasBombAndDeepNestingAreRefused() {
    StringBuilder bomb =
        new StringBuilder("openapi: 3.1.0\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for (int n = 1; n < 12; n++) {
      bomb.append("a").append(n).append(": &a").append(n).append(" [");
      for (int k = 0; k < 10; k++) {
        bomb.append(k == 0 ? "" : ", ").append("*a").append(n - 1);
      }
      bomb.append("]\n");
    }
    // The YAML reader does not expand aliases into copies: the bomb stays a few hundred bytes
    // and the document, which has no paths, imports nothing.
    assertThat(FromOpenApi.fromString(bomb.toString(), config()).operations()).isEmpty();
    String deep = "[".repeat(100_000) + "]".repeat(100_000);
    assertThatThrownBy(() -> FromOpenApi.fromString(deep, config())).isInstanceOf(CallError.class);
  }
}
