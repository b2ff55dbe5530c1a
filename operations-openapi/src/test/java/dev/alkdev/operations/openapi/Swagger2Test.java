package dev.alkdev.operations.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationDefinition;
import dev.alkdev.operations.OperationType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Swagger 2.0 documents: read into the same operations as 3.x, called against a loopback server.
 */
@Timeout(30)
class Swagger2Test {
  static final Path PETSTORE_20 = Path.of("src/test/resources/openapi/petstore-2.0.json");

  RecordingServer server;

  @BeforeEach
  void start() throws Exception {
    server = new RecordingServer();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  Map<String, OperationDefinition> petstore() {
    OpenApiImport result =
        FromOpenApi.fromFile(
            PETSTORE_20, HttpServiceConfig.builder("pets").baseUrl(server.base() + "/v2").build());
    assertThat(result.warnings()).isEmpty();
    return OpenApiImportTest.byName(result);
  }

  @Test
  void petstoreImportsEveryOperationAndEverySchemaCompiles() {
    OpenApiImport result =
        FromOpenApi.fromFile(PETSTORE_20, HttpServiceConfig.builder("pets").build());
    assertThat(result.warnings()).isEmpty();
    assertThat(result.operations())
        .extracting(d -> d.spec().name())
        .containsExactly(
            "uploadFile",
            "addPet",
            "updatePet",
            "findPetsByStatus",
            "findPetsByTags",
            "getPetById",
            "updatePetWithForm",
            "deletePet",
            "getInventory",
            "placeOrder",
            "getOrderById",
            "deleteOrder");
    Map<String, OperationDefinition> ops = OpenApiImportTest.byName(result);
    assertThat(ops.get("getPetById").spec().type()).isEqualTo(OperationType.QUERY);
    assertThat(ops.get("deletePet").spec().idempotent()).isTrue();
    for (OperationDefinition op : result.operations()) {
      // compiling is lazy: validating forces it, and an invalid schema would throw here
      op.spec().inputSchema().validate(OpenApiImportTest.json("{}"));
      op.spec().outputSchema().validate(OpenApiImportTest.json("{}"));
    }
    // the body parameter's schema, a $ref into definitions, is the input's body
    assertThat(
            ops.get("addPet")
                .spec()
                .inputSchema()
                .isValid(OpenApiImportTest.json("{\"body\":{\"name\":\"rex\",\"photoUrls\":[]}}")))
        .isTrue();
    assertThat(
            ops.get("addPet").spec().inputSchema().isValid(OpenApiImportTest.json("{\"body\":{}}")))
        .isFalse();
    // responses: schema of 200 is the output, through definitions
    assertThat(
            ops.get("getPetById")
                .spec()
                .outputSchema()
                .isValid(OpenApiImportTest.json("{\"name\":\"rex\",\"photoUrls\":[\"u\"]}")))
        .isTrue();
    assertThat(
            ops.get("getPetById")
                .spec()
                .outputSchema()
                .isValid(OpenApiImportTest.json("{\"name\":1}")))
        .isFalse();
    // query parameter bounds (minimum/maximum) are kept as schema
    assertThat(
            ops.get("getOrderById")
                .spec()
                .inputSchema()
                .isValid(OpenApiImportTest.json("{\"orderId\":11}")))
        .isFalse();
  }

  @Test
  void hostBasePathAndSchemesAreTheBaseUrl() throws Exception {
    String doc =
        """
        {"swagger": "2.0", "info": {"title": "t", "version": "1"},
         "host": "127.0.0.1:%d", "basePath": "/api/v1", "schemes": ["http"],
         "paths": {"/ping": {"get": {"operationId": "ping", "responses": {"200": {"description": "ok"}}}}}}
        """
            .formatted(server.port());
    OpenApiImport result = FromOpenApi.fromString(doc, HttpServiceConfig.builder("t").build());
    assertThat(result.warnings()).isEmpty();
    HttpCallTest.call(OpenApiImportTest.byName(result).get("ping"), "{}");
    assertThat(server.last().target()).isEqualTo("/api/v1/ping");
  }

  @Test
  void noHostMeansNoBaseUrlForAStringDocument() {
    OpenApiImport result =
        FromOpenApi.fromString(
            "{\"swagger\":\"2.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"basePath\":\"/v1\","
                + "\"paths\":{\"/a\":{\"get\":{\"responses\":{\"200\":{\"description\":\"ok\"}}}}}}",
            HttpServiceConfig.builder("t").build());
    assertThat(result.operations()).hasSize(1);
    assertThat(result.warnings())
        .anyMatch(w -> w.contains("no base URL") && w.contains("relative"));
  }

  @Test
  void petstoreCallsPutEachParameterOnTheWire() throws Exception {
    Map<String, OperationDefinition> ops = petstore();
    HttpCallTest.call(ops.get("findPetsByStatus"), "{\"status\":[\"available\",\"sold\"]}");
    assertThat(server.last().target())
        .isEqualTo("/v2/pet/findByStatus?status=available&status=sold");
    HttpCallTest.call(ops.get("findPetsByTags"), "{\"tags\":[\"a b\",\"c\"]}");
    assertThat(server.last().target()).isEqualTo("/v2/pet/findByTags?tags=a%20b,c");
    HttpCallTest.call(ops.get("deletePet"), "{\"petId\":7,\"api_key\":\"k\"}");
    assertThat(server.last().method()).isEqualTo("DELETE");
    assertThat(server.last().target()).isEqualTo("/v2/pet/7");
    assertThat(server.last().header("api_key")).isEqualTo("k");
    HttpCallTest.call(ops.get("addPet"), "{\"body\":{\"name\":\"rex\",\"photoUrls\":[]}}");
    assertThat(server.last().header("Content-Type")).isEqualTo("application/json");
    assertThat(OpenApiImportTest.json(server.last().bodyText()))
        .isEqualTo(OpenApiImportTest.json("{\"name\":\"rex\",\"photoUrls\":[]}"));
  }

  @Test
  void formDataIsAnUrlencodedBody() throws Exception {
    HttpCallTest.call(
        petstore().get("updatePetWithForm"),
        "{\"petId\":3,\"body\":{\"name\":\"Rex & Co=1\",\"status\":\"sold\"}}");
    RecordingServer.Request request = server.last();
    assertThat(request.target()).isEqualTo("/v2/pet/3");
    assertThat(request.header("Content-Type")).isEqualTo("application/x-www-form-urlencoded");
    assertThat(Multipart.form(request.bodyText()))
        .containsExactly(new String[] {"name", "Rex & Co=1"}, new String[] {"status", "sold"});
  }

  @Test
  void aFileIsAMultipartFilePartFromBase64() throws Exception {
    byte[] image = {(byte) 0x89, 'P', 'N', 'G', 0, (byte) 0xff, '\r', '\n', '-', '-'};
    String input =
        "{\"petId\":9,\"body\":{\"additionalMetadata\":\"größe\",\"file\":\""
            + Base64.getEncoder().encodeToString(image)
            + "\"}}";
    HttpCallTest.call(petstore().get("uploadFile"), input);
    RecordingServer.Request request = server.last();
    assertThat(request.target()).isEqualTo("/v2/pet/9/uploadImage");
    List<Multipart.Part> parts = Multipart.parse(request.header("Content-Type"), request.body());
    assertThat(parts)
        .extracting(Multipart.Part::name)
        .containsExactly("additionalMetadata", "file");
    assertThat(parts.get(0).text()).isEqualTo("größe");
    assertThat(parts.get(0).filename()).isNull();
    assertThat(parts.get(1).filename()).isEqualTo("file");
    assertThat(parts.get(1).headers().get("content-type")).isEqualTo("application/octet-stream");
    assertThat(parts.get(1).body()).isEqualTo(image);
  }

  @Test
  void aFileThatIsNotBase64IsInvalidInputAndNothingIsSent() {
    assertThatThrownBy(
            () ->
                HttpCallTest.call(
                    petstore().get("uploadFile"),
                    "{\"petId\":9,\"body\":{\"file\":\"not base64!\"}}"))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT))
        .hasMessageContaining("base64");
    assertThat(server.requests).isEmpty();
  }

  static final String EDGES =
      """
      swagger: '2.0'
      info: {title: edges, version: '1'}
      host: example.invalid
      consumes: [application/json]
      produces: [application/json]
      parameters:
        limit: {name: limit, in: query, type: integer, maximum: 50}
        trace: {name: X-Trace, in: header, type: string}
      responses:
        NotFound: {description: missing, schema: {$ref: '#/definitions/Error'}}
        Thing: {description: a thing, schema: {$ref: '#/definitions/Thing«Box»'}}
      securityDefinitions:
        basic: {type: basic}
        key: {type: apiKey, name: X-Key, in: header}
        oauth: {type: oauth2, flow: application, tokenUrl: 'https://example.invalid/token', scopes: {}}
      paths:
        x-ignored: {whatever: true}
        /items/{id}:
          parameters:
            - {name: id, in: path, required: true, type: string}
            - {name: mode, in: query, type: string, enum: [a, b]}
          get:
            operationId: getItem
            parameters:
              - {$ref: '#/parameters/limit'}
              - {$ref: '#/parameters/trace'}
              - {name: mode, in: query, type: integer}
              - {name: csv, in: query, type: array, items: {type: string}}
              - {name: ssv, in: query, type: array, items: {type: string}, collectionFormat: ssv}
              - {name: tsv, in: query, type: array, items: {type: string}, collectionFormat: tsv}
              - {name: pipes, in: query, type: array, items: {type: string}, collectionFormat: pipes}
              - {name: multi, in: query, type: array, items: {type: integer}, collectionFormat: multi}
              - {name: X-Ids, in: header, type: array, items: {type: integer}}
            responses:
              '200': {$ref: '#/responses/Thing'}
              '404': {$ref: '#/responses/NotFound'}
        /forms:
          post:
            operationId: postForm
            consumes: [application/x-www-form-urlencoded]
            parameters:
              - {name: tags, in: formData, type: array, items: {type: string}, collectionFormat: pipes}
              - {name: ids, in: formData, type: array, items: {type: integer}, collectionFormat: multi}
              - {name: note, in: formData, type: string, required: true, x-nullable: true}
            responses:
              '204': {description: done}
        /both:
          post:
            operationId: both
            parameters:
              - {name: body, in: body, schema: {type: object}}
              - {name: extra, in: formData, type: string}
            responses:
              '200': {description: ok}
        /tsvheader:
          get:
            operationId: tsvHeader
            parameters:
              - {name: X-L, in: header, type: array, items: {type: string}, collectionFormat: tsv}
            responses:
              '200': {description: ok}
      definitions:
        Error: {type: object, properties: {message: {type: string}}}
        'Thing«Box»':
          type: object
          required: [kind]
          discriminator: kind
          properties:
            kind: {type: string}
            label: {type: string, x-nullable: true}
            size: {type: integer}
        Thing_Box_: {type: string}
      """;

  OpenApiImport edges() {
    return FromOpenApi.fromString(
        EDGES, HttpServiceConfig.builder("e").baseUrl(server.base()).build());
  }

  @Test
  void edgeCasesWarnOnlyForWhatIsLossy() {
    List<String> warnings = edges().warnings();
    assertThat(warnings)
        .anyMatch(w -> w.contains("'Thing«Box»'") && w.contains("Thing_Box__2"))
        .anyMatch(w -> w.contains("both a body and formData"))
        .anyMatch(w -> w.contains("X-L") && w.contains("tsv"))
        .hasSize(3);
  }

  @Test
  void collectionFormatsSharedParametersAndOverridesOnTheWire() throws Exception {
    Map<String, OperationDefinition> ops = OpenApiImportTest.byName(edges());
    OperationDefinition get = ops.get("getItem");
    // operation-level 'mode' (integer) replaces the path-level one (enum a/b)
    assertThat(
            get.spec().inputSchema().isValid(OpenApiImportTest.json("{\"id\":\"x\",\"mode\":2}")))
        .isTrue();
    assertThat(
            get.spec().inputSchema().isValid(OpenApiImportTest.json("{\"id\":\"x\",\"limit\":51}")))
        .isFalse();
    HttpCallTest.call(
        get,
        """
        {"id": "a/b", "limit": 5, "X-Trace": "t1", "mode": 2, "csv": ["a", "b"], "ssv": ["a", "b"],
         "tsv": ["a", "b"], "pipes": ["a", "b"], "multi": [1, 2], "X-Ids": [1, 2]}
        """);
    RecordingServer.Request request = server.last();
    assertThat(request.target())
        .isEqualTo(
            "/items/a%2Fb?limit=5&mode=2&csv=a,b&ssv=a%20b&tsv=a%09b&pipes=a%7Cb&multi=1&multi=2");
    assertThat(request.header("X-Trace")).isEqualTo("t1");
    assertThat(request.header("X-Ids")).isEqualTo("1,2");
  }

  @Test
  void sharedResponsesRenamedDefinitionsNullableAndDiscriminator() {
    OperationDefinition get = OpenApiImportTest.byName(edges()).get("getItem");
    // the 200 is a ref into top-level responses, whose schema is the renamed Thing«Box»
    assertThat(
            get.spec()
                .outputSchema()
                .isValid(OpenApiImportTest.json("{\"kind\":\"k\",\"label\":null}")))
        .isTrue();
    assertThat(
            get.spec()
                .outputSchema()
                .isValid(OpenApiImportTest.json("{\"kind\":\"k\",\"size\":null}")))
        .isFalse();
    assertThat(get.spec().outputSchema().isValid(OpenApiImportTest.json("{\"label\":\"no kind\"}")))
        .isFalse();
    // not the other definition that happened to have the renamed name
    assertThat(get.spec().outputSchema().isValid(OpenApiImportTest.json("\"text\""))).isFalse();
  }

  @Test
  void formDataArraysFollowTheirCollectionFormat() throws Exception {
    OperationDefinition post = OpenApiImportTest.byName(edges()).get("postForm");
    assertThat(
            post.spec().inputSchema().isValid(OpenApiImportTest.json("{\"body\":{\"note\":null}}")))
        .isTrue();
    assertThat(post.spec().inputSchema().isValid(OpenApiImportTest.json("{\"body\":{}}")))
        .isFalse();
    HttpCallTest.call(post, "{\"body\":{\"tags\":[\"x y\",\"z\"],\"ids\":[1,2],\"note\":\"n\"}}");
    RecordingServer.Request request = server.last();
    assertThat(request.header("Content-Type")).isEqualTo("application/x-www-form-urlencoded");
    assertThat(request.bodyText()).isEqualTo("tags=x+y%7Cz&ids=1&ids=2&note=n");
  }

  @Test
  void anUnquotedYamlVersionIsStill20() {
    OpenApiImport result =
        FromOpenApi.fromString(
            "swagger: 2.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n"
                + "      responses: {'200': {description: ok}}\n",
            OpenApiImportTest.config());
    assertThat(result.operations()).extracting(d -> d.spec().name()).containsExactly("get_a");
  }

  @Test
  void otherSwaggerVersionsAreRefused() {
    assertThatThrownBy(
            () ->
                FromOpenApi.fromString(
                    "{\"swagger\":\"1.2\",\"paths\":{}}", OpenApiImportTest.config()))
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT))
        .hasMessageContaining("Swagger 2.0")
        .hasMessageContaining("1.2");
  }

  @Test
  void aRefIntoTopLevelParametersThatPointsNowhereIsRefused() {
    String doc =
        "{\"swagger\":\"2.0\",\"paths\":{\"/a\":{\"get\":{\"parameters\":[{\"$ref\":\"#/parameters/nope\"}],"
            + "\"responses\":{\"200\":{\"description\":\"ok\"}}}}}}";
    assertThatThrownBy(() -> FromOpenApi.fromString(doc, OpenApiImportTest.config()))
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT))
        .hasMessageContaining("#/parameters/nope");
  }

  @Test
  void malformedPartsAreSkippedOrRefusedNeverACrash() {
    List<String> docs =
        List.of(
            "{\"swagger\":\"2.0\",\"paths\":[],\"definitions\":\"x\",\"parameters\":7,"
                + "\"responses\":[1],\"schemes\":\"http\",\"host\":5,\"consumes\":{}}",
            "{\"swagger\":\"2.0\",\"paths\":{\"/a\":{\"get\":{\"parameters\":{\"a\":1},"
                + "\"responses\":[]},\"post\":{\"parameters\":[7,{\"in\":\"formData\"},"
                + "{\"name\":\"q\",\"in\":\"query\",\"type\":\"array\",\"collectionFormat\":\"bogus\"},"
                + "{\"name\":\"c\",\"in\":\"cookie\"}],"
                + "\"responses\":{\"200\":{\"description\":\"ok\"}}}}}}",
            "{\"swagger\":\"2.0\",\"schemes\":[\"ws\"],\"host\":\"h\",\"securityDefinitions\":"
                + "{\"a\":{\"type\":\"oauth2\",\"flow\":\"x\"},\"b\":{\"type\":\"magic\"}},"
                + "\"paths\":{\"/a\":{\"get\":{\"responses\":{\"200\":{\"description\":\"ok\"}}}}}}");
    for (String doc : docs) {
      try {
        OpenApiImport result = FromOpenApi.fromString(doc, OpenApiImportTest.config());
        for (OperationDefinition op : result.operations()) {
          op.spec().inputSchema().validate(OpenApiImportTest.json("{}"));
          op.spec().outputSchema().validate(OpenApiImportTest.json("{}"));
        }
      } catch (CallError e) {
        assertThat(e.code()).as(doc).isEqualTo(ErrorCode.INVALID_INPUT);
      }
    }
    assertThatThrownBy(
            () ->
                FromOpenApi.fromString(
                    docs.get(1)
                        .replace(
                            "{\"description\":\"ok\"}",
                            "{\"schema\":{\"$ref\":\"#/definitions/None\"}}"),
                    OpenApiImportTest.config()))
        .isInstanceOfSatisfying(
            CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT))
        .hasMessageContaining("#/components/schemas/None");
    OpenApiImport bad = FromOpenApi.fromString(docs.get(1), OpenApiImportTest.config());
    assertThat(bad.warnings())
        .anyMatch(w -> w.contains("bogus"))
        .anyMatch(w -> w.contains("'c'") && w.contains("cookie"));
    assertThat(FromOpenApi.fromString(docs.get(2), OpenApiImportTest.config()).warnings())
        .anyMatch(w -> w.contains("ws"))
        .anyMatch(w -> w.contains("oauth2 flow"))
        .anyMatch(w -> w.contains("magic"));
  }

  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
