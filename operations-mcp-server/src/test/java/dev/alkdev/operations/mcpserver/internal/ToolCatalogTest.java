package dev.alkdev.operations.mcpserver.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.HttpResponseMeta;
import dev.alkdev.operations.envelope.McpContentBlock;
import dev.alkdev.operations.mcpserver.McpTool;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Tool names (the 64-character cut, collisions) and the result mapping, without a server. */
class ToolCatalogTest {
  private static OperationSpec spec(String namespace, String name) {
    return OperationSpec.builder(namespace, name).type(OperationType.QUERY).build();
  }

  @Test
  void longNamesAreCutDeterministicallyAndKeepTheirIdInMeta() {
    String name = "a".repeat(40) + "." + "b".repeat(40);
    OperationSpec spec = spec("ns", name);
    ToolCatalog first = ToolCatalog.build(List.of(spec), "", true, false, id -> true);
    ToolCatalog second = ToolCatalog.build(List.of(spec), "", true, false, id -> true);
    McpTool tool = first.tools().get(0).tool();
    assertThat(tool.name())
        .hasSize(64)
        .matches("[A-Za-z0-9_.-]+")
        .startsWith("ns." + "a".repeat(40));
    assertThat(tool.shortened()).isTrue();
    assertThat(second.tools().get(0).name()).isEqualTo(tool.name());
    assertThat(
            first.tools().get(0).json().at("/_meta/dev.alkdev.operations~1operationId").asString())
        .isEqualTo("ns." + name);
    assertThat(first.byName(tool.name()).spec()).isEqualTo(spec);
  }

  @Test
  void collisionsAreRenamedAndReported() {
    // Without namespaces, x.echo and y.echo both want "echo".
    ToolCatalog catalog =
        ToolCatalog.build(
            List.of(spec("y", "echo"), spec("x", "echo")), "", false, false, id -> true);
    assertThat(catalog.tools())
        .extracting(t -> t.tool().operationId())
        .containsExactly("x.echo", "y.echo");
    assertThat(catalog.tools().get(0).name()).isEqualTo("echo");
    assertThat(catalog.tools().get(1).name()).startsWith("echo_").hasSize(13);
    assertThat(catalog.collisions())
        .singleElement()
        .asString()
        .contains("y.echo")
        .contains("x.echo");
  }

  @Test
  void modelSafeNamesUseOnlyLettersDigitsUnderscoreAndHyphenAndStayDistinct() {
    // a.b_c and a_b.c are one name once the dots go: the later id gets its checksum.
    List<OperationSpec> specs =
        List.of(spec("a", "b_c"), spec("a_b", "c"), spec("ns", "x".repeat(70)), spec("k-8", "s"));
    ToolCatalog catalog = ToolCatalog.build(specs, "gh.", true, true, id -> true);
    assertThat(catalog.tools())
        .allSatisfy(tool -> assertThat(tool.name()).matches("[A-Za-z0-9_-]{1,64}"));
    assertThat(catalog.tools()).extracting(ToolCatalog.Tool::name).doesNotHaveDuplicates();
    assertThat(catalog.byName("gh_a_b_c").spec().id()).isEqualTo("a.b_c");
    assertThat(catalog.collisions()).singleElement().asString().contains("a_b.c");
    // The same names whatever the order the operations came in.
    List<OperationSpec> reversed = new java.util.ArrayList<>(specs);
    java.util.Collections.reverse(reversed);
    assertThat(ToolCatalog.build(reversed, "gh.", true, true, id -> true).tools())
        .extracting(ToolCatalog.Tool::name)
        .containsExactlyElementsOf(catalog.tools().stream().map(ToolCatalog.Tool::name).toList());
  }

  @Test
  void thePrefixCountsTowardTheLimit() {
    ToolCatalog catalog =
        ToolCatalog.build(List.of(spec("ns", "n".repeat(60))), "github_", true, false, id -> true);
    assertThat(catalog.tools().get(0).name()).hasSize(64).startsWith("github_ns.");
  }

  @Test
  void httpEnvelopesKeepStatusAndContentType() {
    ObjectNode data = Json.object().put("id", 7);
    JsonNode result =
        ResultMapper.result(
            Envelopes.httpEnvelope(data, HttpResponseMeta.of(201, Map.of(), "application/json")),
            true);
    assertThat(result.get("structuredContent")).isEqualTo(data);
    assertThat(result.at("/_meta/dev.alkdev.operations~1http/statusCode").asInt()).isEqualTo(201);
    assertThat(result.at("/_meta/dev.alkdev.operations~1http/contentType").asString())
        .isEqualTo("application/json");
  }

  @Test
  void mcpEnvelopesPassThrough() {
    JsonNode result =
        ResultMapper.result(
            Envelopes.mcpEnvelope(
                Json.NODES.arrayNode(), true, List.of(McpContentBlock.text("upstream failed"))),
            false);
    assertThat(result.get("isError").asBoolean()).isTrue();
    assertThat(result.at("/content/0/text").asString()).isEqualTo("upstream failed");
    assertThat(result.has("structuredContent")).isFalse();
  }

  @Test
  void theErrorTable() {
    assertThat(ResultMapper.error(CallError.of(ErrorCode.OPERATION_NOT_FOUND, "x"), "t").rpcCode())
        .isEqualTo(-32602);
    assertThat(ResultMapper.error(CallError.of(ErrorCode.UNAUTHENTICATED, "x"), "t").rpcCode())
        .isEqualTo(-32001);
    assertThat(ResultMapper.error(CallError.of(ErrorCode.ACCESS_DENIED, "x"), "t").rpcCode())
        .isEqualTo(-32003);
    assertThat(ResultMapper.error(CallError.of(ErrorCode.PROTOCOL_ERROR, "x"), "t").rpcCode())
        .isEqualTo(-32600);
    for (ErrorCode code :
        List.of(
            ErrorCode.EXECUTION_ERROR,
            ErrorCode.DEADLINE_EXCEEDED,
            ErrorCode.UNAVAILABLE,
            ErrorCode.NO_RESPONDERS,
            ErrorCode.RESOURCE_EXHAUSTED,
            ErrorCode.INVALID_INPUT)) {
      ResultMapper.Outcome outcome = ResultMapper.error(CallError.of(code, "why"), "t");
      assertThat(outcome.isResult()).as(code.name()).isTrue();
      assertThat(outcome.result().get("isError").asBoolean()).isTrue();
      assertThat(outcome.result().at("/_meta/dev.alkdev.operations~1error/code").asString())
          .isEqualTo(code.name());
      assertThat(outcome.result().at("/_meta/dev.alkdev.operations~1error/retryable").asBoolean())
          .isEqualTo(code.retryableByDefault());
    }
  }
}
