package dev.alkdev.operations.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.AsyncOperationHandler;
import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationContext;
import dev.alkdev.operations.OperationDefinition;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** OpenAPI 3.x request bodies in application/x-www-form-urlencoded and multipart/form-data. */
@Timeout(30)
class FormBodyTest {
  static final String DOC =
      """
      openapi: 3.0.3
      info: {title: forms, version: '1'}
      paths:
        /login:
          post:
            operationId: login
            requestBody:
              required: true
              content:
                application/x-www-form-urlencoded:
                  schema: {$ref: '#/components/schemas/Login'}
                  encoding:
                    scopes: {style: form, explode: false}
                    roles: {style: spaceDelimited, explode: false}
            responses: {'200': {description: ok}}
        /upload:
          post:
            operationId: upload
            requestBody:
              content:
                multipart/form-data:
                  schema:
                    allOf:
                      - {$ref: '#/components/schemas/Meta'}
                      - type: object
                        properties:
                          image: {type: string, format: binary}
                          attachments: {type: array, items: {type: string, format: binary}}
                          tags: {type: array, items: {type: string}}
                          count: {type: integer}
                  encoding:
                    image: {contentType: image/png}
            responses: {'200': {description: ok}}
      components:
        schemas:
          Login:
            type: object
            required: [user]
            properties:
              user: {type: string}
              scopes: {type: array, items: {type: string}}
              roles: {type: array, items: {type: string}}
              ids: {type: array, items: {type: integer}}
          Meta:
            type: object
            properties:
              meta: {type: object}
      """;

  RecordingServer server;
  Map<String, OperationDefinition> ops;

  @BeforeEach
  void start() throws Exception {
    server = new RecordingServer();
    OpenApiImport result =
        FromOpenApi.fromString(DOC, HttpServiceConfig.builder("f").baseUrl(server.base()).build());
    assertThat(result.warnings()).isEmpty();
    ops = OpenApiImportTest.byName(result);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void urlencodedFieldsFollowTheirEncoding() throws Exception {
    HttpCallTest.call(
        ops.get("login"),
        """
        {"body": {"user": "ann o'neil+1@x", "scopes": ["a", "b"], "roles": ["r 1", "r2"],
                  "ids": [1, 2], "skipped": null}}
        """);
    RecordingServer.Request request = server.last();
    assertThat(request.header("Content-Type")).isEqualTo("application/x-www-form-urlencoded");
    assertThat(request.bodyText())
        .isEqualTo("user=ann+o%27neil%2B1%40x&scopes=a%2Cb&roles=r+1+r2&ids=1&ids=2");
    assertThat(Multipart.form(request.bodyText()))
        .containsExactly(
            new String[] {"user", "ann o'neil+1@x"},
            new String[] {"scopes", "a,b"},
            new String[] {"roles", "r 1 r2"},
            new String[] {"ids", "1"},
            new String[] {"ids", "2"});
  }

  @Test
  void multipartSendsFilesAsBytesAndOtherFieldsAsText() throws Exception {
    byte[] png = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0};
    byte[] second = "--not-a-boundary\r\n".getBytes(StandardCharsets.UTF_8);
    String input =
        """
        {"body": {"image": "%s", "attachments": ["%s", "%s"], "tags": ["x", "y"], "count": 3,
                  "meta": {"k": [1]}}}
        """
            .formatted(
                Base64.getEncoder().encodeToString(png),
                Base64.getEncoder().encodeToString(second),
                Base64.getUrlEncoder().encodeToString(new byte[] {(byte) 0xfb, (byte) 0xff}));
    HttpCallTest.call(ops.get("upload"), input);
    RecordingServer.Request request = server.last();
    List<Multipart.Part> parts = Multipart.parse(request.header("Content-Type"), request.body());
    assertThat(parts)
        .extracting(Multipart.Part::name)
        .containsExactly("image", "attachments", "attachments", "tags", "tags", "count", "meta");
    assertThat(parts.get(0).body()).isEqualTo(png);
    assertThat(parts.get(0).headers().get("content-type")).isEqualTo("image/png");
    assertThat(parts.get(0).filename()).isEqualTo("image");
    assertThat(parts.get(1).body()).isEqualTo(second);
    assertThat(parts.get(2).body()).isEqualTo(new byte[] {(byte) 0xfb, (byte) 0xff});
    assertThat(parts.get(3).text()).isEqualTo("x");
    assertThat(parts.get(3).filename()).isNull();
    assertThat(parts.get(5).text()).isEqualTo("3");
    assertThat(parts.get(6).headers().get("content-type")).isEqualTo("application/json");
    assertThat(OpenApiImportTest.json(parts.get(6).text()))
        .isEqualTo(OpenApiImportTest.json("{\"k\":[1]}"));
  }

  @Test
  void aJavaCallerMayGiveTheFileAsBytes() throws Exception {
    byte[] bytes = {1, 2, 3, (byte) 200};
    ObjectNode input = JsonNodeFactory.instance.objectNode();
    input.putObject("body").put("image", bytes);
    AsyncOperationHandler handler = (AsyncOperationHandler) ops.get("upload").handler().function();
    handler
        .handle(input, OperationContext.create())
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
    RecordingServer.Request request = server.last();
    List<Multipart.Part> parts = Multipart.parse(request.header("Content-Type"), request.body());
    assertThat(parts).hasSize(1);
    assertThat(parts.get(0).body()).isEqualTo(bytes);
  }

  @Test
  void badFormInputIsInvalidInputAndNothingIsSent() {
    for (String input :
        List.of(
            "{\"body\": \"user=x\"}",
            "{\"body\": {\"image\": \"%%%\"}}",
            "{\"body\": {\"a\\r\\nX-Injected: 1\": \"v\"}}")) {
      assertThatThrownBy(() -> HttpCallTest.call(ops.get("upload"), input))
          .as(input)
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOfSatisfying(
              CallError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT));
    }
    assertThat(server.requests).isEmpty();
  }

  @Test
  void theInputSchemaKeepsTheFormSchema() {
    assertThat(
            ops.get("login").spec().inputSchema().isValid(OpenApiImportTest.json("{\"body\":{}}")))
        .isFalse();
    assertThat(
            ops.get("login")
                .spec()
                .inputSchema()
                .isValid(OpenApiImportTest.json("{\"body\":{\"user\":\"u\"}}")))
        .isTrue();
  }
}
