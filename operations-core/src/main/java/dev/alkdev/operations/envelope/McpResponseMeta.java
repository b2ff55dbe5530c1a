package dev.alkdev.operations.envelope;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.alkdev.operations.envelope.internal.WireJson;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The meta of an MCP tool result; mirrors MCP's {@code CallToolResult}.
 *
 * <p>{@code isError} true means the tool ran and reported an error as its result: that is a
 * successful call whose envelope the consumer inspects, not a {@link
 * dev.alkdev.operations.CallError} (only transport failures and the like throw).
 *
 * @param isError whether the tool reported its result as an error
 * @param content every content block of the result, for rendering or as a fallback; the envelope's
 *     data when there is no structured content
 * @param structuredContent the tool's structured output (MCP 2025-06-18 and later); when present it
 *     is also the envelope's data
 * @param meta MCP's {@code _meta}: protocol extensions. Named like the MCP Java SDK's {@code
 *     CallToolResult.meta()}, since Java style has no leading underscores; written as {@code _meta}
 */
public record McpResponseMeta(
    boolean isError,
    List<McpContentBlock> content,
    Optional<ObjectNode> structuredContent,
    Optional<ObjectNode> meta)
    implements ResponseMeta {

  public McpResponseMeta {
    content = List.copyOf(Objects.requireNonNull(content, "content"));
    Objects.requireNonNull(structuredContent, "structuredContent");
    Objects.requireNonNull(meta, "meta");
  }

  /** A result with content blocks only, no structured content and no {@code _meta}. */
  public static McpResponseMeta of(boolean isError, List<McpContentBlock> content) {
    return new McpResponseMeta(isError, content, Optional.empty(), Optional.empty());
  }

  public McpResponseMeta withStructuredContent(ObjectNode structuredContent) {
    return new McpResponseMeta(isError, content, Optional.of(structuredContent), meta);
  }

  public McpResponseMeta withMeta(ObjectNode meta) {
    return new McpResponseMeta(isError, content, structuredContent, Optional.of(meta));
  }

  @Override
  public ResponseSource source() {
    return ResponseSource.MCP;
  }

  @Override
  @JsonValue
  public ObjectNode toJson() {
    ObjectNode json = WireJson.object();
    json.put("source", source().wireName());
    json.put("isError", isError);
    ArrayNode blocks = json.putArray("content");
    content.forEach(block -> blocks.add(block.toJson()));
    structuredContent.ifPresent(value -> json.set("structuredContent", value));
    meta.ifPresent(value -> json.set("_meta", value));
    return json;
  }
}
