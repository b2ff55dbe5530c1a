package dev.alkdev.operations.mcp.internal;

import dev.alkdev.operations.OperationSpec;
import dev.alkdev.operations.OperationType;
import dev.alkdev.operations.schema.FromSchema;
import dev.alkdev.operations.schema.Schema;
import dev.alkdev.operations.schema.SchemaOptions;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.zip.CRC32;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Turns an MCP tool into an operation spec. */
public final class ToolMapper {
  static final JsonMapper JSON = JsonMapper.shared();
  private static final int MAX_NAME = 128;

  private ToolMapper() {}

  /**
   * The operation name for a tool: the tool's own name when core allows it, else the name with
   * every character outside {@code [A-Za-z0-9_-]} (and empty dot segments) replaced by {@code _},
   * plus {@code _} and the CRC-32 of the original name in hex, so two tools never map to one name
   * and the mapping does not depend on the other tools.
   */
  public static String operationName(String toolName) {
    if (OperationSpec.isValidId("x." + toolName)) {
      return toolName;
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < toolName.length() && out.length() < MAX_NAME - 9; i++) {
      char c = toolName.charAt(i);
      boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      out.append(plain || c == '-' || c == '_' ? c : '_');
    }
    CRC32 crc = new CRC32();
    crc.update(toolName.getBytes(StandardCharsets.UTF_8));
    return out + "_" + String.format("%08x", crc.getValue());
  }

  /** The spec of {@code tool} on server {@code namespace}. */
  public static OperationSpec spec(String namespace, McpSchema.Tool tool, SchemaOptions options) {
    String description =
        tool.description() != null ? tool.description() : tool.title() != null ? tool.title() : "";
    boolean readOnly =
        tool.annotations() != null && Boolean.TRUE.equals(tool.annotations().readOnlyHint());
    // A tool that only reads is safe to repeat; one that writes only when it says idempotentHint
    // (so a caller may retry it on another node after losing the first mid-call).
    boolean idempotent =
        readOnly
            || (tool.annotations() != null
                && Boolean.TRUE.equals(tool.annotations().idempotentHint()));
    return OperationSpec.builder(namespace, operationName(tool.name()))
        .description(description)
        .type(
            isStream(tool)
                ? OperationType.SUBSCRIPTION
                : readOnly ? OperationType.QUERY : OperationType.MUTATION)
        .idempotent(idempotent)
        .inputSchema(schema(tool.inputSchema(), options))
        .outputSchema(schema(isStream(tool) ? itemSchema(tool) : tool.outputSchema(), options))
        .build();
  }

  /** The key of an operations server's tool {@code _meta} that names the operation's type. */
  static final String META_TYPE = "dev.alkdev.operations/type";

  /**
   * Whether the tool is a stream: an operations server marks a SUBSCRIPTION's tool so, and sends
   * each item as a {@code notifications/progress} whose message is the item's JSON (docs/mcp.md).
   */
  static boolean isStream(McpSchema.Tool tool) {
    return tool.meta() != null && "SUBSCRIPTION".equals(tool.meta().get(META_TYPE));
  }

  /** A stream's item schema, which an operations server puts in the tool's {@code _meta}. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> itemSchema(McpSchema.Tool tool) {
    return tool.meta().get("dev.alkdev.operations/itemSchema") instanceof Map<?, ?> schema
        ? (Map<String, Object>) schema
        : null;
  }

  private static Schema schema(Map<String, Object> schema, SchemaOptions options) {
    if (schema == null) {
      return Schema.unknown();
    }
    // FromSchema never throws on a bad document: hostile tool schemas degrade, they do not crash.
    JsonNode json = JSON.valueToTree(schema);
    return FromSchema.convert(json, FromSchema.Dialect.JSON_SCHEMA, options);
  }
}
