package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.envelope.Envelopes;
import dev.alkdev.operations.envelope.McpContentBlock;
import dev.alkdev.operations.envelope.McpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.schema.Schema;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Turns a {@code tools/call} result (its raw JSON) into an MCP envelope. */
public final class ResultMapper {
  private ResultMapper() {}

  /**
   * The envelope for a result. Data: the structured content when there is some; else, when the tool
   * declares an output schema and the result is one text block holding JSON that matches it, that
   * JSON (servers written before structured content did this); else the content blocks.
   *
   * @throws CallError PROTOCOL_ERROR when the result is not a tool result
   */
  public static ResponseEnvelope<JsonNode> envelope(JsonNode result, Schema outputSchema) {
    if (!(result instanceof ObjectNode object)) {
      throw CallError.of(ErrorCode.PROTOCOL_ERROR, "The tool result is not a JSON object");
    }
    ObjectNode meta = ToolMapper.JSON.createObjectNode();
    meta.put("source", "mcp");
    meta.put("isError", object.path("isError").asBoolean(false));
    JsonNode content = object.get("content");
    if (!(content instanceof ArrayNode)) {
      // MCP requires it; a result without it is not a tool result (and not an empty success).
      throw CallError.of(
          ErrorCode.PROTOCOL_ERROR,
          "The tool result has no content array (MCP requires one): "
              + Texts.oneLine(object.toString()));
    }
    meta.set("content", content);
    JsonNode structured = object.get("structuredContent");
    if (structured instanceof ObjectNode) {
      meta.set("structuredContent", structured);
    }
    JsonNode underscoreMeta = object.get("_meta");
    if (underscoreMeta instanceof ObjectNode) {
      meta.set("_meta", underscoreMeta);
    }
    ObjectNode wrapped = ToolMapper.JSON.createObjectNode();
    wrapped.putNull("data");
    wrapped.set("meta", meta);
    // Core's reader keeps unknown block types and unknown fields, and names a malformed field.
    McpResponseMeta read = (McpResponseMeta) Envelopes.fromJson(wrapped).meta();
    return Envelopes.mcpEnvelope(data(read, outputSchema), read);
  }

  private static JsonNode data(McpResponseMeta meta, Schema outputSchema) {
    if (meta.structuredContent().isPresent()) {
      return meta.structuredContent().get();
    }
    if (!outputSchema.isUnknown() && !meta.isError()) {
      Optional<JsonNode> parsed = singleJsonText(meta);
      if (parsed.isPresent() && outputSchema.isValid(outputSchema.cast(parsed.get()))) {
        return parsed.get();
      }
    }
    ArrayNode blocks = ToolMapper.JSON.createArrayNode();
    meta.content().forEach(block -> blocks.add(block.toJson()));
    return blocks;
  }

  private static Optional<JsonNode> singleJsonText(McpResponseMeta meta) {
    if (meta.content().size() != 1 || !(meta.content().get(0) instanceof McpContentBlock.Text t)) {
      return Optional.empty();
    }
    String text = t.text().strip();
    if (!text.startsWith("{") && !text.startsWith("[")) {
      return Optional.empty();
    }
    try {
      return Optional.of(ToolMapper.JSON.readTree(text));
    } catch (JacksonException e) {
      return Optional.empty();
    }
  }
}
