package dev.alkdev.operations.envelope;

import static dev.alkdev.operations.envelope.EnvelopeFixtures.json;
import static dev.alkdev.operations.envelope.Envelopes.httpEnvelope;
import static dev.alkdev.operations.envelope.Envelopes.localEnvelope;
import static dev.alkdev.operations.envelope.Envelopes.mcpEnvelope;
import static dev.alkdev.operations.envelope.Envelopes.unwrap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;

class EnvelopeTest {

  record Item(String name, int count) {}

  // --- factories ----------------------------------------------------------------------------

  @Test
  void localEnvelopeIsStampedNow() {
    long before = System.currentTimeMillis();
    ResponseEnvelope<String> envelope = localEnvelope("hello", "demo.echo");
    long after = System.currentTimeMillis();

    assertThat(envelope.data()).isEqualTo("hello");
    assertThat(envelope.source()).isEqualTo(ResponseSource.LOCAL);
    LocalResponseMeta meta = (LocalResponseMeta) envelope.meta();
    assertThat(meta.operationId()).isEqualTo("demo.echo");
    assertThat(meta.timestamp()).isBetween(before, after);
  }

  @Test
  void voidResultsCarryJsonNull() {
    ResponseEnvelope<JsonNode> envelope = localEnvelope(NullNode.getInstance(), "demo.noop");

    assertThat(unwrap(envelope).isNull()).isTrue();
    assertThat(envelope.toJson().has("data")).isTrue();
    assertThat(envelope.toJson().get("data").isNull()).isTrue();
  }

