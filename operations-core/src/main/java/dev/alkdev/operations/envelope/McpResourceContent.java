package dev.alkdev.operations.envelope;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.alkdev.operations.envelope.internal.WireJson;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The contents of a resource embedded in an MCP {@link McpContentBlock.Resource} block: text or a
 * base64 blob. As in the seeds, both are optional (MCP sends one of them).
 *
 * @param uri the resource's URI
 * @param mimeType its media type
 * @param text its contents, when they are text
 * @param blob its contents base64-encoded, when they are binary (kept encoded, as received)
 * @param unknownFields fields newer MCP versions add ({@code _meta}, say), kept for the round trip
 */
public record McpResourceContent(
    String uri,
    Optional<String> mimeType,
    Optional<String> text,
    Optional<String> blob,
    Map<String, JsonNode> unknownFields) {

  private static final Set<String> KNOWN = Set.of("uri", "mimeType", "text", "blob");

  public McpResourceContent {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(mimeType, "mimeType");
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(blob, "blob");
    unknownFields = WireJson.unknownFields(unknownFields, "McpResourceContent", KNOWN);
  }

  /** A text resource. */
  public static McpResourceContent ofText(String uri, String mimeType, String text) {
    return new McpResourceContent(
        uri, Optional.of(mimeType), Optional.of(text), Optional.empty(), Map.of());
  }

  /** A binary resource, its contents base64-encoded. */
  public static McpResourceContent ofBlob(String uri, String mimeType, String base64Blob) {
    return new McpResourceContent(
        uri, Optional.of(mimeType), Optional.empty(), Optional.of(base64Blob), Map.of());
  }

  /** These contents as the seeds' JSON; also what Jackson writes for them. */
  @JsonValue
  public ObjectNode toJson() {
    ObjectNode json = WireJson.object();
    json.put("uri", uri);
    mimeType.ifPresent(value -> json.put("mimeType", value));
    text.ifPresent(value -> json.put("text", value));
    blob.ifPresent(value -> json.put("blob", value));
    return WireJson.putUnknown(json, unknownFields);
  }
}
