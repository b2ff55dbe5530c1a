package dev.alkdev.operations.envelope;

import static dev.alkdev.operations.envelope.EnvelopeFixtures.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.internal.Json;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;

class EnvelopeJsonTest {

  /** What goes on the wire: the text, read back as a tree. */
  private static JsonNode wire(JsonNode node) {
    return Json.mapper().readTree(Json.mapper().writeValueAsString(node));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.alkdev.operations.envelope.EnvelopeFixtures#wellFormed")
  void jsonRoundTripsUnchanged(String name, String text) {
    JsonNode original = json(text);

    ResponseEnvelope<JsonNode> envelope = Envelopes.fromJson(original);

    assertThat(wire(Envelopes.toJson(envelope))).isEqualTo(original);
    assertThat(Envelopes.toJson(envelope)).isEqualTo(original); // the tree too, not only its text
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.alkdev.operations.envelope.EnvelopeFixtures#wellFormed")
  void envelopeRoundTripsEqual(String name, String text) {
    ResponseEnvelope<JsonNode> envelope = Envelopes.fromJson(json(text));

    ResponseEnvelope<JsonNode> again = Envelopes.fromJson(wire(envelope.toJson()));

    assertThat(again).isEqualTo(envelope);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.alkdev.operations.envelope.EnvelopeFixtures#wellFormed")
  void jacksonWritesTheSameJson(String name, String text) {
    ResponseEnvelope<JsonNode> envelope = Envelopes.fromJson(json(text));

    String written = Json.mapper().writeValueAsString(envelope);

    assertThat(written).isEqualTo(Json.mapper().writeValueAsString(envelope.toJson()));
    assertThat(json(written)).isEqualTo(json(text));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.alkdev.operations.envelope.EnvelopeFixtures#wellFormed")
  void jacksonReadsEnvelopes(String name, String text) {
    @SuppressWarnings("unchecked")
    ResponseEnvelope<JsonNode> read = Json.mapper().readValue(text, ResponseEnvelope.class);

    assertThat(read).isEqualTo(Envelopes.fromJson(json(text)));
  }

  /** An event type of the call protocol, say, that holds an envelope. */
  record Responded(String requestId, ResponseEnvelope<JsonNode> output) {}

  @Test
  void jacksonReadsAndWritesEnvelopesInsideOtherValues() {
    String text =
        """
        {"requestId": "r1",
         "output": {"data": {"n": 1},
                    "meta": {"source": "local", "operationId": "a.b", "timestamp": 5}}}
        """;

    Responded responded = Json.mapper().readValue(text, Responded.class);

    assertThat(responded.output().data()).isEqualTo(json("{\"n\": 1}"));
    assertThat(responded.output().meta()).isEqualTo(new LocalResponseMeta("a.b", 5));
    assertThat(json(Json.mapper().writeValueAsString(responded))).isEqualTo(json(text));
  }

  @Test
  void jacksonReportsMalformedEnvelopesWithTheProtocolError() {
    String text =
        "{\"requestId\": \"r1\", \"output\": {\"data\": 1, \"meta\": {\"source\": \"x\"}}}";

    assertThatThrownBy(() -> Json.mapper().readValue(text, Responded.class))
        .isInstanceOf(JacksonException.class)
        .rootCause()
        .isInstanceOf(CallError.class)
        .hasMessageContaining("/meta/source");
  }

  @Test
  void jacksonWritesMetasAndBlocksAloneAsTheirJson() {
    McpContentBlock block =
        McpContentBlock.text("hi").withAnnotations(McpAnnotations.empty().withPriority(0.5));
    HttpResponseMeta meta = HttpResponseMeta.of(204, Map.of("X-A", "1"), "");

    assertThat(json(Json.mapper().writeValueAsString(block)))
        .isEqualTo(
            json("{\"type\": \"text\", \"text\": \"hi\", \"annotations\": {\"priority\": 0.5}}"));
    assertThat(json(Json.mapper().writeValueAsString(meta)))
        .isEqualTo(
            json(
                "{\"source\": \"http\", \"statusCode\": 204, \"headers\": {\"x-a\": \"1\"},"
                    + " \"contentType\": \"\"}"));
    assertThat(Json.mapper().writeValueAsString(ResponseSource.MCP)).isEqualTo("\"mcp\"");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.alkdev.operations.envelope.EnvelopeFixtures#broken")
  void malformedEnvelopesGetAProtocolErrorNamingTheField(
      String name, String text, String pointer, String message, boolean schemaSeesIt) {
    assertThatThrownBy(() -> Envelopes.fromJson(json(text)))
        .isInstanceOfSatisfying(
            CallError.class,
            error -> {
              assertThat(error.code()).isEqualTo(ErrorCode.PROTOCOL_ERROR);
              assertThat(error.getMessage())
                  .startsWith("Invalid response envelope: ")
                  .contains(pointer.isEmpty() ? "the envelope" : pointer)
                  .contains(message);
              assertThat(error.details())
                  .hasValueSatisfying(
                      details ->
                          assertThat(details.get("pointer").stringValue()).isEqualTo(pointer));
            });
  }

  @Test
  void setCookieKeepsEveryCookie() {
    String expires = "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT";
    HttpResponseMeta meta =
        HttpResponseMeta.ofHeaderValues(
            200,
            Map.of("Set-Cookie", List.of(expires, "b=2"), "Content-Type", List.of("text/plain")),
            "text/plain");

    ResponseEnvelope<JsonNode> read =
        Envelopes.fromJson(wire(Envelopes.httpEnvelope(json("\"ok\""), meta).toJson()));

    HttpResponseMeta readMeta = (HttpResponseMeta) read.meta();
    assertThat(readMeta.headerValues("set-cookie")).containsExactly(expires, "b=2");
    assertThat(readMeta.header("Set-Cookie")).hasValue(expires + ", b=2");
    assertThat(readMeta.headerValues("content-type")).containsExactly("text/plain");
    assertThat(read.toJson().get("meta").get("headerValues"))
        .isEqualTo(json("{\"set-cookie\": [\"" + expires + "\", \"b=2\"]}"));
  }

  @Test
  void headerValuesIsWrittenOnlyWhenAHeaderRepeats() {
    ResponseEnvelope<String> single =
        Envelopes.httpEnvelope("x", 200, Map.of("Set-Cookie", "a=1"), "text/plain");

    assertThat(single.toJson().get("meta").has("headerValues")).isFalse();
    assertThat(single.toJson().get("meta").get("headers"))
        .isEqualTo(json("{\"set-cookie\": \"a=1\"}"));
  }

  @Test
  void joinedHeadersFromTheSeedsStayJoined() {
    // A TypeScript peer sends only the joined form; it cannot be split again, so it stays one
    // value.
    JsonNode original =
        json(
            "{\"data\": 1, \"meta\": {\"source\": \"http\", \"statusCode\": 200, \"headers\":"
                + " {\"set-cookie\": \"a=1, b=2\"}, \"contentType\": \"\"}}");

    HttpResponseMeta meta = (HttpResponseMeta) Envelopes.fromJson(original).meta();

    assertThat(meta.headerValues("set-cookie")).containsExactly("a=1, b=2");
  }

  @Test
  void headerNamesAreLowerCasedOnRead() {
    JsonNode original =
        json(
            "{\"data\": 1, \"meta\": {\"source\": \"http\", \"statusCode\": 200, \"headers\":"
                + " {\"Content-Type\": \"text/plain\", \"X-Trace\": \"1\", \"x-trace\": \"2\"},"
                + " \"contentType\": \"text/plain\"}}");

    HttpResponseMeta meta = (HttpResponseMeta) Envelopes.fromJson(original).meta();

    assertThat(meta.headers()).containsOnlyKeys("content-type", "x-trace");
    assertThat(meta.headerValues("x-trace")).containsExactly("1", "2");
    assertThat(meta.header("X-TRACE")).hasValue("1, 2");
  }

  @Test
  void unknownBlockTypeIsKeptAsItsJson() {
    JsonNode video =
        json("{\"type\": \"video\", \"url\": \"https://example.org/v.mp4\", \"frames\": [1, 2]}");
    ObjectNode envelope = Json.nodes().objectNode();
    envelope.set("data", NullNode.getInstance());
    ObjectNode meta = envelope.putObject("meta");
    meta.put("source", "mcp").put("isError", false).putArray("content").add(video);

    McpResponseMeta read = (McpResponseMeta) Envelopes.fromJson(envelope).meta();

    assertThat(read.content())
        .singleElement()
        .isInstanceOfSatisfying(
            McpContentBlock.Unknown.class,
            block -> {
              assertThat(block.type()).isEqualTo("video");
              assertThat(block.raw()).isEqualTo(video);
              assertThat(block.toJson()).isEqualTo(video);
            });
  }

  @Test
  void knownBlocksKeepFieldsTheyDoNotModel() {
    JsonNode original =
        json(
            """
            {"data": null, "meta": {"source": "mcp", "isError": false, "content": [
              {"type": "text", "text": "t", "_meta": {"k": "v"},
               "annotations": {"priority": 0.5, "x-weight": 3}},
              {"type": "resource", "resource": {"uri": "u:1", "text": "x", "_meta": {"b": 2}}}
            ]}}
            """);

    McpResponseMeta meta = (McpResponseMeta) Envelopes.fromJson(original).meta();

    McpContentBlock.Text text = (McpContentBlock.Text) meta.content().get(0);
    assertThat(text.unknownFields()).containsOnlyKeys("_meta");
    assertThat(text.annotations().orElseThrow().unknownFields()).containsOnlyKeys("x-weight");
    assertThat(text.annotations().orElseThrow().priority()).hasValue(0.5);
    McpContentBlock.Resource resource = (McpContentBlock.Resource) meta.content().get(1);
    assertThat(resource.resource().unknownFields()).containsOnlyKeys("_meta");
    assertThat(resource.resource().text()).hasValue("x");
  }

  @Test
  void everyKnownBlockIsReadIntoItsRecord() {
    ResponseEnvelope<JsonNode> envelope =
        Envelopes.fromJson(json(EnvelopeFixtures.wellFormedJson().get(6)));

    McpResponseMeta meta = (McpResponseMeta) envelope.meta();
    assertThat(meta.content())
        .extracting(McpContentBlock::type)
        .containsExactly(
            "text", "image", "audio", "resource", "resource", "resource_link", "resource_link");
    assertThat(meta.content().get(0))
        .isEqualTo(
            McpContentBlock.text("21.5 degrees")
                .withAnnotations(
                    McpAnnotations.empty()
                        .withAudience(McpRole.USER, McpRole.ASSISTANT)
                        .withPriority(1)
                        .withLastModified("2025-01-12T15:00:58Z")));
    assertThat(meta.content().get(2)).isEqualTo(McpContentBlock.audio("UklGRg==", "audio/wav"));
    assertThat(meta.content().get(3))
        .isEqualTo(
            McpContentBlock.resource(
                McpResourceContent.ofText("file:///a.txt", "text/plain", "hello")));
    assertThat(meta.content().get(5))
        .isEqualTo(
            new McpContentBlock.ResourceLink(
                "file:///c.md",
                "c.md",
                Optional.of("notes"),
                Optional.of("text/markdown"),
                Map.of()));
    assertThat(meta.structuredContent()).hasValue((ObjectNode) json("{\"temperature\": 21.5}"));
    assertThat(meta.meta()).hasValue((ObjectNode) json("{\"progressToken\": 7}"));
    assertThat(envelope.data()).isEqualTo(json("{\"temperature\": 21.5}"));
  }

  @Test
  void nullOptionalFieldsCountAsAbsent() {
    JsonNode original =
        json(
            """
            {"data": 1, "meta": {"source": "mcp", "isError": false,
              "structuredContent": null, "_meta": null,
              "content": [{"type": "text", "text": "t", "annotations": null},
                          {"type": "resource_link", "uri": "u", "name": "n",
                           "description": null, "mimeType": null}]}}
            """);

    McpResponseMeta meta = (McpResponseMeta) Envelopes.fromJson(original).meta();

    assertThat(meta.structuredContent()).isEmpty();
    assertThat(meta.meta()).isEmpty();
    assertThat(meta.content())
        .containsExactly(McpContentBlock.text("t"), McpContentBlock.resourceLink("u", "n"));
  }

  @Test
  void fieldsTheEnvelopeAndMetasDoNotDefineAreIgnored() {
    JsonNode original =
        json(
            "{\"data\": 1, \"__envelopeVersion\": 1, \"meta\": {\"source\": \"local\","
                + " \"operationId\": \"a.b\", \"timestamp\": 3, \"eventType\": \"x\"}}");

    ResponseEnvelope<JsonNode> envelope = Envelopes.fromJson(original);

    assertThat(envelope.meta()).isEqualTo(new LocalResponseMeta("a.b", 3));
    assertThat(wire(envelope.toJson()))
        .isEqualTo(
            json(
                "{\"data\": 1, \"meta\": {\"source\": \"local\", \"operationId\": \"a.b\","
                    + " \"timestamp\": 3}}"));
  }

  @Test
  void voidDataKeepsTheDataKeyOnTheWire() {
    ResponseEnvelope<JsonNode> envelope =
        Envelopes.localEnvelope(NullNode.getInstance(), "demo.noop");

    String written = Json.mapper().writeValueAsString(envelope);

    assertThat(written).startsWith("{\"data\":null,");
    assertThat(Envelopes.isResponseEnvelope(json(written))).isTrue();
    assertThat(Envelopes.fromJson(json(written))).isEqualTo(envelope);
  }

  @Test
  void timestampWrittenAsAFloatWithoutFractionIsAccepted() {
    JsonNode original =
        json(
            "{\"data\": 1, \"meta\": {\"source\": \"local\", \"operationId\": \"a.b\","
                + " \"timestamp\": 1.715E12}}");

    LocalResponseMeta meta = (LocalResponseMeta) Envelopes.fromJson(original).meta();

    assertThat(meta.timestamp()).isEqualTo(1_715_000_000_000L);
  }

  @Test
  void typedDataIsConvertedWhenWritten() {
    record Point(int x, int y) {}
    ResponseEnvelope<Point> envelope = Envelopes.localEnvelope(new Point(1, 2), "geo.point");

    assertThat(envelope.toJson().get("data")).isEqualTo(json("{\"x\": 1, \"y\": 2}"));
    assertThat(json(Json.mapper().writeValueAsString(envelope)).get("data"))
        .isEqualTo(json("{\"x\": 1, \"y\": 2}"));
  }

  /** A value Jackson cannot write: its only property fails. */
  public static final class Unwritable {
    public String getValue() {
      throw new IllegalStateException("no value");
    }
  }

  @Test
  void dataThatCannotBeWrittenGetsAClearError() {
    ResponseEnvelope<Unwritable> envelope = Envelopes.localEnvelope(new Unwritable(), "a.b");

    assertThatThrownBy(envelope::toJson)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot be converted to JSON")
        .hasMessageContaining("Unwritable");
  }

  @Test
  void fromJsonRefusesJavaNull() {
    assertThatThrownBy(() -> Envelopes.fromJson(null)).isInstanceOf(NullPointerException.class);
  }
}
