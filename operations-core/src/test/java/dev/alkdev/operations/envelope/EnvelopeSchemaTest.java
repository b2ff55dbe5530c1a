package dev.alkdev.operations.envelope;

import static dev.alkdev.operations.envelope.EnvelopeFixtures.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.schema.SchemaError;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;

class EnvelopeSchemaTest {

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.alkdev.operations.envelope.EnvelopeFixtures#wellFormed")
  void whatToJsonWritesIsValid(String name, String text) {
    ObjectNode written = Envelopes.fromJson(json(text)).toJson();

    assertThat(Envelopes.responseEnvelopeSchema().validate(written)).isEmpty();
    assertThat(Envelopes.responseMetaSchema().validate(written.get("meta"))).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.alkdev.operations.envelope.EnvelopeFixtures#brokenForSchema")
  void brokenEnvelopesAreInvalid(
      String name, String text, String pointer, String message, boolean schemaSeesIt) {
    List<SchemaError> errors = Envelopes.responseEnvelopeSchema().validate(json(text));

    assertThat(errors).isNotEmpty();
  }

  @Test
  void envelopesBuiltInJavaAreValid() {
    List<ResponseEnvelope<?>> envelopes =
        List.of(
            Envelopes.localEnvelope(NullNode.getInstance(), "demo.noop"),
            Envelopes.localEnvelope(Map.of("a", List.of(1, 2)), "demo.map"),
            Envelopes.httpEnvelope(
                "body",
                HttpResponseMeta.ofHeaderValues(
                    200, Map.of("Set-Cookie", List.of("a=1", "b=2")), "text/plain")),
            Envelopes.mcpEnvelope(
                json("{\"n\": 1}"),
                true,
                List.of(
                    McpContentBlock.text("t")
                        .withAnnotations(
                            McpAnnotations.empty().withAudience(McpRole.USER).withPriority(0.3)),
                    McpContentBlock.image("AA==", "image/png"),
                    McpContentBlock.audio("AA==", "audio/wav"),
                    McpContentBlock.resource(McpResourceContent.ofBlob("u:1", "x/y", "AA==")),
                    McpContentBlock.resourceLink("u:2", "two"),
                    McpContentBlock.unknown((ObjectNode) json("{\"type\": \"video\", \"u\": 1}"))),
                Optional.of((ObjectNode) json("{\"n\": 1}")),
                Optional.of((ObjectNode) json("{\"trace\": \"t\"}"))));

    for (ResponseEnvelope<?> envelope : envelopes) {
      assertThat(Envelopes.responseEnvelopeSchema().validate(envelope.toJson()))
          .as("%s", envelope)
          .isEmpty();
    }
  }

  @Test
  void blockSchemaAcceptsUnknownTypesButNotMalformedKnownOnes() {
    var blocks = Envelopes.mcpContentBlockSchema();

    assertThat(blocks.isValid(json("{\"type\": \"video\", \"anything\": [1]}"))).isTrue();
    assertThat(blocks.isValid(json("{\"type\": \"text\", \"text\": \"a\"}"))).isTrue();
    assertThat(blocks.isValid(json("{\"type\": \"text\"}"))).isFalse();
    assertThat(blocks.isValid(json("{\"type\": \"resource_link\", \"uri\": \"u\"}"))).isFalse();
    assertThat(blocks.isValid(json("{\"text\": \"a\"}"))).isFalse();
    assertThat(blocks.isValid(json("\"text\""))).isFalse();
  }

  @Test
  void errorsPointAtTheWrongField() {
    JsonNode broken =
        json(
            "{\"data\": 1, \"meta\": {\"source\": \"http\", \"statusCode\": 200,"
                + " \"headers\": {\"x-n\": 1}, \"contentType\": \"\"}}");

    List<SchemaError> errors = Envelopes.responseEnvelopeSchema().validate(broken);

    assertThat(errors).extracting(SchemaError::instancePath).contains("/meta/headers/x-n");
  }

  @Test
  void theDocumentIsDraft202012WithADefinitionPerMetaAndBlock() {
    JsonNode document = Envelopes.responseEnvelopeSchema().json();

    assertThat(document.get("$schema").stringValue())
        .isEqualTo("https://json-schema.org/draft/2020-12/schema");
    assertThat(document.get("$defs").propertyNames())
        .contains(
            "ResponseMeta",
            "LocalResponseMeta",
            "HttpResponseMeta",
            "McpResponseMeta",
            "McpContentBlock",
            "McpTextContent",
            "McpImageContent",
            "McpAudioContent",
            "McpEmbeddedResource",
            "McpResourceLink",
            "McpUnknownContent",
            "McpResourceContent",
            "McpAnnotations");
    assertThat(Envelopes.responseEnvelopeSchema()).isSameAs(Envelopes.responseEnvelopeSchema());
  }
}
