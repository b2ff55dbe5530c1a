package dev.alkdev.operations.mcp.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.envelope.McpContentBlock;
import dev.alkdev.operations.envelope.McpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.schema.Schema;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ResultMapperTest {
  static final Schema SUM =
      Schema.fromJson(
          "{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"number\"}},\"required\":[\"sum\"]}");

  static JsonNode json(String text) {
    return JsonMapper.shared().readTree(text);
  }

  @Test
  void singleJsonTextMatchingTheOutputSchemaIsData() {
    ResponseEnvelope<JsonNode> env =
        ResultMapper.envelope(
            json("{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"sum\\\":4}\"}]}"), SUM);
    assertThat(env.data().get("sum").asInt()).isEqualTo(4);
  }

  @Test
  void singleJsonTextNotMatchingStaysBlocks() {
    ResponseEnvelope<JsonNode> env =
        ResultMapper.envelope(
            json("{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"x\\\":4}\"}]}"), SUM);
    assertThat(env.data().isArray()).isTrue();
  }

  @Test
  void unknownBlockTypesAreKept() {
    ResponseEnvelope<JsonNode> env =
        ResultMapper.envelope(
            json("{\"content\":[{\"type\":\"video\",\"url\":\"v\"}],\"isError\":true}"),
            Schema.unknown());
    McpResponseMeta meta = (McpResponseMeta) env.meta();
    assertThat(meta.isError()).isTrue();
    assertThat(meta.content().get(0)).isInstanceOf(McpContentBlock.Unknown.class);
    assertThat(meta.content().get(0).toJson().get("url").stringValue()).isEqualTo("v");
  }

  @Test
  void notAnObjectIsAProtocolError() {
    assertThatThrownBy(() -> ResultMapper.envelope(json("[1]"), Schema.unknown()))
        .isInstanceOf(CallError.class);
  }

  @Test
  void toolNamesMapDeterministically() {
    assertThat(ToolMapper.operationName("echo")).isEqualTo("echo");
    assertThat(ToolMapper.operationName("a.b")).isEqualTo("a.b");
    assertThat(ToolMapper.operationName("files/read")).startsWith("files_read_").hasSize(19);
    assertThat(ToolMapper.operationName("files/read"))
        .isEqualTo(ToolMapper.operationName("files/read"))
        .isNotEqualTo(ToolMapper.operationName("files:read"));
    assertThat(ToolMapper.operationName("x".repeat(300)).length()).isLessThanOrEqualTo(128);
  }
}
