package dev.alkdev.operations.envelope;

import static dev.alkdev.operations.envelope.Envelopes.httpEnvelope;
import static dev.alkdev.operations.envelope.Envelopes.localEnvelope;
import static dev.alkdev.operations.envelope.Envelopes.mcpEnvelope;
import static dev.alkdev.operations.envelope.Envelopes.unwrap;
import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaError;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;

/** The examples of docs/envelopes.md, compiled and checked. Keep the two in step. */
class EnvelopeDocExamplesTest {
  private final JsonMapper mapper = JsonMapper.builder().build();

  record Item(String name, int count) {}

  @Test
  void dataAs() {
    JsonNode one = mapper.readTree("{\"name\": \"bolt\", \"count\": 3}");
    JsonNode many = mapper.readTree("[{\"name\": \"nut\", \"count\": 5}]");

    ResponseEnvelope<JsonNode> envelope = localEnvelope(one, "shop.item");
    Item item = envelope.dataAs(Item.class); // Item[name=bolt, count=3]
    List<Item> items = localEnvelope(many, "shop.items").dataAs(new TypeReference<List<Item>>() {});

    assertThat(item).isEqualTo(new Item("bolt", 3));
    assertThat(items).containsExactly(new Item("nut", 5));
  }

  @Test
  void dispatchOnMeta() {
    ResponseEnvelope<String> envelope =
        httpEnvelope("part", 206, Map.of("Content-Range", "bytes 0-3/10"), "text/plain");
    String range = "";

    if (envelope.meta() instanceof HttpResponseMeta http && http.statusCode() == 206) {
      range = http.header("Content-Range").orElse("");
    }

    assertThat(range).isEqualTo("bytes 0-3/10");
  }

  @Test
  void setCookie() {
    String first = "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT";

    HttpResponseMeta meta =
        HttpResponseMeta.ofHeaderValues(
            200, Map.of("Set-Cookie", List.of(first, "b=2")), "text/plain");
    ResponseEnvelope<String> envelope = httpEnvelope("ok", meta);

    assertThat(meta.headerValues("set-cookie")).containsExactly(first, "b=2");
    assertThat(meta.header("Set-Cookie")).hasValue(first + ", b=2");
    assertThat(envelope.toJson().get("meta"))
        .isEqualTo(
            mapper.readTree(
                """
                {"source": "http", "statusCode": 200,
                 "headers": {"set-cookie": "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=2"},
                 "contentType": "text/plain",
                 "headerValues": {"set-cookie": ["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
                                                 "b=2"]}}
                """));
  }

  @Test
  void contentBlocks() {
    List<String> printed = new ArrayList<>();
    ObjectNode video = (ObjectNode) mapper.readTree("{\"type\": \"video\", \"url\": \"v.mp4\"}");

    List<McpContentBlock> content =
        List.of(
            McpContentBlock.text("21.5 degrees")
                .withAnnotations(
                    McpAnnotations.empty().withAudience(McpRole.USER).withPriority(0.8)),
            McpContentBlock.image("iVBORw0KGgo=", "image/png"),
            McpContentBlock.resourceLink("file:///readings.csv", "readings.csv"),
            McpContentBlock.unknown(video));
    for (McpContentBlock block : content) {
      if (block instanceof McpContentBlock.Text text) {
        printed.add(text.text());
      } else if (block instanceof McpContentBlock.Unknown unknown) {
        printed.add("a " + unknown.type() + " block: " + unknown.raw());
      }
    }

    assertThat(printed)
        .containsExactly("21.5 degrees", "a video block: {\"type\":\"video\",\"url\":\"v.mp4\"}");
  }

  @Test
  void factories() {
    JsonNode data = mapper.readTree("{\"message\": \"hi\"}");
    // the shape of java.net.http.HttpHeaders.map()
    Map<String, List<String>> headers = Map.of("Content-Type", List.of("application/json"));
    ObjectNode structured = (ObjectNode) mapper.readTree("{\"temperature\": 21.5}");
    List<McpContentBlock> content = List.of(McpContentBlock.text("21.5 degrees"));

    // the result of an in-process handler, stamped now: execute(), CallHandler, subscribe()
    ResponseEnvelope<JsonNode> local = localEnvelope(data, "demo.echo");
    ResponseEnvelope<JsonNode> none = localEnvelope(NullNode.getInstance(), "demo.noop");

    // an HTTP response (the OpenAPI adapter; one per SSE event, contentType "text/event-stream")
    ResponseEnvelope<JsonNode> http =
        httpEnvelope(data, 200, Map.of("content-type", "application/json"), "application/json");
    ResponseEnvelope<JsonNode> fromJdk =
        httpEnvelope(data, HttpResponseMeta.ofHeaderValues(200, headers, "application/json"));

    // an MCP tool result (the MCP adapter): data = structuredContent when present, else the blocks
    ResponseEnvelope<JsonNode> mcp =
        mcpEnvelope(structured, false, content, Optional.of(structured), Optional.empty());
    ResponseEnvelope<List<McpContentBlock>> error = mcpEnvelope(content, true, content);

    assertThat(unwrap(local)).isSameAs(data);
    assertThat(none.data().isNull()).isTrue();
    assertThat(fromJdk).isEqualTo(http);
    assertThat(mcp.source()).isEqualTo(ResponseSource.MCP);
    assertThat(((McpResponseMeta) error.meta()).isError()).isTrue();
  }

  @Test
  void json() {
    ResponseEnvelope<JsonNode> envelope =
        localEnvelope(mapper.readTree("{\"n\": 1}"), "demo.count");

    ObjectNode json = Envelopes.toJson(envelope); // or envelope.toJson()
    ResponseEnvelope<JsonNode> back = Envelopes.fromJson(json); // equal to envelope
    String text = mapper.writeValueAsString(envelope); // the same JSON
    @SuppressWarnings("unchecked")
    ResponseEnvelope<JsonNode> read = mapper.readValue(text, ResponseEnvelope.class);

    assertThat(back).isEqualTo(envelope);
    assertThat(mapper.readTree(text)).isEqualTo(json);
    assertThat(read).isEqualTo(envelope);
  }

  @Test
  void schemas() {
    ResponseEnvelope<String> envelope = localEnvelope("done", "demo.run");

    Schema envelopeSchema = Envelopes.responseEnvelopeSchema(); // ResponseEnvelopeSchema
    Schema metaSchema = Envelopes.responseMetaSchema(); // ResponseMetaSchema
    Schema blockSchema = Envelopes.mcpContentBlockSchema(); // MCPContentBlockSchema
    List<SchemaError> errors = envelopeSchema.validate(Envelopes.toJson(envelope)); // []

    assertThat(errors).isEmpty();
    assertThat(metaSchema.isValid(envelope.meta().toJson())).isTrue();
    assertThat(blockSchema.isValid(McpContentBlock.text("t").toJson())).isTrue();
  }
}
