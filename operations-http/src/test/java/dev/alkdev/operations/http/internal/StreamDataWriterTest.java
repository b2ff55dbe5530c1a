package dev.alkdev.operations.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** The stream's own tree walk writes exactly the text Jackson's {@code writeTree} writes. */
class StreamDataWriterTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  @Test
  void everyNodeKindIsWrittenAsJacksonWritesIt() {
    ObjectNode object = NODES.objectNode();
    object
        .put("n", 1)
        .put("long", 1L << 40)
        .put("text", "tick \"quoted\"\n\u00e9\u2028\ud83d\ude00");
    object.put("double", 1.5).put("whole", 2.0).put("float", 0.1f).put("short", (short) 7);
    object.put("big", new BigDecimal("1.50E+3")).put("huge", BigInteger.TEN.pow(30));
    object.put("bytes", new byte[] {1, 2, 3}).put("yes", true).putNull("nothing");
    object.putPOJO("pojo", java.util.List.of("a", 1));
    object.putObject("empty");
    object
        .putArray("list")
        .add(1)
        .add("two")
        .addNull()
        .add(NODES.arrayNode())
        .addObject()
        .put("k", false);
    ArrayNode deep = NODES.arrayNode();
    ArrayNode at = deep;
    for (int i = 0; i < 60; i++) {
      at = at.addArray();
      at.add(i);
    }
    object.set("deep", deep);
    for (JsonNode node :
        new JsonNode[] {
          object, deep, NODES.stringNode("alone"), NODES.numberNode(3), NODES.nullNode()
        }) {
      assertThat(direct(node)).isEqualTo(Inputs.JSON.writeValueAsString(node));
    }
  }

  private static String direct(JsonNode node) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator json = Inputs.JSON.writer().createGenerator(out)) {
      StreamExchange.writeData(json, node, 0);
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
