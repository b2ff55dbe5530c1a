package dev.alkdev.operations.mcpserver.internal;

import dev.alkdev.operations.CallError;
import dev.alkdev.operations.ErrorCode;
import dev.alkdev.operations.envelope.HttpResponseMeta;
import dev.alkdev.operations.envelope.McpContentBlock;
import dev.alkdev.operations.envelope.McpResponseMeta;
import dev.alkdev.operations.envelope.ResponseEnvelope;
import dev.alkdev.operations.schema.SchemaError;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Envelopes and errors to MCP tool results (the inverse of the client adapter's mapping; the one
 * table is in docs/mcp.md).
 */
final class ResultMapper {
  static final String META_ERROR = "dev.alkdev.operations/error";
  static final String META_HTTP = "dev.alkdev.operations/http";
  static final String META_ITEMS = "dev.alkdev.operations/items";

  private ResultMapper() {}

  /** A {@code CallToolResult} for a unary call's envelope. */
  static ObjectNode result(ResponseEnvelope<JsonNode> envelope, boolean structured) {
    if (envelope.meta() instanceof McpResponseMeta mcp) {
      // From an MCP source: its blocks and isError pass through unchanged.
      ObjectNode result = Json.object();
      ArrayNode content = result.putArray("content");
      for (McpContentBlock block : mcp.content()) {
        content.add(block.toJson());
      }
      mcp.structuredContent().ifPresent(value -> result.set("structuredContent", value));
      if (mcp.structuredContent().isEmpty() && structured && envelope.data().isObject()) {
        result.set("structuredContent", envelope.data());
      }
      if (mcp.isError()) {
        result.put("isError", true);
      }
      mcp.meta().ifPresent(value -> result.set("_meta", value));
      return result;
    }
    JsonNode data = envelope.data();
    ObjectNode result = Json.object();
    result.putArray("content").addObject().put("type", "text").put("text", Json.text(data));
    if (data.isObject()) {
      // MCP's structuredContent must be an object; other data is in the text block only.
      result.set("structuredContent", data);
    }
    if (envelope.meta() instanceof HttpResponseMeta http) {
      ObjectNode meta = result.putObject("_meta").putObject(META_HTTP);
      meta.put("statusCode", http.statusCode());
      meta.put("contentType", http.contentType());
    }
    return result;
  }

  /**
   * The result of a SUBSCRIPTION served to a tool call: every item's data, and why the list ends
   * ({@code complete}, or the cut: count, size, deadline).
   */
  static ObjectNode items(ArrayNode items, String end, boolean complete) {
    ObjectNode data = Json.object();
    data.set("items", items);
    data.put("complete", complete);
    data.put("end", end);
    ObjectNode result = Json.object();
    result.putArray("content").addObject().put("type", "text").put("text", Json.text(data));
    result.set("structuredContent", data);
    return result;
  }

  /** How a CallError reaches the client: a tool result with isError, or a JSON-RPC error. */
  record Outcome(ObjectNode result, int rpcCode, String rpcMessage, JsonNode rpcData) {
    boolean isResult() {
      return result != null;
    }
  }

  static Outcome error(CallError error, String toolName) {
    // The error object of every surface (code, message, retryable, details.errors).
    ObjectNode data = error.toJson();
    switch (error.code()) {
      case OPERATION_NOT_FOUND:
        return rpc(Json.INVALID_PARAMS, "Unknown tool: " + toolName, data);
      case UNAUTHENTICATED:
        return rpc(Json.UNAUTHENTICATED, error.getMessage(), data);
      case ACCESS_DENIED:
        return rpc(Json.ACCESS_DENIED, error.getMessage(), data);
      case PROTOCOL_ERROR:
        return rpc(Json.INVALID_REQUEST, error.getMessage(), data);
      case CANCELLED:
        return rpc(Json.REQUEST_CANCELLED, error.getMessage(), data);
      case INVALID_INPUT:
        return new Outcome(invalidInput(error, data), 0, null, null);
      default:
        // The tool ran (or could not run right now) and failed: a result the model reads, as MCP
        // intends for tool errors, with the code and retryable flag in _meta.
        return new Outcome(isError(error.code() + ": " + error.getMessage(), data), 0, null, null);
    }
  }

  private static Outcome rpc(int code, String message, JsonNode data) {
    return new Outcome(null, code, message, data);
  }

  /** Every field error, one per line, so a model can correct its call in one go. */
  private static ObjectNode invalidInput(CallError error, ObjectNode data) {
    List<SchemaError> errors = error.validationErrors();
    StringBuilder text = new StringBuilder("Invalid arguments");
    if (errors.isEmpty()) {
      text.append(": ").append(error.getMessage());
    } else {
      text.append(" (")
          .append(errors.size())
          .append(errors.size() == 1 ? " error" : " errors")
          .append("):");
      for (SchemaError schemaError : errors) {
        String path = schemaError.instancePath().isEmpty() ? "/" : schemaError.instancePath();
        text.append("\n- ").append(path).append(": ").append(schemaError.message());
      }
    }
    return isError(text.toString(), data);
  }

  private static ObjectNode isError(String text, ObjectNode data) {
    ObjectNode result = Json.object();
    result.putArray("content").addObject().put("type", "text").put("text", text);
    result.put("isError", true);
    result.putObject("_meta").set(META_ERROR, data);
    return result;
  }

  static boolean isInvalidInput(CallError error) {
    return error.code() == ErrorCode.INVALID_INPUT;
  }
}