  @Test
  void javaNullDataIsRefusedWithAHint() {
    assertThatThrownBy(() -> localEnvelope(null, "demo.noop"))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("NullNode.getInstance()");
    assertThatThrownBy(() -> new ResponseEnvelope<>("x", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("meta");
  }

  @Test
  void localMetaNeedsAnOperationId() {
    assertThatThrownBy(() -> localEnvelope("x", ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("operationId");
    assertThatThrownBy(() -> localEnvelope("x", null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void httpEnvelopeLowerCasesHeaderNames() {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Content-Type", "application/json");
    headers.put("X-Rate-Limit", "10");

    ResponseEnvelope<JsonNode> envelope =
        httpEnvelope(json("{\"a\": 1}"), 200, headers, "application/json");

    HttpResponseMeta meta = (HttpResponseMeta) envelope.meta();
    assertThat(envelope.source()).isEqualTo(ResponseSource.HTTP);
    assertThat(meta.statusCode()).isEqualTo(200);
    assertThat(meta.contentType()).isEqualTo("application/json");
    assertThat(meta.headers())
        .containsExactly(
            Map.entry("content-type", "application/json"), Map.entry("x-rate-limit", "10"));
    assertThat(meta.header("x-RATE-limit")).hasValue("10");
    assertThat(meta.header("missing")).isEmpty();
    assertThat(meta.headerValues("missing")).isEmpty();
    assertThat(meta.headerValues()).containsEntry("x-rate-limit", List.of("10"));
  }

  @Test
  void repeatedHeadersAreJoinedAsFetchDoesAndKeptApart() {
    Map<String, List<String>> values = new LinkedHashMap<>();
    values.put("Set-Cookie", List.of("a=1; Path=/", "b=2"));
    values.put("set-cookie", List.of("c=3"));

    HttpResponseMeta meta = HttpResponseMeta.ofHeaderValues(200, values, "");

    assertThat(meta.headers()).containsExactly(Map.entry("set-cookie", "a=1; Path=/, b=2, c=3"));
    assertThat(meta.headerValues("Set-Cookie")).containsExactly("a=1; Path=/", "b=2", "c=3");
  }

  @Test
  void httpMetaChecksItsFields() {
    assertThatThrownBy(() -> httpEnvelope("x", 42, Map.of(), ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("100 to 999");
    assertThatThrownBy(() -> httpEnvelope("x", 1000, Map.of(), ""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HttpResponseMeta.ofHeaderValues(200, Map.of("a", List.of()), ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no values");
    assertThatThrownBy(
            () -> new HttpResponseMeta(200, Map.of("a", "1"), "", Map.of("a", List.of("1", "2"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("join to \"1, 2\"");
    assertThatThrownBy(() -> new HttpResponseMeta(200, Map.of("a", "1"), "", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("same headers");
    assertThatThrownBy(() -> httpEnvelope("x", 200, Map.of(), null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void httpMetaMapsCannotBeChangedAfterwards() {
    Map<String, List<String>> values = new LinkedHashMap<>();
    List<String> cookies = new ArrayList<>(List.of("a=1"));
    values.put("set-cookie", cookies);
    HttpResponseMeta meta = HttpResponseMeta.ofHeaderValues(200, values, "");

    cookies.add("b=2");
    values.put("x", List.of("y"));

    assertThat(meta.headerValues()).containsExactly(Map.entry("set-cookie", List.of("a=1")));
    assertThatThrownBy(() -> meta.headers().put("x", "y"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> meta.headerValues("set-cookie").add("z"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void mcpEnvelopeTakesTheSeedsArguments() {
    ObjectNode structured = (ObjectNode) json("{\"temperature\": 21.5}");
    List<McpContentBlock> content = List.of(McpContentBlock.text("21.5 degrees"));

    ResponseEnvelope<JsonNode> envelope =
        mcpEnvelope(
            structured,
            false,
            content,
            Optional.of(structured),
            Optional.of((ObjectNode) json("{\"k\": 1}")));

    McpResponseMeta meta = (McpResponseMeta) envelope.meta();
    assertThat(envelope.source()).isEqualTo(ResponseSource.MCP);
    assertThat(meta.isError()).isFalse();
    assertThat(meta.content()).isEqualTo(content);
    assertThat(meta.structuredContent()).hasValue(structured);
    assertThat(meta.meta()).hasValue((ObjectNode) json("{\"k\": 1}"));
    assertThat(envelope.toJson().get("meta").has("_meta")).isTrue();
  }

  @Test
  void mcpErrorResultsAreEnvelopesNotExceptions() {
    List<McpContentBlock> content = List.of(McpContentBlock.text("no such city"));

    ResponseEnvelope<List<McpContentBlock>> envelope = mcpEnvelope(content, true, content);

    McpResponseMeta meta = (McpResponseMeta) envelope.meta();
    assertThat(meta.isError()).isTrue();
    assertThat(meta.structuredContent()).isEmpty();
    assertThat(meta.meta()).isEmpty();
    ObjectNode written = envelope.toJson();
    assertThat(written.get("meta").has("structuredContent")).isFalse();
    assertThat(written.get("meta").has("_meta")).isFalse();
    assertThat(written.get("data"))
        .isEqualTo(json("[{\"type\": \"text\", \"text\": \"no such city\"}]"));
  }

  @Test
  void mcpMetaWithersAndCopies() {
    List<McpContentBlock> content = new ArrayList<>(List.of(McpContentBlock.text("a")));
    McpResponseMeta meta =
        McpResponseMeta.of(false, content)
            .withStructuredContent((ObjectNode) json("{\"a\": 1}"))
            .withMeta((ObjectNode) json("{\"b\": 2}"));

    content.add(McpContentBlock.text("b"));

    assertThat(meta.content()).hasSize(1);
    assertThat(meta.structuredContent()).isPresent();
    assertThat(meta.meta()).isPresent();
  }

  @Test
  void metaFactoriesMatchTheEnvelopeFactories() {
    HttpResponseMeta http = HttpResponseMeta.of(200, Map.of("A", "1"), "text/plain");
    McpResponseMeta mcp = McpResponseMeta.of(false, List.of());

    assertThat(httpEnvelope("x", http))
        .isEqualTo(httpEnvelope("x", 200, Map.of("a", "1"), "text/plain"));
    assertThat(mcpEnvelope("x", mcp)).isEqualTo(mcpEnvelope("x", false, List.of()));
  }

  // --- unwrap, dataAs, withData ---------------------------------------------------------------

  @Test
  void unwrapIsTheData() {
    JsonNode data = json("{\"a\": 1}");

    assertThat(unwrap(localEnvelope(data, "a.b"))).isSameAs(data);
  }

  @Test
  void dataAsConvertsJsonToJavaTypes() {
    ResponseEnvelope<JsonNode> envelope =
        localEnvelope(json("{\"name\": \"bolt\", \"count\": 3, \"extra\": true}"), "shop.item");

    assertThat(envelope.dataAs(Item.class)).isEqualTo(new Item("bolt", 3));
    assertThat(envelope.dataAs(new TypeReference<Map<String, Object>>() {}))
        .containsEntry("count", 3);
    assertThat(envelope.dataAs(JsonNode.class)).isSameAs(envelope.data());
  }

  @Test
  void dataAsConvertsJavaDataToJson() {
    ResponseEnvelope<Item> envelope = localEnvelope(new Item("bolt", 3), "shop.item");

    assertThat(envelope.dataAs(JsonNode.class))
        .isEqualTo(json("{\"name\": \"bolt\", \"count\": 3}"));
    assertThat(envelope.dataAs(Item.class)).isSameAs(envelope.data());
  }

  @Test
  void dataAsTakesGenericTypes() {
    ResponseEnvelope<JsonNode> envelope =
        localEnvelope(
            json("[{\"name\": \"a\", \"count\": 1}, {\"name\": \"b\", \"count\": 2}]"), "x.y");

    List<Item> items = envelope.dataAs(new TypeReference<List<Item>>() {});

    assertThat(items).containsExactly(new Item("a", 1), new Item("b", 2));
  }

  @Test
  void dataAsExplainsAMismatch() {
    ResponseEnvelope<JsonNode> envelope = localEnvelope(json("{\"count\": \"many\"}"), "x.y");

    assertThatThrownBy(() -> envelope.dataAs(Item.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("local envelope")
        .hasMessageContaining(Item.class.getTypeName())
        .hasMessageContaining("many");
    assertThatThrownBy(() -> envelope.dataAs(new TypeReference<List<Item>>() {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("java.util.List");
  }

  @Test
  void dataAsNeverReturnsNull() {
    ResponseEnvelope<JsonNode> envelope = localEnvelope(NullNode.getInstance(), "x.y");

    assertThatThrownBy(() -> envelope.dataAs(Item.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("JSON null");
    assertThat(envelope.dataAs(JsonNode.class).isNull()).isTrue();
    assertThat(envelope.dataAs(new TypeReference<Optional<Item>>() {})).isEmpty();
    assertThat(
            localEnvelope(json("{\"name\": \"n\", \"count\": 1}"), "x.y")
                .dataAs(new TypeReference<Optional<Item>>() {}))
        .hasValue(new Item("n", 1));
  }

  @Test
  void withDataKeepsTheMeta() {
    ResponseEnvelope<JsonNode> envelope = localEnvelope(json("{\"a\": 1, \"b\": 2}"), "x.y");

    ResponseEnvelope<JsonNode> cast = envelope.withData(json("{\"a\": 1}"));

    assertThat(cast.meta()).isSameAs(envelope.meta());
    assertThat(cast.data()).isEqualTo(json("{\"a\": 1}"));
  }

  // --- content blocks -------------------------------------------------------------------------

  @Test
  void blocksRefuseUnknownFieldsTheyModel() {
    assertThatThrownBy(
            () ->
                new McpContentBlock.Text("t", Optional.empty(), Map.of("text", json("\"other\""))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"text\"");
    assertThatThrownBy(
            () -> new McpContentBlock.Text("t", Optional.empty(), Map.of("type", json("\"x\""))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new McpAnnotations(
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Map.of("priority", json("1"))))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void unknownBlocksNeedAnUnknownStringType() {
    assertThatThrownBy(() -> McpContentBlock.unknown((ObjectNode) json("{\"type\": \"text\"}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("known block type");
    assertThatThrownBy(() -> McpContentBlock.unknown((ObjectNode) json("{\"kind\": \"video\"}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("type");
    assertThatThrownBy(() -> McpContentBlock.unknown((ObjectNode) json("{\"type\": 3}")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void annotationsAreOptionalAndFinite() {
    McpAnnotations annotations = McpAnnotations.empty();

    assertThat(annotations.toJson()).isEqualTo(json("{}"));
    assertThat(annotations.withPriority(1).toJson()).isEqualTo(json("{\"priority\": 1}"));
    assertThatThrownBy(() -> annotations.withPriority(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("finite");
    assertThat(annotations.withAudience().toJson()).isEqualTo(json("{\"audience\": []}"));
    assertThat(McpRole.fromWireName("assistant")).hasValue(McpRole.ASSISTANT);
    assertThat(McpRole.fromWireName("system")).isEmpty();
  }

  @Test
  void blocksWriteOnlyTheFieldsTheyHave() {
    assertThat(McpContentBlock.resourceLink("u:1", "one").toJson())
        .isEqualTo(json("{\"type\": \"resource_link\", \"uri\": \"u:1\", \"name\": \"one\"}"));
    assertThat(McpContentBlock.image("AA==", "image/png").toJson())
        .isEqualTo(json("{\"type\": \"image\", \"data\": \"AA==\", \"mimeType\": \"image/png\"}"));
    assertThat(McpContentBlock.resource(McpResourceContent.ofBlob("u:2", "x/y", "AQ==")).toJson())
        .isEqualTo(
            json(
                "{\"type\": \"resource\", \"resource\": {\"uri\": \"u:2\", \"mimeType\": \"x/y\","
                    + " \"blob\": \"AQ==\"}}"));
  }
}
